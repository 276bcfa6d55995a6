"""The football card game table: rules + round machine + draw display + shoe.

The round (Art. 6): the host draws a combination and sends it to the
electronic draw display; only when the display's read-back matches is the
draw accepted and betting opened (players bet knowing the draw). Then two
cards to each box with bets, left to right, the common box last whether or
not it has bets; a third card to each box whose two cards total a middle
number (Art. 10(1)), in the same order; settlement.

Device rules:
- a display read-back that differs from the draw (fault 402) or a display
  fault (401) voids the round, at any point before settlement;
- exposed cards stay valid (Art. 7);
- more copies of one card in a round than there are decks in the shoe is a
  device fault: the round is void;
- the shoe reader's card count (``ShoeCount``) must equal the cards the host
  was told about since the pack was loaded;
- used cards (Art. 8): with one deck, the deck is replaced by a fresh
  pre-shuffled one when it is used up (a round is never dealt across two
  decks: the deck counts as used up when it may run short for the round);
  with several decks, the used cards go back into the continuous shuffler
  after each round.

When each action is allowed, and what happens around each state change, is
declared in ``machine.py``; the methods it names are here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.base import CardShoeReader, DrawDisplay
from drivers.events import DISPLAY_READBACK, DRAWN_WHILE_DISARMED, MISREAD, DrawShown, FaultRaised, ShoeCount
from tablecore.cards import Card, DealtCard, dealt as dealt_card
from tablesim.engine.cardtable import CardRound, CardTable, Pack
from tablesim.engine.actions import action
from tablesim.engine.inputs import OpenRound, Void
from tablesim.engine.machine import Refused
from tablecore.wording import CORE_WORDS as C
from tablesim.games.football.machine import WORDS as W
from tablesim.engine.betbook import BetBook
from tablesim.engine.events import EventBus
from tablesim.games.football.draw import DrawSource, SecureDraw, check_source
from tablesim.games.football.machine import CARD_STATES, PROCEDURE, S
from tablesim.games.football.profile import BETS, COMMON, Draw, FootballProfile
from tablesim.games.football.rules import needs_third_card, total
from tablesim.games.football.profile import FootballSettings
from tablesim.games.football.settle import settle_round
from tablecore.records import CardDealt, Fault, Instruction, Settlement
from tablesim.games.football.machine import (
    DrawAccepted, DrawConfirmed, DrawMade, ExposedCard, PackLoaded, ShoeCounted,
)

def box_name(box: str) -> str:
    return "the common box" if box == COMMON else f"box {box}"


@dataclass(slots=True)
class FootballRoundState(CardRound):
    """(``order``: the dealt boxes, left to right, the common box last.)"""

    pending_draw: Draw | None = None  # drawn, not yet read back by the display
    draw: Draw | None = None  # accepted: shown and read back
    draw_id: str = ""
    thirds: list[str] = field(default_factory=list)  # boxes due a third card


class FootballTable(CardTable):
    game = "football"
    PROCEDURE = PROCEDURE
    Round = FootballRoundState
    BETTING = S.BETTING_OPEN

    def __init__(
        self,
        profile: FootballProfile,
        settings: FootballSettings,
        *,
        display: DrawDisplay,
        shoe: CardShoeReader,
        draws: DrawSource | None = None,
        mode: str = "live",
        table_id: str = "FB",
        bus: EventBus | None = None,
    ) -> None:
        self.draws = draws or SecureDraw()
        check_source(self.draws, mode)
        self.mode = mode
        self.profile = profile
        self.settings = settings
        self.display = display
        self.shoe = shoe
        #: every box, left to right, the common box last (the profile's, read once: asked for every bet)
        self.positions = self.profile.positions
        # The pack in the shoe (Art. 8), across rounds: one deck is replaced when
        # used up, several go back into a continuous shuffler after each round.
        self.pack = Pack(settings.decks, continuous=settings.decks > 1)
        book = BetBook(BETS, settings.limits, self._box_ok)
        super().__init__(table_id=table_id, book=book, devices=[display, shoe], bus=bus)

    def _box_ok(self, box: str) -> str | None:
        if box in self.positions:
            return None
        return W("football.refusal.no_such_box", box=repr(box), boxes=self.profile.boxes, common=COMMON)

    # --- round flow ------------------------------------------------------------

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        """Start a round: make the draw and send it to the display (Art. 6(1)).

        Betting opens when the display's read-back matches (``await_draw``).
        """
        return self.begin_round(round_id, trigger="start_round")

    def check_display(self, round_id: str | None = None) -> None:
        if not self.display.health.ok:
            codes = ", ".join(f"{c} {t}" for c, t in self.display.health.faults.items())
            if codes:
                raise Refused(W("football.refusal.display_faulted", codes=codes))
            raise Refused(W("football.refusal.display_link_down"))

    def send_draw(self) -> None:
        """Replaying a journaled round makes no new draw: the display's
        recorded read-back, which the live round accepted, restores it."""
        self.round.draw_id = f"{self.round_id}-D"
        if not self.replaying:
            self._make_draw()

    def _make_draw(self) -> None:
        number = self.draws.draw(tuple(self.profile.draws))
        self.round.pending_draw = self.profile.draws[number]
        seeded = not self.draws.secure
        self.emit(DrawMade(draw=number, draw_id=self.round.draw_id, source=self.draws.kind, seeded=seeded))
        if seeded:
            self.log.info("draw_not_secure", source=self.draws.kind, mode=self.mode, draw=number)
        self.display.show(
            self.round_id, self.round.draw_id, number, self.round.pending_draw.upper, self.round.pending_draw.lower
        )

    def await_draw(self, timeout: float | None = None) -> bool:
        """Wait for the display's read-back; no answer voids the round."""
        if self.state is S.DRAWING:
            self.pump((S.DRAWING,), timeout)
        if self.state is S.DRAWING:
            self.emit(Fault(device=self.display.name, code=DISPLAY_READBACK, severity="E",
                      text="the draw display did not read back the draw"))
            self.void("display_timeout")
        return self.state is S.BETTING_OPEN

    def check_bets(self) -> None:
        if not self.book.bets:
            raise Refused(C("refusal.no_bets"))

    def seat_boxes(self) -> None:
        """Art. 6(4): the boxes with bets, left to right, the common box last
        (bets or not), two cards each; a fresh pack first if this one may run
        short (Art. 8(1))."""
        boxes = [p for p in self.positions if p != COMMON and p in self.book.bets]
        order = boxes + [COMMON]
        self._ensure_pack(3 * len(order))
        self.round.order = order
        self.round.cards = {who: [] for who in order}
        self.round.targets = [who for who in order for _ in range(2)]

    def arm_shoe(self) -> None:
        self.arm()
        self.instruct()

    def check_thirds(self) -> None:
        if self.round.targets:
            raise Refused(W("football.refusal.third_due", boxes=", ".join(box_name(b) for b in self.round.targets)))

    CHECKS = {"open_round": (check_display,), "close_betting": (check_bets,), "settle": (check_thirds,)}

    def settle_boxes(self) -> None:
        totals = {who: total(self.profile, (d.card for d in self.round.cards[who])) for who in self.round.order}
        results, players, rounded_off = settle_round(
            self.profile, self.round.draw, {w: self.book.player_bets(w) for w in self.round.order if w in self.book.bets},
            totals, self.settings.limits.payout_unit)
        outcome = self._outcome(totals)
        # Art. 12: what rounding to the payout unit moved, and in whose favour
        # (player: commission forgone; house: win kept), shown and journaled
        rounding = {"commission_rounded_off": rounded_off,
                    "commission_rounding": self.profile.commission_rounding} if rounded_off else {}
        outcome.update(rounding)
        self.result = self.settled_result(outcome, results, players if self.book.named else {})
        self.emit(Settlement(results={b: {k: str(v) for k, v in r.items()} for b, r in results.items()},
                  **rounding))
        self.trigger["complete"]()

    def stop_devices(self, note: Void) -> None:
        """A void stops the shoe and clears the display."""
        self.shoe.disarm()
        self.display.clear()
        self.used_cards()

    # --- recovery after a power loss ------------------------------------------

    def recovery_policy(self) -> tuple[str, str]:
        if self.state is S.DRAWING:
            return "void", "interrupted before the display read the draw back: no draw was accepted, no bet taken"
        return super().recovery_policy()

    def resume_devices(self) -> None:
        """Show the accepted draw again (its read-back is checked again) and,
        while dealing, re-arm the shoe for the cards still due."""
        if self.round.draw is not None and self.unsettled:
            self.display.show(self.round_id, self.round.draw_id, self.round.draw.index, self.round.draw.upper, self.round.draw.lower)
        if self.state in CARD_STATES:
            self.resume_deal()

    # --- Art. 8: the pack ---------------------------------------------------

    def _load_pack(self, why: str) -> None:
        pack = self.pack
        pack.load(self.shoe, f"{self.table_id}-P{pack.loads + 1}")
        self.emit(PackLoaded(pack_id=pack.pack_id, decks=pack.decks, cards=pack.size, reason=why))

    def _ensure_pack(self, most: int) -> None:
        if self.pack.pack_id is None:
            self._load_pack("first pack")
        elif self.pack.runs_short(most):
            left = self.pack.size - self.pack.taken
            self.emit(Instruction(text=W("football.instruction.deck_used_up", left=left, most=most)))
            self._load_pack("deck used up (Art. 8(1))")

    def used_cards(self) -> None:
        if not self.round.round_cards:
            return
        if self.settings.decks == 1:
            text = W("football.instruction.set_aside")
        else:
            text = W("football.instruction.to_shuffler")
        if self.heard():
            self.emit(Instruction(text=text, cards=len(self.round_cards)))

    # --- device events -------------------------------------------------------

    # Each report's hook (the engine hands it over by its kind); a card: ``read_card``.

    def on_draw_shown(self, event: DrawShown) -> None:
        current = event.draw_id == self.round.draw_id and self.unsettled
        if not current:
            self.open_incident(DISPLAY_READBACK, W("football.incident.stale_readback", shown=event.shown,
                                                   draw=event.draw_id), blocking=False)
            return
        if self.state is not S.DRAWING:
            expected = self.round.draw  # the draw shown again after a recovery
        elif self.replaying and self.round.pending_draw is None:
            expected = self.profile.draws.get(event.shown)  # the journaled read-back the live round accepted
        else:
            expected = self.round.pending_draw
        if expected is None or event.shown != expected.index:
            drawn = expected.index if expected is not None else "unknown"
            self.emit(Fault(device=event.device, code=DISPLAY_READBACK, severity="E",
                      text=f"the display reads back {event.shown}, the draw is {drawn}"))
            self.void("display_fault")
            return
        if self.state is not S.DRAWING:
            self.emit(DrawConfirmed(draw=expected.index))
            return
        self.round.draw = expected
        self.trigger["draw_shown"]()

    def announce_draw(self) -> None:
        draw = self.round.draw
        self.emit(DrawAccepted(draw=draw.index, upper=list(draw.upper), lower=list(draw.lower),
                  source=self.draws.kind, seeded=not self.draws.secure))
        if self.heard():
            self.emit(Instruction(text=C("instruction.place_bets")))

    def on_fault(self, event: FaultRaised) -> None:
        self.emit(Fault(device=event.device, code=event.code, severity=event.severity, text=event.text))
        serious = event.severity in ("E", "C")
        if event.device == self.display.name:
            if serious and self.unsettled:
                self.void("display_fault")
            return
        # A card read before the current pack was loaded (handled late) came
        # out of the earlier pack: it is flagged below, not counted in this one.
        if event.card is not None and not self.pack.earlier(event.shoe_id):
            self.count_out(event.card)
        if event.code == MISREAD:
            self.pack.reads += 1  # the reader counted it
        if event.code == DRAWN_WHILE_DISARMED:
            # Reported, flagged, never dealt into a hand.
            if event.card is not None:
                self.round.set_aside.append(DealtCard(event.card, True))
            if self.unsettled:
                self.open_incident(event.code, event.text, blocking=False,
                                   card=event.card.code if event.card else None)
            return
        if serious and self.state in (S.BETS_CLOSED, *CARD_STATES):
            self.void("misread" if event.code == MISREAD else "shoe_fault")

    def on_shoe_count(self, event: ShoeCount) -> None:
        self.emit(ShoeCounted(pack_id=event.shoe_id, dealt=event.dealt, remaining=event.remaining))
        reads = self.pack.reads
        if self.replaying or event.shoe_id != self.pack.pack_id or event.dealt == reads:
            return  # (replaying: the live round checked this count; the pack's earlier reads are not replayed)
        text = W("football.incident.count_mismatch", dealt=event.dealt, pack=event.shoe_id, reads=reads)
        self.emit(Fault(device=event.device, code=MISREAD, severity="E", text=text))
        if self.state in CARD_STATES:
            self.void("shoe_count_mismatch")
        else:
            self.open_incident(MISREAD, text, blocking=False)

    def read_card(self, card: Card, exposed: bool, stale: bool = False) -> None:
        self.pack.reads += 1
        if stale or self.state not in CARD_STATES:
            # A card before betting closed (or after the deal) is an incident, never a card of a box.
            self.open_incident(DRAWN_WHILE_DISARMED, W("football.incident.card_outside_deal", state=self.state.value),
                               blocking=False, card=card.code)
            self.round.set_aside.append(DealtCard(card, exposed))
            self.count_out(card)
            return
        if not self.count_out(card):
            return
        r = self.round
        targets = r.targets
        who = targets.pop(0)
        dealt = dealt_card(card, exposed)
        r.cards[who].append(dealt)
        if self.heard():
            self.emit(CardDealt(to=who, card=dealt.code))
        if exposed:
            self.emit(ExposedCard(to=who, card=dealt.code, rule="Art. 7: an exposed card stays valid"))
        if targets:
            if targets[0] != who or self.state is S.THIRD_CARDS:
                self.instruct()
        elif self.state is S.DEALING:
            self.trigger["third_cards"]()
        else:
            self.settle()

    def instruct(self) -> None:
        who = self.round.targets[0]
        what = "third" if self.state is S.THIRD_CARDS else "two"
        if self.heard():
            self.emit(Instruction(text=W(f"football.next.{what}_to_{'common' if who == COMMON else 'box'}", box=who), to=who))

    def find_thirds(self) -> None:
        self.round.thirds = [who for who in self.round.order if needs_third_card(self.profile, [d.card for d in self.round.cards[who]])]

    def deal_thirds(self) -> None:
        self.round.targets = list(self.round.thirds)
        if self.round.targets:
            self.arm()
            self.instruct()
        else:
            self.settle()

    def _outcome(self, totals: dict[str, int]) -> dict:
        draw = self.round.draw
        outcome = {
            "draw": draw.index,
            "upper": list(draw.upper),
            "lower": list(draw.lower),
            "boxes": {who: {"cards": [d.code for d in self.round.cards[who]], "total": totals[who]} for who in self.round.order},
        }
        if self.round.set_aside:
            outcome["set_aside"] = [d.code for d in self.round.set_aside]
        return outcome
