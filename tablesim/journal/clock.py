"""A record's time: UTC now as text, made cheaply."""

from __future__ import annotations

import time
from datetime import datetime, timezone

#: (a second since the epoch, its text up to the second): one tuple, read and replaced whole
_SECOND: tuple[int, str] = (-1, "")


def now_stamp() -> str:
    """UTC now, as ``datetime.now(timezone.utc).isoformat(timespec="microseconds")``
    writes it; the text up to the second is made once a second (a group of
    thousands of records would spend a fifth of its record-building on it)."""
    return stamp(time.time_ns() // 1000)


def stamp(micros: int) -> str:
    """The record time ``micros`` microseconds after the epoch (UTC)."""
    global _SECOND
    whole, micro = divmod(micros, 1_000_000)
    second, text = _SECOND
    if whole != second:
        text = datetime.fromtimestamp(whole, timezone.utc).isoformat(timespec="seconds")[:-6]
        _SECOND = (whole, text)
    return f"{text}.{micro:06d}+00:00"
