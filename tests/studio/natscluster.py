"""Three clustered ``nats-server``s on loopback, made from the sample node
configs in ``config/nats/`` (the files docs/studio.md shows), their ports,
hosts and store folders substituted: the cluster the tests and the load
script kill nodes of."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import time
from pathlib import Path

from natsserver import NATS_SERVER, free_port

CONFIG = Path(__file__).resolve().parents[2] / "config" / "nats"
NODES = 3


def node_config(text: str, index: int, ports: list[int], routes: list[int], store: Path) -> str:
    """One sample node config with this machine's loopback ports and a temporary store."""
    text = text.replace("listen: 0.0.0.0:4222", f"listen: 127.0.0.1:{ports[index]}")
    text = text.replace("listen: 0.0.0.0:6222", f"listen: 127.0.0.1:{routes[index]}")
    text = re.sub(r"nats-route://studio-(\d):6222", lambda m: f"nats-route://127.0.0.1:{routes[int(m[1]) - 1]}", text)
    return text.replace("store_dir: /var/lib/nats", f"store_dir: {json.dumps(str(store))}")


class NatsCluster:
    """``users``: keep the sample's users.conf (the permissions); without it,
    the nodes take anyone (the include is left out). ``tables``: closed by
    role as a studio runs it instead (``tablesim studio credentials`` for
    these tables: ``role(name)`` is a role's URL file, ``url()`` the admin's)."""

    def __init__(self, work: Path, users: bool = False, tables: list[str] | None = None) -> None:
        self.work, self.users = work, users or tables is not None
        self.ports = [free_port() for _ in range(NODES)]
        self.routes = [free_port() for _ in range(NODES)]
        self.procs: list[subprocess.Popen | None] = [None] * NODES
        self.closed = tables is not None
        work.mkdir(parents=True, exist_ok=True)
        if tables is not None:
            from tablesim.studio import credentials

            credentials.write(work, list(tables), self.url())
        elif users:
            (work / "users.conf").write_text((CONFIG / "users.conf").read_text())
        users = self.users
        for i in range(NODES):
            text = node_config((CONFIG / f"studio-{i + 1}.conf").read_text(), i, self.ports, self.routes,
                               work / f"store-{i + 1}")
            if not users:
                text = text.replace("include users.conf", "")
            (work / f"studio-{i + 1}.conf").write_text(text)

    def url(self, user: str | None = None, password: str | None = None, nodes=range(NODES)) -> str:
        if self.closed and user is None and (self.work / "admin.url").exists():
            return self.role_url("admin")
        auth = f"{user}:{password}@" if user else ""
        return ",".join(f"nats://{auth}127.0.0.1:{self.ports[i]}" for i in nodes)

    def role(self, name: str) -> str:
        """A role's URL file as the commands take it (a closed cluster)."""
        return f"@{self.work / f'{name}.url'}"

    def role_url(self, name: str) -> str:
        return (self.work / f"{name}.url").read_text().strip()

    def start(self, index: int | None = None) -> "NatsCluster":
        assert NATS_SERVER, "nats-server is not installed"
        offsets = {}
        for i in ([index] if index is not None else range(NODES)):
            path = self.work / f"studio-{i + 1}.log"
            offsets[i] = path.stat().st_size if path.exists() else 0
            with open(path, "ab") as log:
                self.procs[i] = subprocess.Popen([NATS_SERVER, "-c", str(self.work / f"studio-{i + 1}.conf")],
                                                 stdout=log, stderr=subprocess.STDOUT)
        for i, offset in offsets.items():
            self._wait_listening(i, offset)
        return self

    def _wait_listening(self, i: int, offset: int, timeout: float = 60.0) -> None:
        """Until the node's own log says it listens for clients (a server of
        another process on the same port is not taken for it); pure waiting."""
        path = self.work / f"studio-{i + 1}.log"
        listening = f"Listening for client connections on 127.0.0.1:{self.ports[i]}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(path, "rb") as log:
                log.seek(offset)
                if listening in log.read().decode(errors="replace"):
                    return
            if self.procs[i].poll() is not None:
                raise RuntimeError(f"nats-server studio-{i + 1} exited: see {path}")
            time.sleep(0.02)
        raise RuntimeError(f"nats-server studio-{i + 1} did not start: see {path}")

    def kill(self, index: int) -> None:
        """SIGKILL: the node dies with no goodbye."""
        proc = self.procs[index]
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        self.procs[index] = None

    def stop(self) -> None:
        for i, proc in enumerate(self.procs):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
            self.procs[i] = None

    def node_of(self, server_name: str | None) -> int | None:
        return int(server_name.rsplit("-", 1)[1]) - 1 if server_name and server_name.startswith("studio-") else None

    def stream_leader(self, url: str | None = None, budget: float = 60.0) -> int | None:
        """The node leading the records stream (waits for one)."""
        return asyncio.run(_leader(url or self.url(), budget, self))


async def _leader(url: str, budget: float, cluster: NatsCluster) -> int | None:
    from tablesim.studio import natsio, wire

    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        try:
            nc = await natsio.connect(url, "tablesim-test")
            try:
                info = await nc.jetstream(timeout=2).stream_info(wire.STREAM)
                if info.cluster is not None and info.cluster.leader:
                    return cluster.node_of(info.cluster.leader)
            finally:
                await nc.close()
        except Exception:
            pass
        await asyncio.sleep(0.2)
    return None
