"""structlog setup: JSON lines when not on a terminal (so journald, or any
collector, keeps one record per line), a coloured console renderer on one.

The standard library's loggers (the server's, uvicorn's) go through the same
renderer, so a table's standard error holds one format only.

Round context (table, game, round id) is bound with contextvars by the table
at the start of each round, so every line logged during the round carries it.
"""

from __future__ import annotations

import logging
import os
import sys

import structlog


class _Handler(logging.StreamHandler):
    """The one handler this module puts on the root logger (replaced, never stacked)."""


def _colours(stream) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ


def configure(level: str = "warning", *, json: bool | None = None, stream=None) -> None:
    stream = stream or sys.stderr
    if json is None:
        json = not stream.isatty()
    renderer = (structlog.processors.JSONRenderer() if json
                else structlog.dev.ConsoleRenderer(colors=_colours(stream)))
    shared = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    handler = _Handler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name, structlog.stdlib.ExtraAdder()],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer],
    ))
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))


def bind_round(table: str, game: str, round_id: str) -> None:
    structlog.contextvars.bind_contextvars(table=table, game=game, round_id=round_id)


def get_logger(name: str):
    return structlog.get_logger(name)
