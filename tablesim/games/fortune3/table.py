"""The Fortune 3 Card Poker table: rules + round machine + devices.

Dealing (Art. 7): only boxes with a bet are dealt, left to right, the dealer
last; with the shoe one card at a time in three passes, with the automatic
shuffler three cards at once per box. Irregularities (Art. 11): an exposed
player card stays valid; an exposed dealer card is set aside and replaced by
the next card; a misdeal or a shuffler fault while dealing voids the round.
A card read twice in one round from a single deck is a device fault.

When each action is allowed, and what happens around each state change, is
declared in ``machine.py``; the methods it names are here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from drivers.base import CardShoeReader, Shuffler
from drivers.events import DRAWN_WHILE_DISARMED, MISREAD, FaultRaised, HandDispensed, ShuffleDone
from tablecore.cards import Card, DealtCard, parse_dealt, dealt as dealt_card
from tablecore.errors import IllegalAction
from tablesim.engine.actions import action
from tablesim.engine.inputs import OpenRound, ResolveIncident, TableInput, Void
from tablecore.wording import CORE_WORDS as C
from tablesim.engine.machine import Refused
from tablesim.games.fortune3.machine import WORDS as W
from tablesim.games.fortune3.machine import CloseDecisions, ConfirmShuffler, Decide, Misdeal, SetDealing, Stray
from tablesim.engine.betbook import BetBook
from tablesim.engine.events import EventBus
from tablesim.engine.incidents import Incident
from tablesim.engine.result import RoundResult
from tablesim.engine.cardtable import CardTable, DealLog, DealtRound, Pack
from tablesim.games.fortune3.hands import Evaluator, Hand
from tablesim.games.fortune3.machine import PROCEDURE, STRAY, S
from tablesim.games.fortune3.profile import REMOTE, Fortune3Profile
from tablesim.games.fortune3.remote import RemoteHandMixin, summed
from tablesim.games.fortune3.profile import BETS, Fortune3Settings
from tablesim.games.fortune3.spec import DEALING
from tablesim.games.fortune3.settle import BoxBets, dealer_qualifies, settle_box, settle_boxes
from tablecore.money import fmt
from tablecore.records import CardSetAside, Fault, Instruction, Settlement, Voided
from tablesim.games.fortune3.machine import (
    DealerHand, DealingMode, Decision, RemoteDecisions, Shuffled, ShufflerOutOfService, ShufflerReplaced,
)

DEALER = "dealer"
DECISIONS = ("play", "fold")


#: the void reasons that put the shuffler out of service (Art. 11(4))
SHUFFLER_FAILURE = ("shuffler_fault",)


@dataclass(slots=True)
class Fortune3RoundState(DealtRound):
    """(``order``: the boxes with bets, left to right, then the dealer;
    ``targets``: who gets each next card (shoe) or hand (shuffler).)"""

    decisions: dict[str, str] = field(default_factory=dict)
    hands: dict[str, Hand] = field(default_factory=dict)
    incidents: list[dict] = field(default_factory=list)
    awaiting: bool = False  # a hand asked of the shuffler and not yet dispensed
    qualifies: bool | None = None
    requested: int = 0  # cards in the hand last asked of the shuffler
    deciders: int = 0  # boxes with an Ante: each plays or folds (Art. 9(1))
    # the remote hand's decisions (remote.py)
    remote_decisions: dict[str, str] = field(default_factory=dict)  # remote player -> play | fold
    remote_refs: dict[str, tuple[str, str]] = field(default_factory=dict)  # ref -> (player, decision)
    remote_timed_out: list[str] = field(default_factory=list)
    remote_closed: bool = False  # the decision timer ran out


class Fortune3Table(RemoteHandMixin, CardTable):
    game = "fortune3"
    PROCEDURE = PROCEDURE
    Round = Fortune3RoundState
    BETTING = S.BETTING_OPEN
    #: the dealer's misdeal call waiting for a supervisor (Art. 11(1))
    MISDEAL_INCIDENT = 110
    #: a stray noticed late (after a decision, or not the latest card) waiting
    #: for a supervisor, who confirms naming the card, or rejects (Art. 11(3))
    STRAY_INCIDENT = 111
    #: actions whose effect outlasts their round: restored after a restart
    STANDING = ("set_dealing",)
    #: the events that set and clear ``shuffler_out_of_service``: a restart
    #: gives the table back the last one's condition
    STANDING_EVENTS = ("shuffler_out_of_service", "shuffler_replaced")
    #: the failed shuffler, while out of service (Art. 11(4)): {"round": ..., "reason": ...}; else None
    shuffler_out_of_service: dict | None = None
    #: the automatic shuffler (None: the table has none; the shoe likewise, the kit's)
    shuffler: Shuffler | None = None

    def __init__(
        self,
        profile: Fortune3Profile,
        settings: Fortune3Settings,
        *,
        shoe: CardShoeReader | None = None,
        shuffler: Shuffler | None = None,
        table_id: str = "F3",
        bus: EventBus | None = None,
    ) -> None:
        self.dealing = settings.dealing  # a supervisor may switch it between rounds (Art. 11(4))
        if settings.dealing == "shoe" and shoe is None:
            raise ValueError("shoe dealing needs a card-shoe reader")
        if settings.dealing == "shuffler" and shuffler is None:
            raise ValueError("shuffler dealing needs an automatic shuffler")
        self.profile = profile
        self.settings = settings
        self.evaluator = Evaluator(profile.ranking)
        # (only the devices the table has, and nothing derived, on the instance: CPython keeps a class's
        # instance attributes in one shared compact layout up to about thirty names; past that every
        # attribute read of the table is a dict lookup, a card's way among them)
        if shoe is not None:
            self.shoe = shoe
        if shuffler is not None:
            self.shuffler = shuffler
        self.pack = Pack(1)  # Art. 3: every round a full deck
        self.deal_log = DealLog(self, hand=3, dealer=DEALER, exposed_reason="exposed dealer card (Art. 11(2))")
        self.box_names = frozenset(str(n) for n in range(1, profile.boxes + 1))  # one spelling per box: not "01"
        if profile.remote is not None:
            self.box_names |= {REMOTE}  # the shared remote hand (remote.py)
        book = BetBook(BETS, settings.limits, self._box_ok, self._seat_ok)
        device = shoe if settings.dealing == "shoe" else shuffler
        super().__init__(table_id=table_id, book=book, devices=[device], bus=bus)

    def _box_ok(self, box: str) -> str | None:
        if box in self.box_names:
            return None
        if self.has_remote:
            return W("fortune3.refusal.no_such_box_remote", box=repr(box), boxes=self.profile.boxes, remote=repr(REMOTE))
        return W("fortune3.refusal.no_such_box", box=repr(box), boxes=self.profile.boxes)

    def _seat_ok(self, box: str, player: str) -> str | None:
        """Art. 6(2): a player bets only on the box where they sit, and a box
        has one seated player (unless the profile allows back-betting).
        The remote hand takes any number of remote players (remote.py)."""
        if box == REMOTE:
            return self.remote_seat_refusal(player)
        if self.profile.back_betting:
            return None
        here = self.book.players_at(box)
        if here and player not in here:
            return W("fortune3.refusal.box_taken", box=box, player=here[0])
        for other, per in self.book.by_player.items():
            if other != box and player in per:
                if other == REMOTE:
                    return W("fortune3.refusal.remote_bets_no_box", player=player)
                return W("fortune3.refusal.seated_elsewhere", player=player, box=other)
        return None

    def seated(self, box: str) -> str | None:
        """The player seated at ``box`` (the first to bet there), or None."""
        here = self.book.players_at(str(box))
        return here[0] if here else None

    # --- round flow ------------------------------------------------------------

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        return self.begin_round(round_id)

    def fresh_deck(self) -> None:
        """Art. 3: every round is dealt from a full, freshly shuffled deck."""
        rid = self.round_id
        if self.dealing == "shoe":
            self.shoe.disarm()
            self.pack.load(self.shoe, f"{rid}-deck")
        else:
            self.shuffler.load(1, 52)
            self.shuffler.shuffle(f"{rid}-shuffle")

    def check_bets(self) -> None:
        if not self.book.bets:
            raise Refused(C("refusal.no_bets"))

    def seat_boxes(self) -> None:
        """Art. 7: the boxes with a bet, left to right, then the dealer."""
        boxes = sorted(self.book.bets, key=lambda b: (b == REMOTE, int(b) if b != REMOTE else 0))
        self.round.order = boxes + [DEALER]
        self.round.cards = {who: [] for who in self.round.order}

    def deal(self) -> None:
        """The shoe: one card at a time in three passes (armed for exactly
        those); the shuffler: three cards at once per box."""
        if self.dealing == "shoe":
            self.round.targets = self.round.order * 3
            self.arm()
            self.instruct()
        else:
            self.round.targets = list(self.round.order)
            self._request_hand()

    @action(Decide)
    def decide(self, box: str, decision: str, player: str | None = None, ref: str | None = None) -> None:
        """The box's play or fold (Art. 9(1)); ``player``, when given, must be
        the player seated there: the decision is theirs. On the remote hand:
        the remote player's own (``ref``: the platform's id for it)."""
        box = str(box)
        if box == REMOTE:
            self.decide_remote(decision, player, ref)
            self._decided()
            return
        self.round.decisions[box] = decision
        seated = self.seated(box)
        # a named player's decision says whose it is; the box's own seat's reads as before
        if self.heard():
            self.emit(Decision(box=box, decision=decision, **({} if seated in (None, box) else {"player": seated})))
        self._decided()

    def _decided(self) -> None:
        if not self.pending_decisions() and not self.settings.reveal_by_dealer:
            self.trigger["reveal"]()

    @action(CloseDecisions)
    def close_decisions(self) -> list[str]:
        """The remote hand's decision timer ran out: every remote player who
        has not decided folds; the remote players it folded."""
        late = self.fold_undecided()
        self._decided()
        return late

    def check_close_decisions(self) -> None:
        if not self.has_remote or REMOTE not in self.round.order:
            raise Refused(W("fortune3.refusal.no_remote_hand"))
        if self.round.remote_closed:
            raise Refused(W("fortune3.refusal.remote_timer_ran_out"))

    def check_reveal(self) -> None:
        pending = self.pending_decisions()
        if pending:
            raise Refused(W("fortune3.refusal.still_deciding", boxes=", ".join(pending)))

    def check_decider(self, box: str, decision: str, player: str | None = None, ref: str | None = None) -> None:
        if str(box) == REMOTE:
            return  # each remote player decides on their own (check_box_decision)
        seated = self.seated(str(box))
        if player is not None and player != seated:
            raise Refused(W("fortune3.refusal.not_your_decision", box=box, seated=seated, player=player))

    def check_decision_word(self, box: str, decision: str, player: str | None = None, ref: str | None = None) -> None:
        if decision not in DECISIONS:
            raise Refused(W("fortune3.refusal.unknown_decision", decision=repr(decision)))

    def check_box_decision(self, box: str, decision: str, player: str | None = None, ref: str | None = None) -> None:
        box = str(box)
        if box == REMOTE:
            self.check_remote_decision(decision, player, ref)
            return
        if self.book.get(box, "ante") is None:
            raise Refused(W("fortune3.refusal.no_ante", box=box))
        if box in self.round.decisions:
            raise Refused(W("fortune3.refusal.already_decided", box=box, decision=self.round.decisions[box]))

    def check_fold(self, box: str, decision: str, player: str | None = None, ref: str | None = None) -> None:
        """Art. 9(3), when the profile forbids the fold with Pair Plus."""
        box = str(box)
        if (
            decision == "fold"
            and self.profile.fold_with_pair_plus == "forbid"
            and self.book.get(box, "pair_plus") is not None
        ):
            raise Refused(W("fortune3.refusal.must_play", box=box))

    def pending_decisions(self) -> list[str]:
        """The boxes still to decide, and the remote hand while a remote player is."""
        return [b for b in self.round.order[:-1] if self.book.get(b, "ante") is not None and b not in self.round.decisions
                and (b != REMOTE or self.pending_remote())]

    @action(Misdeal)
    def misdeal(self, *, actor: str | None = None) -> RoundResult | None:
        """The dealer calls a misdeal (Art. 11(1)), at any point before
        settlement: while dealing, after the last card and while players
        decide. Before any card is out the round is void at once; after, it
        is the dealer's call and a supervisor's confirmation (an incident the
        supervisor resolves: confirm voids, reject plays on), unless the
        table lets the dealer void alone (``misdeal_confirmation =
        "dealer"``). Returns the void result, or None while the call waits."""
        if not self._cards_out() or self.settings.misdeal_confirmation == "dealer":
            return self.void("misdeal", actor=actor or self.asked_by("misdeal"))
        self.open_incident(self.MISDEAL_INCIDENT, W("fortune3.incident.misdeal"), blocking=True)
        return None

    def _cards_out(self) -> bool:
        return bool(self.round.round_cards) or any(self.round.cards.values()) or bool(self.round.set_aside)

    def check_stray(self, card: str | None = None) -> None:
        if card is not None:
            if self.deal_log.holding(card) is None:
                raise Refused(W("fortune3.refusal.not_a_hand_card", card=card))
        elif self.deal_log.latest() is None:
            raise Refused(STRAY)

    @action(Stray)
    def stray(self, card: str | None = None) -> None:
        """Art. 11(3): a card (shoe) or hand (shuffler) went to a box with no
        bet. It is void and set aside; the box that was due it still is, and
        the round goes on, also after the deal's last card. The latest card
        or hand, before any player decided, is the dealer's call; a stray
        noticed late (a card named, or after a decision) waits for a
        supervisor, who confirms naming the card (the article sets no time
        limit) or rejects. With the shuffler the whole hand holding the card
        is dead."""
        latest = self.deal_log.latest()
        if card is None and not self.round.decisions:
            self._declare_stray(latest)
            return
        named = card if card is not None else self.round.deliveries[latest][1][-1].code  # (refused when None)
        self.open_incident(self.STRAY_INCIDENT, W("fortune3.incident.late_stray"), blocking=True,
                           card=named)

    def _declare_stray(self, index: int) -> None:
        dealt = self.deal_log.kill(index, self.round.order * 3 if self.dealing == "shoe" else list(self.round.order))
        self.emit(CardSetAside(card=" ".join(d.code for d in dealt), reason="dealt to a box with no bet (Art. 11(3))"))
        if not self.round.targets:
            return  # (an exposed dealer card already set aside: nothing else changes)
        if self.state is S.DECISIONS:
            self.trigger["card_set_aside"]()
        if self.dealing == "shoe":
            self.arm()
            self.instruct()
        elif not self.round.awaiting:
            self._request_hand()
        # else: the hand already asked of the shuffler comes next and is laid where due

    def forget_hands(self) -> None:
        """The deal goes on after a stray last card: no hand is complete yet."""
        self.round.hands = {}

    @action(SetDealing)
    def set_dealing(self, mode: str, *, actor: str, why: str) -> None:
        """A supervisor switches how the following rounds are dealt (after a
        shuffler failure, Art. 11(4): from the shoe; and back later). Only
        between rounds, to a device the table has; journaled with who and why."""
        previous = self._deal_by(mode)
        self.emit(DealingMode(mode=mode, previous=previous, actor=actor, why=why))
        self.log.info("dealing_mode", mode=mode, previous=previous, actor=actor)

    @property
    def by_card(self) -> bool:
        """The shoe deals card by card (Art. 7); the shuffler a hand at a time."""
        return self.dealing == "shoe"

    def _deal_by(self, mode: str) -> str:
        previous, self.dealing = self.dealing, mode
        self.devices = [self.shoe if mode == "shoe" else self.shuffler]
        return previous

    def restore_standing(self, record: TableInput) -> None:
        """After a restart, the dealing mode a supervisor last chose (journaled
        ``set_dealing``) holds again, if the table still has that device."""
        mode = getattr(record, "mode", None)
        if isinstance(record, SetDealing) and mode in DEALING.choices and mode != self.dealing \
                and (self.shoe if mode == "shoe" else self.shuffler) is not None:
            self._deal_by(mode)
            self.log.info("dealing_mode_restored", mode=mode)

    def check_dealing(self, mode: str, *, actor: str | None = None, why: str) -> None:
        if mode not in DEALING.choices:
            raise Refused(W("fortune3.refusal.unknown_dealing", mode=repr(mode), modes=", ".join(DEALING.choices)))
        if mode == self.dealing:
            raise Refused(W("fortune3.refusal.deals_by_already", mode=mode))
        if (self.shoe if mode == "shoe" else self.shuffler) is None:
            raise Refused(W("fortune3.refusal.no_device", mode=mode))
        if not why.strip():
            raise Refused(W("fortune3.refusal.dealing_why"))

    # --- Art. 11(4): 須另行更換洗牌機或改用派牌盒 ---------------------------------
    # A shuffler failure while dealing voids the round, and a new shuffler or
    # the shoe must be used: the table deals from that shuffler again only
    # once a supervisor confirms it was replaced (``confirm_shuffler``), or
    # deals from the shoe (``set_dealing``). Until then no round opens while
    # the table deals by shuffler. Both are journaled events.

    def restore_standing_event(self, name: str, data: dict) -> None:
        """After a restart the failed shuffler is still out of service until
        a supervisor's confirmation was journaled (a restart replaces nothing)."""
        if name == "shuffler_out_of_service":
            self.shuffler_out_of_service = {"round": data.get("round"), "reason": data.get("reason")}
            self.log.info("shuffler_out_of_service_restored", failed_in=data.get("round"))
        else:
            self.shuffler_out_of_service = None

    def note_void(self, reason: str) -> None:
        if reason in SHUFFLER_FAILURE and self.dealing == "shuffler":
            self.shuffler_out_of_service = {"round": self.round_id, "reason": reason}
            self.emit(ShufflerOutOfService(round=self.round_id, reason=reason,
                      text="the shuffler failed while dealing: a supervisor confirms it was replaced "
                           "or switches the table to the shoe (Art. 11(4))"))

    def check_shuffler(self, round_id: str | None = None) -> None:
        out = self.shuffler_out_of_service
        if out is not None and self.dealing == "shuffler":
            raise Refused(W("fortune3.refusal.shuffler_failed", round=out["round"]))

    def check_confirmation(self, *, actor: str | None = None, why: str = "-") -> None:
        if self.shuffler_out_of_service is None:
            raise Refused(W("fortune3.refusal.no_shuffler_failure"))
        if not why.strip():
            raise Refused(W("fortune3.refusal.shuffler_how"))

    @action(ConfirmShuffler)
    def confirm_shuffler(self, *, actor: str, why: str) -> None:
        """A supervisor confirms the failed shuffler was replaced (Art. 11(4)):
        the table deals from the shuffler again. Between rounds; journaled
        with who and why."""
        failed = self.shuffler_out_of_service
        self.shuffler_out_of_service = None
        self.emit(ShufflerReplaced(failed_in=failed["round"], actor=actor, why=why))
        self.log.info("shuffler_replaced", failed_in=failed["round"], actor=actor)

    CHECKS = {
        "open_round": (check_shuffler,),
        "confirm_shuffler": (check_confirmation,),
        "close_betting": (check_bets,),
        "decide": (check_decision_word, check_box_decision, check_fold, check_decider),
        "stray": (check_stray,),
        "reveal": (check_reveal,),
        "close_decisions": (check_close_decisions,),
        "set_dealing": (check_dealing,),
    }

    def announce_void(self, note: Void) -> None:
        """As the engine's, with every Play a decision staked returned too
        (Art. 11(1): every bet of a void round is returned, the Play
        included): in the round's result and in its ``void`` event. A Play is
        staked by its decision, never placed in the book, so the book alone
        returns the Ante without it."""
        returned = self.stakes_at_risk(dict(self.book.bets))
        players = {pl: self.stakes_at_risk(per, pl) for pl, per in self.book.by_player_first().items()} \
            if self.book.named else {}
        if self.result is not None and self.result.status == "void":
            self.result.bets, self.result.players = returned, players
        shown = {pos: {bet: fmt(a) for bet, a in per.items()} for pos, per in returned.items()}
        if self.book.named:
            by_position: dict[str, dict[str, dict[str, str]]] = {}
            for player, per in players.items():
                for pos, bets in per.items():
                    by_position.setdefault(pos, {})[player] = {bet: fmt(a) for bet, a in bets.items()}
            self.emit(Voided(reason=note.reason, returned=shown, actor=note.actor, why=note.why,
                             returned_by_player=by_position))
        else:
            self.emit(Voided(reason=note.reason, returned=shown, actor=note.actor, why=note.why))
        self.note_void(note.reason)

    def stop_devices(self, note: Void) -> None:
        """A void stops the devices: the shoe is disarmed, the shuffler aborts."""
        if self.shoe is not None:
            self.shoe.disarm()
        if self.shuffler is not None:
            self.shuffler.abort()

    # --- device events ---------------------------------------------------------

    # Each report's hook (the engine hands it over by its kind); a card: ``read_card``.

    def on_shuffle_done(self, event: ShuffleDone) -> None:
        self.emit(Shuffled(shuffle_id=event.shuffle_id, count=event.count, verified=event.verified))
        if not event.verified and self.unsettled:
            self.emit(Fault(device=event.device, code=301, text="shuffler card count mismatch"))
            self.void("shuffler_fault")

    def on_fault(self, event: FaultRaised) -> None:
        self.emit(Fault(device=event.device, code=event.code, severity=event.severity, text=event.text))
        if event.code == DRAWN_WHILE_DISARMED:
            # Reported, flagged, never dealt into a hand; the round goes on. A
            # card read before this round's deck was loaded (handled late) came
            # from the earlier deck: it is flagged, but not one of this deck's.
            earlier = bool(event.shoe_id) and event.shoe_id != f"{self.round_id}-deck"
            if event.card is not None and not earlier:
                self.pack.take(self.round, event.card)
                self.deal_log.flag(DealtCard(event.card, True))
            self.round.incidents.append({"code": event.code, "card": event.card.code if event.card else None})
            if self.unsettled:
                self.open_incident(event.code, event.text, blocking=False,
                                   card=event.card.code if event.card else None)
            return
        if self.state not in (S.BETS_CLOSED, S.DEALING) or event.severity not in ("E", "C"):
            return
        if event.code == MISREAD and self.dealing == "shoe" and self.state is S.DEALING:
            # The card left the shoe unread: a supervisor names it or voids the
            # round; the reader's guess helps. The shoe stays armed (a dealer
            # mid-deal keeps drawing): whoever feeds the table holds the cards
            # read meanwhile until the incident is resolved, so none takes the
            # unread card's place (see tablesim/server/runner.py).
            self.open_incident(MISREAD, event.text, blocking=True, card=event.card.code if event.card else None)
            return
        # Art. 11(4): the shuffler failing while dealing voids the round.
        self.void("shuffler_fault" if self.dealing == "shuffler" else "device_fault")

    def check_resolution(self, incident: Incident, resolution: ResolveIncident) -> None:
        decision, card = resolution.decision, resolution.card
        if incident.code == self.STRAY_INCIDENT and decision == "confirm":
            named = card or incident.card
            if named is None or self.deal_log.holding(named) is None:
                raise IllegalAction("resolve incident", W("fortune3.refusal.name_the_stray", card=named))
        if incident.code == MISREAD and decision == "confirm":
            if card is None:
                raise IllegalAction("resolve incident", W("fortune3.refusal.misread_card"))
            parse_dealt(card)

    def on_incident_resolved(self, incident: Incident, resolution: ResolveIncident) -> None:
        decision, card = resolution.decision, resolution.card
        if incident.code == self.MISDEAL_INCIDENT:
            if decision == "confirm":
                self.void("misdeal", actor=resolution.actor, why=resolution.why)
            return  # rejected: the round goes on where it was
        if incident.code == self.STRAY_INCIDENT:
            if decision == "confirm":
                self._declare_stray(self.deal_log.holding(card or incident.card))
            return  # rejected: every card stands
        if incident.code != MISREAD:
            return  # a card drawn while disarmed stays set aside either way
        if decision == "reject":
            self.void("misread")
        else:
            dealt = parse_dealt(card)
            self.read_card(dealt.card, dealt.exposed)

    def recovery_policy(self) -> tuple[str, str]:
        if self.state is S.DEALING and self.dealing == "shuffler":
            # The shuffler's state after a power loss is unknown: Art. 11(4).
            return "void", "interrupted while the automatic shuffler was dealing (Art. 11(4))"
        return super().recovery_policy()

    def resume_devices(self) -> None:
        if self.state is S.BETTING_OPEN:
            self.fresh_deck()
        elif self.state is S.DEALING:
            self.resume_deal()

    def read_card(self, card: Card, exposed: bool, stale: bool = False) -> None:
        if stale or self.machine.model.state is not S.DEALING:
            # A card before betting closed (or after dealing), or one read for an
            # earlier round, is an incident, never a card of a hand.
            what = W("fortune3.incident.card_earlier_round" if stale else "fortune3.incident.card_outside_dealing")
            self.open_incident(DRAWN_WHILE_DISARMED, what, blocking=False, card=card.code)
            self.round.incidents.append({"code": DRAWN_WHILE_DISARMED, "card": card.code})
            if not stale:  # an earlier round's card came from that round's deck
                self.pack.take(self.round, card)
            return
        if not self.count_out(card):
            return
        self._place([dealt_card(card, exposed)])
        if self.observed and self.machine.model.state is S.DEALING:
            self.instruct()

    def on_hand(self, event: HandDispensed) -> None:
        if self.state is not S.DEALING:
            self.open_incident(DRAWN_WHILE_DISARMED, W("fortune3.incident.hand_outside_dealing"), blocking=False,
                               card=" ".join(c.code for c in event.cards))
            return
        if len(event.cards) != self.round.requested:
            # A hand of the wrong size is a misdeal (Art. 11(1)), whatever the
            # shuffler's own checks said: the round is void.
            self.emit(Fault(device=event.device, code=302, severity="E",
                      text=f"the shuffler dispensed {len(event.cards)} card(s), the hand needs {self.round.requested}"))
            self.void("misdeal")
            return
        for card in event.cards:
            if not self.count_out(card):
                return
        self.round.awaiting = False
        self._place([dealt_card(card, exposed) for card, exposed in zip(event.cards, event.exposed)])
        if self.state is S.DEALING:
            self._request_hand()

    def duplicate_text(self, card: Card, copies: int) -> str:
        return f"{card.code} read twice from a single deck (misread)"

    def card_device_name(self) -> str:
        return self.devices[0].name  # the shoe or the shuffler, whichever deals

    def _place(self, dealt: list[DealtCard]) -> None:
        """Lay the card or hand where due (the deal's log); the deal is complete
        once nobody is due a card."""
        exposed_to_dealer = self.dealing == "shoe" and dealt[0].exposed and self.round.targets[0] == DEALER
        self.deal_log.deliver(dealt)
        if exposed_to_dealer:
            self.arm()  # one card more than armed for
        if not self.round.targets:
            self.trigger["hands_dealt"]()

    def instruct(self) -> None:
        if not self.observed:
            return  # nobody to instruct (a simulation)
        who = self.round.targets[0]
        n = len(self.round.cards[who]) + 1
        self.emit(Instruction(text=W("fortune3.next.card_to_dealer", n=n) if who == DEALER else W("fortune3.next.card_to_box", n=n, box=who), to=who))

    def _request_hand(self) -> None:
        who = self.round.targets[0]
        missing = 3 - len(self.round.cards[who])
        self.round.requested = missing
        self.round.awaiting = True
        hand_no = self.round.order.index(who) + 1
        self.shuffler.deal_hand(hand_no, missing)
        if self.heard():
            self.emit(Instruction(text=W("fortune3.next.hand_to_dealer", n=hand_no) if who == DEALER else W("fortune3.next.hand_to_box", n=hand_no, box=who), to=who))

    def evaluate_hands(self) -> None:
        for who in self.round.order:
            self.round.hands[who] = self.evaluator.evaluate([d.card for d in self.round.cards[who]])

    def ask_decisions(self) -> None:
        self.round.deciders = sum(1 for b in self.round.order[:-1] if self.book.get(b, "ante") is not None)
        pending = self.pending_decisions()
        if pending:
            if self.heard():
                self.emit(Instruction(text=W("fortune3.next.decide"), boxes=pending))
                if REMOTE in pending:  # the remote players' count and their timer (the console shows both)
                    self.emit(RemoteDecisions(players=len(self.book.players_at(REMOTE)),
                                              pending=len(self.pending_remote()),
                                              seconds=self.profile.remote.decision_seconds))
        elif self.settings.reveal_by_dealer:
            if self.heard():
                self.emit(Instruction(text=W("fortune3.next.reveal")))
        else:
            self.trigger["reveal"]()

    # --- settlement ------------------------------------------------------------

    def reveal_dealer(self) -> None:
        dealer = self.round.hands[DEALER]
        self.round.qualifies = qualifies = dealer_qualifies(self.profile, self.evaluator, dealer)
        if self.observed:
            self.emit(DealerHand(cards=[d.code for d in self.round.cards[DEALER]], hand=dealer.category, qualifies=qualifies))
        self.trigger["settle"]()

    def settle_boxes(self) -> None:
        dealer = self.round.hands[DEALER]
        qualifies = self.round.qualifies
        book, decisions, hands = self.book, self.round.decisions, self.round.hands
        results = settle_boxes(self.profile, [
            (box, BoxBets(book.get(box, "ante"), book.get(box, "pair_plus")), decisions.get(box), hands[box])
            for box in self.round.order[:-1] if box != REMOTE
        ], dealer, qualifies)
        players: dict[str, dict[str, dict[str, Decimal]]] = {}
        if self.book.named:
            # Each player's own bets on the box follow the box's hand and the
            # seated player's decision (back-betting, where the profile allows
            # it); on the remote hand, each remote player's own decision.
            for box in self.round.order[:-1]:
                for player, stakes in self.book.player_bets(box).items():
                    decision = self.round.remote_decisions.get(player) if box == REMOTE else self.round.decisions.get(box)
                    players.setdefault(player, {})[box] = settle_box(
                        self.profile, BoxBets(stakes.get("ante"), stakes.get("pair_plus")),
                        decision, self.round.hands[box], dealer, qualifies)
        if REMOTE in self.round.order:  # the remote hand as a position: its players' results together
            results[REMOTE] = summed({p: per[REMOTE] for p, per in players.items() if REMOTE in per})
        self.result = self.settled_result(self._outcome(qualifies), results, players)
        if self.observed:
            self.emit(Settlement(results={b: {k: str(v) for k, v in r.items()} for b, r in results.items()}))
        self.trigger["complete"]()

    def settled_result(self, outcome: dict, results: dict[str, dict[str, Decimal]],
                       players: dict[str, dict[str, dict[str, Decimal]]] | None = None) -> RoundResult:
        """As the engine's, each remote player's stakes by their own decision."""
        result = super().settled_result(outcome, results, players)
        if REMOTE in self.round.order and result.player_stakes:
            named = self.book.by_player_first()
            result.player_stakes = {pl: self.stakes_at_risk(named[pl], pl) for pl in result.player_stakes}
        return result

    def stakes_at_risk(self, bets: dict[str, dict[str, Decimal]],
                       player: str | None = None) -> dict[str, dict[str, Decimal]]:
        """The bets, and a Play stake equal to the Ante on each box that
        played (Art. 9(1)): the play is staked by the decision, not placed
        as a bet, yet it is as much at risk as the Ante. ``player``: whose
        bets they are (on the remote hand, their own decision counts)."""
        out: dict[str, dict[str, Decimal]] = {}
        for box, placed in bets.items():
            if box == REMOTE:
                out[box] = self.remote_stakes(placed, player)
                continue
            ante = placed.get("ante")
            if ante is None or self.round.decisions.get(box) != "play":
                out[box] = dict(placed)
                continue
            stakes = out[box] = {}
            for bet, amount in placed.items():
                stakes[bet] = amount
                if bet == "ante":
                    stakes["play"] = ante
        return out

    def _outcome(self, qualifies: bool) -> dict:
        dealer = self.round.hands[DEALER]
        outcome = {
            "dealer": {
                "cards": [d.code for d in self.round.cards[DEALER]],
                "hand": dealer.category,
                "qualifies": qualifies,
            },
            "boxes": {
                box: {
                    "cards": [d.code for d in self.round.cards[box]],
                    "hand": self.round.hands[box].category,
                    "decision": self.round.decisions.get(box),
                }
                for box in self.round.order[:-1]
            },
        }
        if self.round.set_aside:
            outcome["set_aside"] = [d.code for d in self.round.set_aside]
        if REMOTE in self.round.order:  # what the profile changes, with each round that deals the remote hand
            outcome["remote"] = self.remote_outcome()
        return outcome
