"""What ``tablesim bench`` measures. Each item is skipped (with the reason)
when the part it measures is not available in this build."""

from __future__ import annotations

import os
import platform
import time
from typing import Any, Callable

from tablesim.games.gamespec import load
from tablesim.games.registry import names, spec
from tablesim.harness.bench.measure import probe, rate, seconds


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "probe_s": probe(),  # (this machine's speed now: ``measure.probe``)
    }


def engine_rounds(game: str) -> dict[str, Any]:
    game_spec = spec(game)
    sim = game_spec.part("simulator")("bench")
    return {"rounds_per_second": rate(sim.play_round, batch=50),
            "rounds_per_cpu_second": rate(sim.play_round, batch=50, clock=time.process_time),
            "table": game_spec.bench_table}


def game_bench(target: str) -> dict[str, Any]:
    """A game's own benchmark: measure -> (one call, batch), timed here."""
    return {measure: rate(fn, batch=batch) for measure, (fn, batch) in load(target)().items()}


def analysis_seconds(game: str) -> dict[str, Any]:
    return {"seconds": seconds(spec(game).part("analyze"), repeats=3)}


#: what ``tablesim bench --only`` may pick
SECTIONS = ("engine", "analysis", "link", "bet_intake", "card_to_console", "ws_fanout", "wallet", "platform",
            "table_bus")


def run_suite(progress: Callable[[str], None] | None = None, only: tuple[str, ...] = ()) -> dict[str, Any]:
    def want(section: str) -> bool:
        return not only or section in only

    out: dict[str, Any] = {"machine": machine(), "engine": {}, "analysis": {}, "link": {}}

    def attempt(section: str, key: str, fn: Callable[[], dict[str, Any]]) -> None:
        if progress:
            progress(f"{section}: {key}")
        try:
            out[section][key] = fn()
        except (ImportError, AttributeError) as exc:
            out[section][key] = {"skipped": f"not available: {exc}"}

    if want("engine"):
        for game in names():
            attempt("engine", game, lambda g=game: engine_rounds(g))
        for game in names():
            for key, target in spec(game).benchmarks.items():
                attempt("engine", key, lambda t=target: game_bench(t))
    if want("analysis"):
        for game in names():
            attempt("analysis", game, lambda g=game: analysis_seconds(g))
    try:
        from tablesim.harness.bench import link_bench
    except ImportError as exc:
        out["link"] = {"skipped": f"not available: {exc}"}
    else:
        if want("link"):
            attempt("link", "codec", link_bench.codec)
            attempt("link", "frame_to_event", link_bench.latency)
    from tablesim.harness.bench.service import measure_service

    measure_service(out, want, progress, asked=only)
    if "wallet" in only:  # only when named: the reference wallet, not the table
        from tablesim.harness.bench import wallet_bench

        if progress:
            progress("wallet debits")
        out["wallet"] = wallet_bench.wallet_debits(**wallet_bench.SIZES)
    if "platform" in only:  # (only when named: five processes and thousands of bets)
        from tablesim.harness.bench.platform_bench import platform_money

        if progress:
            progress("platform: bets through the wallet and the bus, then the round's credits")
        try:
            out["platform"] = {"money_path": platform_money(**PLATFORM_SIZES)}
        except (ImportError, OSError, RuntimeError) as exc:
            out["platform"] = {"money_path": {"error": f"{type(exc).__name__}: {exc}"}}
    if "table_bus" in only:  # (only when named: a broker, a table and 100,000 bets)
        from tablesim.harness.bench.table_bus_bench import table_bus

        if progress:
            progress("table_bus: one table fed remote bets on the bus")
        try:
            out["table_bus"] = table_bus(**TABLE_BUS_SIZES)
        except (ImportError, OSError, RuntimeError) as exc:
            out["table_bus"] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


#: the platform bench's arguments (a test makes them small)
PLATFORM_SIZES: dict[str, Any] = {}
#: the table_bus bench's arguments (a test makes them small)
TABLE_BUS_SIZES: dict[str, Any] = {}
