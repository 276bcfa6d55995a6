"""The processes of a wallet fault run (scripts/wallet_faults.py), each
started as its own process, SIGKILLed and started again on the same port,
store, journal or intent log: the broker, the reference wallet, the tables
and the platforms."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "studio"))  # the broker the tests use
sys.path.insert(0, str(ROOT / "tests"))  # their HTTP client (one TLS context, not one a call)

import webclient  # noqa: E402
from natsserver import ClosedNatsServer, NatsServer, free_port  # noqa: E402

TABLESIM = [sys.executable, "-m", "tablesim.cli.main"]


def wait_until(check, budget: float, what: str, every: float = 0.1):
    """``check()``'s first true value within ``budget`` seconds (pure waiting: generous budgets)."""
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        try:
            got = check()
        except (httpx.HTTPError, OSError, ValueError):
            got = None
        if got:
            return got
        time.sleep(every)
    raise RuntimeError(f"never happened within {budget:g} s: {what}")


class Child:
    """A tablesim command as a process with its log; killed with SIGKILL, started again alike."""

    name = "child"
    prints_url = True  # its first line of output says where it listens

    def __init__(self, work: Path, env: dict) -> None:
        self.work, self.env = work, env
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def argv(self) -> list[str]:
        raise NotImplementedError

    def ready(self) -> bool:
        raise NotImplementedError

    def start(self, budget: float = 120.0) -> "Child":
        log = open(self.work / f"{self.name}.log", "ab")
        out = subprocess.PIPE if self.prints_url else subprocess.DEVNULL
        self.proc = subprocess.Popen(self.argv(), stdout=out, stderr=log, cwd=ROOT, env=self.env)
        log.close()
        self.starts += 1
        self.after_start()
        wait_until(lambda: self._alive() and self.ready(), budget, f"{self.name} up")
        return self

    def after_start(self) -> None:
        pass

    def _alive(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited {self.proc.returncode}: "
                               f"{(self.work / f'{self.name}.log').read_text()[-1500:]}")
        return True

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(20)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.kill()


class ClusterNode(Child):
    """One node of the studio's three-node cluster: SIGKILLed and started again alone."""

    def __init__(self, cluster, index: int) -> None:
        super().__init__(cluster.work, {})
        self.cluster, self.index, self.name = cluster, index, f"nats-{index + 1}"

    def start(self, budget: float = 60.0) -> "ClusterNode":
        self.cluster.start(self.index)
        self.proc, self.starts = self.cluster.procs[self.index], self.starts + 1
        return self

    def kill(self) -> None:
        self.cluster.kill(self.index)

    def stop(self) -> None:
        pass  # (the cluster stops its nodes together: ``Bus.stop``)


class Bus:
    """The studio's bus, closed by role (``tablesim studio credentials``):
    three clustered nodes (the stream replicated on all three: a node killed
    loses nothing), or one broker (``--single-broker``); every process
    connects as its own role (``role(name)``, a URL file)."""

    def __init__(self, work: Path, tables: list[str], cluster: bool = True) -> None:
        from natscluster import NatsCluster
        from natsserver import ClosedNatsServer

        self.replicas = 3 if cluster else 1
        if cluster:
            self.cluster = NatsCluster(work / "bus", tables=tables)
            self.nodes: list[Child] = [ClusterNode(self.cluster, i) for i in range(3)]
            self.single = None
        else:
            self.cluster = None
            self.single = Broker(work, {}, tables)
            self.nodes = [self.single]

    def role(self, name: str) -> str:
        return self.cluster.role(name) if self.cluster else self.single.nats.role(name)

    def start(self) -> None:
        if self.cluster:
            self.cluster.start()
        else:
            self.single.start()

    def stop(self) -> None:
        if self.cluster:
            self.cluster.stop()
        else:
            self.single.stop()


class Broker(Child):
    name = "broker"

    def __init__(self, work: Path, env: dict, tables: list[str] | None = None) -> None:
        super().__init__(work, env)
        self.nats = NatsServer(work / "nats-store") if tables is None else ClosedNatsServer(work / "nats-store", tables)

    @property
    def url(self) -> str:
        return self.nats.url

    def start(self, budget: float = 30.0) -> "Broker":
        self.nats.start(timeout=budget)
        self.proc, self.starts = self.nats.proc, self.starts + 1
        return self

    def kill(self) -> None:
        self.nats.kill()

    def stop(self) -> None:
        self.nats.stop()


