"""Running the table's app: a listening socket, uvicorn with the stop
signals held until its handlers are in place, the garbage collector told
to leave the start-up heap alone, and the server on a background thread
(tests, embedding). The app itself is ``tablesim.server.app``."""

from __future__ import annotations

import signal
import socket
import threading
import time
from contextlib import contextmanager

from fastapi import FastAPI

from tablecore.listen import listening_socket
from tablecore.errors import InputError
from tablecore.threadnames import name_this_thread
from tablesim.server import gctuning
from tablesim.server.app import create_app
from tablesim.server.auth import TokenStore
from tablesim.web.requestlimits import LOOPBACK_HOSTS, is_loopback
from tablesim.server.runner import TableRunner

#: the largest message a stream client may send (it sends ``{"since": N}`` and pings):
#: anything bigger closes its connection (1009) before the server holds it
WS_MAX_MESSAGE = 4096


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one)."""
    return listening_socket(host, port, backlog=128)


#: the signals that stop a served table (see _unblocking_stop_signals)
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _server(app: FastAPI, log_level: str = "warning"):
    import uvicorn

    class Server(uvicorn.Server):
        def capture_signals(self):
            return _unblocking_stop_signals(super().capture_signals())

    from tablesim.web.wsframes import RawFrames

    # log_config=None: uvicorn's records go to the root logger, rendered as ours (tablesim.log);
    # RawFrames: the stream's frames written by the fan-out itself (no compression negotiated)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on", log_config=None,
                            timeout_graceful_shutdown=2, ws_ping_interval=20.0, ws_max_size=WS_MAX_MESSAGE,
                            ws=RawFrames, ws_per_message_deflate=False)
    return Server(config)


@contextmanager
def _unblocking_stop_signals(captured):
    """uvicorn's signal handlers are in place: a SIGTERM or SIGINT that
    ``tablesim serve`` held back until now (it blocks them before it says
    the table can be stopped) is delivered here, to uvicorn, which shuts
    down gracefully. (A handler that raised at whatever line the signal
    came, an import or an event loop callback, could fail or be lost.)"""
    with captured:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        yield


def serve_table(
    table,
    *,
    tokens: TokenStore,
    rig=None,
    host: str = "127.0.0.1",
    port: int = 8080,
    bet_seconds: float | None = None,
    pace: float = 0.5,
    recovery=None,
    sock: socket.socket | None = None,
    log_level: str = "warning",
    studio: str | None = None,
    autoplay=None,
) -> None:
    """Serve an already built (and recovered) table until interrupted.

    The table's devices are in ``table.devices``; ``rig`` is the mock dealer
    of a mock table (None for real or emulated devices: they are polled as
    fast as they report); ``autoplay``: the table plays rounds by itself
    (``tablesim.server.autoplay.Autoplay``).
    """
    runner = TableRunner(table, rig=rig, pace=pace, bet_seconds=bet_seconds, recovery=recovery, studio=studio,
                         autoplay=autoplay)
    app = create_app(runner, tokens, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None)
    sock = sock or bind(host, port)
    server = _server(app, log_level)
    gctuning.settle()
    server.run(sockets=[sock])


class ServerThread:
    """A table's server on a background thread (tests, embedding): ``start()``,
    ``url``, ``stop()``."""

    def __init__(self, runner: TableRunner, tokens: TokenStore, host: str = "127.0.0.1", port: int = 0,
                 allowed_origins: list[str] | None = None) -> None:
        self.runner = runner
        self.app = create_app(runner, tokens, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None,
                              allowed_origins=allowed_origins)
        self.sock = bind(host, port)
        self.host, self.port = self.sock.getsockname()[:2]
        self.server = _server(self.app)
        self.thread = threading.Thread(target=self._run, name="tablesim-server", daemon=True)
        self.error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        name_this_thread()
        try:
            self.server.run(sockets=[self.sock])
        except BaseException as exc:  # pragma: no cover - reported by start()
            self.error = exc

    def start(self, timeout: float = 10.0) -> "ServerThread":
        self.thread.start()
        end = time.monotonic() + timeout
        while not self.server.started:
            if self.error is not None or not self.thread.is_alive():
                raise RuntimeError(f"the server did not start: {self.error!r}")
            if time.monotonic() > end:
                raise RuntimeError("the server did not start in time")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)
        self.sock.close()

    def __enter__(self) -> "ServerThread":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
