"""``tablesim ARGS`` in the test's own process, answered as a finished
process is: ``subprocess.CompletedProcess(args, returncode, stdout, stderr)``.

A command run as a process costs an interpreter's start and the imports of
the whole CLI (about a second on a busy machine) before it does anything;
most tests that run one are about what the command says and does, not about
the process. Those run it here, through the same ``main`` the ``tablesim``
script calls (its one-line errors and exit statuses included). What only a
real process shows (signals, kills, a terminal, a second process holding a
lock, the interpreter's start) stays a subprocess in the tests about it.

An exception that escapes the command is written to ``stderr`` as the
interpreter would print it (a ``Traceback`` line first) with status 1, so a
test that says "no traceback" still proves it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import traceback
from pathlib import Path
from typing import Mapping

from click.testing import CliRunner

from tablesim.cli.main import cli


def tablesim(*args, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
             input: str | None = None, **_ignored) -> subprocess.CompletedProcess:
    """Run ``tablesim *args``; ``env`` (a whole environment, as for a process)
    and ``cwd`` hold for the command's time only. Other keywords of
    ``subprocess.run`` (``timeout``, ``capture_output``, ``text``) are accepted
    and have nothing to do here."""
    argv = [str(a) for a in args]
    changes = None
    if env is not None:  # the process's environment exactly: what it lacks is unset
        changes = {k: v for k, v in env.items() if os.environ.get(k) != v}
        changes.update({k: None for k in os.environ if k not in env})
    old_cwd = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    # A command may install its own stop handlers (a served process's): they
    # must not outlive it here, where a later fork (a simulation's pool)
    # would inherit a handler that never lets its workers be terminated.
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    try:
        result = CliRunner().invoke(cli, argv, input=input, env=changes, prog_name="tablesim")
    finally:
        os.chdir(old_cwd)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    stderr, code = result.stderr, result.exit_code
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        stderr += "".join(traceback.format_exception(exc))
        code = 1
    return subprocess.CompletedProcess(["tablesim", *argv], code, result.stdout, stderr)
