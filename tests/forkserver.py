"""``tablesim ARGS`` as a real process, forked from an interpreter that has
already imported the CLI, the served table and the platform.

A ``tablesim serve`` started as ``python -m tablesim.cli.main`` spends about
a second of CPU on the interpreter's start and its imports before it does
anything (1.7 s with a project not compiled yet); the tests start dozens of
them. Here one helper process per test process (an xdist worker) imports
all that once, and each command is a ``fork`` of it: its own pid, its own
stdin/stdout/stderr (the pipes the test made), the environment and working
folder the test gave, the interpreter's signal handlers, and its exit status
reported back. It calls ``tablesim.cli.main.main``, as ``python -m
tablesim.cli.main`` and the ``tablesim`` script do, and ends the way an interpreter ends (non-daemon threads joined,
``atexit`` run, its streams flushed), without the teardown of the helper's
heap after that (``_end``). A signal or a kill reaches it as it would any process.

A command whose ``PYTHONPATH`` adds folders of the tests' own packages (a
test game and its ``site/``, which registers it: tests/gamehost.py) is
forked from a helper of its own, started with those folders on its path as
a fresh interpreter would be: the game registry and the CLI's choices are
made with the game in them. A launcher of the tests' own that builds a
tablesim command with a hook (``_SCRIPTS``: the platform with a fault) is
forked too, and run in the child as ``python SCRIPT ARGS`` runs it.

What only a fresh interpreter shows (its start, the console script, a
terminal) stays a ``subprocess`` in the tests about it.

``popen(args, ...)`` answers a ``subprocess.Popen``-like object: ``pid``,
``stdout``/``stderr`` (pipes), ``poll``, ``wait``, ``send_signal``,
``terminate``, ``kill``, ``returncode``, ``communicate``.
"""

from __future__ import annotations

import array
import atexit
import io
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

#: what the helper imports before it forks (what ``serve``, ``platform serve`` and ``wallet serve`` need)
PRELOAD = ("tablesim.cli.main", "tablesim.server.app", "tablesim.platform.app", "tablesim.wallet.app",
           "uvicorn", "httpx", "nats",
           # and what those commands import only as they run (each child imported them again: about
           # 0.05 s of CPU a ``serve``): the mock devices, the journal's recovery and the studio's
           # link, uvicorn's loop, protocol and lifespan, anyio's asyncio backend
           "drivers.mock", "tablesim.journal.recovery", "tablesim.journal.witness", "tablesim.journal.attach",
           "tablesim.journal.shifts", "tablesim.server.shift", "tablesim.studio.setup", "tablesim.studio.attach",
           "tablesim.studio.bus_bets", "tablesim.studio.streamcheck", "tablesim.studio.keyring",
           "tablesim.studio.sealed", "tablesim.platform.collector",
           "tablesim.wallet.faults", "uvicorn.loops.auto", "uvicorn.loops.uvloop", "uvicorn.protocols.http.auto",
           "uvicorn.protocols.http.httptools_impl",
           "uvicorn.protocols.websockets.auto", "uvicorn.lifespan.on", "uvicorn.lifespan.off",
           "anyio._backends._asyncio", "starlette.middleware.trustedhost", "encodings.idna", "rich._emoji_codes")
HERE = Path(__file__).resolve().parent

_lock = threading.Lock()
#: the test process's helpers, by the folders of the tests' own packages on their path ("" for none)
_helpers: "dict[str, _Helper]" = {}
#: CPU seconds (user and system) of the forked commands that ended, for whoever measures the tests
CPU_OF_ENDED = 0.0


# --- the helper process --------------------------------------------------------------


