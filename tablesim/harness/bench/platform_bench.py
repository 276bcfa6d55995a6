"""The live-dealer platform's money path, every part its own process on this
machine: a ``nats-server -js``, the reference wallet (``tablesim wallet
serve``), a wheel table on mock devices publishing to the stream
(``tablesim serve --studio``) and one platform (``tablesim platform
serve``).

- ``bets_per_second``: players' bets posted to the platform by concurrent
  clients (each answered once it is debited in the wallet and accepted by
  the table over the bus), with the p50/p99 of the platform's answer;
- ``result_to_last_credit_s``: from the table's result record of the round
  holding all those bets to the wallet's last credit of that round;
- ``cpu_ms_per_bet``: each process's CPU time (user + system) over the
  bets, per bet, the bench's own clients too, and their sum; what the
  rate is on a machine with as many cores as ``cores_at_2000_per_s`` says
  (the figure that depends least on what else the machine does);
- ``bets_per_request``: how many bets the platform's requests to the wallet
  and to the table carried (its batches), and per group read off the stream.

A warm-up of ``warmup`` bets (connections opened, caches filled) goes before
the measured ones, in the same round.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from tablecore.errors import InputError
from tablesim.harness.bench.served import Connection, ServedTable, call, percentile
from tablesim.harness.bench.service import setup
from tablesim.journal.journal import Journal
from tablesim.wallet.ledger import round_credits

#: the game the platform's benches bet at: the one that sets up the served table's bet intake
#: (a table any number of players bet at, each their own position), and its mock table
SPEC, INTAKE = setup("bet_intake")
TABLE = SPEC.table_id("MOCK")
SPOTS = INTAKE.bets


def _cpu(pid: int) -> float:
    """CPU seconds a process used so far (user + system; Linux), or -1."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return -1.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready_line(proc: subprocess.Popen, word: str) -> str:
    line = proc.stdout.readline()
    if not line.startswith(word + ": "):
        raise RuntimeError(f"{word} did not start: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}")
    return line.split()[1]


