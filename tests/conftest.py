"""Test-wide setup: quiet, deterministic logging; hypothesis without
time limits per example (the tests run on every core, beside whatever else
the machine runs: a slow example is not a failure, a wrong one is)."""

import logging

import pytest
import structlog
from hypothesis import HealthCheck, settings

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
