"""What the server needs to know about each game: its layout, its view of a
round in progress, the dealer's actions, and what must stay hidden.

An adapter only reads the table and calls its public actions; it runs on the
table's thread (see ``runner.py``), like everything that touches the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from tablesim.engine.table import GameTable
from tablesim.core.errors import IllegalAction
from tablesim.server.mock import MockRig
from tablesim.server.stream import jsonable

HIDDEN = "??"


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoBody(Body):
    pass


class DecideBody(Body):
    box: str = Field(min_length=1, max_length=8)
    decision: Literal["play", "fold"]


class DealingBody(Body):
    mode: Literal["shoe", "shuffler"]
    why: str = Field(min_length=1, max_length=500)


@dataclass(frozen=True)
class Action:
    """A dealer's (or supervisor's) action on the console and the API."""

    name: str
    label: str
    role: str
    run: Callable[[Any], Any]  # called with the validated body on the table's thread
    enabled: Callable[[], bool]
    body: type[Body] = NoBody
    fields: tuple[str, ...] = ()
    hidden: bool = False  # not a button of its own (e.g. play/fold on each box)
    journaled: bool = True  # a table action (the engine journals it); False: mock-only

    def describe(self) -> dict[str, Any]:
        try:
            enabled = bool(self.enabled())
        except Exception:  # a game mid-change must not break the view
            enabled = False
        return {"name": self.name, "label": self.label, "role": self.role, "enabled": enabled,
                "fields": list(self.fields), "hidden": self.hidden}


@dataclass
class GameAdapter:
    table: GameTable
    rig: MockRig | None = None
    title: ClassVar[str] = ""
    #: how long the pump waits after a mock device event, in units of the pace
    DELAYS: ClassVar[dict[str, float]] = {}
    _actions: dict[str, Action] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        t = self.table
        acts = [
            Action("open_round", "New round", "dealer", lambda b: t.open_round(), lambda: t.can("open_round")),
            Action("close_betting", "Close betting", "dealer", lambda b: t.close_betting(),
                   lambda: t.can("close_betting")),
            *self.game_actions(),
        ]
        self._actions = {a.name: a for a in acts}

    # --- what a game provides -------------------------------------------------

    def game_actions(self) -> list[Action]:
        return []

    def layout(self) -> dict[str, Any]:
        raise NotImplementedError

    def view(self) -> dict[str, Any]:
        return {}

    def redact(self, msg: dict) -> dict:
        """Hide from the (open) stream what nobody may see yet."""
        return msg

    def redact_summary(self, summary: dict) -> dict:
        return summary

    def may_pump(self) -> bool:
        """With mock devices: whether the mock dealer's hands may act now."""
        return True

    def on_event(self, kind: str, data: dict) -> None:
        """Follow the table's events (runs on the table's thread)."""

    def stalled(self, seconds: float) -> None:
        """Called while the round has been in the same state for ``seconds``
        (on the table's thread: it must not wait for a device)."""

    def waiting_for(self) -> str | None:
        """The device the round waits for now (real devices: a notice when it stays quiet)."""
        return None

    # --- shared ----------------------------------------------------------------

    @property
    def game(self) -> str:
        return self.table.game

    def actions(self) -> dict[str, Action]:
        return self._actions

    def delay_for(self, event: object) -> float:
        return self.DELAYS.get(type(event).__name__, 0.2)

    def positions(self) -> list[str]:
        return []

    def limits(self) -> dict[str, dict[str, str]]:
        by_bet = self.table.book.limits.by_bet
        return {b: {"min": jsonable(l.minimum), "max": jsonable(l.maximum)} for b, l in by_bet.items()}


# --- Fortune 3 Card Poker ---------------------------------------------------------


class Fortune3Adapter(GameAdapter):
    title = "Fortune 3 Card Poker"
    DELAYS = {"CardRead": 1.0, "HandDispensed": 2.0, "ShuffleDone": 0.5}

    def game_actions(self) -> list[Action]:
        t = self.table
        return [
            Action("deal", "Deal", "dealer", lambda b: t.start_dealing(), lambda: t.can("start_dealing")),
            Action("decide", "Play / fold", "dealer", lambda b: t.decide(b.box, b.decision),
                   lambda: t.can("decide"), DecideBody, ("box", "decision"), hidden=True),
            Action("misdeal", "Misdeal", "dealer", lambda b: t.misdeal(), lambda: t.can("misdeal")),
            # Art. 11(3): the latest card (or hand) went to a box with no bet.
            Action("stray", "Stray card", "dealer", lambda b: t.stray(), lambda: t.can("stray")),
            Action("reveal", "Reveal", "dealer", lambda b: t.reveal(),
                   lambda: t.settings.reveal_by_dealer and t.can("reveal")),
            # Art. 11(4): after a shuffler failure, deal the following rounds from the shoe (and back).
            Action("set_dealing", "Dealing mode", "supervisor",
                   lambda b: t.set_dealing(b.mode, actor=t.actor_for("set_dealing"), why=b.why),
                   lambda: t.shoe is not None and t.shuffler is not None
                   and t.can("set_dealing", "shuffler" if t.dealing == "shoe" else "shoe", why="-"),
                   DealingBody, ("mode", "why")),
        ]

    def positions(self) -> list[str]:
        return [str(b) for b in range(1, self.table.profile.boxes + 1)]

    def waiting_for(self) -> str | None:
        from tablesim.games.fortune3.machine import S

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
        from tablesim.games.fortune3.machine import S

        return self.table.state in (S.DEALER_REVEAL, S.SETTLEMENT, S.COMPLETE)

    def view(self) -> dict[str, Any]:
        from tablesim.games.fortune3.table import DEALER

        t = self.table
        revealed = self._revealed()
        boxes = {}
        for box in self.positions():
            cards = [d.code for d in t.cards.get(box, [])]
            hand = t.hands.get(box)
            boxes[box] = {
                "cards": cards,
                "hand": hand.category if hand is not None else None,
                "decision": t.decisions.get(box),
                "dealt": box in t.cards,
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
            "set_aside": [d.code for d in t.set_aside],
            "dealing": t.dealing,
        }

    def redact(self, msg: dict) -> dict:
        # The dealer's cards are dealt face down: nobody sees them before the reveal.
        if msg["kind"] == "card" and msg["data"].get("to") == "dealer":
            msg = {**msg, "data": {**msg["data"], "card": HIDDEN}}
        return msg

    def redact_summary(self, summary: dict) -> dict:
        if summary.get("status") != "in_progress":
            return summary
        events = []
        for ev in summary.get("events", []):
            if ev.get("kind") == "card" and ev.get("to") == "dealer":
                ev = {**ev, "card": HIDDEN}
            events.append(ev)
        return {**summary, "events": events}


