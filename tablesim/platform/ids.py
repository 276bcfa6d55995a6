"""The platform's transaction ids. A bet's debit id is new (and is the bet's
ref on the bus); every id that closes it is derived from what it closes, so
any process, at any retry, after any crash, sends the same id for the same
act and the wallet answers it once."""

from __future__ import annotations

import hashlib
import itertools
import os


def _fresh() -> None:
    """A new random prefix (80 bits) and count: a forked process never repeats its parent's ids."""
    global _prefix, _count
    _prefix, _count = "d-" + os.urandom(10).hex(), itertools.count(1)


_fresh()
os.register_at_fork(after_in_child=_fresh)


def new_debit() -> str:
    """A debit id no process makes twice: the process's random prefix and its
    count (32 hex digits in all; a random id's cost without its system call)."""
    return f"{_prefix}{next(_count):012x}"


def cancel_of(debit: str) -> str:
    return "x-" + hashlib.sha256(debit.encode()).hexdigest()[:40]


def credit_of(table: str, round_id: str, player: str, part: int = 0) -> str:
    """The credit of a player's round (its ``part``-th, for a player with more
    debits than one credit names: ``settle.credit_parts``)."""
    first = "c-" + hashlib.sha256(f"{table}\n{round_id}\n{player}".encode()).hexdigest()[:40]
    return first if part == 0 else f"{first}-p{part}"
