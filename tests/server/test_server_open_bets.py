"""A bet event as the open stream shows it (``tablesim.web.redaction``): one bet is one
player's stake, so only where it lies goes out (the position and the bet on a table of
spots, the bet alone where positions are players), whatever else the event holds."""

from __future__ import annotations

from tablesim.web import redaction


def test_a_bet_event_shows_where_it_lies_and_nothing_else_whatever_it_holds():
    held = {"position": "ann", "bet": "red", "amount": "5", "player": "ann", "text": "AS here", "why": "TD"}
    for kind in ("bet", "bet_withdrawn"):
        msg = {"type": "event", "seq": 9, "kind": kind, "round_id": "R-1", "ts": "t", "data": dict(held)}
        for spots, shown in ((True, {"position": "ann", "bet": "red"}), (False, {"bet": "red"})):
            out = redaction.event_redactor(lambda m: m, spots=spots)(msg)
            assert out == {**msg, "data": shown}
            assert msg["data"] == held  # (the table's own message is not changed)
        no_bet = {**msg, "data": {"position": "ann"}}
        assert redaction.event_redactor(lambda m: m, spots=False)(no_bet)["data"] == {}
        odd = {**msg, "data": "not a dict"}
        assert redaction.event_redactor(lambda m: m, spots=True)(odd) == odd
    # another kind's free text is still scrubbed of its cards
    note = {"type": "event", "seq": 10, "kind": "note", "round_id": "R-1", "ts": "t", "data": {"text": "saw AS"}}
    assert "AS" not in redaction.event_redactor(lambda m: m, spots=True)(note)["data"]["text"]
