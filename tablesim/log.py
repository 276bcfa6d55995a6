"""structlog setup: JSON lines when not on a terminal, a console renderer on one.

Round context (table, game, round id) is bound with contextvars by the table
at the start of each round, so every line logged during the round carries it.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure(level: str = "warning", *, json: bool | None = None, stream=None) -> None:
    stream = stream or sys.stderr
    if json is None:
        json = not stream.isatty()
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )


def bind_round(table: str, game: str, round_id: str) -> None:
    structlog.contextvars.bind_contextvars(table=table, game=game, round_id=round_id)


def get_logger(name: str):
    return structlog.get_logger(name)
