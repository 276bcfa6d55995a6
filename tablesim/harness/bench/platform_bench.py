"""The live-dealer platform's money path, every part its own process on this
machine: a ``nats-server -js``, the reference wallet (``tablesim wallet
serve``), a wheel table on mock devices publishing to the stream
(``tablesim serve --studio``) and one platform (``tablesim platform
serve``).

- ``bets_per_second``: players' bets sent the way the player's page sends
  them: each player's socket (``/ws``, opened and said hello before the
  bets) sends a group of ``per_player`` bet messages at once (the page's
  *Place bets*: one message a spot), and ``clients`` players do so at a
  time, each taking the next player once its group is all answered (each
  bet answered once it is debited in the wallet and accepted by the table
  over the bus); with the p50/p99 of a bet's answer;
- ``http``: the same figures for bets posted one a request to ``POST
  /api/bets`` by ``clients`` connections (an API client's way), measured
  after the sockets' bets in the same round;
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
from tablesim.harness.ports import free_port
from tablesim.journal.journal import Journal
from tablesim.wallet.ledger import round_credits

#: the game the platform's benches bet at: the one that sets up the served table's bet intake
#: (a table any number of players bet at, each their own position), and its mock table
SPEC, INTAKE = setup("bet_intake")
TABLE = SPEC.table_id("MOCK")
SPOTS = INTAKE.bets


def _stat_seconds(path: str) -> float:
    """User + system CPU seconds of a ``/proc`` stat file (a process's or a thread's)."""
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """CPU seconds a process used so far (user + system; Linux), or -1."""
    try:
        return _stat_seconds(f"/proc/{pid}/stat")
    except (OSError, ValueError, IndexError):
        return -1.0


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of each kind of thread of a process so far (Linux; empty elsewhere), by the
    name the thread gave the system (``tablecore.threadnames``) up to its first ``-``: ``table``,
    ``studio``, ``journal``...; ``loop`` for the main thread (a served table's event loop),
    ``other`` for a thread without a name of its own."""
    out: dict[str, float] = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            comm = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
            spent = _stat_seconds(f"/proc/{pid}/task/{tid}/stat")
        except (OSError, IndexError, ValueError):
            continue  # (a thread that ended meanwhile)
        kind = "loop" if tid == str(pid) else comm.split("-", 1)[0] if "-" in comm else "other"
        out[kind] = out.get(kind, 0.0) + spent
    return out


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
        port = free_port()
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


