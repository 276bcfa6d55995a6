"""Every part of the coin game, in one module (a toy needs no more)."""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from tablecore.money import parse_amount
from tablecore.validate import Reader
from tablesim.engine.actions import action
from tablesim.engine.inputs import CloseBetting, OpenRound, TableInput
from tablesim.engine.bets import BetBook
from tablesim.engine.limits import Limit, Limits
from tablesim.engine.machine import Procedure, rule, step
from tablesim.engine.result import RoundResult
from tablesim.engine.table import GameTable
from tablesim.games.console import Action, GameAdapter
from tablesim.games.dealer import Hands, Players
from tablesim.games.rig import MockRig
from tablesim.games.session import SessionPlan, bold, results_pieces, signed_piece

SIDES = ("heads", "tails")
BOXES = ("1", "2", "3")
PAYS = Decimal("0.95")


class S(enum.Enum):
    IDLE = "idle"
    BETTING_OPEN = "betting_open"
    BETS_CLOSED = "bets_closed"
    COMPLETE = "complete"
    VOID = "void"


PROCEDURE = Procedure(
    S, S.IDLE, (S.COMPLETE, S.VOID),
    (
        step("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN),
        step("close_betting", S.BETTING_OPEN, S.BETS_CLOSED),
        step("toss", S.BETS_CLOSED, S.COMPLETE, before="settle_bets"),
        step("void", (S.BETTING_OPEN, S.BETS_CLOSED), S.VOID, before="announce_void"),
    ),
    (
        rule("open_round", "open betting", trigger="open_betting", refused="the round is {state}"),
        rule("close_betting", "close betting", trigger="close_betting", refused="betting is closed", fires=CloseBetting),
        rule("toss", "toss", trigger="toss", refused="bets are not closed (the round is {state})"),
    ),
)


@dataclass(frozen=True)
class Profile:
    name: str = "toy"


@dataclass(frozen=True)
class Settings:
    limits: Limits


def profile(name: str | None = None) -> Profile:
    return Profile(name or "toy")


def settings(profile: Profile, options: dict[str, Any]) -> Settings:
    return Settings(Limits({s: Limit(parse_amount(1), parse_amount(100)) for s in SIDES}))


def config_settings(profile: Profile, reader: Reader, limits: Reader | None) -> Settings:
    return settings(profile, {})


def devices(settings: Settings) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class Toss(TableInput):
    """The coin lands on ``side``."""

    side: str


class CoinTable(GameTable):
    game = "coin"
    PROCEDURE = PROCEDURE
    BETTING = S.BETTING_OPEN

    def __init__(self, profile: Profile, settings: Settings, *, table_id: str = "COIN") -> None:
        self.profile, self.settings, self.side = profile, settings, None
        book = BetBook(SIDES, settings.limits, lambda box: None if box in BOXES else f"no box {box}")
        super().__init__(table_id=table_id, book=book, devices=[])

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        return self.begin_round(round_id)

    @action(Toss)
    def toss(self, side: str) -> None:
        self.side = side
        self.trigger["toss"]()

    def settle_bets(self) -> None:
        results = {box: {bet: (amount * PAYS if bet == self.side else -amount) for bet, amount in bets.items()}
                   for box, bets in self.book.bets.items()}
        self.result = RoundResult(self.game, self.round_id, "settled", outcome={"side": self.side},
                                  results=results, bets={b: dict(x) for b, x in self.book.bets.items()})


def table(devices: dict, settings: Settings, *, profile: str | None, table_id: str, seed: int | None = None) -> CoinTable:
    return CoinTable(Profile(profile or "toy"), settings, table_id=table_id)


def diagram() -> str:
    return CoinTable.diagram()


# --- the mock table and `tablesim run` ------------------------------------------------


def mock(options: dict[str, Any], *, profile: str | None, seed: int, seeded: bool) -> MockRig:
    rng = random.Random(seed)
    rules = globals()["profile"](profile)
    return MockRig(CoinTable(rules, settings(rules, options), table_id="COIN-MOCK"), seed, rng)


def play_round(t: CoinTable, rng: random.Random) -> list[tuple[str, Decimal]]:
    t.open_round()
    for box in BOXES:
        t.place_bet(box, rng.choice(SIDES), Decimal(rng.randint(1, 10)))
    t.close_betting()
    t.toss(rng.choice(SIDES))
    return [(bet, amount) for _, bet, amount in t.book.items()]


def dealer(t: CoinTable, players: Players, hands: Hands) -> None:
    """What the dealer does next: open, the players' bets, close (the coin has no device to wait on)."""
    if not players.deals:
        return
    if t.state in (S.IDLE, S.COMPLETE, S.VOID):
        t.open_round()
    if t.state is S.BETTING_OPEN:
        players.place(t)
        t.close_betting()


def session(t: CoinTable, rng: random.Random, devices: str, rig: MockRig | None = None) -> SessionPlan:
    def render() -> list:
        r = t.result
        lines = [[bold(r.round_id), f"  {r.outcome['side']}"]]
        for box, res in r.results.items():
            lines.append([f"  box {box}: ", *results_pieces(res), "  net ", signed_piece(r.net[box])])
        return lines

    return SessionPlan(banner=f"Coin toss, {devices}", play_round=lambda: play_round(t, rng), render=render,
                       summary_title="Coin toss: hold per side")


# --- scripted rounds -------------------------------------------------------------------


class Script:
    def __init__(self, table_r: Reader) -> None:
        self.table = CoinTable(profile(), settings(profile(), {}), table_id="SCRIPT")

    def parse_round(self, r: Reader) -> tuple:
        bets = []
        bets_r = r.sub("bets")
        for box in bets_r.data:
            box_r = bets_r.sub(box)
            for bet in box_r.data:
                bets.append((str(box), str(bet), box_r.raw(bet)))
        return bets, r.str("side", choices=SIDES)

    def play(self, spec: tuple) -> RoundResult:
        bets, side = spec
        self.table.open_round()
        for box, bet, amount in bets:
            self.table.place_bet(box, bet, amount)
        self.table.close_betting()
        self.table.toss(side)
        return self.table.result


def script(table_r: Reader) -> Script:
    return Script(table_r)


# --- simulation and exact figures ------------------------------------------------------


class Simulator:
    def __init__(self, seed: str, profile: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.table = table({}, settings(Profile(), {}), profile=profile, table_id="COIN-SIM")

    def play_round(self) -> dict[str, tuple[Decimal, Decimal]]:
        t = self.table
        t.open_round()
        for box in BOXES:
            for side in SIDES:
                t.place_bet(box, side, Decimal(1))
        t.close_betting()
        t.toss(self.rng.choice(SIDES))
        return {side: (Decimal(len(BOXES)), sum((t.result.results[b][side] for b in BOXES), Decimal(0)))
                for side in SIDES}


def simulator(seed: str, profile: str | None = None) -> Simulator:
    return Simulator(seed, profile)


def analyze(profile: str | None = None) -> dict:
    value = Fraction(1, 2) * Fraction(PAYS) - Fraction(1, 2)
    return {"game": "coin", "bets": {side: {"return": float(value), "exact": str(value)} for side in SIDES}}


def render_analysis(data: dict) -> str:
    return "".join(f"{side}: return {info['return']:.4%}\n" for side, info in data["bets"].items())


def simulation_exact(profile: str | None = None) -> dict:
    return {side: {"return": info["return"], "basis": "a unit on the side"}
            for side, info in analyze(profile)["bets"].items()}


# --- the dealer console ------------------------------------------------------------------


class Console(GameAdapter):
    title = "Coin toss"

    def game_actions(self) -> list[Action]:
        return []

    def layout(self) -> dict[str, Any]:
        return {"kind": "boxes", "positions": list(BOXES), "bets": list(SIDES)}


console = Console
