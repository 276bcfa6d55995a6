"""The Fortune 3 Card Poker round (Despacho 78/2008) as data: its states,
its own input records and table events, the words of its refusals, and
its procedure.

``STEPS`` are the round's state changes, each with what the table does
around it; ``RULES`` say when each of the dealer's and players' actions is
allowed, and why not otherwise (the table's ``CHECKS`` refuse more). The
methods named are the table's (``table.py``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from tablecore.codec import OMITTED
from tablecore.records import table_event, TableRecord
from tablecore.wording import CORE_WORDS as C, Words
from tablesim.engine.inputs import CloseBetting, OperatorAction, StartDealing, TableInput
from tablesim.engine.machine import Procedure, rule, step


class S(enum.Enum):
    IDLE = "idle"
    BETTING_OPEN = "betting_open"
    BETS_CLOSED = "bets_closed"
    DEALING = "dealing"
    DECISIONS = "decisions"
    DEALER_REVEAL = "dealer_reveal"
    SETTLEMENT = "settlement"
    COMPLETE = "complete"
    VOID = "void"


# --- Fortune 3's own table inputs (``tablesim/engine/inputs.py``): a box's
# decision, the dealer's reveal, a misdeal, a stray card, and the supervisor's
# dealing mode and shuffler confirmation (Art. 9, 11).

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


# --- Fortune 3's own table events: a box's decision, the dealer's hand, the
# shuffler's shuffle and service, the dealing mode. They register themselves
# with the engine's records (``tablecore/records.py``) when the game is imported.

@table_event("decision")
@dataclass(frozen=True, slots=True)
class Decision(TableRecord):
    box: str
    decision: str
    player: str = OMITTED  # the named player seated at the box (Art. 9(1)); omitted: the box's own seat
    #: a remote player's decision on the shared remote hand: the platform's ref
    #: for it (its Play debit), the Play staked (the player's Ante), and
    #: whether the decision timer made it (a fold)
    ref: str = OMITTED
    stake: str = OMITTED
    timed_out: bool = OMITTED


@table_event("dealer")
@dataclass(frozen=True, slots=True)
class DealerHand(TableRecord):
    cards: list
    hand: str
    qualifies: bool


@table_event("dealing_mode")
@dataclass(frozen=True, slots=True)
class DealingMode(TableRecord):
    """A supervisor switched how the following rounds are dealt (Art. 11(4))."""

    mode: str
    previous: str
    actor: str
    why: str


@table_event("shuffler_out_of_service")
@dataclass(frozen=True, slots=True)
class ShufflerOutOfService(TableRecord):
    """The shuffler failed while dealing: no round is dealt from it until a
    supervisor confirms it was replaced or deals from the shoe (Art. 11(4))."""

    round: str
    reason: str
    text: str


@table_event("shuffler_replaced")
@dataclass(frozen=True, slots=True)
class ShufflerReplaced(TableRecord):
    """A supervisor confirmed the failed shuffler was replaced (Art. 11(4))."""

    failed_in: str
    actor: str
    why: str


@table_event("shuffle")
@dataclass(frozen=True, slots=True)
class Shuffled(TableRecord):
    shuffle_id: str
    count: int
    verified: bool


@table_event("remote_decisions")
@dataclass(frozen=True, slots=True)
class RemoteDecisions(TableRecord):
    """The remote hand's players decide: how many, within how many seconds
    (the decision timer starts; a profile with a remote hand)."""

    players: int
    pending: int
    seconds: int


# --- The fortune3 game's own words for the texts it makes (its refusals and
# incidents), in English from its catalog (``i18n/en.po``) and carrying their
# message ids, so a page shows them in its own language.

WORDS = Words(Path(__file__).resolve().parent / "i18n")


# --- the round: its steps and the rules of its actions

BEFORE_SETTLEMENT = (S.BETTING_OPEN, S.BETS_CLOSED, S.DEALING, S.DECISIONS, S.DEALER_REVEAL)

STEPS = (
    # Art. 3: every round is dealt from a full, freshly shuffled deck.
    step("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN, after="fresh_deck"),
    # Art. 6: no bets once dealing starts; whatever the devices reported meanwhile is taken.
    step("close_betting", S.BETTING_OPEN, S.BETS_CLOSED, after="poll"),
    # Art. 7: only boxes with a bet are dealt, left to right, the dealer last.
    step("start_dealing", S.BETS_CLOSED, S.DEALING, before="seat_boxes", after="deal"),
    # Art. 9(1): after seeing the cards, each box with an Ante plays or folds.
    step("hands_dealt", S.DEALING, S.DECISIONS, before="stop_shoe", after=("evaluate_hands", "ask_decisions")),
    # Art. 11(3): the deal's last card went to a box with no bet: the dealer
    # declares it, and the deal goes on for the card still due.
    step("card_set_aside", S.DECISIONS, S.DEALING, after="forget_hands"),
    # Art. 9(4)-(5): the dealer's hand is shown; does it qualify?
    step("reveal", S.DECISIONS, S.DEALER_REVEAL, after="reveal_dealer"),
    # Art. 9(5)-(9), Art. 10: every box is settled.
    step("settle", S.DEALER_REVEAL, S.SETTLEMENT, after="settle_boxes"),
    step("complete", S.SETTLEMENT, S.COMPLETE),
    # Art. 11: an irregularity voids the round before settlement; every bet returns.
    step("void", BEFORE_SETTLEMENT, S.VOID, before=("stop_devices", "announce_void")),
)

STRAY = WORDS("fortune3.refusal.no_stray")
BETWEEN_ROUNDS = (S.IDLE, S.COMPLETE, S.VOID)

RULES = (
    rule("open_round", "open betting", trigger="open_betting",
         refused=C("refusal.round_not_finished")),
    rule("close_betting", "close betting", trigger="close_betting", refused=C("refusal.betting_closed"),
         fires=CloseBetting),
    rule("start_dealing", "deal", trigger="start_dealing",
         refused=C("refusal.deal_after_close"), fires=StartDealing),
    rule("decide", "decision", states=S.DECISIONS,
         refused=WORDS("fortune3.refusal.decide_after_deal")),
    # The remote hand's decision timer runs out while the players decide
    # (a profile with a remote hand): every remote player not decided folds.
    rule("close_decisions", "close decisions", states=S.DECISIONS,
         refused=WORDS("fortune3.refusal.close_decisions_when")),
    # Art. 11(1): a misdeal can be called while the cards are out, until settlement starts
    # (after the last card too, while the players decide).
    rule("misdeal", "misdeal", states=(S.DEALING, S.DECISIONS), refused=WORDS("fortune3.refusal.no_misdeal")),
    # Art. 11(3): a card dealt to a box with no bet is set aside, while dealing goes on
    # and after the deal's last card, until settlement (the article sets no time limit).
    rule("stray", "stray card", states=(S.DEALING, S.DECISIONS), refused=STRAY),
    # A table that holds for the dealer's reveal (settings.reveal_by_dealer): the
    # dealer reveals the dealer's hand and the round settles.
    rule("reveal", "reveal", states=S.DECISIONS, trigger="reveal",
         refused=WORDS("fortune3.refusal.reveal_after_deal"), fires=Reveal),
    # Art. 11(4): after a shuffler failure a supervisor deals the following rounds from the shoe.
    rule("set_dealing", "set dealing", states=BETWEEN_ROUNDS,
         refused=WORDS("fortune3.refusal.dealing_between_rounds")),
    # Art. 11(4): or a supervisor confirms the failed shuffler was replaced.
    rule("confirm_shuffler", "confirm shuffler", states=BETWEEN_ROUNDS,
         refused=WORDS("fortune3.refusal.shuffler_between_rounds")),
)

PROCEDURE = Procedure(S, S.IDLE, (S.COMPLETE, S.VOID), STEPS, RULES)
