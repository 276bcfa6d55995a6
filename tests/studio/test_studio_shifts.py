"""Dealers and shifts: named operators, a dealer signing in and out at the
console (journaled), who dealt each round, `history` naming who did what,
and the figures per shift, gaming day and dealer (`studio report --by`,
the floor's /api/report), equal to the rounds' own."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tablecore.errors import InputError
from tablesim.cli.main import cli
from tablesim.journal.attach import attach_and_recover
from tablesim.journal.shifts import Shifts
from tablesim.server.process import ServerThread
from tablesim.server.auth import Operator, TokenStore, parse_operator
from tablesim.games.rig import mock_rig
from tablesim.server.runner import TableRunner
from test_studio_floor import wait_for
from test_studio_publish import register_all


def tablesim(*args: str) -> subprocess.CompletedProcess:
    """In-process: reading the journal and the stream needs no process of its own."""
    res = CliRunner().invoke(cli, list(args))
    return subprocess.CompletedProcess(args, res.exit_code, res.stdout, res.stderr)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_helpers import PACE, Served, ok, play_round  # noqa: E402
import webclient


def test_shift_boundaries():
    s = Shifts.parse("06:00,14:00,22:00", "+08:00")
    assert s.shift("2026-12-01T00:30:00+00:00") == "2026-12-01 06:00"  # 08:30 in Macau
    assert s.shift("2026-12-01T06:00:00+00:00") == "2026-12-01 14:00"  # 14:00 sharp: the next shift
    assert s.shift("2026-12-01T15:00:00+00:00") == "2026-12-01 22:00"  # 23:00
    assert s.shift("2026-12-01T19:00:00+00:00") == "2026-12-01 22:00"  # 03:00 the next day: the shift began the day before
    assert s.day("2026-12-01T19:00:00+00:00") == "2026-12-01"  # (a gaming day sums its shifts)
    assert Shifts.parse("07:30", "-03:00").shift("2026-12-01T10:00:00+00:00") == "2026-11-30 07:30"
    for spec, offset in (("25:00", "+00:00"), ("06:00,06:00", "+00:00"), ("06:00", "8")):
        with pytest.raises(InputError):
            Shifts.parse(spec, offset)


def test_operators_name_a_person_and_bad_ones_are_one_line(tmp_path):
    assert parse_operator("dealer:Ana") == Operator("Ana", "dealer")
    res = CliRunner().invoke(cli, ["serve", "--game", "wheel", "--mock", "--operator", "croupier:Ana",
                                   "--journal", str(tmp_path / "j.sqlite")])
    assert res.exit_code == 2 and res.stderr.startswith("tablesim: error: --operator: 'croupier:Ana' is not ROLE:NAME")
    res = CliRunner().invoke(cli, ["studio", "report", "--nats", "nats://127.0.0.1:1", "--shifts", "6h"])
    assert res.exit_code == 2 and "--shifts" in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.fixture
def shift_table(nats_server, tmp_path):
    """A served wheel table with three named operators, publishing to the studio."""
    rig = mock_rig("wheel", seed=5)
    table = rig.table
    path = tmp_path / "WHEEL-MOCK.journal.sqlite"
    report = attach_and_recover(table, str(path))
    rig.after_recovery()
    tokens = TokenStore([("a" * 24, Operator("Ana", "dealer")), ("b" * 24, Operator("Bo", "dealer")),
                         ("s" * 24, Operator("Li", "supervisor"))])
    runner = TableRunner(table, rig=rig, pace=PACE, recovery=report, studio=nats_server.url)
    server = ServerThread(runner, tokens).start()
    served = Served(server, runner, tokens, path, webclient.client(base_url=server.url, timeout=10))
    yield served
    served.client.close()
    server.stop()
    table.journal.close()


def as_token(s: Served, token: str) -> None:
    s.client.headers["Authorization"] = f"Bearer {token}"


def test_dealers_sign_in_and_the_figures_follow_them(shift_table, nats_server, tmp_path):
    s = shift_table
    as_token(s, "a" * 24)
    assert ok(s.client.post("/api/shift/sign-in"))["on_duty"]["dealer"] == "Ana"
    assert s.state()["on_duty"]["dealer"] == "Ana"
    ana = [play_round(s) for _ in range(2)]
    as_token(s, "b" * 24)
    refused = s.client.post("/api/shift/sign-out")  # Bo cannot sign Ana out
    assert refused.status_code == 409 and "Ana is on duty" in refused.text, refused.text
    ok(s.client.post("/api/shift/sign-in"))  # Bo takes over: Ana is signed out first
    bo = [play_round(s)]
    ok(s.client.post("/api/shift/sign-out"))
    assert s.state()["on_duty"] is None
    records = s.records()
    names = [name for _, kind, name, _ in records if kind == "operator"]
    assert names.count("round_dealer") == 3 and names.count("sign_in") == 2 and names.count("sign_out") == 2
    wait_for(lambda: s.runner.studio.pending() == 0 and s.runner.studio.published == s.table.journal.seq)
    register_all()

    text = tablesim("history", "--journal", str(s.journal_path), "--last", "3").stdout
    assert text.count("dealt by: Ana") == 2 and text.count("dealt by: Bo") == 1, text
    # (play_round presses with the first dealer's token: Ana pressed, Bo was on duty and dealt)
    assert "open_round by dealer Ana" in text and "sign_out by dealer Bo" in text

    out = tablesim("studio", "report", "--nats", nats_server.url, "--by", "dealer", "--json")
    assert out.returncode == 0, out.stderr
    rows = {(r["dealer"], r["table_id"]): r for r in json.loads(out.stdout)["rows"]}
    for name, results in (("Ana", ana), ("Bo", bo)):
        row = rows[(name, "WHEEL-MOCK")]
        assert row["rounds"] + row["void"] == len(results)
        house = -sum(Decimal(v) for r in results for v in (r.get("net") or {}).values())
        assert Decimal(row["house_result"]) == house
        assert rows[(name, None)]["rounds"] == row["rounds"]  # the dealer's total over the tables
    floor = json.loads(tablesim("studio", "report", "--nats", nats_server.url, "--json").stdout)["floor"]
    for by in ("shift", "day"):
        out = json.loads(tablesim("studio", "report", "--nats", nats_server.url, "--by", by, "--json",
                                  "--utc-offset", "+08:00").stdout)
        totals = [r for r in out["rows"] if r["table_id"] is None]
        assert sum(r["rounds"] for r in totals) == floor["rounds"]
        assert sum(Decimal(r["wagered"]) for r in totals) == Decimal(floor["wagered"])
        assert out["shifts"] == {"starts": ["06:00", "14:00", "22:00"], "utc_offset": "+08:00"}
    text = tablesim("studio", "report", "--nats", nats_server.url, "--by", "dealer").stdout
    assert "the floor by dealer" in text and "Ana" in text and "Bo" in text


def test_named_operators_are_kept_in_the_token_file(tmp_path):
    from tablesim.server.auth import load_or_create, read_token_file, with_operators

    path = tmp_path / "W.tokens.json"
    store, _ = load_or_create(path, prefix="mock")
    store, added = with_operators(store, [Operator("Ana", "dealer"), Operator("Li", "supervisor")], path)
    assert added == ["dealer:Ana", "supervisor:Li"]
    again = read_token_file(path)  # a restarted table keeps them, with their tokens
    tokens = {op.actor: t for t, op in again.entries}
    assert {"dealer:Ana", "supervisor:Li", "dealer:mock-dealer"} <= set(tokens)
    same, added = with_operators(again, [Operator("Ana", "dealer")], path)
    assert added == [] and {op.actor: t for t, op in same.entries}["dealer:Ana"] == tokens["dealer:Ana"]
    assert (path.stat().st_mode & 0o777) == 0o600
