"""Debits through the reference wallet (``tablesim wallet serve`` as its own
process, a fresh ledger with ``synchronous=FULL``): concurrent keep-alive
connections, each debiting players drawn from many, every request signed
and every answer's signature checked, each answer counted only when its
status is ok (the wallet answers only once the debit is durable).

Two measures: ``closed`` (each connection sends its next debit as soon as
its answer came: the most the wallet does) and ``offered`` (debits due on a
fixed schedule at ``rate`` per second, a latency counted from when its debit
was due, so a wallet that falls behind shows it). The client is the
standard library's asyncio with the protocol's signing: the figure is the
wallet's, not an HTTP client's.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tablesim.harness.bench.served import percentile
from tablesim.wallet import signing
from tablesim.wallet.protocol import PREFIX

PATH = PREFIX + "/debit"


class Wallet:
    """``tablesim wallet serve`` with ``players`` players in a folder of its own."""

    def __init__(self, players: int) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="tablesim-wallet-bench-")
        folder = Path(self.tmp.name)
        secret = folder / "bench.secret"
        secret.write_text(secrets.token_hex(32) + "\n")
        secret.chmod(0o600)
        self.secret = secret.read_text().strip().encode()
        rows = "".join(f'[[players]]\nid = "p{i}"\ncurrency = "MOP"\nbalance = "100000000"\n\n'
                       for i in range(players))
        (folder / "players.toml").write_text('[currencies]\nMOP = "0.01"\n\n' + rows)
        self.players = players
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesim.cli.main", "wallet", "serve", "--db", str(folder / "w.db"),
             "--secret", str(secret), "--players", str(folder / "players.toml"), "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("wallet: "):
            self.close()
            raise RuntimeError(f"tablesim wallet serve did not start: {line!r}")
        self.host, _, rest = line.split()[1].removeprefix("http://").partition(":")
        self.port = int(rest.split("/")[0])

    def cpu_seconds(self) -> float:
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return -1.0

    def close(self) -> None:
        from tablesim.harness.bench.served import stop_process

        stop_process(self.proc, signal.SIGINT, 15)
        self.tmp.cleanup()


class Debiting:
    """One keep-alive connection sending signed debits one after the other."""

    def __init__(self, wallet: Wallet, name: str) -> None:
        self.wallet, self.name, self.count = wallet, name, 0

    async def open(self) -> "Debiting":
        self.reader, self.writer = await asyncio.open_connection(self.wallet.host, self.wallet.port)
        return self

    async def debit(self) -> None:
        self.count += 1
        player = random.randrange(self.wallet.players)
        body = json.dumps({"transaction_id": f"{self.name}-{self.count}", "player": f"p{player}",
                           "currency": "MOP", "amount": "1.00", "table": "BENCH",
                           "round": f"R{self.count // 20}"}, separators=(",", ":")).encode()
        nonce = signing.new_nonce()
        headers = signing.request_headers(self.wallet.secret, PATH, body, timestamp=int(time.time()), nonce=nonce)
        head = f"POST {PATH} HTTP/1.1\r\nHost: {self.wallet.host}\r\nContent-Length: {len(body)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(head.encode() + b"\r\n" + body)
        status, answer, ts, sig = await self._answer()
        if not signing.verify(self.wallet.secret, signing.answer_message(ts, nonce, answer), sig):
            raise RuntimeError("an answer without a valid signature")
        if status != 200 or b'"status":"ok"' not in answer:
            raise RuntimeError(f"a debit was refused: {status} {answer[:200]!r}")

    async def _answer(self) -> tuple[int, bytes, str, str]:
        line = await self.reader.readline()
        if not line:
            raise ConnectionError("the wallet closed the connection")
        status, length, found = int(line.split()[1]), 0, {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            found[name.strip().lower()] = value.strip().decode("latin-1")
        length = int(found.get(b"content-length", 0))
        ts = found.get(signing.TIMESTAMP.lower().encode(), "")
        sig = found.get(signing.SIGNATURE.lower().encode(), "")
        return status, await self.reader.readexactly(length), ts, sig

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


async def _run(wallet: Wallet, connections: int, debits: int, rate: float | None) -> tuple[list[float], float]:
    conns = [await Debiting(wallet, f"{'o' if rate else 'c'}{k}-{secrets.token_hex(3)}").open()
             for k in range(connections)]
    latencies: list[float] = []
    start = time.perf_counter()
    due = iter(range(debits))

    async def work(conn: Debiting) -> None:
        for i in due:
            t0 = start + i / rate if rate else time.perf_counter()
            if rate and (wait := t0 - time.perf_counter()) > 0:
                await asyncio.sleep(wait)
            await conn.debit()
            latencies.append((time.perf_counter() - t0) * 1e3)

    try:
        await asyncio.gather(*(work(c) for c in conns))
    finally:
        for c in conns:
            await c.close()
    return sorted(latencies), time.perf_counter() - start


def _figures(latencies: list[float], wall: float, cpu: float) -> dict[str, Any]:
    return {"debits": len(latencies), "debits_per_second": len(latencies) / wall,
            "p50_ms": percentile(latencies, 0.50), "p99_ms": percentile(latencies, 0.99),
            "wallet_cpu_ms_per_debit": cpu * 1e3 / max(1, len(latencies))}


#: ``wallet_debits``'s keyword arguments (a test makes them small)
SIZES: dict[str, Any] = {}


def wallet_debits(players: int = 2000, connections: int = 64, debits: int = 10000, rate: float = 2000.0,
                  offered_debits: int | None = None) -> dict[str, Any]:
    """``closed`` and ``offered`` figures (debits/s, p50/p99 ms, the wallet's CPU per debit)."""
    try:
        wallet = Wallet(players)
    except (OSError, RuntimeError) as exc:
        return {"skipped": f"{type(exc).__name__}: {exc}"}
    try:
        asyncio.run(_run(wallet, min(connections, 8), min(debits, 200), None))  # warm up
        out: dict[str, Any] = {}
        for key, n, r in (("closed", debits, None), ("offered", offered_debits or debits, rate)):
            cpu = wallet.cpu_seconds()
            latencies, wall = asyncio.run(_run(wallet, connections, n, r))
            out[key] = {**_figures(latencies, wall, wallet.cpu_seconds() - cpu), "players": players,
                        "connections": connections, "load_average": round(os.getloadavg()[0], 1)}
            if r:
                out[key]["offered_per_second"] = r
        return out
    finally:
        wallet.close()
