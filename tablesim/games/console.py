"""What the console (``tablesim serve``) needs to know about a game: its
layout, its view of a round in progress, the dealer's actions, and what must
stay hidden. Each game's ``console.py`` subclasses :class:`GameAdapter`
(its spec's ``console`` part).

An adapter only reads the table and calls its public actions; it runs on the
table's thread (see ``tablesim.server.runner``), like everything that
touches the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from tablesim.engine.table import GameTable
from tablesim.core.plain import jsonable
from tablesim.games.rig import MockRig

HIDDEN = "??"


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoBody(Body):
    pass


class DecideBody(Body):
    box: str = Field(min_length=1, max_length=8)
    decision: Literal["play", "fold"]


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
