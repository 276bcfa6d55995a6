"""`tablesim simulate`, `analyze --json` and `bench`: small runs of the real thing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from tablesim.harness.simulate.runner import simulate
from tablesim.harness.simulate.stats import BetAccumulator


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    "game, extra, bets",
    [
        ("fortune3", [], {"ante_play", "pair_plus", "pair_plus_with_ante"}),
        ("fortune3", ["--dealing", "shuffler"], {"ante_play", "pair_plus", "pair_plus_with_ante"}),
        ("football", [], {"upper", "lower", "odd", "even", "middle"}),
        ("football", ["--decks", "6"], {"upper", "lower", "odd", "even", "middle"}),
        ("wheel", [], {"1", "3", "5", "10", "20", "joker", "logo"}),
    ],
)
def test_simulate_json_reports_every_bet_against_its_exact_figure(game, extra, bets):
    res = run("simulate", game, "--rounds", "400", "--seed", "7", "--workers", "1", "--json", *extra)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["rounds"] == 400
    assert set(report["bets"]) == bets
    for name, b in report["bets"].items():
        lo, hi = b["ci99"]
        assert lo <= b["measured"] <= hi
        assert b["exact"] is not None and -1 < b["exact"] < 0, name
        judged = b["wins"] >= 5 and report["rounds"] - b["wins"] >= 5
        assert b["inside99"] == ((lo <= b["exact"] <= hi) if judged else None), name
        assert (name in report["not_judged"]) == (not judged)
        assert isinstance(b["wagered"], str) and "e" not in b["wagered"].lower()  # exact money text


def test_a_few_rounds_judge_no_bet_that_has_not_won_and_lost_enough():
    """Ten spins: the 1-in-52 symbols never come up, so their measured return
    is -1 with no spread, an "interval" of one point. That is too few rounds
    to judge, not a bug in the game: no alarm, and the report says why."""
    res = run("simulate", "wheel", "--rounds", "10", "--seed", "1", "--workers", "1")
    assert res.exit_code == 0, res.output
    assert "a bug to find" not in res.output and "NO" not in res.output
    assert "not judged (fewer than 5 wins or losses, more rounds needed)" in res.output and "joker" in res.output
    report = json.loads(run("simulate", "wheel", "--rounds", "10", "--seed", "1", "--workers", "1", "--json").stdout)
    assert {"joker", "logo"} <= set(report["not_judged"]) and report["outside999"] == []
    assert report["bets"]["joker"]["inside99"] is None and report["bets"]["joker"]["wins"] == 0


def test_a_bet_is_judged_once_it_won_and_lost_enough_counted_over_merged_shares():
    from decimal import Decimal

    a, b = BetAccumulator(), BetAccumulator()
    for acc, wins in ((a, 3), (b, 2)):
        for _ in range(wins):
            acc.add(Decimal(1), Decimal(35))
        for _ in range(5):
            acc.add(Decimal(1), Decimal(-1))
    assert not a.judged and not b.judged
    a.merge(b)
    assert (a.wins, a.rounds, a.judged) == (5, 15, True)


def test_same_seed_and_workers_give_the_same_run_and_a_different_seed_does_not():
    a, _ = simulate("wheel", 300, seed=3, workers=2)
    b, _ = simulate("wheel", 300, seed=3, workers=2)
    c, _ = simulate("wheel", 300, seed=4, workers=2)
    assert {k: (v.wagered, v.net) for k, v in a.by_bet.items()} == {k: (v.wagered, v.net) for k, v in b.by_bet.items()}
    assert {k: v.net for k, v in a.by_bet.items()} != {k: v.net for k, v in c.by_bet.items()}


def test_work_is_split_over_workers_without_losing_rounds():
    tally, trace = simulate("fortune3", 101, seed=1, workers=2)
    assert tally.rounds == 101
    assert trace and trace[-1][0] == 101


def test_plot_is_written(tmp_path: Path):
    out = tmp_path / "conv.png"
    res = run("simulate", "wheel", "--rounds", "200", "--workers", "1", "--plot", str(out))
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_human_report_names_the_shoe_state_and_the_interval_count():
    res = run("simulate", "fortune3", "--rounds", "200", "--workers", "1")
    assert res.exit_code == 0
    assert "freshly shuffled" in res.stdout
    assert "exact figures inside their 99% intervals" in res.stdout


@pytest.mark.parametrize("args", [["simulate", "wheel", "--rounds", "0"], ["simulate", "wheel", "--rounds", "5", "--decks", "2"],
                                  ["simulate", "football", "--rounds", "5", "--dealing", "shoe"]])
def test_bad_options_exit_2(args):
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2
    assert "Traceback" not in res.output


def test_interval_math():
    acc = BetAccumulator()
    from decimal import Decimal

    for x in (1, -1) * 500:
        acc.add(Decimal(1), Decimal(x))
    assert acc.measured == 0
    # sd 1, n 1000: 2.5758 / sqrt(1000)
    assert acc.half_width(0.99) == pytest.approx(2.5758293 / 1000**0.5, rel=1e-3)
    assert acc.half_width(0.999) > acc.half_width(0.99)


@pytest.mark.parametrize("game, key", [("fortune3", "bets"), ("football", "bets"), ("wheel", "symbols")])
def test_analyze_json_for_every_game(game, key):
    res = run("analyze", game, "--json")
    assert res.exit_code == 0
    assert json.loads(res.stdout)[key]


@pytest.mark.slow
@pytest.mark.soak
def test_bench_json_measures_every_part(monkeypatch):
    import tablesim.harness.bench.suite as suite

    # Measure briefly: the test checks what is measured, not how fast.
    monkeypatch.setattr(suite, "rate", lambda fn, batch, **k: (fn(), 1.0)[1])
    monkeypatch.setattr(suite, "seconds", lambda fn, **k: 0.01)
    import tablesim.harness.bench.service as service

    monkeypatch.setattr(service, "SIZES", {
        "bet_intake": {"bets": 200, "rate": 2000, "batch": 10, "clients": 4, "saturate_clients": 2,
                       "saturate_batch": 20, "single_bets": 40, "single_clients": 4},
        "card_to_console": {"cards": 20, "time_scale": 0.01},
    })
    res = run("bench", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for game in ("fortune3", "football", "wheel"):
        assert data["engine"][game]["rounds_per_second"] > 0
        assert data["analysis"][game]["seconds"] > 0
    assert data["engine"]["fortune3_hands"]["evaluate_per_second"] > 0
    assert "codec" in data["link"] and "frame_to_event" in data["link"]
    assert data["machine"]["cores"] >= 1
    # through a served table: every bet answered only once it was in the journal (the bench checks the count)
    assert data["bet_intake"]["bets"] == 200 and data["bet_intake"]["bets_per_second"] > 0
    assert data["bet_intake"]["p99_ms"] >= data["bet_intake"]["p50_ms"] > 0
    assert data["bet_intake"]["max_bets_per_second"] > 0 and data["bet_intake"]["single_bets"]["bets"] == 40
    assert data["card_to_console"]["cards"] >= 20 and data["card_to_console"]["p99_ms"] > 0


@pytest.mark.parametrize("name, reason", [
    ("missing/plot.png", "no directory"),
    ("plot.txt", "the plot is a PNG"),
    (".", "the plot is a PNG"),
])
def test_a_bad_plot_path_is_refused_before_the_run(tmp_path: Path, name, reason):
    import time

    start = time.perf_counter()
    res = run("simulate", "wheel", "--rounds", "100000000", "--workers", "1", "--plot", str(tmp_path / name))
    assert time.perf_counter() - start < 5  # refused at once, not after 10^8 rounds
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: --plot: ") and reason in lines[0]
