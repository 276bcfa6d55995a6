"""`tablesim simulate` and `tablesim analyze` on the profile with the shared
remote hand: the remote players are settled as a box and decide with the
same strategy, so their exact figures are a box's; the simulation measures
them on the remote hand itself."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tablesim.cli.main import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_analyze_reports_the_remote_players_figures():
    res = run("analyze", "fortune3", "--profile", "macau-2008-remote", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    bets = data["bets"]
    assert bets["remote_ante_play_q64"]["exact"] == bets["ante_play_q64"]["exact"]  # -3.3730%
    assert round(bets["remote_ante_play_q64"]["return"], 6) == -0.03373
    assert bets["remote_pair_plus"]["exact"] == bets["pair_plus"]["exact"]
    assert bets["remote_no_decision"]["exact"] == "-1"
    assert data["remote"]["decision_seconds"] == 20 and len(data["remote"]["changes"]) == 5
    regulation = json.loads(run("analyze", "fortune3", "--json").stdout)
    assert "remote" not in regulation and not any(b.startswith("remote_") for b in regulation["bets"])


def test_simulate_measures_the_remote_hand():
    for dealing in ("shoe", "shuffler"):
        res = run("simulate", "fortune3", "--profile", "macau-2008-remote", "--dealing", dealing,
                  "--rounds", "300", "--seed", "7", "--workers", "1", "--json")
        assert res.exit_code == 0, res.output
        report = json.loads(res.stdout)
        assert set(report["bets"]) == {"ante_play", "pair_plus", "pair_plus_with_ante", "remote_ante_play",
                                       "remote_pair_plus"}
        remote = report["bets"]["remote_ante_play"]
        assert remote["exact"] == report["bets"]["ante_play"]["exact"] and remote["wagered"] == "300"
        lo, hi = remote["ci99"]
        assert lo <= remote["measured"] <= hi
