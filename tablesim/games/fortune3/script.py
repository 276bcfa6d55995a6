"""Scripted Fortune 3 Card Poker rounds (spec/scripted-rounds.md, fortune3)."""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.mock import MockFault, MockShoe, MockShuffler, ScriptedCards
from tablecore.cards import DealtCard
from tablesim.engine.result import RoundResult
from tablesim.engine.table import resolve_unattended
from tablecore.errors import IllegalAction, InputError
from tablesim.games.dealer import Hands, Players
from tablesim.games.fortune3 import dealer
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import Fortune3Profile, load_profile
from tablesim.games.fortune3.settings import BETS, Fortune3Settings, default_limits
from tablesim.games.fortune3.spec import DEALING
from tablesim.games.fortune3.table import DECISIONS, Fortune3Table
from tablesim.games.scriptparse import (ScriptBet, parse_box_bets, parse_card_list, parse_faults, place_script_bets,
                                       script_limits)
from tablesim.profiles import script_profile
from tablecore.validate import Reader


@dataclass
class Fortune3Round:
    where: str
    bets: list[ScriptBet]
    decisions: dict[str, str]
    cards: list[DealtCard]
    faults: list[MockFault] = field(default_factory=list)
    misdeal_after: int | None = None
    stray_after: tuple[int, ...] = ()


class ScriptedPlayers(Players):
    """The script's bets and decisions (a box with an Ante plays unless told);
    a refusal is the script's error, located at its field."""

    def __init__(self, spec: Fortune3Round) -> None:
        self.spec = spec

    def place(self, table) -> None:
        place_script_bets(table, self.spec.bets)  # with their players; a refusal names its field

    def decision(self, table: Fortune3Table, box: str) -> str:
        return self.spec.decisions.get(box, "play")

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        where = f"bets.{position}.{what}" if action == "bet" else f"decisions.{position}"
        raise InputError(exc.reason, where=where) from None


class ScriptFeed(Hands):
    """The script's cards, fed one device report at a time, with its
    ``misdeal_after`` and ``stray_after``."""

    def __init__(self, session: "Fortune3ScriptSession", spec: Fortune3Round) -> None:
        self.session, self.spec = session, spec

    def take(self, table: Fortune3Table, states: tuple) -> bool:
        self.session.deal(self.spec)
        return True


