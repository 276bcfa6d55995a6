"""Test-wide setup: quiet, deterministic logging; hypothesis without
time limits per example (the tests run on every core, beside whatever else
the machine runs: a slow example is not a failure, a wrong one is)."""

import gc
import sys

# No collector while this process imports and collects the suite (every worker imports every
# test module and what they import): it found next to nothing to free, and its full collections
# walked the growing heap again and again (0.4-0.5 s of CPU of a worker's 5-6 s to collect). One
# collection at the end of the collection (``pytest_collection_finish``), or at the session's
# start in the process that only hands the tests to its workers, and the collector is on again.
gc.disable()


class _NoTrio:
    """trio is not there for the test processes: httpcore imports it for a client when it can
    (0.11-0.13 s of CPU a worker), and nothing of tablesim or its tests needs it (no dependency
    brings it: it is on this machine, not in CI's install). The import fails as it does where it
    is not installed (httpcore then runs on asyncio only), and it never enters ``sys.modules``
    (tenacity asks whether it is there)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "trio" or name.startswith("trio."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


if "trio" not in sys.modules:
    sys.meta_path.insert(0, _NoTrio)

import itertools
import logging
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
import structlog
from hypothesis import HealthCheck, settings

import examples
import forkserver
from browser import chromium, page  # noqa: F401  (the page tests' fixtures)

# Compiled modules are written and read again (the interpreter's default).
# Where the environment sets PYTHONDONTWRITEBYTECODE (this machine's
# sessions do), every worker rewrote and compiled every test module and the
# project from source at collection (16 s of CPU a worker against 6.5 s),
# and every ``tablesim`` process the tests start compiled the project again
# (0.2 s, 0.45 s for ``serve``). The processes inherit this environment.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The tests stop what they start with SIGINT, as an operator's Ctrl-C does. A
# suite started in the background by a non-interactive shell (``cmd &``)
# inherits SIGINT ignored, and so would every process it starts: none would
# stop (eight tests failed so, each waiting for a child that ignored it).
# A handler set here is not inherited: the children start with the default.
signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent


#: the test processes' collector thresholds (young, middle, old); Python's are (700, 10, 10)
GC_THRESHOLDS = (7000, 10, 10)


def pytest_collection_finish(session) -> None:
    """The collected tests, the modules and the libraries (a few hundred
    thousand objects that live as long as the process) are moved out of the
    collector's sight, and young collections come ten times less often: the
    tests' objects are freed by reference counting as before. Half the suite
    on six workers spent 20.5 s in the collector (14 s in full collections
    walking those objects again and again), 9.5 s after."""
    _collector_on()


def _collector_on() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


def pytest_addoption(parser) -> None:
    parser.addoption("--thorough", action="store_true", default=False,
                     help="each property test tries all its examples (without it, a share of them: tests/examples.py)")
    parser.addoption("--screenshots", action="store_true", default=False,
                     help="the browser tests leave pictures of the pages they saw in artifacts/")


def pytest_configure(config) -> None:
    import browser

    browser.SCREENSHOTS["wanted"] = config.getoption("--screenshots")
    # (before the test modules are imported: their ``examples(n)`` and the profile read it)
    examples.set_thorough(config.getoption("--thorough"))
    settings.register_profile("tablesim", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                              max_examples=examples.examples(100))
    settings.load_profile("tablesim")


def pytest_itemcollected(item) -> None:
    """Every hypothesis test is a ``property`` test (marked as it is collected,
    before ``-m`` selects: ``-m property --thorough`` runs them all with all
    their examples)."""
    if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        item.add_marker(pytest.mark.property)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session) -> None:
    """With workers (xdist), this process compiles the project and the test
    modules (assertions rewritten, as pytest caches them) before it starts
    them. From a clean clone each worker otherwise compiled all of it at once,
    the same work four times over (13 s of CPU more than with the caches).
    Where pytest's internals differ, the workers compile as before."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", 0):
        return
    _collector_on()  # (this process collects nothing: its workers do)
    import compileall
    import re

    skip = re.compile(r"(^|/)(test_[^/]*|conftest)\.py$")  # (pytest compiles these itself, rewritten)
    for folder in ("tablesim", "drivers", "tablecore", "scripts", "tests"):
        compileall.compile_dir(ROOT / folder, quiet=2, rx=skip)
    # One fork helper for all the workers, started now (it imports while they collect), not one
    # a worker: five interpreters' starts and imports fewer (tests/forkserver.py, ``share``).
    forkserver.share()
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    for source in sorted((ROOT / "tests").rglob("*.py")):
        if not skip.search(str(source)) or "__pycache__" in source.parts:
            continue
        pyc = rewrite.get_cache_dir(source) / (source.stem + rewrite.PYC_TAIL)
        try:
            if rewrite._read_pyc(source, pyc) is None:
                pyc.parent.mkdir(exist_ok=True)
                source_hash, code = rewrite._rewrite_test(source, config)
                rewrite._write_pyc(None, code, source_hash, pyc)
        except (AttributeError, TypeError, OSError):
            return