class Wallet(Child):
    """The reference wallet on a fixed port (the platforms keep its URL across restarts)."""

    name = "wallet"

    def __init__(self, work: Path, env: dict, faults: list[str], seed: int) -> None:
        super().__init__(work, env)
        self.port, self.faults, self.seed = free_port(), faults, seed
        self.db, self.secret, self.players = work / "wallet.db", work / "wallet.secret", work / "players.toml"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/wallet/v1"

    def argv(self) -> list[str]:
        faults = [arg for spec in self.faults for arg in ("--fault", spec)]
        return [*TABLESIM, "wallet", "serve", "--db", str(self.db), "--secret", str(self.secret), "--players",
                str(self.players), "--port", str(self.port), *faults,
                "--fault-seed", str(self.seed * 1000 + self.starts)]

    def after_start(self) -> None:
        line = self.proc.stdout.readline().decode()
        if not line.startswith("wallet: "):
            self.proc.wait(20)
            raise RuntimeError(f"the wallet did not start: {line!r} {(self.work / 'wallet.log').read_text()[-1500:]}")

    def ready(self) -> bool:
        return True


class Table(Child):
    """``tablesim serve --mock --studio`` of one game under its own table id, on a fixed port."""

    prints_url = False

    def __init__(self, work: Path, env: dict, game: str, table_id: str, broker_url: str, seed: int,
                 pace: float = 0.5, extra: tuple[str, ...] = ()) -> None:
        super().__init__(work, env)
        self.game, self.table_id, self.broker_url, self.seed, self.pace = game, table_id, broker_url, seed, pace
        self.extra = extra  # more options of ``serve`` (e.g. a rule profile)
        self.name = table_id
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.journal = work / f"{table_id}.journal.sqlite"

    def argv(self) -> list[str]:
        return [*TABLESIM, "serve", "--game", self.game, "--mock", "--seed", str(self.seed), "--port",
                str(self.port), "--journal", str(self.journal), "--studio", self.broker_url,
                "--table-id", self.table_id, "--pace", str(self.pace), *self.extra]

    def start(self, budget: float = 120.0) -> "Child":
        # Its port is chosen free, then bound by the table a moment later: another program (another
        # run's table, on a machine running several) can take it in between. Then this table stops
        # on the taken address: it is started again on another port (a table's port is nobody's
        # but the run's).
        for attempt in range(3):
            try:
                return super().start(budget)
            except RuntimeError as exc:
                if attempt == 2 or "address already in use" not in str(exc).lower():
                    raise
                self.port = free_port()
                self.base = f"http://127.0.0.1:{self.port}"
        raise AssertionError("unreachable")

    def ready(self) -> bool:
        # (this table's answer, not another program's that took the port first)
        r = webclient.get(f"{self.base}/api/table", timeout=2)
        return r.status_code == 200 and r.json().get("table_id") == self.table_id

    def state(self) -> dict:
        doc = webclient.get(f"{self.base}/api/table", timeout=5).json()
        if doc.get("table_id") != self.table_id:  # (another program's table on this port)
            raise ValueError(f"{self.base} is table {doc.get('table_id')!r}, not {self.table_id}")
        return doc

    def token(self, role: str) -> str:
        tokens = json.loads(self.journal.with_name(f"{self.table_id}.tokens.json").read_text())
        return next(op["token"] for op in tokens["operators"] if op["role"] == role)

    def act(self, name: str, body: dict | None = None, role: str = "dealer") -> httpx.Response:
        path = "/api/void" if name == "void" else f"/api/actions/{name}"
        return webclient.post(self.base + path, json=body or {}, timeout=20,
                              headers={"Authorization": f"Bearer {self.token(role)}"})


class PlatformProc(Child):
    """``tablesim platform serve`` with its own intent log; a new port at each start."""

    def __init__(self, work: Path, env: dict, index: int, broker_url: str, wallet: Wallet, tables: Path,
                 keys: Path) -> None:
        super().__init__(work, env)
        self.name = f"platform-{index}"
        self.broker_url, self.wallet, self.tables, self.keys = broker_url, wallet, tables, keys
        self.db = work / f"platform-{index}.db"
        self.url = ""

    def argv(self) -> list[str]:
        return [*TABLESIM, "platform", "serve", "--nats", self.broker_url, "--wallet", self.wallet.url,
                "--secret", str(self.wallet.secret), "--tables", str(self.tables), "--db", str(self.db),
                "--keys", str(self.keys), "--port", "0", "--ack-wait", "5", "--alert-after", "60"]

    def after_start(self) -> None:
        line = self.proc.stdout.readline().decode()
        if not line.startswith("platform: "):
            self.proc.wait(20)
            raise RuntimeError(f"{self.name} did not start: {line!r} "
                               f"{(self.work / f'{self.name}.log').read_text()[-1500:]}")
        self.url = line.split()[1]

    def ready(self) -> bool:
        return webclient.get(f"{self.url}/api/health", timeout=2).status_code == 200

    def up(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def environment(work: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(work / "xdg")}