class Rig:
    """The processes, in a folder of their own; ``close`` stops them all."""

    def __init__(self, players: int) -> None:
        self._start_broker("tablesim-bench-platform-")
        self._wallet_files(players)
        self.wallet_proc = self._spawn(self._cli("wallet", "serve", "--db", self.dir / "wallet.db", "--secret",
                                                 self.secret, "--players", self.dir / "players.toml", "--port", "0"))
        self.wallet = _ready_line(self.wallet_proc, "wallet")
        self.table = ServedTable("--game", SPEC.name, "--mock", "--studio", self.nats, data_dir=str(self.dir),
                                 journal_path=self.dir / f"{TABLE}.journal.sqlite")
        self._register_key()
        (self.dir / "tables.toml").write_text(f'[tables.{TABLE}]\ncurrency = "MOP"\nunit = "1"\n'
                                              f'position = "{SPEC.remote_view().position}"\n')
        self.platform_proc = self._spawn(self._cli(
            "platform", "serve", "--nats", self.nats, "--wallet", self.wallet, "--secret", self.secret, "--tables",
            self.dir / "tables.toml", "--db", self.dir / "platform.db", "--keys", self.keys, "--port", "0"))
        self.platform = _ready_line(self.platform_proc, "platform")

    def _start_broker(self, prefix: str) -> None:
        """A folder of the rig's own and a nats-server with JetStream in it, on a free port."""
        nats_server = shutil.which("nats-server") or "/usr/sbin/nats-server"
        if not os.path.exists(nats_server):
            raise RuntimeError("nats-server is not installed (apt install nats-server)")
        self.tmp = tempfile.TemporaryDirectory(prefix=prefix)
        self.dir = Path(self.tmp.name)
        self.procs: list[subprocess.Popen] = []
        self.table: ServedTable | None = None
        self.env = {**os.environ, "XDG_DATA_HOME": str(self.dir), "PYTHONUNBUFFERED": "1"}
        port = _free_port()
        self.nats = f"nats://127.0.0.1:{port}"
        self._spawn([nats_server, "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", str(self.dir / "nats")],
                    quiet=True)

    def cpu(self) -> dict[str, float]:
        return {"platform": _cpu(self.platform_proc.pid), "wallet": _cpu(self.wallet_proc.pid),
                "table": _cpu(self.table.proc.pid), "broker": _cpu(self.procs[0].pid)}

    def _cli(self, *args: Any) -> list[str]:
        return [sys.executable, "-m", "tablesim.cli.main", *map(str, args)]

    def _spawn(self, argv: list[str], quiet: bool = False) -> subprocess.Popen:
        log = open(self.dir / f"{Path(argv[0]).name}-{len(self.procs)}.log", "ab")
        proc = subprocess.Popen(argv, stdout=log if quiet else subprocess.PIPE, stderr=log, env=self.env,
                                text=not quiet)
        log.close()
        self.procs.append(proc)
        return proc

    def _wallet_files(self, players: int) -> None:
        self.secret = self.dir / "wallet.secret"
        self.secret.write_text("bench-" + "cd" * 20 + "\n")
        self.secret.chmod(0o600)
        rows = "".join(f'\n[[players]]\nid = "p{i:05d}"\ncurrency = "MOP"\nbalance = "100000.00"\n'
                       for i in range(players))
        (self.dir / "players.toml").write_text('[currencies]\nMOP = "0.01"\n' + rows)

    def _register_key(self) -> None:
        """The table's public key in a keys file of this run (as ``studio register-key`` writes it)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        found = sorted(self.dir.rglob(f"{TABLE}.sign.key"))
        if not found:
            raise RuntimeError("the table made no signing key")
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(found[0].read_text().strip()))
        self.keys = self.dir / "keys.json"
        self.keys.write_text(json.dumps({"v": 1, "tables": {TABLE: key.public_key().public_bytes_raw().hex()}}))

    def tokens(self, players: int) -> list[str]:
        from tablesim.wallet.ledger import Ledger

        ledger = Ledger(self.dir / "wallet.db")
        try:
            # (a day: a load run's players open their sessions along its whole ramp, not within a lobby's minutes)
            return [ledger.issue_token(f"p{i:05d}", minutes=24 * 60) for i in range(players)]
        finally:
            ledger.close()

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        self.tmp.cleanup()


async def _sessions(host: str, port: int, tokens: list[str], clients: int) -> list[str]:
    sessions: list[str] = [""] * len(tokens)
    queue = iter(range(len(tokens)))

    async def client() -> None:
        conn = await Connection(host, port, "").open()
        try:
            for i in queue:
                status, raw = await conn.request("POST", "/api/session", json.dumps({"token": tokens[i]}).encode())
                if status != 200:
                    raise RuntimeError(f"POST /api/session: {status} {raw[:200]!r}")
                sessions[i] = json.loads(raw)["session"]
        finally:
            await conn.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return sessions


async def _bets(host: str, port: int, sessions: list[str], bets: int, clients: int) -> tuple[list[float], float]:
    """``bets`` bets over ``clients`` connections, players in turn; (latencies ms, wall s)."""
    latencies: list[float] = []
    queue = iter(range(bets))
    start = time.perf_counter()

    async def client() -> None:
        conn = await Connection(host, port, "").open()
        try:
            for i in queue:
                conn.token = sessions[i % len(sessions)]
                body = json.dumps({"table": TABLE, "bet": SPOTS[(i // len(sessions)) % len(SPOTS)],
                                   "amount": "1"}).encode()
                began = time.perf_counter()
                status, raw = await conn.request("POST", "/api/bets", body)
                latencies.append((time.perf_counter() - began) * 1000)
                if status != 200:
                    raise RuntimeError(f"POST /api/bets: {status} {raw[:300]!r}")
        finally:
            await conn.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - start


def _wait(check, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.02)
    raise RuntimeError(f"timed out waiting for {what}")


def _health(host: str, port: int) -> dict:
    async def ask() -> dict:
        conn = await Connection(host, port, "").open()
        try:
            return json.loads((await conn.request("GET", "/api/health"))[1])
        finally:
            await conn.close()

    return asyncio.run(ask())


def _platform_sees_betting(host: str, port: int) -> bool:
    async def ask() -> bool:
        conn = await Connection(host, port, "").open()
        try:
            status, raw = await conn.request("GET", "/api/tables")
            return status == 200 and json.loads(raw)["tables"][0]["betting"]
        finally:
            await conn.close()

    return asyncio.run(ask())


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _settled(rig: Rig, round_id: str, players: int) -> tuple[float, int] | None:
    """(the wallet's last credit of the round, as a Unix time; credits) once every player has one."""
    n, last = round_credits(rig.dir / "wallet.db", TABLE, round_id)
    return (_at(last), n) if n >= players else None


def _result_time(rig: Rig, round_id: str) -> float | None:
    try:
        journal = Journal(rig.table.journal, readonly=True)
    except InputError:
        return None
    try:
        result = next(journal.find(round_id=round_id, names=("result",), limit=1), None)
    except journal.errors:
        return None
    finally:
        journal.close()
    return None if result is None else _at(result.ts)


def _spun(rig: Rig, round_id: str) -> float:
    """Spin until the round has its result (the mock wheel makes a weak or
    pegged spin now and then, which the table calls no spin: spun again); its time."""
    for _ in range(10):
        try:
            call(rig.table, "POST", f"/api/actions/{INTAKE.finish}")
        except RuntimeError:  # (not armed yet after a no spin: asked again below)
            pass
        try:
            return _wait(lambda: _result_time(rig, round_id), 15, "the round's result")
        except RuntimeError:
            continue
    raise RuntimeError("timed out waiting for the round's result (ten spins)")


def platform_money(players: int = 1000, bets: int = 5000, clients: int = 64, warmup: int = 500) -> dict[str, Any]:
    """Bets through platform -> wallet -> bus -> table, then the round's settlement."""
    rig = Rig(players)
    try:
        host, port = rig.platform.removeprefix("http://").split(":")
        port = int(port)
        sessions = asyncio.run(_sessions(host, port, rig.tokens(players), min(16, players)))
        round_id = call(rig.table, "POST", "/api/actions/open_round") and \
            call(rig.table, "GET", "/api/table")["round_id"]
        _wait(lambda: _platform_sees_betting(host, port), 30, "the platform to see betting open")
        if warmup:
            asyncio.run(_bets(host, port, sessions, warmup, clients))
        sent_before = _health(host, port)["requests"]
        before = {**rig.cpu(), "bench_clients": _cpu(os.getpid())}
        latencies, wall = asyncio.run(_bets(host, port, sessions, bets, clients))
        after = {**rig.cpu(), "bench_clients": _cpu(os.getpid())}
        sent = _health(host, port)["requests"]
        call(rig.table, "POST", "/api/actions/close_betting")
        result_at = _spun(rig, round_id)
        last_credit, credits = _wait(lambda: _settled(rig, round_id, min(players, bets)), 300, "the round's credits")
        ordered = sorted(latencies)
        cpu = {k: round((after[k] - before[k]) * 1000 / bets, 3) for k in after}
        total = round(sum(cpu.values()), 3)
        return {"bets": bets, "warmup_bets": warmup, "players": players, "clients": clients,
                "bets_per_second": round(bets / wall, 1), "p50_ms": round(percentile(ordered, 0.5), 1),
                "p99_ms": round(percentile(ordered, 0.99), 1), "credits": credits,
                "result_to_last_credit_s": round(last_credit - result_at, 3),
                "cpu_ms_per_bet": {**cpu, "all": total},
                "cpu_us_per_bet": {k: round(v * 1000, 1) for k, v in {**cpu, "all": total}.items()},
                "cores_at_2000_per_s": round(total * 2, 2),
                "bets_per_request": {k: round(bets / max(1, n - sent_before.get(k, 0)), 1) for k, n in sent.items()},
                "load_average": round(os.getloadavg()[0], 1),
                "goals": "2,000 bets/s with p99 < 100 ms; the last credit < 2 s after the result"}
    finally:
        rig.close()
