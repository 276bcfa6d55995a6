"""Test-wide setup: quiet, deterministic logging; hypothesis without
time limits per example (the tests run on every core, beside whatever else
the machine runs: a slow example is not a failure, a wrong one is)."""

import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import structlog
from hypothesis import HealthCheck, settings

from browser import chromium, page  # noqa: F401  (the page tests' fixtures)

# Compiled modules are written and read again (the interpreter's default).
# Where the environment sets PYTHONDONTWRITEBYTECODE (this machine's
# sessions do), every worker rewrote and compiled every test module and the
# project from source at collection (16 s of CPU a worker against 6.5 s),
# and every ``tablesim`` process the tests start compiled the project again
# (0.2 s, 0.45 s for ``serve``). The processes inherit this environment.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


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


@pytest.fixture
def disk_tmp_path(request):
    """A private folder on the machine's disk (the system's temporary
    folder), for the tests about what reaches the disk; removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"tablesim-{request.node.name[:40]}-", dir=_DISK_TMP))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


settings.register_profile("tablesim", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tablesim")


@pytest.fixture(autouse=True)
def _quiet_logs():
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(),
    )
    structlog.contextvars.clear_contextvars()
    yield
    structlog.contextvars.clear_contextvars()
    root = logging.getLogger()  # a CLI run's log handler writes to a stream that is now closed
    for handler in [h for h in root.handlers if type(h).__module__ == "tablesim.log"]:
        root.removeHandler(handler)


def pytest_collection_modifyitems(config, items) -> None:
    """The tests marked ``slow`` (real processes, brokers, browsers: tens of
    seconds each on a busy machine) run first, the rest in their order. xdist
    hands each worker a share and lets an idle one take over what another
    has not started: with the long tests first, what is left at the end is
    short tests, and the workers finish together instead of one idling while
    the other runs a long test it met last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # (a stable sort)


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: two workers a core. Many tests spend their time waiting on
    a served table, an emulator or a broker in another process, so a core
    has room for a second worker (1,709 tests on 2 cores: 198 s with two
    workers, 158 s with four, on the same busy machine)."""
    return 2 * (os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def reap():
    """No server process a test started outlives it, even when its assertions failed."""
    yield
    import reaper

    reaper.reap()
