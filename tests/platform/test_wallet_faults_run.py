"""scripts/wallet_faults.py, small: the broker, the reference wallet with
its faults, a table of each game and two platforms as real processes,
players betting through the platforms while four of them are SIGKILLed
and started again; afterwards every balance, credit, cancel and debit
agrees with the journals, reconcile is clean and the kit passes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from natsserver import NATS_SERVER

pytestmark = pytest.mark.slow  # real processes (started first: see tests/conftest.py)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "wallet_faults.py"


def run_script(*args: str, capsys) -> tuple[int, dict, str]:
    """The script's ``main`` in this process: its processes are started the
    way it starts them (``python -m tablesim.cli.main ...``), which the
    tests' fork helper (tests/forkserver.py) forks from an interpreter that
    has the code imported, instead of starting a dozen fresh interpreters."""
    spec = importlib.util.spec_from_file_location("wallet_faults_script", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    code = script.main(list(args))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_a_small_fault_run_holds_every_promise(tmp_path, capsys):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    code, out, err = run_script("--players", "20", "--kills", "4", "--rounds", "1", "--gap", "1.5", "--seed", "2",
                                "--workdir", str(tmp_path / "run"), "--json", capsys=capsys)
    assert code == 0 and out["ok"], (out, err[-3000:])
    assert out["kills"] == 4 and {"broker", "wallet"} <= set(out["killed"])
    assert any(k.startswith("platform-") for k in out["killed"]) and any(k.endswith("-FAULT") for k in out["killed"])
    for figure in ("balance_mismatches", "credits_doubled", "credits_missing", "debits_orphaned",
                   "void_debits_not_cancelled", "bets_without_debit", "rounds_open"):
        assert out[figure] == 0, figure
    assert out["reconcile_rc"] == 0 and out["conformance_rc"] == 0
    assert out["players"] == 20 and out["void_rounds"] >= 1 and out["bets_standing"] > 0
    assert set(out["rounds"]) == {"fortune3", "football", "wheel"}
