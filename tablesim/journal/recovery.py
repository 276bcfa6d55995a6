"""Bringing a table back after a power loss or crash.

The last round in the journal is looked at: if it has a result, there is
nothing to do. Otherwise its input records are replayed into the table (with
devices muted and the journal not written), which rebuilds the round exactly;
the game then says whether it can go on (betting still open; cards read and
recorded) or must be voided by the rules (every bet returned). Either way a
``recovery`` record says which and why, and active device faults that were
never cleared are raised again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablecore.errors import InputError
from tablesim.journal.journal import Journal
from tablecore.records import Result, Voided


@dataclass
class RecoveryReport:
    round_id: str
    action: str  # resume | void
    why: str
    state: str
    active_faults: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        verb = "resumed" if self.action == "resume" else "voided (every bet returned)"
        return f"recovered round {self.round_id}: {verb} at {self.state}: {self.why}"


def active_faults(journal: Journal) -> dict[str, Any]:
    """Faults raised and never cleared, by "device:code", with when (the
    first time) each was raised."""
    active: dict[str, Any] = {}
    # only the fault records: this runs on every start
    for rec in journal.find(kind="event", names=("fault", "fault_cleared")):
        name, data, ts = rec.name, rec.data, rec.ts
        key = f"{data.get('device')}:{data.get('code')}"
        if name == "fault":
            raised_at = active.get(key, {}).get("raised_at", ts)
            active[key] = {**data, "raised_at": raised_at}
        else:
            active.pop(key, None)
    return active


def paused_at_end(journal: Journal, table_id: str) -> bool:
    """Whether the table's last accepted pause was never followed by a resume."""
    last = journal.latest(kind="input", names=("pause", "resume"), table_id=table_id)
    return last is not None and last.name == "pause"


def restore_standing(table: Any, journal: Journal) -> None:
    """Give the table back the settings an action changed for the following
    rounds (``table.STANDING``: e.g. a supervisor's switch of the dealing
    mode): the last accepted input of each, whichever round it was taken in,
    goes to the table's ``restore_standing`` as its input record (which
    re-journals nothing)."""
    for name in getattr(table, "STANDING", ()):
        last = journal.latest(kind="input", names=(name,), table_id=table.table_id)
        if last is not None:
            table.restore_standing(table.input_from_journal(name, last.data, last.actor))


def restore_standing_events(table: Any, journal: Journal) -> None:
    """Give the table back a standing condition its own events set and clear
    (``table.STANDING_EVENTS``: e.g. a failed shuffler out of service until a
    supervisor confirms it was replaced): the last of those events, whichever
    round it came in, goes to the table's ``restore_standing_event``."""
    names = tuple(getattr(table, "STANDING_EVENTS", ()))
    if not names:
        return
    last = journal.latest(kind="event", names=names, table_id=table.table_id)
    if last is not None:
        table.restore_standing_event(last.name, last.data)


def check_profile(journal: Journal, round_id: str, records: list) -> None:
    """Refuse to resume a round under a rule profile other than the one it began under."""
    began = next((r.data.get("profile") for r in records if r.kind == "meta" and r.name == "round"), None)
    now = journal.profile
    if not began or not now or began.get("sha256") == now.get("sha256"):
        return  # (a round begun before rounds named their profile, or a table without one)
    raise InputError(
        f"round {round_id} began under rule profile {began.get('name')!r} (sha256 {str(began.get('sha256'))[:12]}...), "
        f"this table runs {now.get('name')!r} (sha256 {str(now.get('sha256'))[:12]}...): nothing was replayed; "
        f"start the table with the round's profile to finish it", where=journal.path)


def replay(table: Any, inputs: list) -> None:
    """The round's input records handed back to the table's own actions, devices muted."""
    with table.replay():
        for i, rec in enumerate(inputs):
            if rec.data.get("nested"):
                continue  # handed back by the muted devices inside the action before it
            table.replay_pending[:] = []
            for later in inputs[i + 1:]:
                if not later.data.get("nested"):
                    break
                table.replay_pending.append(table.input_from_journal(later.name, later.data, later.actor).event)
            table.apply(table.input_from_journal(rec.name, rec.data, rec.actor))


def _ended_in_replay(table: Any, journal: Journal, rid: str, faults: dict[str, Any]) -> RecoveryReport:
    """The replay ended the round although the journal holds no result for
    it: never dropped silently. The ending is recorded (a void returns every bet)."""
    why = f"the replayed round ended ({table.result.status}"
    why += f": {table.result.void_reason})" if table.result.void_reason else ")"
    journal.append(table.table_id, rid, "operator", "recovery",
                   {"action": table.result.status, "why": why, "state": table.state.value,
                    "active_faults": faults}, "recovery")
    if table.result.status == "void":
        table.emit(Voided(reason=table.result.void_reason, returned=table.book.snapshot(), actor="recovery", why=why))
    table.emit(Result(**table.result.as_json()))
    table.log.warning("round_recovered", action=table.result.status, why=why, state=table.state.value)
    return RecoveryReport(rid, table.result.status, why, table.state.value, faults)


def recover(table: Any, journal: Journal) -> RecoveryReport | None:
    """Restore the table from the journal; returns what was done, or None.

    ``table``: a game table (``tablesim.engine``); the journal hands its
    recorded inputs back to the table's own actions and never imports it."""
    restore_standing(table, journal)
    restore_standing_events(table, journal)
    rid = journal.last_round_id(table.table_id)
    if rid is None:
        table.paused = paused_at_end(journal, table.table_id)
        return None
    tail = rid.rsplit("-", 1)[-1]
    if tail.isdigit():
        table.round_no = max(table.round_no, int(tail))
    records = list(journal.records(rid))
    if any(r.kind == "event" and r.name == "result" for r in records):
        # No round to rebuild, but a pause taken after it still holds.
        table.paused = paused_at_end(journal, table.table_id)
        return None
    inputs = [r for r in records if r.kind == "input"]
    if not inputs:
        return None
    check_profile(journal, rid, records)
    replay(table, inputs)
    faults = active_faults(journal)
    if table.result is not None:
        return _ended_in_replay(table, journal, rid, faults)
    action, why = table.recovery_policy()
    state = table.state.value
    journal.append(table.table_id, rid, "operator", "recovery",
                   {"action": action, "why": why, "state": state, "active_faults": faults}, "recovery")
    if action == "void":
        table.void("interrupted", actor="recovery", why=why)
    else:
        # Bringing the devices back is part of the recovery, not a dealer's
        # action: it is done even while an operator's pause holds.
        paused, table.paused = table.paused, False
        try:
            table.resume_devices()
        finally:
            table.paused = paused
    table.log.warning("round_recovered", action=action, why=why, state=state)
    return RecoveryReport(rid, action, why, state, faults)
