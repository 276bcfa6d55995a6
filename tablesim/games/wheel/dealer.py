"""The Wheel of Fortune dealer: what happens next, given the table's state.

A round goes on from wherever the table is (a recovered round too): a new
round opens betting; the players bet on symbols and the dealer calls "no
more bets" (Art. 2); the dealer spins, again after each no-spin (Art. 4),
and the sensor's reports are taken until the round is settled; a spin the
sensor never reports voids the round. The mock table, scripted rounds and
the simulator all play their rounds here (``tablesim.games.dealer``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from drivers.mock.wheel import MockWheelSensor, WheelFault
from tablesim.engine.limits import Limits
from tablesim.engine.stats import BetTotals, SessionStats
from tablesim.games.dealer import devices_only, Hands, place_bets, Players, PUMP
from tablesim.games.rig import mock_device, MockRig
from tablesim.games.session import bold, Line, red, SessionPlan, signed_piece, yellow
from tablesim.games.wheel.machine import AWAITING_SPIN, S
from tablesim.games.wheel.profile import load_profile, WheelProfile, WheelSettings
from tablesim.games.wheel.table import WheelTable


def play_round(table: WheelTable, players: Players, hands: Hands = PUMP) -> None:
    if devices_only(table, players, hands, AWAITING_SPIN):
        return
    if table.between_rounds:
        table.open_round()
    if table.state is S.BETTING_OPEN:
        place_bets(table, players)
        table.close_betting()
    if table.state in AWAITING_SPIN and not hands.take(table, AWAITING_SPIN):
        table.void("device_timeout")  # the sensor went quiet


# --- Simulated players for the mock wheel table.

CHIPS = (Decimal(1), Decimal(2), Decimal(5), Decimal(10), Decimal(25))
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


def _chip(rng: random.Random, limits: Limits, spot: str) -> Decimal:
    choices = [c for c in CHIPS if limits.check(spot, c) is None]
    if not choices:
        return limits.by_bet[spot].minimum
    return rng.choice(choices)


def random_bets(rng: random.Random, profile: WheelProfile, limits: Limits) -> list[tuple[str, str, Decimal]]:
    """Bets for one round as (player, spot, amount)."""
    players = rng.sample(NAMES, rng.randint(1, 5))
    spots = profile.spots
    # The more segments a symbol has, the more often it is backed.
    weights = [s.segments + 2 for s in profile.symbols]
    bets = []
    for player in players:
        chosen: list[str] = []
        for _ in range(rng.randint(1, 3)):
            spot = rng.choices(spots, weights)[0]
            if spot not in chosen:
                chosen.append(spot)
        for spot in chosen:
            bets.append((player, spot, _chip(rng, limits, spot)))
    return bets


# --- The Wheel of Fortune on a mock indicator sensor with simulated players:
# the table of ``tablesim run --mock`` and ``tablesim serve --mock`` (the
# ``mock`` part), and the game's part of a ``tablesim run`` session
# (``session``): round by round as plain lines the CLI renders, then the hold
# per symbol.

#: chance per round that the mock sensor reports motion while idle / an error fault
MOTION_IDLE_RATE = 0.01
SENSOR_FAULT_RATE = 0.005


@dataclass
class WheelRig(MockRig):
    spin_requested: bool = False  # the dealer pressed "spin" on the console
    devices: ClassVar[str] = "mock indicator sensor"


class SimulatedPlayers(Players):
    """A few regulars, each backing one to three symbols."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bets(self, table: WheelTable):
        return random_bets(self.rng, table.profile, table.settings.limits)


def build_table(profile: str | None, rng: random.Random) -> WheelTable:
    rules = load_profile(profile)
    sensor = mock_device("wheel", rng=rng, segments=rules.segments)
    return WheelTable(rules, WheelSettings.for_profile(rules), sensor=sensor, table_id="WHEEL-MOCK")


def mock(options: dict[str, Any], *, profile: str | None, seed: int, seeded: bool) -> WheelRig:
    rng = random.Random(seed)
    return WheelRig(build_table(profile, rng), seed, rng)


def _maybe_faults(table: WheelTable, rng: random.Random) -> None:
    sensor = table.sensor
    if not isinstance(sensor, MockWheelSensor):
        return
    sensor.clear_faults()
    if rng.random() < MOTION_IDLE_RATE:
        sensor.inject(WheelFault("motion_while_idle", segment=rng.randrange(len(table.layout))))
    if rng.random() < SENSOR_FAULT_RATE:
        sensor.inject(WheelFault(rng.choice(("sensors_disagree", "encoder")), after=rng.randint(0, 1)))


def play_simulated(table: WheelTable, rng: random.Random) -> None:
    """One round with simulated players, from whatever state the table is in
    (a recovered round goes on where it stopped)."""
    if table.between_rounds:
        _maybe_faults(table, rng)
    play_round(table, SimulatedPlayers(rng))


def _spin_text(spin: dict) -> list:
    turns = f"{spin['turns']:g} turns"
    if spin["counts"]:
        return [f"segment {spin['segment']} -> ", bold(str(spin["symbol"])), f" ({turns} {spin['direction']})"]
    if spin["reason"] == "few_turns":
        return [yellow("no spin"), f" ({turns})"]
    return [yellow("no spin"), f" ({spin['reason']}, {turns})"]


def render(table: WheelTable) -> list[Line]:
    result = table.result
    spins: list = []
    for i, spin in enumerate(table.spins):
        spins += ([", "] if i else []) + _spin_text(spin)
    lines: list[Line] = []
    if result.status == "void":
        lines.append([bold(result.round_id), "  ", *spins, *(["; "] if spins else []),
                      red("void"), f" ({result.void_reason}); every bet returned"])
    else:
        lines.append([bold(result.round_id), "  ", *spins])
    for incident in table.incidents:
        lines.append(["  ", yellow("incident"), f": {incident['what']}"])
    if result.status == "settled":
        for player, bets in result.bets.items():
            # "10 on symbol 3 (-10)": the stake, the symbol backed and what it returned, never
            # a bare "3 10" where a symbol and a stake look alike
            res = result.results[player]
            line: list = [f"  {player}: "]
            for i, (k, v) in enumerate(bets.items()):
                line += [", " if i else "", f"{v} on symbol {k} (", signed_piece(res[k]) if k in res else "open", ")"]
            lines.append([*line, "  net ", signed_piece(result.net[player])])
    return lines


def session(table: WheelTable, rng: random.Random, devices: str, rig: MockRig | None = None) -> SessionPlan:
    stats = SessionStats()
    for spot in table.profile.spots:  # the summary lists the symbols in the profile's order
        stats.by_bet[spot] = BetTotals()
    counts = {"no_spins": 0, "incidents": 0}

    def count() -> None:
        counts["no_spins"] += table.no_spins
        counts["incidents"] += len(table.incidents)

    return SessionPlan(
        banner=f"Wheel of Fortune, profile {table.profile.name}, {devices}",
        play_round=lambda: play_simulated(table, rng),
        render=lambda: render(table),
        summary_title="Wheel of Fortune: hold per symbol",
        after_round=count,
        footer=lambda: f"no spins called: {counts['no_spins']}; incidents: {counts['incidents']}",
        stats=stats,
        after_recover=rig.after_recovery if rig is not None else None,
    )


__all__ = ["WheelRig", "build_table", "mock", "play_round", "play_simulated", "render", "session"]
