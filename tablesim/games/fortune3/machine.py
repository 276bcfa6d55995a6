"""The Fortune 3 Card Poker round (Despacho 78/2008), as the table runs it.

``STEPS`` are the round's state changes, each with what the table does
around it; ``RULES`` say when each of the dealer's and players' actions is
allowed, and why not otherwise (the table's ``CHECKS`` refuse more). The methods named are the table's
(``table.py``).
"""

from __future__ import annotations

import enum

from tablesim.engine.inputs import CloseBetting, StartDealing
from tablecore.wording import CORE_WORDS as C
from tablesim.engine.machine import Procedure, rule, step
from tablesim.games.fortune3.words import WORDS as W
from tablesim.games.fortune3.inputs import Reveal


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

STRAY = W("fortune3.refusal.no_stray")
BETWEEN_ROUNDS = (S.IDLE, S.COMPLETE, S.VOID)

RULES = (
    rule("open_round", "open betting", trigger="open_betting",
         refused=C("refusal.round_not_finished")),
    rule("close_betting", "close betting", trigger="close_betting", refused=C("refusal.betting_closed"),
         fires=CloseBetting),
    rule("start_dealing", "deal", trigger="start_dealing",
         refused=C("refusal.deal_after_close"), fires=StartDealing),
    rule("decide", "decision", states=S.DECISIONS,
         refused=W("fortune3.refusal.decide_after_deal")),
    # The remote hand's decision timer runs out while the players decide
    # (a profile with a remote hand): every remote player not decided folds.
    rule("close_decisions", "close decisions", states=S.DECISIONS,
         refused=W("fortune3.refusal.close_decisions_when")),
    # Art. 11(1): a misdeal can be called while the cards are out, until settlement starts
    # (after the last card too, while the players decide).
    rule("misdeal", "misdeal", states=(S.DEALING, S.DECISIONS), refused=W("fortune3.refusal.no_misdeal")),
    # Art. 11(3): a card dealt to a box with no bet is set aside, while dealing goes on
    # and after the deal's last card, until settlement (the article sets no time limit).
    rule("stray", "stray card", states=(S.DEALING, S.DECISIONS), refused=STRAY),
    # A table that holds for the dealer's reveal (settings.reveal_by_dealer): the
    # dealer reveals the dealer's hand and the round settles.
    rule("reveal", "reveal", states=S.DECISIONS, trigger="reveal",
         refused=W("fortune3.refusal.reveal_after_deal"), fires=Reveal),
    # Art. 11(4): after a shuffler failure a supervisor deals the following rounds from the shoe.
    rule("set_dealing", "set dealing", states=BETWEEN_ROUNDS,
         refused=W("fortune3.refusal.dealing_between_rounds")),
    # Art. 11(4): or a supervisor confirms the failed shuffler was replaced.
    rule("confirm_shuffler", "confirm shuffler", states=BETWEEN_ROUNDS,
         refused=W("fortune3.refusal.shuffler_between_rounds")),
)

PROCEDURE = Procedure(S, S.IDLE, (S.COMPLETE, S.VOID), STEPS, RULES)