def _serve(path: str, preload: Sequence[str] = PRELOAD) -> int | None:
    """The helper's loop; answers None in the helper, an exit status in a child."""
    import gc
    import importlib

    gc.disable()  # (while it imports: on again, as in a fresh interpreter, before it forks)
    for name in preload:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if preload:  # each built-in game's parts (its table, console, dealer, machine...), as its ``serve`` loads them
        from tablesim.games import registry

        for game in registry.BUILTIN:
            for target in registry.spec(game).parts.values():
                try:
                    importlib.import_module(target.partition(":")[0])
                except ImportError:
                    pass
    # The CLI imports a command's module when the command is looked up: every one of them
    # here, once, not in each child (with the log setup the group imports when it runs).
    from tablesim.cli.main import cli
    import tablesim.log  # noqa: F401

    for command in cli.list_commands(None):
        cli.get_command(None, command)
    # What was imported is moved out of the collector's sight before any fork: a child's full
    # collections would otherwise walk (and write to, copying page after page of the shared heap)
    # every object of it again; each child frees its own objects as before.
    gc.collect()
    gc.freeze()
    gc.enable()
    signal.pthread_sigmask(signal.SIG_SETMASK, [])  # (whatever the thread that started it blocked)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    children: dict[int, socket.socket] = {}
    # A helper shared by the workers of a run (``share``): each worker holds a session open,
    # and its commands are killed when it closes (the worker is gone), as a helper of its own
    # kills them when its stdin closes. {session: its owner}, {command: its owner}
    sessions: dict[socket.socket, str] = {}
    owners: dict[int, str] = {}
    while True:
        ready, _, _ = select.select([listener, wake_r, 0, *sessions], [], [])
        if 0 in ready and not os.read(0, 4096):  # the test process is gone: so are its commands
            for pid in children:
                _kill(pid)
            return None
        if wake_r in ready:
            os.read(wake_r, 4096)
        _reap(children)
        for gone in [s for s in sessions if s in ready]:
            try:
                data = gone.recv(4096)
            except OSError:
                data = b""
            if not data:
                owner = sessions.pop(gone)
                gone.close()
                for pid in [pid for pid, o in owners.items() if o == owner]:
                    if pid in children:
                        _kill(pid)
        for pid in [pid for pid in owners if pid not in children]:
            del owners[pid]
        if listener in ready:
            conn, _ = listener.accept()
            request, fds = _receive(conn)
            if "session" in request:
                sessions[conn] = str(request["session"])
                continue
            pid = os.fork()
            if pid == 0:
                for fd in (wake_r, wake_w):
                    os.close(fd)
                listener.close()
                for other in (*children.values(), *sessions):
                    other.close()
                return _child(conn, request, fds)
            for fd in fds:
                os.close(fd)
            conn.sendall(b"%d\n" % pid)
            children[pid] = conn
            if request.get("owner"):
                owners[pid] = str(request["owner"])


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            try:
                cpu = usage.ru_utime + usage.ru_stime
                conn.sendall(b"%d %.3f\n" % (os.waitstatus_to_exitcode(status), cpu))
            except OSError:
                pass
            conn.close()


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        msg, ancdata, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
        if not msg:
            break
        data += msg
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    return json.loads(data), list(fds)


def _child(conn: socket.socket, request: dict, fds: list[int]) -> int:
    """In the forked child: become the command, as ``python -m tablesim.cli.main ARGS`` would be."""
    import traceback

    conn.close()
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # What a process the test started would have: the signals it ignores
    # ignored, the rest as an interpreter sets them, and its signal mask.
    for name in _SIGNALS:
        sig = getattr(signal, name)
        default = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
        signal.signal(sig, signal.SIG_IGN if name in request["ignored"] else default)
    signal.pthread_sigmask(signal.SIG_SETMASK, [getattr(signal, n) for n in request["blocked"]])
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                  line_buffering=os.isatty(1), write_through=unbuffered)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), line_buffering=True,
                                  write_through=unbuffered, errors="backslashreplace")
    script = request.get("script")
    sys.argv = [script or os.path.join(os.path.dirname(sys.executable), "tablesim"), *request["args"]]
    try:
        if script:  # as ``python SCRIPT ARGS`` runs it: its folder first on the path
            import runpy

            sys.path.insert(0, os.path.dirname(script))
            runpy.run_path(script, run_name="__main__")
        else:
            from tablesim.cli.main import main  # what ``python -m tablesim.cli.main`` and the script call

            main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:  # as the interpreter prints what escapes
        traceback.print_exc()
        code = 1
    return code


