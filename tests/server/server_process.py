"""`tablesim serve` as a real process, for the CLI tests: its printed
tokens and console address, an HTTP client, and a clean stop."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

import reaper
import webclient

ROOT = Path(__file__).resolve().parents[2]
# Pure waiting, so generous: a `tablesim serve` start took over 30 s while
# the machine ran other suites at a load of 25 on its 2 cores.
START = 180.0
WAIT = 60.0


class Serve:
    """``tablesim serve ...`` as a process; its printed tokens and console address."""

    def __init__(self, env, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesim.cli.main", "serve", "--show-tokens", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
        reaper.track(self.proc)
        self.lines: list[str] = []
        end = time.monotonic() + START
        while not any(line.startswith("stop with") for line in self.lines):
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve exited early: {self.proc.wait()} {self.proc.stderr.read()}")
            self.lines.append(line.rstrip("\n"))
            assert time.monotonic() < end
        console = next(line for line in self.lines if line.startswith("console: "))
        self.url, _, self.dealer = console.removeprefix("console: ").partition("/#token=")
        self.supervisor = next(line.split()[1] for line in self.lines if line.strip().startswith("supervisor "))
        self.client = webclient.client(base_url=self.url, timeout=WAIT)
        end = time.monotonic() + WAIT
        while True:
            try:
                if self.client.get("/api/health").json()["ok"]:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < end, "the server does not answer"
            time.sleep(0.02)

    def post(self, path: str, body=None, token: str | None = None) -> httpx.Response:
        return self.client.post(path, json=body, headers={"Authorization": f"Bearer {token or self.dealer}"})

    def state(self) -> dict:
        return self.client.get("/api/table").json()

    def wait_state(self, *states: str) -> dict:
        end = time.monotonic() + WAIT
        while (snap := self.state())["state"] not in states:
            assert time.monotonic() < end, snap["state"]
            time.sleep(0.01)
        return snap

    def stop(self, sig=signal.SIGINT) -> int:
        self.client.close()
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(WAIT)
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()
