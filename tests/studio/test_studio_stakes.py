"""What the floor counts as wagered: each round's stakes at risk as its
result records them (a Fortune 3 Play, staked by a decision and not by a
bet, included), so that ``tablesim run``'s closing summary and ``tablesim
studio report`` agree on the same session; records written before results
carried their stakes give the figures they always gave."""

from __future__ import annotations

import dataclasses
import json
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tablesim.studio import wire
from tablesim.studio.floor import Floor

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from journal_figures import as_numbers, journal_figures  # noqa: E402  (the independent recount)
from test_studio_publish import run_table, tablesim

OLD_JOURNALS = Path(__file__).resolve().parents[1] / "journal" / "data"


def run_summary(stdout: str) -> tuple[dict, dict[str, dict]]:
    """The closing summary of ``tablesim run``: its totals line, and each
    bet's row (bets, wagered, house result, hold %) as numbers."""
    [totals] = [line for line in stdout.splitlines() if "round(s) played" in line]
    words = totals.replace(";", "").replace("(", "").split()
    head = {"rounds": int(words[0]), "void": int(words[3]), "wagered": Decimal(words[7]),
            "house_result": Decimal(words[10])}
    rows: dict[str, dict] = {}
    for line in stdout.splitlines():
        if not line.startswith("│"):
            continue
        bet, bets, wagered, house, hold = (c.strip() for c in line.strip("│").split("│"))
        if bet == "all" or bets == "0":  # (a wheel summary lists every symbol, backed or not)
            continue
        rows[bet] = {"bets": int(bets), "wagered": Decimal(wagered), "house_result": Decimal(house),
                     "hold": None if hold == "-" else Decimal(hold.rstrip("%"))}
    return head, rows


def floor_rows(by_bet: dict[str, dict]) -> dict[str, dict]:
    return {bet: {"bets": f["bets"], "wagered": Decimal(f["wagered"]), "house_result": Decimal(f["house_result"]),
                  "hold": None if f["hold_pct"] is None else Decimal(f["hold_pct"])}
            for bet, f in by_bet.items() if f["bets"]}


@pytest.mark.parametrize("game, seed", [("fortune3", 3), ("football", 2), ("wheel", 4)])
def test_the_run_summary_and_the_studio_report_agree(game, seed, nats_server, tmp_path):
    done = run_table(game, tmp_path / "t.journal.sqlite", nats_server.url, rounds=15, seed=seed)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
    head, rows = run_summary(done.stdout)
    out = tablesim("studio", "report", "--nats", nats_server.url, "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    figures = report["games"][game]
    assert floor_rows(figures["by_bet"]) == rows
    assert {"rounds": figures["rounds"] + figures["void"], "void": figures["void"],
            "wagered": Decimal(figures["wagered"]), "house_result": Decimal(figures["house_result"])} == head
    if game == "fortune3":  # the case at stake: boxes played, and their Play stakes count
        assert rows["play"]["bets"] > 0 and rows["play"]["wagered"] > 0
        assert as_numbers(figures) == journal_figures(tmp_path / "t.journal.sqlite")


def floor_of(path: Path, strip_stakes: bool = False) -> Floor:
    """The floor fed a journal's records as the stream carries them;
    ``strip_stakes``: as an older release wrote them (results without their
    stakes)."""
    floor = Floor()
    db = wire.open_reader(str(path))
    try:
        for seq, _, _, body in wire.iter_rows(db):
            rec = wire.decode(body)
            if strip_stakes and "stakes" in rec.data:
                rec = dataclasses.replace(rec, data={k: v for k, v in rec.data.items() if k != "stakes"})
            floor.apply(rec, seq)
    finally:
        db.close()
    return floor


@pytest.mark.parametrize("name", ["v1-fortune3", "v1-football", "v1-wheel"])
def test_a_journal_written_before_results_carried_stakes_counts_its_bets(name):
    path = OLD_JOURNALS / f"{name}.sqlite"
    summary = floor_of(path).summary()
    assert not summary["alerts"]
    assert as_numbers(summary["floor"]) == journal_figures(path)
    if name == "v1-fortune3":  # its plays ride on the ante, as they always did
        assert sorted(summary["games"]["fortune3"]["by_bet"]) == ["ante", "pair_plus"]


def test_results_without_stakes_give_the_figures_they_always_gave(tmp_path):
    """The same session's records, with and without the results' stakes:
    without them the Play stakes are not wagered and their results ride on
    the ante (the figures an older journal or stream has always given)."""
    journal = tmp_path / "f3.journal.sqlite"
    done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "15", "--seed", "3",
                    "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    new = floor_of(journal).summary()["games"]["fortune3"]
    old = floor_of(journal, strip_stakes=True).summary()["games"]["fortune3"]
    play, ante = as_numbers(new["by_bet"]["play"]), as_numbers(new["by_bet"]["ante"])
    assert play["bets"] > 0 and "play" not in old["by_bet"]
    assert as_numbers(old["by_bet"]["ante"]) == {
        "rounds": ante["rounds"], "void": 0, "bets": ante["bets"], "wagered": ante["wagered"],
        "paid": ante["paid"] + play["paid"], "house_result": ante["house_result"] + play["house_result"]}
    assert as_numbers(old) == {**as_numbers(new), "bets": as_numbers(new)["bets"] - play["bets"],
                               "wagered": as_numbers(new)["wagered"] - play["wagered"]}
    assert as_numbers(new)["house_result"] == as_numbers(old)["house_result"]  # the house result never changed
