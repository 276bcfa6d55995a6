"""A table served by a real ``tablesim serve`` process for the benchmarks,
and a lean keep-alive HTTP/1.1 client to load it with (the standard
library only: a benchmark must not measure its client)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


class ServedTable:
    """``tablesim serve ARGS... --port 0`` in a fresh data directory; its
    address and dealer token. A context manager: the process is stopped."""

    def __init__(self, *args: str, journal: bool = True, journal_path: Path | None = None,
                 data_dir: str | None = None) -> None:
        """``journal_path`` and ``data_dir`` (its key, its tokens): kept
        across restarts when given, else in a directory of this run."""
        self.tmp = tempfile.TemporaryDirectory(prefix="tablesim-bench-")
        self.journal = journal_path or Path(self.tmp.name) / "bench.journal.sqlite"
        cmd = [sys.executable, "-m", "tablesim.cli.main", "serve", "--show-tokens", *args, "--port", "0",
               "--journal", str(self.journal) if journal else "none"]
        env = {**os.environ, "XDG_DATA_HOME": data_dir or self.tmp.name, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.url = self.token = self.supervisor = ""
        try:
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _wait_ready(self) -> None:
        end = time.monotonic() + 30
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("console: "):
                self.url, _, self.token = line.removeprefix("console: ").strip().partition("/#token=")
            if line.strip().startswith("supervisor "):
                self.supervisor = line.split()[1]
            if line.startswith("stop with"):
                break
            if time.monotonic() > end:
                break
        if not self.url:
            raise RuntimeError(f"tablesim serve did not start: {self.proc.stderr.read() if self.proc.stderr else ''}")
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        while True:
            try:
                status, body = asyncio.run(_once(self.host, self.port, "GET", "/api/health", None, ""))
                if status == 200 and json.loads(body)["ok"]:
                    return
            except OSError:
                pass
            if time.monotonic() > end:
                raise RuntimeError("tablesim serve does not answer")
            time.sleep(0.02)

    def cpu_seconds(self) -> float:
        """CPU time the server process used so far (user + system; Linux), or -1."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return -1.0

    def thread_cpu(self) -> dict[str, float]:
        """CPU seconds per thread name of the server (Linux; for profiling)."""
        out: dict[str, float] = {}
        for task in Path(f"/proc/{self.proc.pid}/task").glob("*"):
            try:
                name = (task / "comm").read_text().strip()
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[name] = out.get(name, 0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return out

    def close(self) -> None:
        stop_process(self.proc, signal.SIGTERM, 10)
        self.tmp.cleanup()

    def __enter__(self) -> "ServedTable":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Connection:
    """One keep-alive HTTP/1.1 connection (requests one after the other)."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port, self.token = host, port, token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> "Connection":
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        assert self.reader is not None and self.writer is not None
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Authorization: Bearer {self.token}\r\n")
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass


async def _once(host: str, port: int, method: str, path: str, body: Any, token: str) -> tuple[int, bytes]:
    conn = await Connection(host, port, token).open()
    try:
        return await conn.request(method, path, None if body is None else json.dumps(body).encode())
    finally:
        await conn.close()


def call(served: ServedTable, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """One request to the served table (as its dealer, or ``token``); its JSON answer (an error if not 200)."""
    status, raw = asyncio.run(_once(served.host, served.port, method, path, body, token or served.token))
    if status != 200:
        raise RuntimeError(f"{method} {path}: {status} {raw[:200]!r}")
    return json.loads(raw)


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def stop_process(proc: subprocess.Popen, sig: int, wait: float) -> None:
    """Stop a bench's server process (``sig``, then a kill after ``wait``
    seconds) and close its pipes."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