# --- football card game ---------------------------------------------------------


class FootballAdapter(GameAdapter):
    title = "Football card game"
    DELAYS = {"CardRead": 1.0, "DrawShown": 1.5, "ShoeCount": 0.0}
    #: no read-back from the display within this many seconds voids the round
    DRAW_TIMEOUT = 10.0

    def game_actions(self) -> list[Action]:
        t = self.table
        return [Action("deal", "Deal", "dealer", lambda b: t.start_dealing(), lambda: t.can("start_dealing"))]

    def positions(self) -> list[str]:
        return list(self.table.profile.positions)

    def layout(self) -> dict[str, Any]:
        from tablesim.games.football.profile import COMMON

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
        from tablesim.games.football.machine import S
        from tablesim.games.football.rules import total

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
            "pack_id": getattr(t, "pack_id", None),
            "set_aside": [d.code for d in getattr(t, "set_aside", [])],
        }

    def on_event(self, kind: str, data: dict) -> None:
        if kind in ("result",) and self.rig is not None:
            self.rig.round_over()

    def stalled(self, seconds: float) -> None:
        from tablesim.games.football.machine import S

        t = self.table
        if t.state is S.DRAWING and seconds >= self.DRAW_TIMEOUT:
            t.await_draw(0)  # no read-back: the round is void (display_timeout); never waits here

    def waiting_for(self) -> str | None:
        from tablesim.games.football.machine import CARD_STATES, S

        t = self.table
        if t.state is S.DRAWING:
            return "display"
        return "shoe" if t.state in CARD_STATES else None


# --- Wheel of Fortune ----------------------------------------------------------


class WheelAdapter(GameAdapter):
    title = "Wheel of Fortune"
    DELAYS = {"SpinStarted": 0.6, "Revolution": 0.5, "SpinResult": 1.0, "InvalidSpin": 1.0}

    def game_actions(self) -> list[Action]:
        from tablesim.games.wheel.machine import S

        t = self.table
        acts = []
        if self.rig is not None:
            acts.append(Action("spin", "Spin", "dealer", lambda b: self._spin(),
                               lambda: t.state is S.BETS_CLOSED and not self.rig.spin_requested, journaled=False))
        acts.append(Action("no_spin", "No spin", "dealer", lambda b: self._no_spin(),
                           lambda: t.can("declare_no_spin")))
        return acts

    def _spin(self) -> None:
        from tablesim.games.wheel.machine import S

        t = self.table
        if t.state is not S.BETS_CLOSED:
            raise IllegalAction("spin", f"the wheel is spun once bets are closed (the round is {t.state.value})")
        if self.rig.spin_requested:
            raise IllegalAction("spin", "the wheel is already spinning")
        self.rig.spin_requested = True

    def _no_spin(self) -> None:
        self.table.declare_no_spin("dealer")
        if self.rig is not None:
            # The mock sensor forgets the spin that was called off.
            self.table.sensor.queue.clear()
            self.rig.spin_requested = False

    def positions(self) -> list[str]:
        return []

    def layout(self) -> dict[str, Any]:
        p = self.table.profile
        return {
            "kind": "wheel",
            "positions": [],
            "bets": list(p.spots),
            "bet_labels": {s: s for s in p.spots},
            "symbols": [{"name": s.name, "segments": s.segments, "pays": jsonable(s.pays)} for s in p.symbols],
            "wheel": list(self.table.layout),
            "min_turns": p.min_turns,
            "profile": p.name,
        }

    def view(self) -> dict[str, Any]:
        from tablesim.games.wheel.machine import S

        t = self.table
        return {
            "no_spins": t.no_spins,
            "spins": jsonable(t.spins),
            "revolutions": t.revolutions,
            "direction": t.direction,
            "segment": t.segment,
            "symbol": t.symbol,
            "spinning": t.state is S.SPINNING,
            "spin_requested": bool(self.rig and self.rig.spin_requested),
        }

    def waiting_for(self) -> str | None:
        from tablesim.games.wheel.machine import S

        return "wheel" if self.table.state is S.SPINNING else None

    def may_pump(self) -> bool:
        from tablesim.games.wheel.machine import AWAITING_SPIN

        if self.table.state in AWAITING_SPIN:
            return bool(self.rig and self.rig.spin_requested)
        return True

    def on_event(self, kind: str, data: dict) -> None:
        if self.rig is not None and kind in ("spin_result", "no_spin", "void", "result"):
            self.rig.spin_requested = False


ADAPTERS: dict[str, type[GameAdapter]] = {
    "fortune3": Fortune3Adapter,
    "football": FootballAdapter,
    "wheel": WheelAdapter,
}


def adapter_for(table: GameTable, rig: MockRig | None = None) -> GameAdapter:
    return ADAPTERS[table.game](table, rig)
