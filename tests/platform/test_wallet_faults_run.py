"""scripts/wallet_faults.py, small: the broker, the reference wallet with
its faults, a table of each game and two platforms as real processes,
players betting through the platforms while four of them are SIGKILLed
and started again; afterwards every balance, credit, cancel and debit
agrees with the journals, reconcile is clean and the kit passes."""

from __future__ import annotations

import json

import pytest

from natsserver import NATS_SERVER
from scriptrun import run_main

pytestmark = pytest.mark.slow  # real processes (started first: see tests/conftest.py)


def test_a_small_fault_run_holds_every_promise(tmp_path, capsys):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    # (in this process: its tables, wallet and platforms are forked by the tests' fork helper)
    code, printed, err = run_main("wallet_faults.py", "--players", "20", "--kills", "4", "--rounds", "1", "--gap",
                                  "1.5", "--seed", "2", "--workdir", str(tmp_path / "run"), "--json", capsys=capsys)
    out = json.loads(printed)
    assert code == 0 and out["ok"], (out, err[-3000:])
    assert out["kills"] == 4 and {"broker", "wallet"} <= set(out["killed"])
    assert any(k.startswith("platform-") for k in out["killed"]) and any(k.endswith("-FAULT") for k in out["killed"])
    for figure in ("balance_mismatches", "credits_doubled", "credits_missing", "debits_orphaned",
                   "void_debits_not_cancelled", "bets_without_debit", "rounds_open"):
        assert out[figure] == 0, figure
    assert out["reconcile_rc"] == 0 and out["conformance_rc"] == 0
    assert out["players"] == 20 and out["void_rounds"] >= 1 and out["bets_standing"] > 0
    assert set(out["rounds"]) == {"fortune3", "football", "wheel"}
