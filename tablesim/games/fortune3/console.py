"""Fortune 3 Card Poker on the dealer console: boxes with a dealer hand,
play/fold per box; the dealer's cards stay hidden until the reveal."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tablecore.money import ZERO, exact
from tablecore.plainjson import jsonable
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.table import DEALER
from typing import Literal

from pydantic import Field

from tablesim.games.fortune3.profile import REMOTE
from tablesim.games.console import HIDDEN, Action, Body, DecideBody, GameAdapter


class DealingBody(Body):
    """A supervisor's switch of the dealing mode (Art. 11(4))."""

    mode: Literal["shoe", "shuffler"]
    why: str = Field(min_length=1, max_length=500)


class StrayBody(Body):
    """Art. 11(3): the stray card; none: the latest card or hand dealt."""

    card: str | None = Field(None, min_length=2, max_length=4)


class ReplacedBody(Body):
    """A supervisor's word that the failed shuffler was replaced (Art. 11(4))."""

    why: str = Field(min_length=1, max_length=500)


class Fortune3Console(GameAdapter):
    title = "Fortune 3 Card Poker"
    DELAYS = {"CardRead": 1.0, "HandDispensed": 2.0, "ShuffleDone": 0.5}

    def game_actions(self) -> list[Action]:
        t = self.table
        return [
            self.button("deal", "Deal", "start_dealing"),
            Action("decide", "Play / fold", "dealer", lambda b: t.decide(b.box, b.decision, b.player),
                   lambda: t.can("decide"), DecideBody, ("box", "decision"), hidden=True),
            self.button("misdeal", "Misdeal"),
            # Art. 11(3): a card (or hand) went to a box with no bet: the latest one,
            # or one named (noticed late: the round waits for a supervisor's word).
            Action("stray", "Stray card", "dealer", lambda b: t.stray(b.card), lambda: t.can("stray"),
                   StrayBody, ("card",)),
            self.button("reveal", "Reveal", enabled=lambda: t.settings.reveal_by_dealer and t.can("reveal")),
            # Art. 11(4): after a shuffler failure, deal the following rounds from the shoe (and back).
            Action("set_dealing", "Dealing mode", "supervisor",
                   lambda b: t.set_dealing(b.mode, actor=t.asked_by("set_dealing"), why=b.why),
                   lambda: t.shoe is not None and t.shuffler is not None
                   and t.can("set_dealing", "shuffler" if t.dealing == "shoe" else "shoe", why="-"),
                   DealingBody, ("mode", "why")),
            # Art. 11(4): the shuffler that failed was replaced: the table deals from it again.
            Action("confirm_shuffler", "Shuffler replaced", "supervisor",
                   lambda b: t.confirm_shuffler(actor=t.asked_by("confirm_shuffler"), why=b.why),
                   lambda: t.can("confirm_shuffler", why="-"), ReplacedBody, ("why",)),
        ]

    def positions(self) -> list[str]:
        return [str(b) for b in range(1, self.table.profile.boxes + 1)]

    def waiting_for(self) -> str | None:
        t = self.table
        return t.dealing if t.state is S.DEALING else None

    def layout(self) -> dict[str, Any]:
        return {
            "kind": "boxes",
            "positions": self.positions(),
            "bets": list(self.table.book.bet_names),
            "bet_labels": {"ante": "Ante", "pair_plus": "Pair Plus"},
            "dealer": True,
            "dealing": self.table.dealing,
            "profile": self.table.profile.name,
        }

    def _revealed(self) -> bool:
        return self.table.state in (S.DEALER_REVEAL, S.SETTLEMENT, S.COMPLETE)

    def view(self) -> dict[str, Any]:
        t = self.table
        revealed = self._revealed()
        plays = self._plays()
        boxes = {}
        for box in self.positions():
            cards = [d.code for d in t.cards.get(box, [])]
            hand = t.hands.get(box)
            boxes[box] = {
                "cards": cards,
                "hand": hand.category if hand is not None else None,
                "decision": t.decisions.get(box),
                "dealt": box in t.cards,
                # the Play stake a play made (Art. 9(1)): on the layout as a spot of its own
                "play": jsonable(plays[box]) if box in plays else None,
            }
        dealer_cards = [d.code for d in t.cards.get(DEALER, [])]
        dealer_hand = t.hands.get(DEALER)
        return {
            "boxes": boxes,
            "dealer": {
                "cards": dealer_cards if revealed else [HIDDEN] * len(dealer_cards),
                "hand": dealer_hand.category if (revealed and dealer_hand is not None) else None,
                "qualifies": (t.result.outcome.get("dealer", {}).get("qualifies")
                              if revealed and t.result is not None else None),
            },
            "pending_decisions": t.pending_decisions() if t.state.value == "decisions" else [],
            # a card set aside face down (a stray, Art. 11(3)) stays hidden until the reveal
            "set_aside": [d.code if (revealed or d.exposed) else HIDDEN for d in t.set_aside],
            "dealing": t.dealing,
            # Art. 11(4): {"round", "reason"} while the failed shuffler waits for a
            # supervisor's confirmation (no round opens by shuffler), else None
            "shuffler_out_of_service": t.shuffler_out_of_service,
            # every stake on the table: the bets and the Play stakes made
            "in_play": jsonable(_total(t.book.total(), plays.values())),
            # the shared remote hand (a profile with one): its cards, its players, who still decides
            "remote": self._remote() if t.has_remote else None,
            "next": self._next(),
            # the same in the pages' words: a message id of the game's catalogs and its values
            "next_say": self._next_say(),
        }

    def _next(self) -> str | None:
        """What the dealer does next, from the round itself (so it is right
        also after a recovery, when no instruction has been announced)."""
        t = self.table
        if t.state is S.DEALING and t.targets:
            who = t.targets[0]
            where = "the dealer" if who == DEALER else f"box {who}"
            if t.dealing == "shuffler":
                return f"hand {t.order.index(who) + 1} to {where}"
            return f"card {len(t.cards.get(who, [])) + 1} to {where}"
        if t.state.value == "decisions":
            pending = t.pending_decisions()
            return "players decide: play or fold" + (f" (box {', '.join(pending)})" if pending else "")
        if t.state is S.DEALER_REVEAL:
            return "reveal the dealer's hand"
        return None

    def _next_say(self) -> dict[str, Any] | None:
        """:meth:`_next` as a message id and its values (``box``: the box dealt to)."""
        t = self.table
        if t.state is S.DEALING and t.targets:
            who = t.targets[0]
            what = "hand" if t.dealing == "shuffler" else "card"
            n = t.order.index(who) + 1 if t.dealing == "shuffler" else len(t.cards.get(who, [])) + 1
            if who == DEALER:
                return {"id": f"fortune3.next.{what}_to_dealer", "params": {"n": n}}
            return {"id": f"fortune3.next.{what}_to_box", "params": {"n": n, "box": who}}
        if t.state.value == "decisions":
            pending = t.pending_decisions()
            if pending:
                return {"id": "fortune3.next.decide_boxes", "params": {"boxes": ", ".join(pending)}}
            return {"id": "fortune3.next.decide", "params": {}}
        if t.state is S.DEALER_REVEAL:
            return {"id": "fortune3.next.reveal", "params": {}}
        return None

    def _remote(self) -> dict[str, Any]:
        """The remote hand on the console: its cards and hand, how many remote
        players are in, how many played and folded, how many still decide and
        within how many seconds (the served table's timer counts them down
        on the stream: ``decision_timer``)."""
        t = self.table
        hand = t.hands.get(REMOTE)
        decided = list(t.remote_decisions.values())
        deciding = t.state.value == "decisions"
        return {
            "cards": [d.code for d in t.cards.get(REMOTE, [])],
            "hand": hand.category if hand is not None else None,
            "players": len(t.book.players_at(REMOTE)),
            "played": decided.count("play"),
            "folded": decided.count("fold"),
            "timed_out": len(t.remote_timed_out),
            "pending": len(t.pending_remote()) if deciding else 0,
            "seconds": t.profile.remote.decision_seconds,
        }

    def _plays(self) -> dict[str, Decimal]:
        """Each box that played and its Play stake (equal to its Ante)."""
        t = self.table
        out = {}
        for box, decision in t.decisions.items():
            if decision == "play":
                ante = _total(ZERO, (b.get("ante", ZERO) for b in t.book.player_bets(box).values()))
                if ante:
                    out[box] = ante
        return out

    def redact(self, msg: dict) -> dict:
        # The dealer's cards are dealt face down: nobody sees them before the reveal.
        if msg["kind"] == "card" and msg["data"].get("to") == "dealer":
            msg = {**msg, "data": {**msg["data"], "card": HIDDEN}}
        elif msg["kind"] == "card_set_aside" and not self._revealed():
            msg = {**msg, "data": {**msg["data"], "card": _face_down(msg["data"].get("card", ""))}}
        return msg

    def redact_summary(self, summary: dict) -> dict:
        if summary.get("status") != "in_progress":
            return summary
        events = []
        for ev in summary.get("events", []):
            if ev.get("kind") == "card" and ev.get("to") == "dealer":
                ev = {**ev, "card": HIDDEN}
            elif ev.get("kind") == "card_set_aside":
                ev = {**ev, "card": _face_down(ev.get("card", ""))}
            events.append(ev)
        return {**summary, "events": events}


def _total(start: Decimal, amounts) -> Decimal:
    with exact():
        return sum(amounts, start)


def _face_down(codes: str) -> str:
    """The set-aside cards as the table shows them before the reveal: an
    exposed card (``^``) is seen by all, a card set aside face down is not."""
    return " ".join(c if c.endswith("^") else HIDDEN for c in codes.split())
