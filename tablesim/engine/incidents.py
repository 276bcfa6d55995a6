"""Incidents: irregular reports a round records, and the supervisor's say.

An incident is opened by the game (a card read outside dealing, a misread,
a lost device link...). A *blocking* one holds the round: every action but
pause, resume, void and the incident's resolution is refused until a
supervisor confirms or rejects it (or, for a lost link, the link comes
back). A later non-blocking incident is recorded and shown but never
displaces a blocking one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from drivers.events import DeviceEvent, LinkLost, LinkRestored
from tablesim.engine.actions import action
from tablesim.engine.inputs import ResolveIncident
from tablecore.wording import CORE_WORDS as W, device_text
from tablesim.engine.machine import Refused
from tablecore.records import IncidentOpened, IncidentResolved, Link

#: the code of the incident a lost device link opens
LINK_INCIDENT = 100
DECISIONS = ("confirm", "reject")


@dataclass(frozen=True, slots=True)
class Incident:
    id: int
    code: int
    text: str
    blocking: bool
    card: str | None = None
    #: the device whose lost link opened it (link incidents only)
    device: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The incident as the console and the journal show it."""
        out = asdict(self)
        out["text"] = str(self.text)
        if out["device"] is None:
            del out["device"]
        said = device_text(self.code, self.text)
        if said is not None:
            out["say"] = said  # its message id and values: the console words it in its language
        return out


class IncidentHandling:
    """The incident part of a ``GameTable`` (a mixin: it reads the table's
    state, emits its events and voids its rounds)."""

    incident: Incident | None
    incident_no: int
    LINK_INCIDENT = LINK_INCIDENT

    @property
    def blocked(self) -> bool:
        """Whether a blocking incident holds the round."""
        return self.incident is not None and self.incident.blocking

    def open_incident(self, code: int, text: str, *, blocking: bool, card: str | None = None,
                      device: str | None = None) -> Incident:
        """Record an incident (see the module docstring)."""
        self.incident_no += 1
        incident = Incident(self.incident_no, code, text, blocking, card, device)
        if blocking or not self.blocked:
            self.incident = incident
        self.emit(IncidentOpened(id=incident.id, code=code, text=text, blocking=blocking, card=card))
        return incident

    def check_resolution_asked(self, decision: str, *, actor: str | None = None, why: str | None = None,
                               card: str | None = None) -> None:
        if self.incident is None:
            raise Refused(W("refusal.no_incident"))
        if decision not in DECISIONS:
            raise Refused(W("refusal.unknown_resolution", decision=repr(decision)))

    CHECKS = {"resolve_incident": (check_resolution_asked,)}

    @action(ResolveIncident, always=True)
    def resolve_incident(self, decision: str, *, actor: str, why: str, card: str | None = None) -> None:
        """A supervisor confirms (naming the card where one is needed) or rejects."""
        incident = self.incident
        resolution = ResolveIncident(decision, actor=actor, why=why, card=card)
        self.check_resolution(incident, resolution)
        self.incident = None
        self.emit(IncidentResolved(id=incident.id, decision=decision, card=card, actor=actor, why=why))
        if incident.code == LINK_INCIDENT:
            if decision == "reject" and self.machine.allowed("void"):
                self.void("device_link_lost", actor=actor, why=why)
            return  # confirm: the supervisor goes on without waiting for the link
        self.on_incident_resolved(incident, resolution)

    def check_resolution(self, incident: Incident, resolution: ResolveIncident) -> None:
        """Refuse a resolution the game cannot apply (before anything changes)."""

    def on_incident_resolved(self, incident: Incident, resolution: ResolveIncident) -> None:
        """Apply a resolved incident (the game decides what confirm/reject
        mean; the resolution says who resolved it, and why)."""

    def on_link_event(self, event: DeviceEvent) -> bool:
        """A lost link holds the round (a blocking incident) until the link is
        back. Returns False for any other report."""
        if isinstance(event, LinkLost):
            self.emit(Link(device=event.device, up=False, reason=event.reason))
            if self.state not in self.FINALS and self.state is not self.INITIAL and self.incident is None:
                self.open_incident(LINK_INCIDENT, W("incident.link_lost", device=event.device, reason=event.reason),
                                   blocking=True, device=event.device)
            return True
        if isinstance(event, LinkRestored):
            self.emit(Link(device=event.device, up=True))
            incident = self.incident
            if incident is not None and incident.code == LINK_INCIDENT and incident.device == event.device:
                self.incident = None
                self.emit(IncidentResolved(id=incident.id, decision="confirm", card=None,
                          actor=event.device, why="link restored"))
            return True
        return False
