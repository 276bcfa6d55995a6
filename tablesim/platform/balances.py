"""A player's balance told to their pages as soon as settlement moved it.

Settlement runs in whichever platform process took the round's result
(``settle``), and a player's pages may be connected to any other. The
process that had a credit (or a void round's cancel) confirmed by the
wallet publishes the balance the wallet answered on ``SUBJECT`` (core NATS,
no stream: at most once); every platform process subscribes to it and
hands it to that player's pages (``Hub.balance``). A page told so does not
ask the wallet itself; a note lost on the way costs only the page's one
later ask (its ``BALANCE_AFTER``), which reads the same balance. Before,
every page asked three times after each result, a guess at when the
credit would land: 1,200 wallet calls a round for 400 bettors, 15,000 for
5,000, and still late by up to a few seconds.

Only a result handed out for the first time is told: one handed out again
(a process died before acknowledging it) or settled by the backstop may
find its credits made long before, which the wallet answers as it did,
with the balance of back then.

Only the platform's bus user may publish or read the subject
(``tablesim.studio.credentials``): a balance is no business of a table's.
"""

from __future__ import annotations

import json
from decimal import Decimal

from tablesim.studio.wire import CREDITED_SUBJECT as SUBJECT


def note(player: str, currency: str, balance: Decimal) -> bytes:
    return json.dumps({"player": player, "currency": currency, "balance": format(balance, "f")},
                      separators=(",", ":")).encode()


def read(data: bytes) -> tuple[str, str, str] | None:
    """(player, currency, balance's text) of a note, or None for anything else."""
    try:
        doc = json.loads(data)
        player, currency, balance = doc["player"], doc["currency"], doc["balance"]
    except (ValueError, TypeError, KeyError):
        return None
    if not all(isinstance(v, str) and 0 < len(v) <= 64 for v in (player, currency, balance)):
        return None
    try:
        if not Decimal(balance).is_finite():
            return None
    except ArithmeticError:
        return None
    return player, currency, balance
