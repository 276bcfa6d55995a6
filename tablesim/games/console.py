"""What the console (``tablesim serve``) needs to know about a game: its
layout, its view of a round in progress, the dealer's actions, and what must
stay hidden. Each game's ``console.py`` subclasses :class:`GameAdapter`
(its spec's ``console`` part).

An adapter only reads the table and calls its public actions; it runs on the
table's thread (see ``tablesim.server.runner``), like everything that
touches the table.

With mock devices the console's :class:`MockDealer` stands in for the
dealer's hands: it goes on with the round through the game's dealer (its
spec's ``dealer`` part, as the mock table, scripted rounds and the
simulator do), with people at the console making the dealer's moves
(:class:`ConsolePlayers`) and the devices asked one report at a time, at
the pace a table shows (:class:`PacedHands`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from tablesim.engine.table import GameTable
from tablecore.plainjson import jsonable
from tablesim.games import registry
from tablesim.games.dealer import Hands, Players
from tablesim.games.rig import MockRig

HIDDEN = "??"


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoBody(Body):
    pass


class DecideBody(Body):
    box: str = Field(min_length=1, max_length=8)
    decision: Literal["play", "fold"]
    #: whose decision it is (the player seated at the box); none: the dealer's word for the box
    player: str | None = Field(None, min_length=1, max_length=40)


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
        acts = [self.button("open_round", "New round"), self.button("close_betting", "Close betting"),
                *self.game_actions()]
        self._actions = {a.name: a for a in acts}

    def button(self, name: str, label: str, action: str | None = None, *, role: str = "dealer",
               enabled: Callable[[], bool] | None = None) -> Action:
        """The console's button ``name`` for the table's public action
        ``action`` (``name`` unless told) that takes no arguments: it runs
        the action, and is enabled when the table would take it (or when
        ``enabled`` says so)."""
        t = self.table
        act = action or name
        run = t.action_specs[act].run  # the public action (checked, journaled)
        return Action(name, label, role, lambda b: run(t), enabled or (lambda: t.can(act)))

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


class ConsolePlayers(Players):
    """People at the console: they bet, decide and make the dealer's moves
    through the API, so the game's dealer only takes the devices' reports."""

    deals = False


class PacedHands(Hands):
    """At most one device report per step, so the console shows a round as it
    happens at a table; ``delay``: how long after it the next may come (in
    units of the console's pace), None while no report was taken this step.
    A quiet device never voids a round here (the console's timeouts are the
    adapter's: :meth:`GameAdapter.stalled`)."""

    def __init__(self, adapter: "GameAdapter") -> None:
        super().__init__()
        self.adapter = adapter
        self.delay: float | None = None
        self.asked = False  # the devices were asked this step

    def take(self, table: Any, states: tuple) -> bool:
        if not self.asked and table.state in states:
            self.asked = True
            for device in table.devices:
                event = device.next_event(0)
                if event is not None:
                    table.handle(event)
                    self.delay = self.adapter.delay_for(event)
                    break
        return table.state not in states


class MockDealer:
    """The dealer's hands on a console's mock table (see the module's docstring)."""

    def __init__(self, adapter: "GameAdapter") -> None:
        self.table = adapter.table
        self.adapter = adapter
        self.play_round = registry.spec(self.table.game).part("dealer")
        self.players = ConsolePlayers()
        self.hands = PacedHands(adapter)

    def step(self, stalled_for: float = 0.0) -> float | None:
        """One step of the round: how long to wait after the report a device
        gave (units of the pace), or None when none had one. The hands rest
        while the table is paused or an incident blocks it, and until the
        adapter lets them act (e.g. the dealer pressed "spin");
        ``stalled_for``: how long the round has been in its state."""
        table, hands = self.table, self.hands
        if table.paused or table.blocked or not self.adapter.may_pump():
            return None
        hands.delay, hands.asked = None, False
        self.play_round(table, self.players, hands)
        if not hands.asked:
            # a report the round does not wait for (a draw read back, a shuffle done)
            hands.take(table, (table.state,))
        if hands.delay is None:
            self.adapter.stalled(stalled_for)
        return hands.delay
