"""Test-wide setup: quiet, deterministic logging."""

import logging

import pytest
import structlog


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
