"""What a table tells the world: state changes, instructions to the dealer,
cards, results, settlements, faults. Each is a frozen record of its kind
(``tablecore/records.py``, and each game's ``machine.py``) the table
publishes here; the CLI display, the journal and the live stream all
subscribe to the same events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import logging

import structlog

from tablecore.frozen import built


@dataclass(frozen=True)
class TableEvent:
    """One event as the bus hands it out: its sequence number and round,
    its record (``tablecore/records.py`` or a game's ``machine.py``) and the
    record's fields as a dict."""

    seq: int
    kind: str
    round_id: str
    data: dict[str, Any] = field(default_factory=dict)
    record: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "round_id": self.round_id, **self.data}


Subscriber = Callable[[TableEvent], None]


class EventBus:
    def __init__(self, log: structlog.typing.FilteringBoundLogger | None = None) -> None:
        self.subscribers: list[Subscriber] = []
        self.seq = 0
        self.log = log
        self._debug: bool | None = None
        #: whether anyone listens (a subscriber or the debug log): hot paths
        #: ask before building an event. The table's logger is bound once, at
        #: its level of then, so the answer holds until someone subscribes.
        self.active = self.debug

    def subscribe(self, fn: Subscriber) -> None:
        self.subscribers.append(fn)
        self.active = True

    def publish(self, record: Any, round_id: str) -> TableEvent | None:
        """Hand a table record to every listener."""
        self.seq += 1
        if not self.subscribers and not self.debug:
            return None
        event = built(TableEvent, {"seq": self.seq, "kind": record.KIND, "round_id": round_id,
                                   "data": record.as_data(), "record": record})
        return self._deliver(event)

    def _deliver(self, event: TableEvent) -> TableEvent:
        if self.debug:
            self.log.debug("table_event", kind=event.kind, **event.data)
        for fn in self.subscribers:
            fn(event)
        return event

    @property
    def debug(self) -> bool:
        if self._debug is None:
            is_enabled = getattr(self.log, "is_enabled_for", None)
            self._debug = bool(self.log is not None and (is_enabled is None or is_enabled(logging.DEBUG)))
        return self._debug
