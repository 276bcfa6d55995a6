"""Dealers and shifts: who is on duty at a table, who dealt each round, and
which shift (or day) a moment belongs to.

A dealer signs in and out at the console; each is an operator record in the
journal (``sign_in`` / ``sign_out``, data ``{"dealer": NAME, "role": ROLE}``,
actor the operator who did it). When a round opens, the table journals who
deals it (``round_dealer``, data ``{"dealer": NAME or null}``): the dealer
signed in, else the dealer whose token opened it. Journals written before
hold none of these records: their rounds are dealt by whoever's ``dealer:NAME``
actor opened them, else by nobody known (``-``).

Shifts: boundaries are times of the day (default three shifts of eight
hours, 06:00, 14:00 and 22:00) at a UTC offset (default the machine's);
a moment belongs to the last boundary at or before it, and a shift that
runs past midnight belongs to the day it started (``2026-12-01 22:00``).
A day is a gaming day: from the first boundary to the next day's, so the
shifts of a day sum to the day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from tablecore.errors import InputError

SIGN_IN = "sign_in"
SIGN_OUT = "sign_out"
ROUND_DEALER = "round_dealer"
#: the operator records that say who is on duty, newest wins
DUTY_RECORDS = (SIGN_IN, SIGN_OUT)
#: what a report names when nobody known dealt a round
NOBODY = "-"
DEFAULT_SHIFTS = "06:00,14:00,22:00"

_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
_OFFSET = re.compile(r"^([+-])([01]\d|2[0-3]):([0-5]\d)$")


def on_duty(journal, table_id: str) -> dict[str, Any] | None:
    """The dealer signed in at the table now, from its journal ({dealer, role, since}), or None."""
    last = journal.latest(table_id=table_id, kind="operator", names=DUTY_RECORDS)
    if last is None or last.name != SIGN_IN:
        return None
    return {"dealer": last.data.get("dealer"), "role": last.data.get("role"), "since": last.ts}


def dealer_of_actor(actor: str | None) -> str | None:
    """``dealer:Ana`` -> ``Ana`` (a dealer's token did it); anything else names no dealer."""
    if isinstance(actor, str) and actor.startswith("dealer:") and len(actor) > 7:
        return actor[7:]
    return None


@dataclass(frozen=True)
class Shifts:
    starts: tuple[int, ...]  # minutes after midnight, sorted
    offset: timedelta

    @staticmethod
    def parse(spec: str | None = None, offset: str | None = None) -> "Shifts":
        """``"06:00,14:00,22:00"`` and ``"+08:00"`` (None: the machine's own offset)."""
        starts = []
        for part in (spec or DEFAULT_SHIFTS).split(","):
            m = _TIME.match(part.strip())
            if m is None:
                raise InputError(f"{part.strip()!r} is not a time of the day (HH:MM)", where="--shifts")
            starts.append(int(m[1]) * 60 + int(m[2]))
        if len(set(starts)) != len(starts):
            raise InputError("a shift boundary is given twice", where="--shifts")
        if offset is None:
            delta = datetime.now().astimezone().utcoffset() or timedelta(0)
        else:
            m = _OFFSET.match(offset.strip())
            if m is None:
                raise InputError(f"{offset!r} is not a UTC offset (+HH:MM or -HH:MM)", where="--utc-offset")
            delta = timedelta(hours=int(m[2]), minutes=int(m[3])) * (1 if m[1] == "+" else -1)
        return Shifts(tuple(sorted(starts)), delta)

    def local(self, ts: str) -> datetime | None:
        try:
            when = datetime.fromisoformat(ts)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return when.astimezone(timezone(self.offset))

    def shift(self, ts: str) -> str:
        """``2026-12-01 22:00``: the day and start of the shift ``ts`` falls in."""
        when = self.local(ts)
        if when is None:
            return "?"
        minute = when.hour * 60 + when.minute
        earlier = [s for s in self.starts if s <= minute]
        day = when.date()
        if earlier:
            start = earlier[-1]
        else:  # before the day's first boundary: the previous day's last shift
            start, day = self.starts[-1], day - timedelta(days=1)
        return f"{day.isoformat()} {start // 60:02d}:{start % 60:02d}"

    def day(self, ts: str) -> str:
        """The gaming day: the day of the shift ``ts`` falls in (a day's shifts sum to the day)."""
        return self.shift(ts)[:10]
