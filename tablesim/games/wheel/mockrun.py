"""``tablesim run --game wheel --mock``: a wheel table with a mock indicator
sensor and simulated players, shown round by round, then the hold per symbol."""

from __future__ import annotations

import random
import secrets
from decimal import Decimal

from rich.console import Console
from rich.markup import escape

from drivers.mock.wheel import MockWheelSensor, RandomSpins, WheelFault
from tablesim.cli.display import signed
from tablesim.cli.session import SessionPlan, run_session
from tablesim.engine.runopts import RunOptions
from tablesim.engine.stats import BetTotals, SessionStats
from tablesim.core.errors import IllegalAction, InputError
from tablesim.games.wheel.machine import AWAITING_SPIN, S
from tablesim.games.wheel.players import random_bets
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.settings import WheelSettings
from tablesim.games.wheel.table import WheelTable

#: chance per round that the mock sensor reports motion while idle / an error fault
MOTION_IDLE_RATE = 0.01
SENSOR_FAULT_RATE = 0.005


def build_table(options: RunOptions, rng: random.Random) -> WheelTable:
    profile = load_profile(options.profile)
    settings = WheelSettings.for_profile(profile)
    sensor = MockWheelSensor(RandomSpins(rng, profile.segments))
    return WheelTable(profile, settings, sensor=sensor, table_id="WHEEL-MOCK")


def _maybe_faults(table: WheelTable, rng: random.Random) -> None:
    sensor = table.sensor
    if not isinstance(sensor, MockWheelSensor):
        return
    sensor.clear_faults()
    if rng.random() < MOTION_IDLE_RATE:
        sensor.inject(WheelFault("motion_while_idle", segment=rng.randrange(len(table.layout))))
    if rng.random() < SENSOR_FAULT_RATE:
        sensor.inject(WheelFault(rng.choice(("sensors_disagree", "encoder")), after=rng.randint(0, 1)))


def play_round(table: WheelTable, rng: random.Random) -> list[tuple[str, Decimal]]:
    """One round with simulated players, from whatever state the table is in
    (a recovered round goes on where it stopped); returns each stake as
    (spot, amount)."""
    if table.state in (S.IDLE, S.COMPLETE, S.VOID):
        _maybe_faults(table, rng)
        table.open_round()
    if table.state is S.BETTING_OPEN:
        for player, spot, amount in random_bets(rng, table.profile, table.settings.limits):
            try:
                table.place_bet(player, spot, amount)
            except IllegalAction:
                pass  # e.g. over the limit on a spot a recovered round already holds
        table.close_betting()
    if table.state in AWAITING_SPIN and not table.pump(AWAITING_SPIN):
        table.void("device_timeout")  # the mock never stalls; guard anyway
    return [(spot, amount) for _, spot, amount in table.book.items()]


def _spin_text(spin: dict) -> str:
    turns = f"{spin['turns']:g} turns"
    if spin["counts"]:
        return f"segment {spin['segment']} -> [bold]{spin['symbol']}[/] ({turns} {spin['direction']})"
    if spin["reason"] == "few_turns":
        return f"[yellow]no spin[/] ({turns})"
    return f"[yellow]no spin[/] ({spin['reason']}, {turns})"


def render(table: WheelTable) -> list[str]:
    result = table.result
    spins = ", ".join(_spin_text(s) for s in table.spins)
    lines = []
    if result.status == "void":
        lines.append(
            f"[bold]{result.round_id}[/]  {spins + '; ' if spins else ''}"
            f"[red]void[/] ({result.void_reason}); every bet returned"
        )
    else:
        lines.append(f"[bold]{result.round_id}[/]  {spins}")
    for incident in table.incidents:
        lines.append(f"  [yellow]incident[/]: {escape(incident['what'])}")
    if result.status == "settled":
        for player, bets in result.bets.items():
            # "10 on symbol 3 (-10)": the stake, the symbol backed and what it returned, never
            # a bare "3 10" where a symbol and a stake look alike
            res = result.results[player]
            shown = ", ".join(f"{v} on symbol {escape(k)} ({signed(res[k]) if k in res else 'open'})"
                              for k, v in bets.items())
            lines.append(f"  {escape(player)}: {shown}  net {signed(result.net[player])}")
    return lines


def plan(table: WheelTable, rng: random.Random, devices: str) -> SessionPlan:
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
    )


def run_mock(options: RunOptions, console: Console) -> int:
    if options.dealing or options.decks:
        raise InputError("the wheel has no dealing mode or decks")
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    rng = random.Random(seed)
    table = build_table(options, rng)
    return run_session(table, options, console, plan(table, rng, f"mock indicator sensor, seed {seed}"))


def table_for_devices(devices: dict, settings: WheelSettings, *, profile: str | None, table_id: str,
                      seeded: bool = False) -> WheelTable:
    """A table on a real (serial) or emulated wheel indicator sensor."""
    return WheelTable(load_profile(profile), settings, sensor=devices["wheel"], table_id=table_id)


def run_table(table: WheelTable, options: RunOptions, console: Console, devices: str) -> int:
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    return run_session(table, options, console, plan(table, random.Random(seed), f"{devices}, players' seed {seed}"))


__all__ = ["run_mock", "play_round", "build_table", "render", "table_for_devices", "run_table"]