def _tmpfs_root() -> str | None:
    """A RAM file system for the tests' folders, where there is one with room."""
    if "PYTEST_DEBUG_TEMPROOT" in os.environ or os.environ.get("TABLESIM_TEST_DISK_TMP"):
        return None  # the caller chose (TABLESIM_TEST_DISK_TMP=1: everything on the disk)
    try:
        with open("/proc/mounts") as fh:
            tmpfs = {line.split()[1] for line in fh if line.split()[2] == "tmpfs"}
    except OSError:
        return None
    if "/dev/shm" not in tmpfs or not os.access("/dev/shm", os.W_OK | os.X_OK):
        return None
    st = os.statvfs("/dev/shm")
    return "/dev/shm" if st.f_bavail * st.f_frsize > 2 * 1024**3 else None


# ``tmp_path`` is on a RAM file system where the machine has one (Linux's
# /dev/shm): a journal's fsync (durability stays on: synchronous=FULL, the
# same calls in the same order) returns at once instead of waiting on a
# disk shared with whatever else the machine runs. What a test proves by
# killing a process (every acknowledged record is there after a SIGKILL) is
# the same there: the kernel holds the written pages either way. The tests
# whose point is the disk itself take ``disk_tmp_path`` instead.
_DISK_TMP = tempfile.gettempdir()
if (_root := _tmpfs_root()) is not None:
    os.environ["PYTEST_DEBUG_TEMPROOT"] = _root

# The user's data directory (keys, marks, default journals) is the test
# process's own, made empty here and removed at its end, and inherited by
# every process it starts. A test that let a table fall back to the real one
# (``~/.local/share/tablesim``) left its key's marks there: 7,900 files after
# a day of runs, each read again by every later journal of that key, and the
# suite a fifth slower every few runs. A test that needs a folder of its own
# still sets ``XDG_DATA_HOME`` itself.
_DATA_HOME = tempfile.mkdtemp(prefix="tablesim-data-", dir=_root)
os.environ["XDG_DATA_HOME"] = _DATA_HOME


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_DATA_HOME, ignore_errors=True)


