"""A real ``nats-server -js`` for the studio tests: started on a free local
port with a store in a temporary folder, stopped (or killed, and started
again on the same port and store) by the test."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tablesim.harness.ports import free_port

NATS_SERVER = shutil.which("nats-server") or ("/usr/sbin/nats-server" if os.path.exists("/usr/sbin/nats-server") else None)


class NatsServer:
    def __init__(self, store: Path, port: int | None = None, args: tuple[str, ...] = ()) -> None:
        self.store = store
        self.port = port or free_port()
        self.args = args  # more options of nats-server (e.g. --user, --pass)
        self.proc: subprocess.Popen | None = None
        #: the port is ours to change until the broker first listens on it (restarts keep it)
        self._port_free_to_change = port is None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> "NatsServer":
        """Started and listening (its own log says so: a broker of another
        process on the same port is not taken for it). A port some other
        process took between ``free_port`` and the bind is exchanged for
        another, until the broker first listens. ``timeout``: pure waiting,
        on a machine that may be busy."""
        assert NATS_SERVER, "nats-server is not installed"
        self.store.mkdir(parents=True, exist_ok=True)
        for _ in range(5):
            if self._start(time.monotonic() + timeout):
                self._port_free_to_change = False
                return self
            self.port = free_port()
        raise RuntimeError("nats-server found no free port in five tries")

    def _start(self, deadline: float) -> bool:
        """False when the port was taken (and may be changed)."""
        path = self.store.parent / f"nats-{self.port}.log"
        offset = path.stat().st_size if path.exists() else 0
        with open(path, "ab") as log:
            self.proc = subprocess.Popen(
                [NATS_SERVER, "-js", "-a", "127.0.0.1", "-p", str(self.port), "-sd", str(self.store), *self.args],
                stdout=log, stderr=subprocess.STDOUT)
        while time.monotonic() < deadline:
            with open(path, "rb") as log:
                log.seek(offset)
                said = log.read().decode(errors="replace")
            if "Server is ready" in said:
                return True
            if self.proc.poll() is not None:
                if "address already in use" in said and self._port_free_to_change:
                    return False
                raise RuntimeError(f"nats-server exited with {self.proc.returncode}: {said.strip()[-300:]}")
            time.sleep(0.02)
        raise RuntimeError(f"nats-server did not start: see {path}")

    def kill(self) -> None:
        """SIGKILL: the broker dies with no goodbye (what a power loss does)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


class ClosedNatsServer(NatsServer):
    """A broker closed by role, as a studio runs it: the users and
    permissions ``tablesim studio credentials`` writes for ``tables``, the
    stream and keys bucket made by ``studio init`` as the admin. ``url`` is
    the admin's; ``role(name)`` is a role's URL file as the commands take it
    (``@FILE``), ``role_url(name)`` the URL itself (for a test's own client)."""

    def __init__(self, store: Path, tables: list[str], port: int | None = None) -> None:
        super().__init__(store, port)
        self.tables = list(tables)
        self.creds = store.parent / f"{store.name}-credentials"
        self._written_for: int | None = None

    @property
    def url(self) -> str:
        return self.role_url("admin")

    def role(self, name: str) -> str:
        return f"@{self.creds / f'{name}.url'}"

    def role_url(self, name: str) -> str:
        return (self.creds / f"{name}.url").read_text().strip()

    def _start(self, deadline: float) -> bool:
        from tablesim.studio import credentials

        if self._written_for != self.port and self._port_free_to_change:  # (once: restarts keep the passwords)
            credentials.write(self.creds, self.tables, f"nats://127.0.0.1:{self.port}")
            conf = self.creds / "node.conf"
            conf.write_text("include users.conf\n")
            self.args = ("-c", str(conf))
            self._written_for = self.port
        return super()._start(deadline)

    def start(self, timeout: float = 60.0) -> "ClosedNatsServer":
        first = self._port_free_to_change
        super().start(timeout)
        if first:
            import asyncio

            from tablesim.studio.setup import Wanted, init

            asyncio.run(init(self.url, Wanted()))
        return self
