"""Tables as real processes for the journal tests: ``tablesim`` commands and
an idle ``tablesim serve --mock`` with its HTTP client."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx

import clirun
import reaper
import webclient

ROOT = Path(__file__).resolve().parents[2]


def tablesim(env, *args, process: bool = False, **kw) -> subprocess.CompletedProcess:
    """``tablesim ARGS`` with the environment ``env``: a command that ends by
    itself runs in this process (``clirun``: what it does to the journal and
    says is the test; the table it meets is a process of its own, ``Served``)
    unless ``process``; ``serve`` is always a process, since one that failed
    to refuse would not end."""
    if args[0] != "serve" and not process:
        return clirun.tablesim(*args, env=env, cwd=ROOT, input=kw.get("input"))
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *map(str, args)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=180, **kw)  # pure waiting: a loaded machine


class Served:
    """``tablesim serve --game fortune3 --mock`` as a process, idle (no pace)."""

    def __init__(self, env, journal: Path | None) -> None:
        """``journal``: None for the table's default journal in the data directory."""
        where = [] if journal is None else ["--journal", str(journal)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesim.cli.main", "serve", "--show-tokens", "--game", "fortune3", "--mock",
             "--port", "0", *where],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        reaper.track(self.proc)
        lines = []
        while not any(line.startswith("stop with") for line in lines):
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve exited: {self.proc.wait()} {self.proc.stderr.read()}")
            lines.append(line.rstrip("\n"))
        console = next(line for line in lines if line.startswith("console: "))
        self.url, _, self.token = console.removeprefix("console: ").partition("/#token=")
        self.client = webclient.client(base_url=self.url, timeout=60)  # pure waiting

    def post(self, path: str, body=None) -> httpx.Response:
        return self.client.post(path, json=body, headers={"Authorization": f"Bearer {self.token}"})

    def stop(self, sig=signal.SIGINT) -> int:
        self.client.close()
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(60)  # pure waiting
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()
