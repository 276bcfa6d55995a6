"""What ``tablesim bench`` measures. Each item is skipped (with the reason)
when the part it measures is not available in this build."""

from __future__ import annotations

import os
import platform
import random
from typing import Any, Callable

from tablesim.harness.bench.measure import rate, seconds
from tablesim.games.registry import game_module
from tablesim.profiles import GAMES

#: the engine benchmark's table per game (what the simulator seats)
ENGINE_LAYOUT = {
    "fortune3": "all 7 boxes betting (Ante, Pair Plus or both), Q-6-4 decisions",
    "football": "all 11 boxes betting",
    "wheel": "10 players",
}


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
    }


def engine_rounds(game: str) -> dict[str, Any]:
    sim = game_module(game).simulator("bench")
    return {"rounds_per_second": rate(sim.play_round, batch=50), "table": ENGINE_LAYOUT[game]}


def hands_per_second() -> dict[str, Any]:
    from tablesim.core.cards import DECK
    from tablesim.games.fortune3.hands import Evaluator, classify
    from tablesim.games.fortune3.profile import load_profile

    evaluator = Evaluator(load_profile().ranking)
    rng = random.Random(1)
    hands = [tuple(rng.sample(DECK, 3)) for _ in range(5000)]
    it = iter(range(10**12))

    def one_cached() -> None:
        evaluator.evaluate(hands[next(it) % 5000])

    def one_raw() -> None:
        classify(hands[next(it) % 5000])

    return {"evaluate_per_second": rate(one_cached, batch=5000), "classify_per_second": rate(one_raw, batch=5000)}


def analysis_seconds(game: str) -> dict[str, Any]:
    module = game_module(game)
    return {"seconds": seconds(module.analyze, repeats=3)}


#: what ``tablesim bench --only`` may pick
SECTIONS = ("engine", "analysis", "link", "bet_intake", "card_to_console")


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
        for game in GAMES:
            attempt("engine", game, lambda g=game: engine_rounds(g))
        attempt("engine", "fortune3_hands", hands_per_second)
    if want("analysis"):
        for game in GAMES:
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

    measure_service(out, want, progress)
    return out
