"""The processes of the player's page tests: the broker, the reference
wallet, a wheel and a football table on mock devices publishing to the
bus (``tablesim serve --mock --studio``), and a platform process; each
table's rounds driven through its dealer API. A Fortune 3 table is offered
but not started (its view needs no round)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx

import walletproc
from natsserver import free_port
from rig import ROOT, Platform, start_wallet
import webclient

WHEEL, FOOTBALL, FORTUNE3 = "WHEEL-P1", "FB-P1", "F3-P1"
TABLES = f"""\
[tables.{WHEEL}]
currency = "MOP"
unit = "1"
position = "player"
bet_seconds = 600

[tables.{FOOTBALL}]
currency = "MOP"
unit = "1"
position = "box"
bet_seconds = 600

# (offered, not started: its view is drawn from the game's layout; no round is played there)
[tables.{FORTUNE3}]
currency = "MOP"
unit = "1"
position = "box"
"""


class Table:
    """A mock table on the bus and its dealer's API."""

    def __init__(self, folder: Path, broker, game: str, table_id: str, env: dict) -> None:
        self.id, self.folder = table_id, folder
        self.journal = folder / f"{table_id}.journal.sqlite"
        self.base = f"http://127.0.0.1:{free_port()}"
        with open(folder / f"{table_id}.log", "a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tablesim.cli.main", "serve", "--game", game, "--mock", "--seed", "3",
                 "--table-id", table_id, "--pace", "0.1", "--port", self.base.rsplit(":", 1)[1],
                 "--journal", str(self.journal), "--studio", broker.role(table_id)],
                stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, env=env)

    def wait_up(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if (self.state().get("studio") or {}).get("state") == "up":
                    return
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, (self.folder / f"{self.id}.log").read_text()
            time.sleep(0.1)
        raise AssertionError(f"table {self.id} did not come up")

    def state(self) -> dict:
        return webclient.get(f"{self.base}/api/table", timeout=5).json()

    def act(self, name: str, body: dict | None = None) -> dict:
        tokens = json.loads(self.journal.with_name(f"{self.id}.tokens.json").read_text())
        token = next(op["token"] for op in tokens["operators"] if op["role"] == "dealer")
        r = webclient.post(f"{self.base}/api/actions/{name}", json=body or {}, timeout=20,
                           headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return r.json()

    def wait_state(self, *states: str, timeout: float = 90) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            t = self.state()
            if t["state"] in states:
                return t
            time.sleep(0.1)
        raise AssertionError(f"table {self.id} never reached {states}: {t['state']}")

    def open_round(self) -> str:
        """A round taking bets (football: after its draw is shown): its id."""
        if self.state()["state"] != "betting_open":
            self.act("open_round")
        return self.wait_state("betting_open")["round_id"]

    def play_out(self) -> None:
        """Close betting and play the round to its end (the wheel spun, the football cards dealt)."""
        self.act("close_betting")
        self.act("spin" if self.id == WHEEL else "deal")
        self.wait_state("complete")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class PlayerRig:
    def __init__(self, folder: Path, broker) -> None:
        self.tables_file = start_wallet(self, folder, broker, TABLES)
        self.wheel = Table(folder, broker, "wheel", WHEEL, self.env)
        self.football = Table(folder, broker, "football", FOOTBALL, self.env)
        for t in self.tables():
            t.wait_up()
        self._register_keys()
        argv = [sys.executable, "-m", "tablesim.cli.main", "platform", "serve", "--nats", broker.role("platform"),
                "--wallet", self.wallet.url, "--secret", str(self.secret), "--tables", str(self.tables_file),
                "--db", str(folder / "platform.db"), "--keys", str(self.keys), "--port", "0"]
        self.platform = Platform(argv, self.env, folder / "platform.log")

    def _register_keys(self) -> None:
        from tablesim.studio import signing, trust

        self.keys = self.folder / "keys.json"
        for t in self.tables():
            key = signing.load_signing_key(next((self.folder / "xdg").rglob(f"{t.id}.sign.key")))
            trust.register(self.keys, t.id, signing.public_hex(key))

    def tables(self) -> tuple[Table, ...]:
        return self.wheel, self.football

    def token(self, player: str) -> str:
        return walletproc.token(self.wallet_db, player)

    def seen_betting(self, table: Table, round_id: str) -> None:
        """Until the platform shows the round taking bets."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = webclient.get(f"{self.platform.url}/api/tables", timeout=5).json()["tables"]
            if any(x["table"] == table.id and x["betting"] and x["round"] == round_id for x in got):
                return
            time.sleep(0.05)
        raise AssertionError(f"the platform never saw {round_id} taking bets")

    def close(self) -> None:
        self.platform.kill()
        for t in self.tables():
            t.stop()
        self.wallet.stop()
