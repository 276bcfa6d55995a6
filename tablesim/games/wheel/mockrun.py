"""The Wheel of Fortune on a mock indicator sensor with simulated players:
the table of ``tablesim run --mock`` and ``tablesim serve --mock`` (the
``mock`` part), and the game's part of a ``tablesim run`` session
(``session``): round by round as plain lines the CLI renders, then the hold
per symbol."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from drivers.mock.wheel import MockWheelSensor, WheelFault
from tablesim.engine.stats import BetTotals, SessionStats
from tablesim.games.dealer import Players
from tablesim.games.wheel import dealer
from tablesim.games.wheel.players import random_bets
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.settings import WheelSettings
from tablesim.games.wheel.table import WheelTable
from tablesim.games.rig import MockRig, mock_device
from tablesim.games.session import Line, SessionPlan, bold, red, signed_piece, yellow

#: chance per round that the mock sensor reports motion while idle / an error fault
MOTION_IDLE_RATE = 0.01
SENSOR_FAULT_RATE = 0.005


@dataclass
class WheelRig(MockRig):
    spin_requested: bool = False  # the dealer pressed "spin" on the console
    devices: ClassVar[str] = "mock indicator sensor"


class SimulatedPlayers(Players):
    """A few regulars, each backing one to three symbols (players.py)."""

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


def play_round(table: WheelTable, rng: random.Random) -> None:
    """One round with simulated players, from whatever state the table is in
    (a recovered round goes on where it stopped)."""
    if table.between_rounds:
        _maybe_faults(table, rng)
    dealer.play_round(table, SimulatedPlayers(rng))


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
        play_round=lambda: play_round(table, rng),
        render=lambda: render(table),
        summary_title="Wheel of Fortune: hold per symbol",
        after_round=count,
        footer=lambda: f"no spins called: {counts['no_spins']}; incidents: {counts['incidents']}",
        stats=stats,
        after_recover=rig.after_recovery if rig is not None else None,
    )


__all__ = ["WheelRig", "build_table", "mock", "play_round", "render", "session"]
