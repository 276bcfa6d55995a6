"""Processes a command runs and looks after (``tablesim studio demo``): each
child with a name, its output in a log file of its own, started in a
session of its own (a Ctrl-C at the terminal reaches the parent only, which
stops the children in order) and told to stop if the parent dies
(Linux's parent-death signal, so a parent killed with SIGKILL leaves no
child behind); waited for until it is ready, watched while it runs, and
stopped stage by stage: SIGTERM, then SIGKILL for one that does not stop in
time."""

from __future__ import annotations

import ctypes
import ctypes.util
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

#: how long a child may take to stop after SIGTERM before it is killed (seconds)
STOP_WAIT = 10.0
#: prctl(2)'s PR_SET_PDEATHSIG
_PR_SET_PDEATHSIG = 1


class ChildDied(Exception):
    """A child stopped on its own: ``child`` says which."""

    def __init__(self, child: "Child") -> None:
        super().__init__(child.name)
        self.child = child


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The child gets SIGTERM when the parent dies (Linux; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


@dataclass
class Child:
    name: str
    argv: list[str]
    log: Path
    #: whether it is ready to be used (asked until it is, while it runs)
    ready: Callable[["Child"], bool]
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self, env: dict[str, str]) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         env=env, start_new_session=True, preexec_fn=_die_with_parent)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def said(self, prefix: str) -> bool:
        """Whether a line of its log starts with ``prefix`` (a command's ready line)."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        return any(line.startswith(prefix) for line in text.splitlines())


def answers_http(url: str) -> Callable[[Child], bool]:
    """Ready when ``url`` answers 200."""
    def ready(child: Child) -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as res:
                return res.status == 200
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException):
            # (HTTPException: something else answered on the port, e.g. another program's NATS
            # server that took it first; the child that could not bind it stops, and says why)
            return False
    return ready


def says(prefix: str) -> Callable[[Child], bool]:
    """Ready once its log has a line starting with ``prefix``."""
    return lambda child: child.said(prefix)


def speaks_nats(port: int) -> Callable[[Child], bool]:
    """Ready when a NATS server greets on ``port`` (its INFO line)."""
    def ready(child: Child) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                return s.recv(4).startswith(b"INFO")
        except OSError:
            return False
    return ready


class Children:
    """The children of a command, in the order they were started."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.all: list[Child] = []

    def start(self, *children: Child) -> None:
        for child in children:
            self.all.append(child)
            child.start(self.env)

    def wait_ready(self, children: list[Child], timeout: float) -> None:
        """Until every one is ready; ChildDied if one stops, TimeoutError after ``timeout``."""
        waiting = list(children)
        end = time.monotonic() + timeout
        while waiting:
            self.check()
            waiting = [c for c in waiting if not c.ready(c)]
            if waiting and time.monotonic() > end:
                raise TimeoutError(", ".join(c.name for c in waiting))
            if waiting:
                time.sleep(0.1)

    def check(self) -> None:
        """ChildDied for the first child that stopped on its own."""
        for child in self.all:
            if child.proc is not None and child.proc.poll() is not None:
                raise ChildDied(child)

    def stop(self, stages: list[list[str]]) -> None:
        """Stop every child still running: those named in each stage together
        (SIGTERM, then SIGKILL after ``STOP_WAIT``), stage after stage; any
        not named, last."""
        named = {n for stage in stages for n in stage}
        groups = [[c for c in self.all if c.name in stage] for stage in stages]
        groups.append([c for c in self.all if c.name not in named])
        for group in groups:
            _stop_together([c for c in group if c.running()])

    def pids(self) -> list[int]:
        return [c.pid for c in self.all if c.pid is not None]


def _stop_together(children: list[Child]) -> None:
    for child in children:
        _signal(child, signal.SIGTERM)
    end = time.monotonic() + STOP_WAIT
    for child in children:
        try:
            child.proc.wait(max(end - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            _signal(child, signal.SIGKILL)
            child.proc.wait()


def _signal(child: Child, sig: int) -> None:
    try:
        os.kill(child.proc.pid, sig)
    except ProcessLookupError:
        pass
