"""Debits per second against the reference wallet on this machine.

``python scripts/wallet_bench.py [--debits N] [--clients C] [--json]``
starts ``tablesim wallet serve`` as its own process (a fresh ledger in a
temporary folder), then C concurrent clients (the platform's
``WalletClient``) each debit their own player until N debits are done,
and prints the rate and the latency percentiles. Not a test: a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path

from tablesim.wallet.client import WalletClient


def start(folder: Path, players: int) -> tuple[subprocess.Popen, str, bytes]:
    secret = folder / "s.secret"
    secret.write_text(uuid.uuid4().hex * 2 + "\n")
    secret.chmod(0o600)
    rows = "".join(f'[[players]]\nid = "p{i}"\ncurrency = "MOP"\nbalance = "100000000"\n\n' for i in range(players))
    (folder / "players.toml").write_text('[currencies]\nMOP = "0.01"\n\n' + rows)
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "wallet", "serve", "--db",
                             str(folder / "w.db"), "--secret", str(secret), "--players", str(folder / "players.toml"),
                             "--port", "0"], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().split()[1]
    return proc, url, secret.read_text().strip().encode()


async def bench(url: str, secret: bytes, debits: int, clients: int) -> dict:
    latencies: list[float] = []
    per = debits // clients

    async def one(k: int) -> None:
        async with WalletClient(url, secret) as wallet:
            for i in range(per):
                t0 = time.perf_counter()
                out = await wallet.debit(f"b{k}-{i}", player=f"p{k}", currency="MOP", amount=Decimal("1.00"),
                                         table="BENCH", round=f"R{i // 10}")
                latencies.append(time.perf_counter() - t0)
                assert out.ok, out

    t0 = time.perf_counter()
    await asyncio.gather(*(one(k) for k in range(clients)))
    elapsed = time.perf_counter() - t0
    latencies.sort()
    return {"debits": per * clients, "clients": clients, "seconds": round(elapsed, 2),
            "debits_per_second": round(per * clients / elapsed),
            "p50_ms": round(latencies[len(latencies) // 2] * 1e3, 1),
            "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1e3, 1), "load_average": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--debits", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        proc, url, secret = start(Path(folder), args.clients)
        try:
            figures = asyncio.run(bench(url, secret, args.debits, args.clients))
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(15)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{figures['debits']} debits by {figures['clients']} clients in {figures['seconds']} s: "
              f"{figures['debits_per_second']} debits/s, p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms "
              f"(load average {figures['load_average']:.1f})")


if __name__ == "__main__":
    main()
