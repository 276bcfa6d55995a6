"""What a game plugs into the loop of ``tablesim run`` (the loop itself,
and the terminal, are the CLI's: ``tablesim.cli.session``).

A game's round lines are plain data: each line a sequence of text pieces,
each piece a string or ``(text, style)`` with a style name the CLI knows
(``bold``, ``dim``, ``red``, ``yellow``, ``green``). No markup, so nothing a player's
name holds is ever read as markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Sequence, Union

from tablecore.money import signed
from tablesim.engine.stats import SessionStats

Piece = Union[str, tuple[str, str]]
Line = Sequence[Piece]


@dataclass
class SessionPlan:
    """One game's part of a ``tablesim run`` session."""

    banner: str
    play_round: Callable[[], object]  # one round (what it had at risk: the table's result's stakes)
    render: Callable[[], list[Line]]  # the round just played, as lines
    summary_title: str
    fold_into: dict[str, str] | None = None  # result keys with no stake of their own -> the stake they settle with
    after_recover: Callable[[], None] | None = None  # e.g. take dealt cards out of a mock shoe
    after_round: Callable[[], None] | None = None  # e.g. count no-spins
    footer: Callable[[], str] | None = None
    #: what the floor does between rounds at a table of software devices (mock, emulated,
    #: replayed), where nobody else is there to (e.g. put a reset shuffler back in service)
    simulated_floor: Callable[[], None] | None = None
    stats: SessionStats = field(default_factory=SessionStats)
    #: the game's bets in layout order (the summary's rows)
    bet_order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.bet_order and not self.stats.order:
            self.stats.order = self.bet_order


def bold(text: str) -> tuple[str, str]:
    return (text, "bold")


def dim(text: str) -> tuple[str, str]:
    return (text, "dim")


def red(text: str) -> tuple[str, str]:
    return (text, "red")


def yellow(text: str) -> tuple[str, str]:
    return (text, "yellow")


def signed_piece(value: Decimal) -> Piece:
    """An amount with its sign; a player's win green and a loss red (the
    colour shows on a terminal only)."""
    text = signed(value)
    if value == 0:
        return text
    return (text, "green") if value > 0 else (text, "red")


def results_pieces(results: dict[str, Decimal]) -> list[Piece]:
    """``ante +5, play -5``: each bet's result, signed and coloured (a
    result of None: the bet's words say it all, e.g. ``play push``)."""
    out: list[Piece] = []
    for i, (bet, value) in enumerate(results.items()):
        out += [f"{', ' if i else ''}{bet}"] + ([] if value is None else [" ", signed_piece(value)])
    return out