@pytest.fixture
def disk_tmp_path(request):
    """A private folder on the machine's disk (the system's temporary
    folder), for the tests about what reaches the disk; removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"tablesim-{request.node.name[:40]}-", dir=_DISK_TMP))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# Every ``python -m tablesim.cli.main ...`` a test starts (subprocess.Popen or
# run) is a fork of a helper that has the CLI imported (tests/forkserver.py):
# a real process, without an interpreter's start and imports each time.
forkserver.install()


def _quiet_structlog() -> None:
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(),
    )


# Quiet from the start, not only from each test's start: what a test module builds as it is
# imported (a table of a property test's examples) binds its logger then, and with structlog's
# default (every level, its console renderer) it wrote each table event as a line of the
# test's captured output (870 KB for the wheel's property module, 0.4 CPU-s of its 2.2).
_quiet_structlog()


@pytest.fixture(autouse=True)
def _quiet_logs():
    _quiet_structlog()
    structlog.contextvars.clear_contextvars()
    yield
    structlog.contextvars.clear_contextvars()
    root = logging.getLogger()  # a CLI run's log handler writes to a stream that is now closed
    for handler in [h for h in root.handlers if type(h).__module__ == "tablesim.log"]:
        root.removeHandler(handler)


#: what a test marked ``slow`` and not in ``slowest.txt`` is taken to cost, in seconds
SLOW_DEFAULT = 10.0


def _measured() -> dict[str, float]:
    """``tests/slowest.txt``: the longest tests as last measured (seconds, node id)."""
    out: dict[str, float] = {}
    path = Path(__file__).with_name("slowest.txt")
    for line in path.read_text().splitlines() if path.exists() else ():
        if line.strip() and not line.startswith("#"):
            seconds, _, nodeid = line.strip().partition(" ")
            out[nodeid.strip()] = float(seconds)
    return out


def _chunk_sizes(count: int, workers: int) -> list[int]:
    """How xdist's worksteal first splits ``count`` tests over idle ``workers``."""
    sizes, left = [], count
    for k in range(workers):
        sizes.append(left // (workers - k))
        left -= sizes[-1]
    return sizes


def pytest_collection_modifyitems(config, items) -> None:
    """Long tests (real processes, brokers, browsers) are spread over the
    workers and started first. xdist's worksteal hands each worker one
    contiguous share of the list and lets an idle worker take the last half
    of the longest queue left: so each share here begins with its long tests
    (the longest modules first, a module's long tests together so its shared
    fixtures start once) and ends with short ones, which are what the others
    take over at the end; the workers finish together instead of one
    running long tests it met last. Cost: the time in ``slowest.txt``, else
    ``SLOW_DEFAULT`` for a test marked ``slow``, else short."""
    measured = _measured()

    def cost(item) -> float:
        default = SLOW_DEFAULT if item.get_closest_marker("slow") else \
            BROWSER_DEFAULT if BROWSER_SHARES and _uses_browser(item) else 0.0
        return measured.get(item.nodeid, default)

    # A module whose tests share a module-scoped fixture (a broker, a wallet, tables and a
    # platform started once for the module) goes whole to one share, with its long tests: split
    # over two workers, each started all of it again (a quiet run split 14 such modules).
    def module(item) -> str:
        return item.nodeid.split("::")[0]

    together = {module(item) for item in items if cost(item) > 0 or _shares_module_fixture(item)}
    modules: dict[str, list] = {}
    for item in items:
        if module(item) in together:
            modules.setdefault(module(item), []).append(item)
    groups = sorted(modules.values(), key=lambda g: -sum(map(cost, g)))
    for group in groups:
        group.sort(key=lambda item: -cost(item))
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    sizes = _chunk_sizes(len(items), max(1, workers))
    chunks: list[list] = [[] for _ in sizes]
    load = [0.0] * len(sizes)
    # The browser's modules go to half the shares, not to every one: each worker that runs a
    # browser test starts Chromium and Playwright's driver (about 1.4 s of CPU) and keeps them
    # until its end (an idle browser, about 8 ms of CPU a second). (A third of the shares was
    # too few: the browser tests are about a third of the run's time, and a worker that ran out
    # took browser tests from the others' queues.)
    browser_shares: set[int] = set()
    most = max(1, len(sizes) // 2) if BROWSER_SHARES else len(sizes)
    for group in groups:  # each to the share with the least long work so far (and room)
        fits = [k for k in range(len(sizes)) if len(chunks[k]) + len(group) <= sizes[k]]
        if any(map(_uses_browser, group)) and len(browser_shares) >= most:
            fits = [k for k in fits if k in browser_shares] or fits
        k = min(fits, key=lambda k: load[k], default=min(range(len(sizes)), key=lambda k: load[k]))
        if any(map(_uses_browser, group)):
            browser_shares.add(k)
        chunks[k].extend(group)
        load[k] += sum(map(cost, group))
    short = iter([item for item in items if module(item) not in together])
    for k, size in enumerate(sizes):
        chunks[k].extend(itertools.islice(short, max(0, size - len(chunks[k]))))
    items[:] = [item for chunk in chunks for item in chunk] + list(short)


#: what a browser test not in ``slowest.txt`` is taken to cost, in seconds (its module goes whole to a share)
BROWSER_DEFAULT = 5.0
#: ``TABLESIM_TEST_BROWSER_SHARES=0``: the browser's modules spread over every share again (to compare)
BROWSER_SHARES = os.environ.get("TABLESIM_TEST_BROWSER_SHARES", "1") != "0"


def _uses_browser(item) -> bool:
    """The test asks for Chromium (the ``chromium`` fixture, or ``page``, which takes it)."""
    return "chromium" in getattr(item, "fixturenames", ())


def _shares_module_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", None) or {}
    return any(d and getattr(d[-1], "scope", "function") in ("module", "package") for d in defs.values())


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: three workers a core the suite is given. Many tests spend
    their time waiting on a served table, an emulator, a broker or a browser
    in another process, so a core has room for more than one worker (2,254
    tests on 2 cores, the same quiet machine: 180 s with four workers, 147 s
    with six)."""
    return 3 * cores_given()


def cores_given() -> int:
    """The cores this process may run on: its CPU affinity (``taskset``, a
    CI runner's cpuset), no more than its cgroup's CPU quota allows (a
    container given 2 CPUs of a 16-core host sees 16 in ``os.cpu_count()``)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


@pytest.fixture(autouse=True)
def reap():
    """No server process a test started outlives it, even when its assertions failed."""
    yield
    import reaper

    reaper.reap()
