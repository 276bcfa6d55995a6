"""Scripted football card game rounds (spec/scripted-rounds.md, football).

Round fields: ``draw`` (the combination the draw display shows, 1-8),
``bets`` (box -> {bet: amount}; boxes ``1``..``10`` and ``common``),
``cards`` (exactly what the shoe reader reports, in order: two cards per
dealt box, left to right, the common box last; then one third card per box
whose two-card total is a middle number, in the same order) and the
optional ``faults``:

- ``{fault: readback_mismatch, shown: 4}``: the display reads back another
  combination (``shown``, default the next one): the round is void;
- ``{fault: segment_fault}``: the display reports a segment fault when the
  draw is sent; ``after: N`` makes it happen once N cards are dealt instead;
- the shoe faults of fortune3's scripts: ``misread``, ``duplicate``
  (``after: N``), ``drawn_while_disarmed`` (``card: 7H``).

Without faults the card count is checked before any round is played: too
few cards, or cards left unused (a third card where none is due), make the
file invalid.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.mock import MockFault, ScriptedCards
from drivers.mock.display import DISPLAY_FAULTS, DisplayFault
from drivers.mock.faults import FAULT_KINDS
from tablecore.cards import DealtCard
from tablecore.errors import IllegalAction, InputError
from tablesim.games.dealer import Hands, Players
from tablesim.games.football import dealer
from tablesim.games.football.draw import ScriptedDraw
from tablesim.games.football.machine import CARD_STATES
from tablesim.games.football.profile import BETS, COMMON, FootballProfile, load_profile
from tablesim.games.football.rules import deal_plan
from tablesim.games.football.profile import FootballSettings, default_limits
from tablesim.games.football.spec import DECKS
from tablesim.games.football.table import FootballTable, box_name
from tablesim.games.scriptparse import (ScriptBet, parse_box_bets, parse_card_field, parse_card_list,
                                       place_script_bets, script_limits)
from tablesim.games.scripted import ScriptedSession
from tablesim.profiles import script_profile
from tablecore.validate import Reader
from tablesim.games.rig import mock_device

SHOE_FAULTS = tuple(k for k, kinds in FAULT_KINDS.items() if "shoe" in kinds)


@dataclass
class FootballRound:
    draw: int
    bets: list[ScriptBet]
    cards: list[DealtCard]
    shoe_faults: list[MockFault] = field(default_factory=list)
    display_faults: list[DisplayFault] = field(default_factory=list)
    segment_fault_after: int | None = None  # cards dealt before the display fails


class ScriptedPlayers(Players):
    """The script's bets; a refusal is the script's error, located at its field."""

    def __init__(self, spec: FootballRound) -> None:
        self.spec = spec

    def place(self, table) -> None:
        place_script_bets(table, self.spec.bets)  # with their players; a refusal names its field

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        raise InputError(exc.reason, where=f"bets.{position}.{what}") from None


class ScriptFeed(Hands):
    """The script's cards instead of the devices pumped."""

    def __init__(self, session: "FootballScriptSession", spec: FootballRound) -> None:
        self.session, self.spec = session, spec

    def take(self, table: FootballTable, states: tuple) -> bool:
        self.session.deal(self.spec)
        return True