# --- the test's side -----------------------------------------------------------------------


class _Helper:
    """``extra``: folders of the tests' own packages (a test game and its
    ``site/``, tests/gamehost.py) on the helper's path from its start, as on a
    fresh interpreter's: the registry and the CLI's choices are made with them."""

    def __init__(self, extra: str = "", wait: bool = True) -> None:
        self.folder = tempfile.mkdtemp(prefix="tablesim-fork-")
        self.path = os.path.join(self.folder, "s")
        path = [str(HERE), *([extra] if extra else []), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", f"import sys, forkserver; sys.exit(forkserver._main({self.path!r}, {bool(extra)}))"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=str(HERE.parent))
        if not wait:  # (``share``: its users wait for its socket)
            return
        line = self.proc.stdout.readline()
        if line != b"ready\n":
            raise RuntimeError(f"the fork helper did not start: {line!r} {self.proc.wait()}")

    def alive(self) -> bool:
        return self.proc.poll() is None


def _stop_helper() -> None:
    """At the test process's exit: the helpers end (their stdin closes) and are
    waited for, so their CPU time and their commands' count in this process's."""
    for helper in [h for h in _helpers.values() if isinstance(h, _Shared)]:
        helper.session.close()
    for helper in [h for h in _helpers.values() if isinstance(h, _Helper)]:
        if helper.alive():
            helper.proc.stdin.close()
    for helper in [h for h in _helpers.values() if isinstance(h, _Helper)]:
        try:
            helper.proc.wait(30)
        except subprocess.TimeoutExpired:
            helper.proc.kill()
            helper.proc.wait()
        shutil.rmtree(helper.folder, ignore_errors=True)  # (its socket)


atexit.register(_stop_helper)


def _main(path: str, light: bool = False) -> int:
    """``light``: the CLI and its commands only (the helper of a test game's
    path, which few commands use: 0.7 s of CPU to start against 2.2 s with
    the served table, the platform and the wallet; each command imports what
    it needs of them)."""
    code = _serve(path, () if light else PRELOAD)
    if code is None:
        return 0
    _end(code)


def _end(code: int) -> None:
    """A command's end in its child, as an interpreter ends up to its teardown:
    its non-daemon threads joined, its exit functions run (and what they
    raise printed), its streams flushed; then ``os._exit``. The teardown that
    would follow frees, one by one, every object of the helper's imports that
    the child shares with it, copying the pages they are on (10,000 page
    faults, 0.075 s of CPU a command, some 200 commands a run). Checked over
    a whole run: no command had a file, a journal or a database open by then
    (only ``run``'s deleted temporary file), and no object's finalizer
    reported anything in any teardown."""
    threading._shutdown()  # (what the interpreter does first at its exit)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(code & 0xFF if isinstance(code, int) else 1)


def helper_fds() -> set[str]:
    """This process's ends of the helper's pipes (``/proc/self/fd`` names):
    the helper starts with the first command of a test process and outlives
    the test that started it, so a leak check leaves them out."""
    return {str(f.fileno()) for helper in _helpers.values()
            for f in ((helper.session,) if isinstance(helper, _Shared) else (helper.proc.stdin, helper.proc.stdout))
            if f.fileno() >= 0 and not getattr(f, "closed", False)}


#: the run's shared helper's socket (``share``), in the workers' environment
SHARED = "TABLESIM_TEST_FORK_HELPER"


class _Shared:
    """The helper the run's first process started for all its workers (``share``): this
    worker's commands are forked there, and a session held open for as long as this
    process lives tells the helper to kill them if it goes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.session = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        end = time.monotonic() + 60  # (pure waiting: the helper starts while the workers collect)
        while True:
            try:
                self.session.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > end:
                    self.session.close()
                    raise
                time.sleep(0.05)
        #: this session's name, given with each command it asks for
        self.owner = f"{os.getpid()}.{id(self)}"
        self.session.sendall(json.dumps({"session": self.owner}).encode() + b"\n")

    def alive(self) -> bool:
        """The helper holds the session open (it never writes to it: readable is its end)."""
        return self.session.fileno() >= 0 and not select.select([self.session], [], [], 0)[0]


def share() -> None:
    """In the run's first process, before it starts its workers (xdist): one default helper
    for them all, started here, instead of one a worker (each a fresh interpreter importing
    the CLI, the served table, the platform and the wallet: about 2 s of CPU at its start).
    Its children take the environment, folder and streams each request gives, as from a
    worker's own helper; what an interpreter reads at its start is the same in every worker.
    ``TABLESIM_TEST_SHARED_HELPER=0``: a helper a worker again (to compare, or to rule this out)."""
    if ENABLED and SHARED not in os.environ and os.environ.get("TABLESIM_TEST_SHARED_HELPER", "1") != "0":
        with _lock:
            helper = _helpers[""] = _Helper("", wait=False)
        os.environ[SHARED] = helper.path


def _helper_process(extra: str = "") -> "_Helper | _Shared":
    with _lock:
        helper = _helpers.get(extra)
        if helper is None and not extra and os.environ.get(SHARED):
            try:
                helper = _helpers[extra] = _Shared(os.environ[SHARED])
            except OSError:  # (gone: this process starts one of its own)
                os.environ.pop(SHARED, None)
        if helper is None or not helper.alive():
            helper = _helpers[extra] = _Helper(extra)
        return helper


def _fd_for(spec, mode: str, keep: list, own: int) -> tuple[int, object | None]:
    """The fd handed to the child for one of its streams (``own``: ours, which
    it inherits when none is given), and our end of a pipe."""
    if spec == subprocess.PIPE:
        r, w = os.pipe()
        ours, theirs = (w, r) if mode == "r" else (r, w)
        keep.append(theirs)
        return theirs, ours
    if spec is None:
        return own, None
    if spec == subprocess.DEVNULL:
        fd = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
        keep.append(fd)
        return fd, None
    if spec == subprocess.STDOUT:
        return -1, None
    return (spec if isinstance(spec, int) else spec.fileno()), None


_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")


def _signal_state() -> dict:
    """The signals this thread ignores and blocks (a process it started would inherit both)."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return {"ignored": [n for n in _SIGNALS if signal.getsignal(getattr(signal, n)) == signal.SIG_IGN],
            "blocked": [s.name for s in blocked if isinstance(s, signal.Signals)]}


