"""The football card game on the dealer console: ten boxes and the common
box, the draw as the display shows it; a draw never read back voids the round."""

from __future__ import annotations

from typing import Any

from tablesim.games.football.machine import CARD_STATES, S
from tablesim.games.football.profile import COMMON
from tablesim.games.football.rules import total
from tablesim.games.console import Action, GameAdapter


class FootballConsole(GameAdapter):
    title = "Football card game"
    DELAYS = {"CardRead": 1.0, "DrawShown": 1.5, "ShoeCount": 0.0}
    #: no read-back from the display within this many seconds voids the round
    DRAW_TIMEOUT = 10.0

    def game_actions(self) -> list[Action]:
        return [self.button("deal", "Deal", "start_dealing")]

    def positions(self) -> list[str]:
        return list(self.table.profile.positions)

    def layout(self) -> dict[str, Any]:
        p = self.table.profile
        return {
            "kind": "boxes",
            "positions": self.positions(),
            "common": COMMON,
            "bets": list(self.table.book.bet_names),
            "bet_labels": {b: b.capitalize() for b in self.table.book.bet_names},
            "dealer": False,
            "decks": self.table.settings.decks,
            "profile": p.name,
            "numbers": {"middle": sorted(p.middle), "odd": sorted(p.odd), "even": sorted(p.even)},
        }

    def view(self) -> dict[str, Any]:
        t = self.table
        draw = getattr(t, "draw", None)
        cards = getattr(t, "cards", {}) or {}
        boxes = {}
        for box in self.positions():
            dealt = cards.get(box, [])
            boxes[box] = {
                "cards": [d.code for d in dealt],
                "total": total(t.profile, (d.card for d in dealt)) if len(dealt) >= 2 else None,
                "third_due": box in (getattr(t, "targets", []) or []) and t.state is S.THIRD_CARDS,
                "dealt": box in cards,
            }
        return {
            "draw": ({"index": draw.index, "upper": list(draw.upper), "lower": list(draw.lower)}
                     if draw is not None else None),
            "drawing": t.state is S.DRAWING,
            "boxes": boxes,
            "pack_id": t.pack.pack_id,
            "set_aside": [d.code for d in getattr(t, "set_aside", [])],
            "next": self._next(),
            # the same in the pages' words: a message id of the game's catalogs and its values
            "next_say": self._next_say(),
        }

    def _next(self) -> str | None:
        """What the dealer deals next, from the round itself (so it is right
        also after a recovery, when no instruction has been announced)."""
        t = self.table
        targets = getattr(t, "targets", None) or []
        if t.state not in CARD_STATES or not targets:
            return None
        who = "the common box" if targets[0] == COMMON else f"box {targets[0]}"
        return f"{'third card' if t.state is S.THIRD_CARDS else 'two cards'} to {who}"

    def _next_say(self) -> dict[str, Any] | None:
        """:meth:`_next` as a message id and its values (``box``: the box dealt to)."""
        t = self.table
        targets = getattr(t, "targets", None) or []
        if t.state not in CARD_STATES or not targets:
            return None
        what = "third" if t.state is S.THIRD_CARDS else "two"
        if targets[0] == COMMON:
            return {"id": f"football.next.{what}_to_common", "params": {"box": COMMON}}
        return {"id": f"football.next.{what}_to_box", "params": {"box": targets[0]}}

    def on_event(self, kind: str, data: dict) -> None:
        if kind in ("result",) and self.rig is not None:
            self.rig.round_over()

    def stalled(self, seconds: float) -> None:
        t = self.table
        if t.state is S.DRAWING and seconds >= self.DRAW_TIMEOUT:
            t.await_draw(0)  # no read-back: the round is void (display_timeout); never waits here

    def waiting_for(self) -> str | None:
        t = self.table
        if t.state is S.DRAWING:
            return "display"
        return "shoe" if t.state in CARD_STATES else None