class FootballScriptSession(ScriptedSession):
    dealer = staticmethod(dealer.play_round)

    def __init__(self, table: Reader) -> None:
        self.profile: FootballProfile = script_profile(table, load_profile)
        decks = DECKS.read(table)
        self.settings = FootballSettings(decks=decks, limits=script_limits(table, default_limits()))
        self.source = ScriptedCards()
        self.shoe = mock_device("shoe", source=self.source)
        self.display = mock_device("display")
        self.draws = ScriptedDraw()
        self.table = FootballTable(
            self.profile, self.settings, display=self.display, shoe=self.shoe,
            draws=self.draws, mode="script", table_id="SCRIPT",
        )

    # --- reading -------------------------------------------------------------

    def parse_round(self, r: Reader) -> FootballRound:
        draws = sorted(self.profile.draws)
        draw = r.int("draw", lo=draws[0], hi=draws[-1])
        bets = self._bets(r)
        cards = parse_card_list(r)
        spec = FootballRound(draw, bets, cards)
        self._faults(r, spec)
        if not (spec.shoe_faults or spec.display_faults or spec.segment_fault_after is not None):
            self._check_count(r, spec)
        return spec

    def _bets(self, r: Reader) -> list[tuple[str, str, object]]:
        return parse_box_bets(r, self.table.book, BETS)

    def _faults(self, r: Reader, spec: FootballRound) -> None:
        for i, raw in enumerate(r.list("faults", [])):
            f = Reader(raw, f"{r.at('faults')}[{i}]", file=r.file, error=InputError)
            kind = f.str("fault", choices=DISPLAY_FAULTS + SHOE_FAULTS)
            if kind == "readback_mismatch":
                shown = f.int("shown", spec.draw % len(self.profile.draws) + 1, lo=0, hi=99)
                if shown == spec.draw:
                    raise f.fail("shown", f"the display reading back {shown}, the draw itself, is no mismatch")
                spec.display_faults.append(DisplayFault(kind, shown))
            elif kind == "segment_fault":
                after = f.int("after", 0, lo=0, hi=1000)
                if after == 0:
                    spec.display_faults.append(DisplayFault(kind))
                else:
                    spec.segment_fault_after = after
            else:
                after = f.int("after", 0, lo=0, hi=1000)
                spec.shoe_faults.append(MockFault(kind, after, parse_card_field(f)))
            f.reject_unknown()

    def _check_count(self, r: Reader, spec: FootballRound) -> None:
        """The deal takes an exact number of cards: say so before playing anything."""
        boxes = {b.box for b in spec.bets}
        order = [p for p in self.profile.positions if p in boxes and p != COMMON] + [COMMON]
        given = [d.card for d in spec.cards]
        dealt = ", ".join(box_name(b) for b in order)
        try:
            need, thirds = deal_plan(self.profile, order, given)
        except ValueError:
            raise r.fail(
                "cards", f"too few cards: {dealt} take two cards each, at least {2 * len(order)}; "
                f"the script gives {len(given)}"
            ) from None
        third_text = ", ".join(box_name(b) for b in thirds) or "none"
        if len(given) < need:
            raise r.fail(
                "cards", f"too few cards: the deal needs {need} ({2 * len(order)} for two cards to each of "
                f"{dealt}, then third cards to: {third_text}); the script gives {len(given)}"
            )
        if len(given) > need:
            left = " ".join(d.code for d in spec.cards[need:])
            raise r.fail(
                "cards", f"{len(given) - need} card(s) left unused ({left}): the deal takes {need} "
                f"(third cards only to: {third_text})"
            )

    # --- playing -------------------------------------------------------------

    def arm_devices(self, spec: FootballRound) -> None:
        self.shoe.faults = list(spec.shoe_faults)
        self.shoe.clear_faults()
        self.shoe.queue.clear()
        self.display.faults = list(spec.display_faults)
        self.display.health.faults.clear()
        self.display.queue.clear()
        self.draws.next = spec.draw

    def players(self, spec: FootballRound) -> Players:
        return ScriptedPlayers(spec)

    def hands(self, spec: FootballRound) -> Hands:
        return ScriptFeed(self, spec)

    def deal(self, spec: FootballRound) -> None:
        """Feed the script's cards to the table, one device report at a time;
        the display's segment fault once ``segment_fault_after`` cards are dealt."""
        table = self.table
        given = len(spec.cards)
        failed = False
        while table.state in CARD_STATES:
            used = given - self.source.remaining()
            if spec.segment_fault_after is not None and not failed and used >= spec.segment_fault_after:
                self.display.segment_fault()
                failed = True
            event = self.display.next_event(0) or self.shoe.next_event(0)
            if event is None:
                raise InputError(f"ran out of scripted cards: the deal needs more than {given}", where="cards")
            table.handle(event)


def script_session(table: Reader) -> FootballScriptSession:
    return FootballScriptSession(table)