class Forked:
    """A ``tablesim`` command forked by the helper, used as a ``subprocess.Popen``."""

    def __init__(self, args: Sequence[str], *, stdin=None, stdout=None, stderr=None, text: bool = False,
                 env: Mapping[str, str] | None = None, cwd: str | Path | None = None, extra: str = "",
                 script: str | None = None, helper: "_Helper | _Shared | None" = None) -> None:
        self.args = [script or "tablesim", *map(str, args)]
        self.returncode: int | None = None
        mine: list[int] = []
        fd_in, our_in = _fd_for(stdin, "r", mine, 0)
        fd_out, our_out = _fd_for(stdout, "w", mine, 1)
        fd_err, our_err = _fd_for(stderr, "w", mine, 2)
        if fd_err == -1:
            fd_err = fd_out
        request = {"args": list(map(str, args)), "env": dict(os.environ if env is None else env),
                   "cwd": str(cwd or os.getcwd()), "script": script, **_signal_state()}
        helper = helper or _helper_process(extra)
        request["owner"] = getattr(helper, "owner", None)
        self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._conn.connect(helper.path)
            self._conn.sendmsg([json.dumps(request).encode() + b"\n"],
                               [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd_in, fd_out, fd_err]))])
            self._buf = b""
            self.pid = int(self._line(None))
        finally:
            for fd in mine:
                os.close(fd)
        wrap = (lambda fd, m: io.open(fd, m, encoding="utf-8", errors="replace")) if text else \
            (lambda fd, m: io.open(fd, m + "b"))
        self.stdin = wrap(our_in, "w") if our_in is not None else None
        self.stdout = wrap(our_out, "r") if our_out is not None else None
        self.stderr = wrap(our_err, "r") if our_err is not None else None

    def _line(self, timeout: float | None) -> str | None:
        end = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = None if end is None else max(0.0, end - time.monotonic())
            ready, _, _ = select.select([self._conn], [], [], left)
            if not ready:
                return None
            data = self._conn.recv(64)
            if not data:
                raise RuntimeError("the fork helper went away")
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode()

    def _ended(self, line: str) -> None:
        global CPU_OF_ENDED
        code, _, cpu = line.partition(" ")
        self.returncode = int(code)
        CPU_OF_ENDED += float(cpu or 0)
        self._conn.close()

    def poll(self) -> int | None:
        if self.returncode is None:
            line = self._line(0)
            if line is not None:
                self._ended(line)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            line = self._line(timeout)
            if line is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._ended(line)
        return self.returncode

    def communicate(self, input=None, timeout: float | None = None):
        """As ``Popen.communicate``: both pipes read together, ``input`` written."""
        return _communicate(self, input, timeout)

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __enter__(self) -> "Forked":
        return self

    def __exit__(self, *exc) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self.wait()


