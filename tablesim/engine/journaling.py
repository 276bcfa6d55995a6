"""The table's side of the journal: what it writes, and how it replays.

With a journal attached, every public action is one transaction (see
``actions.py``): its input record (``inputs.py``) first, then every table
event it caused,
written as it is emitted. Replaying a round's inputs into a table (devices
muted, nothing written) rebuilds the round exactly: that is how a table
recovers after a power loss (``tablesim/journal/recovery.py``).

The table knows the journal only as an object with ``append`` and
``transaction``: the engine imports nothing of the journal package.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from drivers.base import Device
from drivers.events import DeviceEvent
import drivers.events
from tablecore.codec import encode, register_family
from tablesim.engine.actions import ActionSpec
from tablesim.engine.inputs import Report, TableInput
from tablesim.engine.events import TableEvent


# The device reports a table journals as its inputs.
register_family(drivers.events, drivers.events.DeviceEvent, tag="$event")


class _MutedDevice:
    """Stands in for a device while a round is replayed: commands do nothing;
    it reports again what the device reported inside a replayed action."""

    def __init__(self, device: Device, pending: list | None = None) -> None:
        self._device = device
        self._pending = pending if pending is not None else []

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        if self._pending and self._pending[0].device == self._device.name:
            return self._pending.pop(0)
        return None

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._device, name)
        if callable(attr):
            return lambda *a, **k: None
        return attr


class Journaling:
    """The journal part of a ``GameTable`` (a mixin)."""

    journal: Any
    replaying: bool
    #: a group of bets is being placed (set by the bet intake): their ``place_bet``
    #: inputs are not journaled one by one nor a ``bet`` event published each; the
    #: intake writes the group as one ``place_bets`` record (``tablecore.betbatch``)
    #: and publishes it as one ``bets_placed`` event
    batching: bool = False
    #: the actions a group of bets journals as its one record
    BATCHED = frozenset({"place_bet"})

    def attach_journal(self, journal: Any) -> None:
        if self.journal is None:
            self.bus.subscribe(self._to_journal)
        self.journal = journal

    def _to_journal(self, event: TableEvent) -> None:
        # (a group's ``bets_placed``: its ``place_bets`` record, written by the intake, is its journal)
        if self.journal is not None and not self.replaying and event.kind != "bets_placed":
            self.journal.append(self.table_id, event.round_id, "event", event.kind, encode(event.data), "table")

    def journal_input(self, spec: ActionSpec, round_id: str, record: TableInput, *, nested: bool) -> None:
        """The input record of an action about to run (in its transaction),
        under who asked: the record's actor, else the device that reported,
        else whoever the table acts for now (``acting``), else the action's
        usual actor."""
        actor = record.actor
        if actor is None:
            if type(record) is Report:
                actor = record.event.device
            else:
                actor = self.acting_as or spec.actor  # (``asked_by``, without a lookup)
        self.journal.append(self.table_id, round_id, "input", spec.name, record.to_journal(nested=nested), actor)

    @contextmanager
    def replay(self) -> Iterator[None]:
        """Rebuild state from journaled inputs: nothing is written, no device commanded."""
        saved = {k: v for k, v in vars(self).items() if isinstance(v, Device)}
        saved_list = self.devices
        self.replay_pending: list = []
        for k, v in saved.items():
            setattr(self, k, _MutedDevice(v, self.replay_pending))
        self.devices = [_MutedDevice(d, self.replay_pending) for d in saved_list]  # type: ignore[misc]
        self.replaying = True
        try:
            yield
        finally:
            self.replaying = False
            for k, v in saved.items():
                setattr(self, k, v)
            self.devices = saved_list

    def recovery_policy(self) -> tuple[str, str]:
        """After replaying an interrupted round: ("resume" | "void", why)."""
        if self.state is self.BETTING:
            return "resume", "betting was open: the bets stand and betting goes on"
        return "resume", f"every input up to {self.state.value} was recorded"

    def resume_devices(self) -> None:
        """Bring the devices back to what the recovered state expects."""
