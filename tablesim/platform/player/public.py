"""What a remote player may see of a table's records: the one place the
platform's public view is made.

The stream carries every journal record a table wrote, its inputs with the
device reports (a face-down card's code among them), the operators' words
and the bets of every player. A player is shown only table events of the
kinds named in ``SHOWN``, each through the table's own public rules
(``tablesim.web.redaction``: incidents' cards and card codes in free texts
hidden) after the game's own console redaction (e.g. a dealer's cards dealt
face down until the reveal), applied to the table's state as the stream
shows it, then with what the game adds for its remote players (its
``RemoteView``: e.g. a hand's rank once its cards are out). Everything else
(inputs, operator and meta records, bets, bet refs, settlements naming other
players) never leaves the platform; a result goes out as its outcome only,
each player's own part apart (``own_result``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

from tablecore.codec import decode
from tablecore.plainjson import jsonable
from tablesim.games import registry
from tablesim.web import redaction as table_public
from tablesim.studio.wire import WireRecord

#: the event kinds a player is shown as they happen (the rest stays in the platform)
SHOWN = frozenset({
    "state", "spin_started", "revolution", "spin_result", "no_spin", "invalid_spin",  # a spin
    "draw", "card", "card_set_aside", "shoe_count",  # cards (a draw once shown)
    "dealer", "decision", "void", "incident", "incident_resolved",
    "remote_decisions",  # a shared remote hand: its players' decision timer starts (counts and seconds only)
})
#: fields of a shown event that may name a player (never shown to others)
PRIVATE_FIELDS = ("player", "players", "actor", "by")


def _game_redact(game: str) -> Callable[[dict, str], dict]:
    """The game's console redaction as a function of (message, the table's state):
    the console adapter's own ``redact`` on a stand-in of the table holding
    only the state the stream shows (what the rules read)."""
    spec = registry.spec(game)
    adapter, states = spec.part("console"), spec.states()

    def redact(msg: dict, state: str) -> dict:
        stand_in = object.__new__(adapter)
        if states is None:  # (a game with no procedure named: its state as the stream says it)
            table_state: Any = SimpleNamespace(value=state or "idle")
        else:
            try:
                table_state = states(state)
            except ValueError:
                table_state = states("idle")
        stand_in.table = SimpleNamespace(state=table_state)
        return adapter.redact(stand_in, msg)

    return redact


class PublicTable:
    """One table's public view, following its records in stream order."""

    def __init__(self, table: str, game: str) -> None:
        self.table = table
        self.game = game
        self.state = ""
        self.round_id = ""
        self._redact = _game_redact(game)
        self._open = table_public.event_redactor(lambda msg: self._redact(msg, self.state))
        self._follower = registry.spec(game).remote_view().follower()  # what the game adds to what is shown

    def shown(self, rec: WireRecord) -> dict | None:
        """The event message a player sees for ``rec``, or None (nothing shown)."""
        if rec.kind != "event":
            return None
        if rec.name == "state":
            self.state, self.round_id = str(rec.data.get("state") or ""), rec.round_id
        if rec.name not in SHOWN:
            return None
        data = {k: v for k, v in plain(rec.data).items() if k not in PRIVATE_FIELDS}
        msg = {"kind": rec.name, "round_id": rec.round_id, "data": data}
        msg = self._follower.shown(self._open(msg))
        return {"type": "event", "table": self.table, "seq": rec.seq, "ts": rec.ts, **msg}


def outcome(result: dict) -> dict:
    """A result as every player sees it: its status, outcome and void reason."""
    return {"status": result.get("status"), "outcome": plain(result.get("outcome") or {}),
            "void_reason": result.get("void_reason")}


def short(game: str, result: dict) -> dict:
    """A result as the lobby lists it: its status and, settled, what the game
    lists of its outcome (its ``RemoteView.short``: e.g. a symbol, a dealer's hand)."""
    if result.get("status") != "settled":
        return {"status": result.get("status")}
    return {"status": "settled", **registry.spec(game).remote_view().short(result.get("outcome") or {})}


def plain(value: Any) -> Any:
    """A record's data as plain JSON (amounts as text, cards as codes)."""
    try:
        return jsonable(decode(value))
    except Exception:  # (a value the codec does not know: shown as the table wrote it)
        return value