def popen(args: Sequence[str], **kw) -> Forked:
    """``subprocess.Popen([python, -m, tablesim.cli.main, *args], **kw)``, forked."""
    return Forked(args, **kw)


def run(args: Sequence[str], *, capture_output: bool = False, text: bool = False, timeout: float | None = None,
        input=None, env=None, cwd=None, stdout=None, stderr=None) -> subprocess.CompletedProcess:
    """``subprocess.run`` of ``tablesim ARGS``, forked."""
    if capture_output:
        stdout = stderr = subprocess.PIPE
    proc = Forked(args, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL, stdout=stdout,
                  stderr=stderr, text=text, env=env, cwd=cwd)
    try:
        out, err = _communicate(proc, input, timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _communicate(proc: Forked, input, timeout):
    """Both pipes read together (a full stderr pipe must not stall a child
    writing to it); a second call after a timeout goes on where it was."""
    state = proc.__dict__.setdefault("_reading", {})
    if not state:
        results: dict[str, object] = {}
        threads = [threading.Thread(target=lambda n=n, s=s: results.__setitem__(n, s.read()), daemon=True)
                   for n, s in (("out", proc.stdout), ("err", proc.stderr)) if s is not None]
        for t in threads:
            t.start()
        state.update(results=results, threads=threads)
        if proc.stdin is not None:
            try:
                if input is not None:
                    proc.stdin.write(input)
                proc.stdin.close()
            except BrokenPipeError:
                pass
    end = None if timeout is None else time.monotonic() + timeout
    for t in state["threads"]:
        t.join(None if end is None else max(0.0, end - time.monotonic()))
        if t.is_alive():
            raise subprocess.TimeoutExpired(proc.args, timeout)
    proc.wait(None if end is None else max(0.0, end - time.monotonic()))
    for s in (proc.stdout, proc.stderr):
        if s is not None:
            s.close()
    return state["results"].get("out"), state["results"].get("err")


#: ``TABLESIM_TEST_FORK=0``: every command a fresh interpreter again (to compare, or to rule this out)
ENABLED = os.environ.get("TABLESIM_TEST_FORK", "1") != "0" and hasattr(os, "fork") and hasattr(socket, "AF_UNIX")
_MODULE = ["-m", "tablesim.cli.main"]
_KEYWORDS = {"stdin", "stdout", "stderr", "text", "universal_newlines", "encoding", "env", "cwd", "bufsize",
             "close_fds"}
#: what an interpreter reads once, at its start: a command whose environment changes one is a fresh one
_AT_START = ("PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONWARNINGS", "PYTHONDEVMODE",
             "PYTHONOPTIMIZE", "PYTHONSAFEPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONMALLOC", "PYTHONSTARTUP",
             "PYTHONINSPECT", "PYTHONVERBOSE", "PYTHONFAULTHANDLER", "PYTHONTRACEMALLOC", "PYTHONPROFILEIMPORTTIME",
             "LANG", "LC_ALL", "LC_CTYPE", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


# (Every ``python -m tablesim.cli.main`` command is forked, ``emulate`` too: the first helper's
# forked ``emulate --pty`` did not end on SIGTERM once a driver had opened it; forked on today's
# helper, which clears the signal mask it was started with and gives each child the test's, every
# ``emulate`` of its tests ended on SIGTERM at once, seven runs of its modules on one to three
# workers. What had held it then was not found. A fresh one cost 0.8 s of CPU to start.)

#: the tests' own launchers of a tablesim command (``python SCRIPT ARGS``), forked as the
#: command is: the platform built with a fault hook (the rest of what it does is ``platform serve``)
_SCRIPTS = {HERE / "platform" / "dying_platform.py"}


def _fork_plan(argv: Sequence, kw: Mapping) -> tuple[str, str | None, list[str]] | None:
    """For ``python -m tablesim.cli.main ARGS`` (or ``python SCRIPT ARGS`` of
    ``_SCRIPTS``) with nothing only a fresh interpreter would honour: the
    folders of the tests' own packages its path adds ("" for none: the project
    is importable anyway), which its helper starts with, the script, and ARGS.
    None for anything else."""
    argv = [str(a) for a in argv] if isinstance(argv, (list, tuple)) else []
    if not (ENABLED and len(argv) > 2 and argv[0] == sys.executable):
        return None
    if len(argv) > 3 and argv[1:3] == _MODULE:
        script, args = None, argv[3:]
    elif not argv[1].startswith("-") and Path(argv[1]).resolve() in _SCRIPTS:
        script, args = str(Path(argv[1]).resolve()), argv[2:]
    else:
        return None
    extra = _fork_path(kw)
    return None if extra is None else (extra, script, args)


def _fork_path(kw: Mapping) -> str | None:
    """The extra folders of a forked command's path (``_fork_plan``), None if it cannot be forked."""
    if set(kw) - _KEYWORDS or kw.get("close_fds", True) is not True or kw.get("bufsize", -1) not in (-1, 0, 1):
        return None
    env = kw.get("env")
    if env is None:
        return ""
    if any(env.get(k) != os.environ.get(k) for k in _AT_START):
        return None
    extra = []
    for p in (p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p):
        where = Path(p).resolve()
        if where in (HERE.parent, HERE):
            continue
        if HERE not in where.parents:  # (only the tests' own packages: anything else, a fresh interpreter)
            return None
        extra.append(str(where))
    return os.pathsep.join(extra)


def forkable(argv: Sequence, kw: Mapping) -> bool:
    """``python -m tablesim.cli.main ...`` with nothing only a fresh interpreter would honour."""
    return _fork_plan(argv, kw) is not None


def Popen(argv: Sequence, **kw):  # noqa: N802 (it stands for subprocess.Popen)
    """``subprocess.Popen(argv, **kw)``; a ``[python, -m, tablesim.cli.main, ...]`` is forked."""
    plan = _fork_plan(argv, kw)
    if plan is not None:
        return Forked(plan[2], **_forked_keywords(kw), extra=plan[0], script=plan[1])
    return _REAL_POPEN(argv, **kw)


def _forked_keywords(kw: Mapping) -> dict:
    text = bool(kw.get("text") or kw.get("universal_newlines") or kw.get("encoding"))
    return {"stdin": kw.get("stdin"), "stdout": kw.get("stdout"), "stderr": kw.get("stderr"), "text": text,
            "env": kw.get("env"), "cwd": kw.get("cwd")}


_REAL_POPEN = subprocess.Popen


class _Popen(subprocess.Popen):
    """``subprocess.Popen`` while the tests run (``install``): what ``forkable``
    accepts is forked, everything else is the real class, unchanged."""

    def __new__(cls, args, *rest, **kw):
        plan = None if rest else _fork_plan(args, kw)
        if plan is not None:
            return Forked(plan[2], **_forked_keywords(kw), extra=plan[0], script=plan[1])
        return super().__new__(cls)


def install() -> None:
    """Every ``subprocess.Popen``/``run`` of ``python -m tablesim.cli.main`` in
    the tests goes through the helper (``subprocess.run`` builds a ``Popen``)."""
    subprocess.Popen = _Popen
