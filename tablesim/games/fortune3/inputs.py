"""Fortune 3's own table inputs (``tablesim/engine/inputs.py``): a box's
decision, the dealer's reveal, a misdeal, a stray card, and the supervisor's
dealing mode and shuffler confirmation (Art. 9, 11)."""

from __future__ import annotations

from dataclasses import dataclass

from tablesim.engine.inputs import OperatorAction, TableInput


@dataclass(frozen=True, slots=True)
class Decide(TableInput):
    """The box's play or fold (Art. 9(1)); ``player``: who decides, when named
    (on the shared remote hand: which remote player); ``ref``: a remote
    player's decision as the platform sent it (its Play debit's id), so a
    retry is known and never taken twice."""

    box: str
    decision: str
    player: str | None = None
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class CloseDecisions(TableInput):
    """The remote hand's decision timer ran out: every remote player who has
    not decided folds (a profile with a remote hand)."""


@dataclass(frozen=True, slots=True)
class Reveal(TableInput):
    """The dealer reveals the dealer's hand (a table that holds for it)."""


@dataclass(frozen=True, slots=True)
class Misdeal(TableInput):
    """The dealer calls a misdeal (Art. 11(1))."""

    ACTOR_IS_ARGUMENT = True


@dataclass(frozen=True, slots=True)
class Stray(TableInput):
    """A card dealt to a box with no bet (Art. 11(3)); ``card``: the one
    named, else the latest card or hand."""

    card: str | None = None


@dataclass(frozen=True, slots=True)
class SetDealing(OperatorAction):
    """A supervisor switches how the following rounds are dealt (Art. 11(4))."""

    mode: str


@dataclass(frozen=True, slots=True)
class ConfirmShuffler(OperatorAction):
    """A supervisor confirms the failed shuffler was replaced (Art. 11(4))."""

