"""The processes of a platform test: the broker, the reference wallet, a
wheel table on the bus, and any number of platform processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import httpx

import reaper
import walletproc
from natsserver import ClosedNatsServer, NatsServer, free_port
import webclient

TABLE = "WHEEL-MOCK"
#: every table the platform tests' rigs start, each a user of its own on their closed broker
ON_BUS = [TABLE, "F3-REMOTE", "WHEEL-P1", "FB-P1", "F3-P1"]
ROOT = Path(__file__).resolve().parents[2]

PLAYERS = """\
[currencies]
MOP = "0.01"
HKD = "1"
""" + "".join(f"""
[[players]]
id = "{name}"
currency = "MOP"
balance = "1000.00"
""" for name in ("ann", "amy", "ada", "abe", "al", "ava", "kim", "lea")) + """
[[players]]
id = "hk"
currency = "HKD"
balance = "500"
"""

TABLES = f"""\
[tables.{TABLE}]
currency = "MOP"
unit = "1"
position = "player"
max = "5000"
"""

#: what a winning stake on a wheel symbol pays, to 1 (config/rules/wheel-macau-2003.toml)
PAYS = {"1": 1, "3": 3, "5": 5, "10": 10, "20": 20, "joker": 45, "logo": 45}
OPENING = Decimal("1000.00")


class Platform(walletproc.Process):
    def __init__(self, argv: list[str], env: dict, log: Path) -> None:
        self.log = log
        with open(log, "a") as err:  # (a file: a pipe nobody reads would stop the process once full)
            self.proc = reaper.track(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT,
                                                      env=env))
        line = self.proc.stdout.readline()
        if not line.startswith("platform: "):
            self.proc.wait(10)
            raise AssertionError(f"the platform did not start: {line!r} {log.read_text()}")
        self.url = line.split()[1]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def health(self) -> dict:
        return webclient.get(f"{self.url}/api/health", timeout=5).json()

    def session(self, token: str) -> dict:
        r = webclient.post(f"{self.url}/api/session", json={"token": token}, timeout=20)
        assert r.status_code == 200, r.text
        return r.json()

    def bet(self, session: dict, body: dict, timeout: float = 30) -> httpx.Response:
        return webclient.post(f"{self.url}/api/bets", json=body, timeout=timeout,
                              headers={"Authorization": f"Bearer {session['session']}"})

    def balance(self, session: dict) -> Decimal:
        r = webclient.get(f"{self.url}/api/balance", headers={"Authorization": f"Bearer {session['session']}"}, timeout=20)
        assert r.status_code == 200, r.text
        return Decimal(r.json()["balance"])

    def wait_table(self, want, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            tables = webclient.get(f"{self.url}/api/tables", timeout=5).json()["tables"]
            if want(tables[0]):
                return tables[0]
            time.sleep(0.05)
        raise AssertionError(f"the platform never saw the table as wanted: {tables}")


def start_wallet(rig, folder: Path, broker, tables: str) -> Path:
    """What every platform rig starts with: the wallet's secret and players,
    the module's reference wallet, the environment of the processes it
    starts; the tables file (``tables``) is written and returned."""
    rig.folder, rig.broker = folder, broker
    rig.secret = folder / "wallet.secret"
    rig.secret.write_text("s3cr3t-" + "ab" * 20 + "\n")
    rig.secret.chmod(0o600)
    (folder / "players.toml").write_text(PLAYERS)
    path = folder / "tables.toml"
    path.write_text(tables)
    rig.wallet_db = folder / "wallet.db"
    rig.wallet = walletproc.reference(rig.wallet_db, rig.secret, folder / "players.toml", reaped=False)
    rig.env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(folder / "xdg")}
    return path


class Rig:
    def __init__(self, folder: Path, broker) -> None:
        self.tables = start_wallet(self, folder, broker, TABLES)
        self.journal = folder / f"{TABLE}.journal.sqlite"
        self.table_port = free_port()
        self.base = f"http://127.0.0.1:{self.table_port}"
        with open(folder / "table.log", "a") as err:
            self.table = subprocess.Popen(
                [sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "wheel", "--mock", "--seed", "3",
                 "--port", str(self.table_port), "--journal", str(self.journal), "--studio", broker.role(TABLE)],
                stdout=subprocess.DEVNULL, stderr=err, text=True, cwd=ROOT, env=self.env)
        self._wait_table()
        self._register_key()
        self.platforms: list[Platform] = []

    def _wait_table(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if (webclient.get(f"{self.base}/api/table", timeout=2).json().get("studio") or {}).get("state") == "up":
                    return
            except httpx.HTTPError:
                pass
            assert self.table.poll() is None, (self.folder / "table.log").read_text()
            time.sleep(0.1)
        raise AssertionError("the table did not come up")

    def _register_key(self) -> None:
        from tablesim.studio import signing, trust

        key = signing.load_signing_key(next((self.folder / "xdg").rglob(f"{TABLE}.sign.key")))
        self.keys = self.folder / "keys.json"
        trust.register(self.keys, TABLE, signing.public_hex(key))

    def platform(self, fault: str | None = None, ack_wait: float = 2.0, db: str = "platform.db",
                 wallet: str | None = None, backstop_after: float | None = None,
                 nats: list[str] | None = None, tables: Path | None = None) -> Platform:
        """``nats``: each a ``--nats`` of its own (default: the platform's role on the broker)."""
        env = dict(self.env)
        # (a fault: the platform built with a hook that misbehaves at that moment, by a launcher of the tests')
        launch = ["-m", "tablesim.cli.main"] if not fault else [str(ROOT / "tests/platform/dying_platform.py"), fault]
        given = [arg for url in (nats or [self.broker.role("platform")]) for arg in ("--nats", url)]
        argv = [sys.executable, *launch, "platform", "serve", *given,
                "--wallet", wallet or self.wallet.url, "--secret", str(self.secret),
                "--tables", str(tables or self.tables),
                "--db", str(self.folder / db), "--keys", str(self.keys), "--port", "0", "--ack-wait", str(ack_wait)]
        if backstop_after is not None:
            argv += ["--backstop-after", str(backstop_after)]
        p = Platform(argv, env, self.folder / f"platform-{len(self.platforms)}.log")
        self.platforms.append(p)
        return p

    def token(self, player: str) -> str:
        return walletproc.token(self.wallet_db, player)

    def tokens(self) -> dict:
        return json.loads(self.journal.with_name(f"{TABLE}.tokens.json").read_text())

    def act(self, name: str, body: dict | None = None, role: str = "dealer") -> dict:
        token = next(op["token"] for op in self.tokens()["operators"] if op["role"] == role)
        path = f"/api/actions/{name}" if name != "void" else "/api/void"
        r = webclient.post(self.base + path, json=body or {}, headers={"Authorization": f"Bearer {token}"}, timeout=20)
        assert r.status_code == 200, r.text
        return r.json()

    def table_state(self) -> dict:
        return webclient.get(f"{self.base}/api/table", timeout=5).json()

    def spin(self) -> str:
        """Close betting, spin, and wait for the round's result: its symbol."""
        self.act("close_betting")
        self.act("spin")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            t = self.table_state()
            if t["state"] == "complete":
                return self.result_symbol(t["round_id"])
            time.sleep(0.1)
        raise AssertionError("the spin did not end")

    def result_symbol(self, round_id: str) -> str:
        import sqlite3

        with sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True) as db:
            (data,) = db.execute("SELECT data FROM records WHERE name='result' AND round_id=?", (round_id,)).fetchone()
        return json.loads(data)["outcome"]["symbol"]

    def transactions(self, round_id: str) -> list:
        """The wallet's rows of a round: (id, kind, player, amount, status, debits, debit)."""
        import sqlite3

        with sqlite3.connect(f"file:{self.wallet_db}?mode=ro", uri=True) as db:
            return db.execute("SELECT id, kind, player, amount, status, debits, debit FROM tx WHERE tbl=? AND round=? "
                              "ORDER BY seq", (TABLE, round_id)).fetchall()

    def wallet_balance(self, player: str) -> Decimal:
        import sqlite3

        with sqlite3.connect(f"file:{self.wallet_db}?mode=ro", uri=True) as db:
            opening, unit = db.execute("SELECT opening, unit FROM player JOIN currency ON code=currency WHERE id=?",
                                       (player,)).fetchone()
            moved, = db.execute("SELECT COALESCE(SUM(effect), 0) FROM tx WHERE player=?", (player,)).fetchone()
        return Decimal(opening + moved) * Decimal(unit)

    def wait_for(self, check, timeout: float = 60, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.1)
        states = [(p.health() if p.proc.poll() is None else f"exited {p.proc.returncode}", p.log.read_text()[-3000:])
                  for p in self.platforms]
        raise AssertionError(f"never happened: {what}; platforms: {states}")

    def no_round_open(self) -> None:
        """A round an earlier test left open for bets is spun (the module's
        tests share the table, and run in any order: a test's round must
        hold its own bets only)."""
        if self.table_state()["state"] == "betting_open":
            self.spin()

    def open_round(self) -> str:
        """A new round open for bets, seen so by every running platform: its id."""
        self.no_round_open()
        self.act("open_round")
        round_id = self.table_state()["round_id"]
        for p in self.platforms:
            if p.proc.poll() is None:
                p.wait_table(lambda t: t["betting"] and t["round"] == round_id)
        return round_id

    def stop_platforms(self) -> None:
        for p in self.platforms:
            if p.proc.poll() is None:
                p.proc.send_signal(signal.SIGINT)
                try:
                    p.proc.wait(15)
                except subprocess.TimeoutExpired:
                    p.proc.kill()
        self.platforms = []

    def close(self) -> None:
        self.stop_platforms()
        if self.table.poll() is None:
            self.table.terminate()
            try:
                self.table.wait(20)
            except subprocess.TimeoutExpired:
                self.table.kill()
        self.wallet.stop()


@contextmanager
def on_own_broker(folder: Path, make, tables=None):
    """A module's rig (``make(folder, broker)``) on a broker of its own: both
    stopped after, the broker also when the rig does not start. The broker is
    closed by role, as a studio runs it (``tablesim studio credentials``): the
    table, the platform and the tests' own clients each connect as theirs."""
    broker = ClosedNatsServer(folder / "nats-store", tables or ON_BUS).start()
    try:
        r = make(folder, broker)
    except BaseException:
        broker.stop()
        raise
    try:
        yield r
    finally:
        r.close()
        broker.stop()
