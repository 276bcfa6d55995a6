"""Test-wide setup: quiet, deterministic logging; hypothesis without
time limits per example (the tests run on every core, beside whatever else
the machine runs: a slow example is not a failure, a wrong one is)."""

import logging
import os

import pytest
import structlog
from hypothesis import HealthCheck, settings

from browser import chromium, page  # noqa: F401  (the page tests' fixtures)

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
