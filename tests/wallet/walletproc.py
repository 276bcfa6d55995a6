"""Wallet processes for the tests: the reference wallet (``tablesim wallet
serve``), the broken wallet and the lossy proxy, each its own process, with
the URL it printed and a clean stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import reaper

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

PLAYERS = """\
[currencies]
MOP = "0.01"
HKD = "1"

[[players]]
id = "kit"
currency = "MOP"
balance = "100000.00"

[[players]]
id = "alice"
currency = "MOP"
balance = "1000.00"

[[players]]
id = "ann"
currency = "MOP"
balance = "1000.00"

[[players]]
id = "amy"
currency = "MOP"
balance = "1000.00"

[[players]]
id = "poor"
currency = "MOP"
balance = "50.00"

[[players]]
id = "bob"
currency = "HKD"
balance = "500"
limits = { max_debit = "100", daily_stake = "300", message = "Bob's limit: 100 a bet, 300 a day." }
"""


def write_files(folder: Path) -> tuple[Path, Path]:
    """A secret file (mode 0600) and a players file in ``folder``."""
    secret = folder / "wallet.secret"
    secret.write_text("s3cr3t-" + "ab" * 20 + "\n")
    secret.chmod(0o600)
    players = folder / "players.toml"
    players.write_text(PLAYERS)
    return secret, players


class Process:
    """A process that prints ``<word>: URL ...`` when it is ready."""

    def __init__(self, argv: list[str], word: str, *, reaped: bool = True) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                     env=env)
        if reaped:  # killed at the end of the test whatever happens (a module's own is stopped by its fixture)
            reaper.track(self.proc)
        end = time.monotonic() + 60
        line = self.proc.stdout.readline()
        if not line.startswith(word + ": "):
            raise AssertionError(f"{argv[2:]} did not start: {line!r} {self.proc.stderr.read() if not line else ''}")
        assert time.monotonic() < end
        self.url = line.split()[1]

    def stop(self) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            rc = self.proc.wait(15)
        finally:
            self.proc.stdout.close()
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        return rc, err


def reference_argv(db: Path, secret: Path, players: Path) -> list[str]:
    return [sys.executable, "-m", "tablesim.cli.main", "wallet", "serve", "--db", str(db), "--secret",
            str(secret), "--players", str(players), "--port", "0"]


def reference(db: Path, secret: Path, players: Path, *, reaped: bool = True) -> Process:
    return Process(reference_argv(db, secret, players), "wallet", reaped=reaped)


def broken(db: Path, secret: Path, players: Path) -> Process:
    return Process([sys.executable, str(HERE / "broken_wallet.py"), str(db), str(secret), str(players)], "wallet")


def proxy(target_url: str, *faults: str) -> Process:
    port = target_url.split(":")[2].split("/")[0]
    return Process([sys.executable, str(HERE / "lossy_proxy.py"), port, *faults], "proxy")


def token(db: Path, player: str) -> str:
    """A launch token of ``player``, written to the wallet's ledger (as ``tablesim wallet token`` does)."""
    from tablesim.wallet.ledger import Ledger

    ledger = Ledger(db)
    try:
        return ledger.issue_token(player)
    finally:
        ledger.close()


def cli(*args: str):
    """``tablesim ARGS`` in this process: (exit status, stdout, stderr)."""
    from click.testing import CliRunner

    from tablesim.cli.main import cli as tablesim

    res = CliRunner().invoke(tablesim, [str(a) for a in args])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, res.stdout, res.stderr