class Fortune3ScriptSession:
    def __init__(self, table: Reader) -> None:
        self.profile: Fortune3Profile = script_profile(table, load_profile)
        dealing = DEALING.read(table)
        # The scripted dealer reveals the dealer's hand once the players have
        # decided: the table holds before it, so a misdeal or a stray last
        # card can be called after the last card is out (Art. 11(1), 11(3)).
        self.settings = Fortune3Settings(dealing=dealing, limits=script_limits(table, default_limits()),
                                         reveal_by_dealer=True)
        self.source = ScriptedCards()
        self.shoe = MockShoe(self.source) if dealing == "shoe" else None
        self.shuffler = MockShuffler(self.source) if dealing == "shuffler" else None
        self.table = Fortune3Table(self.profile, self.settings, shoe=self.shoe, shuffler=self.shuffler, table_id="SCRIPT")

    def parse_round(self, r: Reader) -> Fortune3Round:
        bets = parse_box_bets(r, self.table.book, BETS)
        boxes_with_ante = {b.box for b in bets if b.bet == "ante"}
        decisions_r = r.sub("decisions", {})
        decisions = {}
        for box in decisions_r.data:
            decision = decisions_r.str(box, choices=DECISIONS)
            if str(box) not in boxes_with_ante:
                raise decisions_r.fail(str(box), f"box {box} has no Ante: it has no decision to make")
            decisions[str(box)] = decision
        cards = parse_card_list(r)
        faults = parse_faults(r, "shoe" if self.settings.dealing == "shoe" else "shuffler")
        misdeal = r.int("misdeal_after", None, lo=0, hi=60) if r.has("misdeal_after") else None
        if misdeal is not None and misdeal > len(cards):
            raise r.fail("misdeal_after", f"{misdeal} is beyond the {len(cards)} card(s) in cards: "
                         "the dealer can only call a misdeal on cards that are out")
        stray = r.list("stray_after", [])
        for i, n in enumerate(stray):
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(cards):
                raise r.fail(f"stray_after[{i}]", f"{n!r} is not a position in cards (1-{len(cards)})")
        return Fortune3Round(r.file or "", bets, decisions, cards, faults, misdeal, tuple(stray))

    def play(self, spec: Fortune3Round) -> RoundResult:
        table = self.table
        self.source._cards.clear()
        self.source.feed(spec.cards)
        device = self.shoe or self.shuffler
        device.faults = list(spec.faults)
        device.clear_faults()
        device.queue.clear()
        dealer.play_round(table, ScriptedPlayers(spec), ScriptFeed(self, spec))
        if table.result is None:
            raise InputError(f"the round did not finish (it is {table.state.value})", where="cards")
        if table.result.status == "settled" and device.faults:
            index = spec.faults.index(device.faults[0])
            raise InputError(
                f"fault {device.faults[0].kind!r} never happened in this round (after {device.faults[0].after})",
                where=f"faults[{index}]",
            )
        if table.result.status == "settled" and self.source.remaining():
            left = " ".join(d.code for d in self.source.left())
            raise InputError(f"{self.source.remaining()} card(s) left unused: {left}", where="cards")
        return table.result

    def deal(self, spec: Fortune3Round) -> None:
        """Feed the device's events to the table; ``misdeal_after`` and
        ``stray_after`` count the cards the device has delivered."""
        table = self.table
        device = table.devices[0]
        given = len(spec.cards)
        delivered = 0
        while table.state is S.DEALING:
            if spec.misdeal_after is not None and delivered >= spec.misdeal_after:
                if delivered > spec.misdeal_after:
                    raise InputError(_inside_a_hand(spec.misdeal_after, delivered), where="misdeal_after")
                self._misdeal()
                return
            event = device.next_event(0)
            if event is None:
                raise InputError(f"ran out of scripted cards: the deal needs more than {given}", where="cards")
            table.handle(event)
            before = delivered
            delivered += len(getattr(event, "cards", ())) or (1 if hasattr(event, "card") and event.card else 0)
            # a shuffler's hand comes out whole: a stray is declared on a whole hand
            skipped = [n for n in spec.stray_after if before < n < delivered]
            if skipped:
                raise InputError(_inside_a_hand(skipped[0], delivered), where="stray_after")
            resolve_unattended(table)
            # A stray may be the deal's last card: the table holds before the
            # reveal, so the dealer can still declare it (Art. 11(3)).
            if delivered in spec.stray_after and table.state in (S.DEALING, S.DECISIONS):
                try:
                    table.stray()
                except IllegalAction as exc:
                    raise InputError(exc.reason, where="stray_after") from None
        if spec.misdeal_after is not None and table.state is S.DECISIONS:
            if delivered < spec.misdeal_after:
                raise InputError(f"{spec.misdeal_after} is beyond the {delivered} card(s) dealt",
                                 where="misdeal_after")
            if delivered > spec.misdeal_after:
                raise InputError(_inside_a_hand(spec.misdeal_after, delivered), where="misdeal_after")
            self._misdeal()  # after the last card, before anyone decides (Art. 11(1))

    def _misdeal(self) -> None:
        """The dealer calls the misdeal; where the table wants a supervisor's
        confirmation, the script's supervisor confirms it."""
        table = self.table
        if table.misdeal() is None:
            table.resolve_incident("confirm", actor="script", why="the scripted misdeal call is confirmed")


def _inside_a_hand(n: int, delivered: int) -> str:
    return (f"{n} is not where a shuffler hand ends (its hand ended at card {delivered}; "
            "the shuffler delivers a hand at a time)")


def script_session(table: Reader) -> Fortune3ScriptSession:
    return Fortune3ScriptSession(table)