class _Socket(asyncio.Protocol):
    """A player's page's socket, as little as it takes: hello, then groups of
    bets, each bet's answer timed (frames masked with zeros: the clients
    load the platform, not themselves)."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.upgraded = False
        self.ready: asyncio.Future = asyncio.get_running_loop().create_future()  # the welcome came
        self.sent: dict[int, float] = {}
        self.group: asyncio.Future | None = None  # done once every bet sent is answered
        self.n = 0
        self.latencies: list[float] = []
        self.errors: list[str] = []

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        for f in (self.ready, self.group):
            if f is not None and not f.done():
                f.set_exception(ConnectionError("the platform closed a player's socket"))

    def data_received(self, data: bytes) -> None:
        from tablesim.harness.bench.player_clients import _parse, placed_id

        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buf.startswith(b"HTTP/1.1 101"):
                self.ready.set_exception(RuntimeError(f"the platform refused a WebSocket: {bytes(self.buf[:80])!r}"))
                return
            del self.buf[:end + 4]
            self.upgraded = True
            self.send([{"type": "hello", "session": self.session}])
        now, at = time.perf_counter(), 0
        while (got := _parse(self.buf, at)) is not None:
            opcode, payload, at = got
            if opcode != 0x1:
                continue
            rid = placed_id(payload.decode())  # (a placed bet's answer: its id, the receipt unread)
            if rid is not None and rid in self.sent:
                self._answered(rid, now)
            else:
                self._text(json.loads(payload), now)
        del self.buf[:at]

    def _answered(self, rid: int, now: float) -> None:
        self.latencies.append((now - self.sent.pop(rid)) * 1000)
        if not self.sent and self.group is not None and not self.group.done():
            self.group.set_result(None)

    def _text(self, msg: dict, now: float) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            self.ready.set_result(None)
        elif kind == "answer" and msg.get("kind") == "bet" and msg.get("id") in self.sent:
            if msg.get("status") != "placed":
                self.errors.append(f"{msg.get('status')}: {str(msg.get('message'))[:200]}")
            self._answered(msg["id"], now)
        elif kind == "answer" and not self.ready.done():
            self.ready.set_exception(RuntimeError(f"the platform refused a player: {msg}"))

    def send(self, docs: list[dict]) -> None:
        from tablesim.harness.bench.player_clients import _masked

        self.transport.write(b"".join(_masked(0x1, json.dumps(d, separators=(",", ":")).encode()) for d in docs))

    async def bets(self, n: int) -> None:
        """One group of ``n`` bets on the next spots: a message a bet, written
        at once; back when all are answered."""
        while self.group is not None and not self.group.done():  # (a group of this player still under way)
            await asyncio.wait([self.group])
        self.group = asyncio.get_running_loop().create_future()
        docs = []
        began = time.perf_counter()
        for _ in range(n):
            self.n += 1
            self.sent[self.n] = began
            docs.append({"type": "bet", "id": self.n, "table": TABLE, "bet": SPOTS[self.n % len(SPOTS)],
                         "amount": "1"})
        self.send(docs)
        await self.group


async def _sockets(host: str, port: int, sessions: list[str]) -> list[_Socket]:
    """Every player's socket open and said hello (32 at a time)."""
    import base64

    loop = asyncio.get_running_loop()
    socks = [_Socket(s) for s in sessions]
    queue = iter(socks)

    async def worker() -> None:
        for sock in queue:
            await loop.create_connection(lambda: sock, host, port)
            key = base64.b64encode(os.urandom(16)).decode()
            sock.transport.write((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
            await sock.ready

    await asyncio.gather(*(worker() for _ in range(32)))
    return socks


async def _ws_bets(socks: list[_Socket], bets: int, clients: int, per_player: int,
                   start_at: int = 0) -> tuple[list[float], float]:
    """``bets`` bets in groups of ``per_player`` (each a player's page placing
    its spots), ``clients`` groups under way at once, players in turn from
    ``start_at``; (latencies ms, wall s)."""
    groups = [(start_at + g, min(per_player, bets - g * per_player)) for g in range(-(-bets // per_player))]
    queue = iter(groups)
    for s in socks:
        s.latencies = []
    start = time.perf_counter()

    async def client() -> None:
        for g, n in queue:
            sock = socks[g % len(socks)]
            await sock.bets(n)
            if sock.errors:
                raise RuntimeError(f"a bet over the socket: {sock.errors[0]}")

    await asyncio.gather(*(client() for _ in range(clients)))
    wall = time.perf_counter() - start
    return [x for s in socks for x in s.latencies], wall


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


async def _health_async(host: str, port: int) -> dict:
    conn = await Connection(host, port, "").open()
    try:
        return json.loads((await conn.request("GET", "/api/health"))[1])
    finally:
        await conn.close()


def _figures(rig: Rig, before: dict, after: dict, sent_before: dict, sent: dict, latencies: list[float],
             wall: float, bets: int) -> dict[str, Any]:
    ordered = sorted(latencies)
    cpu = {k: round((after[k] - before[k]) * 1000 / bets, 3) for k in after}
    total = round(sum(cpu.values()), 3)
    return {"bets": bets, "bets_per_second": round(bets / wall, 1), "p50_ms": round(percentile(ordered, 0.5), 1),
            "p99_ms": round(percentile(ordered, 0.99), 1), "cpu_ms_per_bet": {**cpu, "all": total},
            "cpu_us_per_bet": {k: round(v * 1000, 1) for k, v in {**cpu, "all": total}.items()},
            "cores_at_2000_per_s": round(total * 2, 2),
            "bets_per_request": {k: round(bets / max(1, n - sent_before.get(k, 0)), 1) for k, n in sent.items()}}


async def _both_ways(rig: Rig, host: str, port: int, sessions: list[str], bets: int, clients: int, warmup: int,
                     per_player: int, http_bets: int) -> tuple[dict, dict | None]:
    """The sockets' bets measured, then (``http_bets``) the HTTP route's, in one event loop."""
    def cpu() -> dict[str, float]:
        return {**rig.cpu(), "bench_clients": _cpu(os.getpid())}

    socks = await _sockets(host, port, sessions)
    try:
        if warmup:
            await _ws_bets(socks, warmup, clients, per_player)
        sent_before, before = (await _health_async(host, port))["requests"], cpu()
        latencies, wall = await _ws_bets(socks, bets, clients, per_player, start_at=-(-warmup // per_player))
        after, sent = cpu(), (await _health_async(host, port))["requests"]
        ws = _figures(rig, before, after, sent_before, sent, latencies, wall, bets)
        if not http_bets:
            return ws, None
        if warmup:
            await _bets(host, port, sessions, min(warmup, 200), clients)
        sent_before, before = (await _health_async(host, port))["requests"], cpu()
        latencies, wall = await _bets(host, port, sessions, http_bets, clients)
        after, sent = cpu(), (await _health_async(host, port))["requests"]
        return ws, _figures(rig, before, after, sent_before, sent, latencies, wall, http_bets)
    finally:
        for s in socks:
            if s.transport is not None:
                s.transport.close()


def platform_money(players: int = 1000, bets: int = 5000, clients: int = 64, warmup: int = 500,
                   per_player: int = 4, http_bets: int | None = None) -> dict[str, Any]:
    """Bets through platform -> wallet -> bus -> table, then the round's
    settlement: the players' sockets' bets (the figures at the top), then
    ``http_bets`` (``bets`` by default; 0: none) posted one a request (``http``)."""
    rig = Rig(players)
    try:
        host, port = rig.platform.removeprefix("http://").split(":")
        port = int(port)
        sessions = asyncio.run(_sessions(host, port, rig.tokens(players), min(16, players)))
        round_id = call(rig.table, "POST", "/api/actions/open_round") and \
            call(rig.table, "GET", "/api/table")["round_id"]
        _wait(lambda: _platform_sees_betting(host, port), 30, "the platform to see betting open")
        ws, http = asyncio.run(_both_ways(rig, host, port, sessions, bets, clients, warmup, per_player,
                                          bets if http_bets is None else http_bets))
        call(rig.table, "POST", "/api/actions/close_betting")
        result_at = _spun(rig, round_id)
        last_credit, credits = _wait(lambda: _settled(rig, round_id, min(players, bets)), 300, "the round's credits")
        out = {"bets": bets, "warmup_bets": warmup, "players": players, "clients": clients,
               "bets_per_group": per_player, "via": "the players' sockets (/ws), a group of bets a player at once",
               **{k: v for k, v in ws.items() if k != "bets"}, "credits": credits,
               "result_to_last_credit_s": round(last_credit - result_at, 3),
               "load_average": round(os.getloadavg()[0], 1),
               "goals": "2,000 bets/s with p99 < 100 ms; the last credit < 2 s after the result"}
        if http is not None:
            out["http"] = {"via": "POST /api/bets, a bet a request", **http}
        return out
    finally:
        rig.close()
