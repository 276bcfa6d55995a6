"""The load run's saturation verdict (tablesim/harness/bench/saturation.py):
which process limited the bets, judged from its CPU while they came."""

from __future__ import annotations

import os
import time

import pytest

from tablesim.harness.bench.saturation import Sampler, cores_in, machine_busy, verdict


def samples(step: float, rates: list[dict[str, float]], machine: list[float], t0: float = 1000.0):
    """Cumulative samples a ``step`` apart, each interval using ``rates`` (cores) and ``machine`` (busy cores)."""
    out, cpu, busy = [(t0, {k: 0.0 for k in rates[0]}, 0.0)], {k: 0.0 for k in rates[0]}, 0.0
    for i, (rate, m) in enumerate(zip(rates, machine), 1):
        cpu = {k: cpu[k] + v * step for k, v in rate.items()}
        busy += m * step
        out.append((t0 + i * step, dict(cpu), busy))
    return out


def test_only_the_intervals_inside_a_betting_window_count():
    quiet, betting = {"platform": 0.1, "table": 0.1}, {"platform": 0.9, "table": 0.4}
    s = samples(1.0, [quiet, betting, betting, quiet], [0.3, 1.9, 1.9, 0.3])
    cores, machine, seconds = cores_in(s, [(1001.0, 1003.0)])
    assert cores == {"platform": 0.9, "table": 0.4} and machine == 1.9 and seconds == 2.0
    # a window half over an interval counts half of it
    cores, machine, seconds = cores_in(s, [(1000.5, 1002.0)])
    assert seconds == 1.5 and cores["platform"] == pytest.approx((0.1 * 0.5 + 0.9) / 1.5, abs=0.01)
    assert cores_in(s, [(900.0, 950.0)]) == ({}, 0.0, 0.0)


def test_a_process_that_could_not_be_read_is_left_out():
    s = [(0.0, {"platform": 1.0, "wallet": -1.0}, 0.0), (1.0, {"platform": 1.8, "wallet": -1.0}, 1.0)]
    cores, _, _ = cores_in(s, [(0.0, 1.0)])
    assert cores == {"platform": 0.8}


def test_kept_up_says_so_and_names_no_limit():
    v = verdict(2000, 1990.0, {"platform": 0.6, "table": 0.3}, 1.2, 2, 20.0)
    assert v["kept_up"] and v["limit"] is None and v["busiest"] == "platform"
    assert "kept up" in v["why"] and "0.80 free" in v["why"] and "0.90 of them this run's" in v["why"]
    assert v["run_cores"] == 0.9


def test_a_process_at_one_core_is_the_limit_even_with_cores_free():
    v = verdict(4000, 3046.0, {"platforms": 0.97, "table": 0.4, "wallet": 0.3}, 1.5, 4, 20.0)
    assert not v["kept_up"] and v["limit"] == "platforms"
    assert "platforms at 0.97 of a core" in v["why"] and "machine full" not in v["why"]
    v = verdict(4000, 3046.0, {"platforms": 0.97, "table": 0.6, "wallet": 0.3}, 1.9, 2, 20.0)
    assert v["limit"] == "platforms" and "the machine full too" in v["why"]


def test_a_full_machine_with_no_process_at_its_core_is_the_machines_limit():
    v = verdict(4000, 3046.0, {"platforms": 0.8, "table": 0.6, "wallet": 0.5}, 1.95, 2, 20.0)
    assert v["limit"] == "machine" and "the run's largest share platforms'" in v["why"]


def test_neither_a_full_core_nor_a_full_machine_is_a_delay():
    v = verdict(4000, 1000.0, {"platforms": 0.3, "table": 0.2}, 0.6, 2, 20.0)
    assert v["limit"] == "latency" and "1.40 cores free" in v["why"]


def test_nothing_placed_or_nothing_sampled_is_not_judged_as_kept_up():
    assert verdict(2000, None, {"platform": 0.2}, 0.3, 2, 10.0)["kept_up"] is False
    v = verdict(2000, 1999.0, {}, 0.0, 2, 0.0)
    assert v["limit"] is None and "nothing to judge" in v["why"]


def test_the_sampler_reads_a_busy_process_as_busy():
    """A real reading: this process spinning reads as busy as its own CPU says
    (what share of a core it got depends on what else the machine runs)."""
    def read():
        with open(f"/proc/{os.getpid()}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return {"me": (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")}

    with Sampler(read, every=0.05) as sampler:
        t0, cpu0, busy0 = time.time(), read()["me"], machine_busy()
        end = time.process_time() + 0.4  # (0.4 s of CPU, however long a busy machine takes to give it)
        while time.process_time() < end:
            pass
        t1, cpu1, busy1 = time.time(), read()["me"], machine_busy()
    cores, machine, seconds = cores_in(sampler.samples, [(t0, t1)])
    assert len(sampler.samples) >= 5 and seconds == pytest.approx(t1 - t0, abs=0.1)
    own = (cpu1 - cpu0) / (t1 - t0)  # (read directly, over the same window)
    # (the sampler counts the two intervals cut by the window's edges by their share inside,
    # as if their CPU were even: at most 0.05 s each, plus a 10 ms tick each side, of a core)
    edges = (2 * 0.05 + 2 * 0.01) / (t1 - t0) + 0.02
    cpus = os.cpu_count() or 1
    assert cpu1 - cpu0 >= 0.35 and cores["me"] == pytest.approx(own, abs=edges)
    assert machine == pytest.approx((busy1 - busy0) / (t1 - t0), abs=edges * cpus)
    assert cores["me"] - edges <= machine <= cpus + edges


def test_a_rate_the_bettors_cannot_offer_is_judged_against_what_they_can():
    """400 bettors at 8 bets a second each offer 3,200 at most: asked 4,000,
    3,142 placed is keeping up with them, and the line says so."""
    v = verdict(3200, 3142.0, {"platforms": 0.61, "table": 0.41}, 1.67, 2, 20.0, asked=4000)
    assert v["kept_up"] and v["limit"] is None and v["asked_per_second"] == 4000
    assert "3142 of 3200 bets/s placed (asked 4000: the bettors offer 3200 at most" in v["why"]
    v = verdict(3200, 2000.0, {"platforms": 0.95, "table": 0.41}, 1.67, 2, 20.0, asked=4000)
    assert v["limit"] == "platforms" and "(asked 4000" in v["why"]
    assert "asked_per_second" not in verdict(2000, 1990.0, {"platforms": 0.5}, 1.0, 2, 20.0, asked=2000)
