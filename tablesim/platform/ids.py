"""The platform's transaction ids. A bet's debit id is new (and is the bet's
ref on the bus); every id that closes it is derived from what it closes, so
any process, at any retry, after any crash, sends the same id for the same
act and the wallet answers it once."""

from __future__ import annotations

import hashlib
import uuid


def new_debit() -> str:
    return "d-" + uuid.uuid4().hex


def cancel_of(debit: str) -> str:
    return "x-" + hashlib.sha256(debit.encode()).hexdigest()[:40]


def credit_of(table: str, round_id: str, player: str) -> str:
    """The one credit of a player's round."""
    return "c-" + hashlib.sha256(f"{table}\n{round_id}\n{player}".encode()).hexdigest()[:40]
