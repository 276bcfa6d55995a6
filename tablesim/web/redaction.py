"""What the table's open interfaces show: the one place the public view is made.

Every open interface (``GET /api/table``, ``/api/events``, ``/api/history``,
``/api/results``, the WebSocket's hello, snapshots and events, the board)
is built from what this module returns, never from the table's own data.
A card a device or a supervisor named in an incident may be one the table
holds face down (a misread dealer's card, the card the supervisor names for
it): nobody without a token sees it before its reveal.

- An incident's ``card`` (and its resolution's) is ``??`` on every open
  interface. The card becomes public the way every card does: at its reveal
  (the game's own events and view show it, e.g. Fortune 3's dealer cards at
  the dealer's reveal); only the authenticated console
  (``GET /api/incident``) reads it, to resolve the incident.
- Free texts (a device's fault text, a supervisor's or dealer's ``why``) may
  name a card: card codes in them are ``??``.
- A round's history is shown whole once the round is over; until then the
  game's own redaction applies and the above too.
- The journal's location is not shown (its file name only).
- No player: their ids, their own stakes and decisions are not shown, the
  totals per spot and bet and the count of players are
  (``tablesim.web.opentotals``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from tablesim.games.console import HIDDEN
from tablesim.web import opentotals

#: the event kinds that carry an incident's card
INCIDENT_KINDS = ("incident", "incident_resolved")
#: the free-text fields of an event or an incident
TEXT_FIELDS = ("text", "why")
#: a card code inside a free text (AS, TD, 10H, 7C^), not part of a longer word
_CARD_CODE = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[SHDC]\^?(?![A-Za-z0-9])")


def hide_cards(text: Any) -> Any:
    """A free text with the card codes in it hidden (anything but a text: as it is)."""
    return _CARD_CODE.sub(HIDDEN, text) if isinstance(text, str) else text


def _scrubbed(data: dict, hide_card: bool) -> dict:
    out = dict(data)
    if hide_card and out.get("card") is not None:
        out["card"] = HIDDEN
    for key in TEXT_FIELDS:
        if key in out:
            out[key] = hide_cards(out[key])
    if isinstance(out.get("say"), dict):  # a text's values hide their cards as the text does
        say = out["say"]
        out["say"] = {**say, "args": {k: hide_cards(v) for k, v in (say.get("args") or {}).items()}}
    return out


def incident(inc: dict | None) -> dict | None:
    """The open table's incident: what happened, never the card."""
    return None if inc is None else _scrubbed(inc, True)


def faults(by_key: dict[str, dict]) -> dict[str, dict]:
    """Active faults as shown openly (their texts without card codes)."""
    return {k: _scrubbed(v, False) for k, v in by_key.items()}


def device_faults(faults_by_code: dict[str, Any]) -> dict[str, Any]:
    return {k: hide_cards(v) for k, v in faults_by_code.items()}


def event_redactor(game_redact: Callable[[dict], dict], spots: bool | None = None,
                   shared: str | None = None) -> Callable[[dict], dict]:
    """The open stream's view of one event message: the game's redaction, then
    the incidents' cards and the texts, and, given ``spots`` (whether the
    table's positions are spots, not its players), no player
    (``tablesim.web.opentotals``; ``shared``: the position of the table's
    shared remote hand, whose players' decisions are counted, not shown). A stream event never becomes public later
    (the reveal's own events carry the cards), so this is unconditional."""

    def redact(msg: dict) -> dict:
        msg = game_redact(msg)
        if spots is not None:
            msg = opentotals.event(msg, spots, shared)
            if msg.get("kind") in opentotals.BET_EVENTS:
                return msg  # (a bet's data is its position and bet at most now: no text, no incident)
        data = msg.get("data")
        if isinstance(data, dict) and (msg.get("kind") in INCIDENT_KINDS or any(k in data for k in TEXT_FIELDS)):
            msg = {**msg, "data": _scrubbed(data, msg.get("kind") in INCIDENT_KINDS)}
        return msg

    return redact


def summary(game_redact: Callable[[dict], dict], rnd: dict, spots: bool = True) -> dict:
    """A round of the history as shown openly: whole once it is over, but
    for its players (their totals only: ``tablesim.web.opentotals``)."""
    rnd = opentotals.summary(game_redact(rnd), spots)
    if rnd.get("status") != "in_progress":
        return rnd
    events = [_scrubbed(ev, ev.get("kind") in INCIDENT_KINDS) for ev in rnd.get("events", [])]
    return {**rnd, "events": events}


def hide_path(text: str, journal) -> str:
    """A text (a refusal, a health problem) without where the journal is: its file name only."""
    if journal is None or not isinstance(text, str) or journal.path == ":memory:":
        return text
    name = Path(journal.path).name
    for where in {str(Path(journal.path).resolve()), str(journal.path)}:
        text = text.replace(where, name)
    return text
