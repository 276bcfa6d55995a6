"""A platform rig whose table is a Fortune 3 mock table on the profile with
the shared remote hand (``macau-2008-remote``): the broker, the reference
wallet, the table on the bus, and platform processes."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx

import rig as rigs
from natsserver import free_port
import webclient

TABLE = "F3-REMOTE"
#: the test profile's decision timer
DECISION_SECONDS = 4
TABLES = f"""\
[tables.{TABLE}]
currency = "MOP"
unit = "1"
position = "box"
max = "5000"
"""


class Platform(rigs.Platform):
    def decide(self, session: dict, body: dict, timeout: float = 30) -> httpx.Response:
        return webclient.post(f"{self.url}/api/decisions", json=body, timeout=timeout,
                              headers={"Authorization": f"Bearer {session['session']}"})


class F3Rig(rigs.Rig):
    def __init__(self, folder: Path, broker, edits: tuple[tuple[str, str], ...] = ()) -> None:
        """(the wheel rig's start, with this table; ``edits``: texts of the profile's file replaced)"""
        self.tables = rigs.start_wallet(self, folder, broker, TABLES)
        self.journal = folder / f"{TABLE}.journal.sqlite"
        self.table_port = free_port()
        self.base = f"http://127.0.0.1:{self.table_port}"
        # the remote profile with a short decision timer (its own name: the built-in one says 20 s)
        profile = (rigs.ROOT / "config" / "rules" / "fortune3-macau-2008-remote.toml").read_text()
        profile = profile.replace('name = "macau-2008-remote"', 'name = "test-remote"')
        self.profile = folder / "test-remote.toml"
        for was, now in (("decision_seconds = 20", f"decision_seconds = {DECISION_SECONDS}"), *edits):
            assert profile.count(was) == 1, was
            profile = profile.replace(was, now)
        self.profile.write_text(profile)
        with open(folder / "table.log", "a") as err:
            self.table = subprocess.Popen(
                [sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "fortune3", "--mock", "--seed", "5",
                 "--profile", str(self.profile), "--table-id", TABLE, "--pace", "0.05", "--time-scale", "0.05",
                 "--port", str(self.table_port), "--journal", str(self.journal), "--studio", broker.role(TABLE)],
                stdout=subprocess.DEVNULL, stderr=err, text=True, cwd=rigs.ROOT, env=self.env)
        self._wait_table()
        self._register_key()
        self.platforms = []

    def _register_key(self) -> None:
        from tablesim.studio import signing, trust

        key = signing.load_signing_key(next((self.folder / "xdg").rglob(f"{TABLE}.sign.key")))
        self.keys = self.folder / "keys.json"
        trust.register(self.keys, TABLE, signing.public_hex(key))

    def platform(self, **kwargs) -> Platform:
        p = super().platform(**kwargs)
        p.__class__ = Platform  # (the wheel rig's process, with the decisions call)
        return p

    def tokens(self) -> dict:
        return json.loads(self.journal.with_name(f"{TABLE}.tokens.json").read_text())

    def deal(self) -> dict:
        """Close betting, deal, and wait until the players decide: the table's state."""
        self.act("close_betting")
        self.act("deal")
        return self.wait_state(("decisions",), "the hands were never dealt")

    def no_round_open(self) -> None:
        """A round an earlier test left unfinished (a failed test stops midway)
        is played out: dealt if still open for bets, then left to its decision
        timer, which folds whoever has not decided. The next test's round is
        then its own, and one failure does not become several."""
        state = self.table_state()["state"]
        if state == "betting_open":
            self.act("close_betting")
            self.act("deal")
        if state not in ("complete", "idle", "void"):
            self.wait_state(("complete", "idle", "void"), "an earlier round never ended", timeout=120)

    def wait_state(self, states: tuple, what: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            t = self.table_state()
            if t["state"] in states:
                return t
            time.sleep(0.05)
        raise AssertionError(f"{what}: {self.table_state()['state']}")

    def result(self, round_id: str) -> dict:
        import sqlite3

        with sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True) as db:
            (data,) = db.execute("SELECT data FROM records WHERE name='result' AND round_id=?", (round_id,)).fetchone()
        return json.loads(data)

    def transactions(self, round_id: str) -> list:
        import sqlite3

        with sqlite3.connect(f"file:{self.wallet_db}?mode=ro", uri=True) as db:
            return db.execute("SELECT id, kind, player, amount, status, debits, debit FROM tx WHERE tbl=? AND round=? "
                              "ORDER BY seq", (TABLE, round_id)).fetchall()

    def table_bet(self, player: str, bet: str, amount: str) -> None:
        """A bet placed at the table directly (no money: for the bus's own tests)."""
        r = webclient.post(f"{self.base}/api/bets", json={"position": "remote", "bet": bet, "amount": amount,
                                                       "player": player},
                           headers={"Authorization": f"Bearer {self._token('dealer')}"}, timeout=20)
        assert r.status_code == 200, r.text

    def _token(self, role: str) -> str:
        return next(op["token"] for op in self.tokens()["operators"] if op["role"] == role)
