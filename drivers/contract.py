"""The contract every device backend keeps, as checks a backend can be run
through: ``tablesim devices check`` and the pytest plugin
:mod:`drivers.contract_plugin` both run :func:`check_device`.

The checks, each passed, failed or skipped (with why):

- **typed events in order**: what the device reports for a round is typed
  events (``drivers.events``) of this device, in order (a shoe's cards at
  indices 0, 1, 2 ...; a spin's start before its result);
- **arm and disarm honoured**: nothing is dealt or spun while disarmed,
  and arming again brings the events back (a display: a shown draw is
  read back, and ``clear`` goes through);
- **silence is a fault, never a hang**: with the device silent, waiting for
  an event returns on time and the silence is reported (``LinkLost`` or a
  fault), unless the link has no supervision (then the table's device
  timeout reports it, and the check says so);
- **reconnect after a lost link**: the line is cut; the loss and the
  return are reported, and the device reports again afterwards;
- **no card twice**: no round index and no card (from one deck) is
  reported twice, across everything above;
- **faults named with their source**: every fault and link report names
  its device, a fault has a code (100-999) and a text;
- **plausible reports**: not only the shape but the sense of what came, over
  every round above: a wheel that never reports turns above 0 (a turns
  field bound to a speed at rest), a result outside the wheel's segments, a
  shoe reading the same card twice in a row within a round (a repeated
  frame taken as a card), a device that answers (its lines are read) but
  never changes state through a round it was armed for.

Checks that need the device's side (silence, a cut) run only when a
:class:`DeviceSide` is given: an emulator's. Without one they are skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from drivers.base import Device
from drivers.events import (
    CardRead,
    DeviceEvent,
    DrawShown,
    FaultCleared,
    FaultRaised,
    HandDispensed,
    InvalidSpin,
    LinkLost,
    LinkRestored,
    ShuffleDone,
    SpinResult,
    SpinStarted,
)

CHECKS = ("typed events in order", "arm and disarm honoured", "silence is a fault, never a hang",
          "reconnect after a lost link", "no card twice", "faults named with their source", "plausible reports")
Status = Literal["pass", "fail", "skip"]


@dataclass
class DeviceSide:
    """What the kit may do to the device's end of the line (an emulator's)."""

    silence: Callable[[bool], None] | None = None  # mute (True) or unmute (False) the device
    cut: Callable[[], None] | None = None  # drop the line once; the device waits for the driver again
    supervised: bool = True  # the driver notices a silent device by itself (heartbeat, polling)


@dataclass(frozen=True)
class Outcome:
    check: str
    status: Status
    detail: str = ""


@dataclass
class _Run:
    device: Device
    kind: str
    wait: float
    seen: list[DeviceEvent] = field(default_factory=list)
    rounds: int = 0
    segments: int | None = None  # a wheel's segments (its results are 0 .. segments - 1)
    mute: list[str] = field(default_factory=list)  # rounds in which the device answered but reported nothing

    def events(self, until: Callable[[DeviceEvent], bool], seconds: float | None = None) -> list[DeviceEvent]:
        """Events up to the first ``until`` takes (all that came, if none did in time)."""
        out: list[DeviceEvent] = []
        deadline = time.monotonic() + (seconds if seconds is not None else self.wait)
        while (left := deadline - time.monotonic()) > 0:
            event = self.device.next_event(min(left, 0.5))
            if event is None:
                continue
            out.append(event)
            self.seen.append(event)
            if until(event):
                break
        return out

    def quiet(self, seconds: float) -> list[DeviceEvent]:
        return self.events(lambda e: False, seconds)


def _done(kind: str) -> Callable[[DeviceEvent], bool]:
    return {
        "shoe": lambda e: isinstance(e, CardRead) and e.index % 3 == 2,
        "wheel": lambda e: isinstance(e, (SpinResult, InvalidSpin)),
        "display": lambda e: isinstance(e, DrawShown),
        "shuffler": lambda e: isinstance(e, HandDispensed),
    }[kind]


def _play(run: _Run) -> tuple[str, list[DeviceEvent]]:
    """One round's worth of the device's work; (round id, its events)."""
    run.rounds += 1
    round_id = f"CHECK-{run.rounds:06d}"
    d: Any = run.device
    heard = _lines(run.device)
    if run.kind == "shoe":
        d.arm(round_id, 3)
    elif run.kind == "wheel":
        d.arm(round_id, 3, 60)
    elif run.kind == "display":
        d.show(round_id, f"{round_id}-D", 1, (1, 2, 3, 4), (5, 6, 7, 8))
    else:
        d.shuffle(f"{round_id}-S")
        run.events(lambda e: isinstance(e, ShuffleDone))
        d.deal_hand(1, 3)
    events = run.events(_done(run.kind))
    if not events and _lines(run.device) > heard:
        run.mute.append(f"{round_id}: {_lines(run.device) - heard} lines read, no state change")
    if run.kind in ("shoe", "wheel"):
        d.disarm()
    return round_id, events


def _lines(device: Device) -> int:
    """The lines a device's driver has read (0 where it does not count them)."""
    counts = getattr(device, "counts", None)
    return int(counts.get("lines", 0)) if isinstance(counts, dict) else 0


def _ordered(run: _Run, round_id: str, events: list[DeviceEvent]) -> str | None:
    """Why these events break the order of a round (None: they keep it)."""
    if not events or not _done(run.kind)(events[-1]):
        return f"no complete round within {run.wait:g} s (got {[type(e).__name__ for e in events]})"
    if any(not isinstance(e, DeviceEvent) or e.device != run.device.name for e in events):
        return f"an event that is not this device's typed event: {events}"
    if run.kind == "shoe":
        cards = [e for e in events if isinstance(e, CardRead)]
        if [c.round_id for c in cards] != [round_id] * 3 or [c.index for c in cards] != sorted(c.index for c in cards):
            return f"cards out of order or of another round: {[(c.round_id, c.index) for c in cards]}"
    if run.kind == "wheel":
        kinds = [type(e) for e in events if isinstance(e, (SpinStarted, SpinResult, InvalidSpin))]
        if kinds[:1] != [SpinStarted] or getattr(events[-1], "round_id", round_id) != round_id:
            return f"a spin's start must come first, for {round_id}: {events}"
    return None


def _typed(run: _Run) -> Outcome:
    round_id, events = _play(run)
    why = _ordered(run, round_id, events)
    return Outcome(CHECKS[0], "fail" if why else "pass", why or f"{len(events)} events of {round_id}")


def _arming(run: _Run) -> Outcome:
    d: Any = run.device
    if run.kind == "display":
        d.clear()
        stray = [e for e in run.quiet(0.5) if isinstance(e, FaultRaised)]
        return Outcome(CHECKS[1], "fail" if stray else "pass", f"clear refused: {stray}" if stray
                       else "a shown draw is read back; clear goes through")
    if run.kind == "shuffler":
        return Outcome(CHECKS[1], "skip", "a shuffler deals only when asked")
    d.disarm()
    stray = [e for e in run.quiet(1.0) if isinstance(e, (CardRead, SpinStarted, SpinResult))]
    if stray:
        return Outcome(CHECKS[1], "fail", f"reported while disarmed: {stray}")
    round_id, events = _play(run)
    why = _ordered(run, round_id, events)
    return Outcome(CHECKS[1], "fail" if why else "pass", why or "nothing while disarmed; armed again, it reports")


def _silence(run: _Run, side: DeviceSide | None) -> Outcome:
    if side is None or side.silence is None:
        return Outcome(CHECKS[2], "skip", "needs the device's side (an emulator: --emulated)")
    side.silence(True)
    try:
        started = time.monotonic()
        run.device.next_event(0.2)
        if time.monotonic() - started > 5:
            return Outcome(CHECKS[2], "fail", "next_event(0.2) hung on a silent device")
        if run.kind in ("shoe", "wheel"):
            _arm_only(run)
        # an unsupervised link cannot notice: a short look that nothing hangs is enough
        reported = run.events(lambda e: isinstance(e, (LinkLost, FaultRaised)),
                              None if side.supervised else min(run.wait, 1.5))
        found = [e for e in reported if isinstance(e, (LinkLost, FaultRaised))]
    finally:
        side.silence(False)
    if run.kind in ("shoe", "wheel"):
        run.device.disarm()  # type: ignore[attr-defined]
    if found:
        run.events(lambda e: isinstance(e, LinkRestored) or not isinstance(found[0], LinkLost))
        return Outcome(CHECKS[2], "pass", f"reported as {type(found[0]).__name__}: "
                       f"{getattr(found[0], 'reason', getattr(found[0], 'text', ''))}")
    if not side.supervised:
        return Outcome(CHECKS[2], "pass", "never hangs; the link has no supervision (not polled), so the "
                       "table's device timeout reports the silence")
    return Outcome(CHECKS[2], "fail", f"a silent device was not reported within {run.wait:g} s")


def _arm_only(run: _Run) -> None:
    run.rounds += 1
    d: Any = run.device
    d.arm(f"CHECK-{run.rounds:06d}", 3) if run.kind == "shoe" else d.arm(f"CHECK-{run.rounds:06d}", 3, 60)


def _reconnect(run: _Run, side: DeviceSide | None) -> Outcome:
    if side is None or side.cut is None:
        return Outcome(CHECKS[3], "skip", "needs a line the kit can cut (an emulator over TCP: --emulated)")
    run.quiet(0.3)
    side.cut()
    lost = run.events(lambda e: isinstance(e, LinkLost))
    if not any(isinstance(e, LinkLost) for e in lost):
        return Outcome(CHECKS[3], "fail", f"the cut line was not reported within {run.wait:g} s")
    back = run.events(lambda e: isinstance(e, LinkRestored))
    if not any(isinstance(e, LinkRestored) for e in back):
        return Outcome(CHECKS[3], "fail", f"the link did not come back within {run.wait:g} s")
    round_id, events = _play(run)
    why = _ordered(run, round_id, events)
    return Outcome(CHECKS[3], "fail" if why else "pass", why or "lost, restored, and it reports again")


def _no_card_twice(run: _Run) -> Outcome:
    if run.kind not in ("shoe", "shuffler"):
        return Outcome(CHECKS[4], "skip", f"a {run.kind} reports no cards")
    reads = [e for e in run.seen if isinstance(e, CardRead)]
    cards = [e.card for e in reads] + [c for e in run.seen if isinstance(e, HandDispensed) for c in e.cards]
    places = [(e.round_id, e.index) for e in reads]
    if len(set(places)) != len(places) or len(set(cards)) != len(cards):
        return Outcome(CHECKS[4], "fail", f"reported twice: {sorted(places)} {sorted(map(str, cards))}")
    return Outcome(CHECKS[4], "pass", f"{len(cards)} cards, each once")


def _named(run: _Run) -> Outcome:
    reports = [e for e in run.seen if isinstance(e, (FaultRaised, FaultCleared, LinkLost, LinkRestored))]
    bad = [e for e in reports if not e.device or (isinstance(e, FaultRaised) and not (100 <= e.code <= 999
                                                                                       and e.text))]
    if bad:
        return Outcome(CHECKS[5], "fail", f"unnamed or incomplete: {bad}")
    if not reports:
        return Outcome(CHECKS[5], "skip", "no fault arose")
    return Outcome(CHECKS[5], "pass", f"{len(reports)} fault and link reports, each naming {run.device.name!r}")


def _plausible(run: _Run) -> Outcome:
    if run.mute:
        return Outcome(CHECKS[6], "fail", f"answers but never changes state through a round: {run.mute[0]}")
    if run.kind == "wheel":
        results = [e for e in run.seen if isinstance(e, SpinResult)]
        if not results:
            return Outcome(CHECKS[6], "fail" if run.seen else "skip", "no spin result came" if run.seen
                           else "no spin came")
        if all(e.turns <= 0 for e in results):
            return Outcome(CHECKS[6], "fail", f"never reports turns above 0 ({len(results)} results): "
                           "where do its turns come from?")
        if run.segments is not None and (bad := [e.segment for e in results if not 0 <= e.segment < run.segments]):
            return Outcome(CHECKS[6], "fail", f"results outside the layout's segments 0-{run.segments - 1}: {bad}")
        turns = ", ".join(f"{e.turns}" + (f" +/- {e.turns_error}" if e.turns_error else "") for e in results)
        return Outcome(CHECKS[6], "pass", f"{len(results)} results, turns {turns} ({results[0].turns_source})")
    if run.kind == "shoe":
        reads = [e for e in run.seen if isinstance(e, CardRead)]
        twice = [(a.round_id, a.index, str(a.card)) for a, b in zip(reads, reads[1:])
                 if a.round_id == b.round_id and a.card == b.card]
        if twice:
            return Outcome(CHECKS[6], "fail", f"the same card twice in a row within a round: {twice[0]}")
        return Outcome(CHECKS[6], "pass" if reads else "skip", f"{len(reads)} cards, none read twice in a row")
    return Outcome(CHECKS[6], "pass", "each round changed the device's state")


def check_device(device: Device, kind: str, side: DeviceSide | None = None, *, wait: float = 10.0,
                 segments: int | None = None) -> list[Outcome]:
    """Run the contract on an open ``device`` of ``kind`` (``wait``: how long a
    round may take, pure waiting; ``segments``: a wheel's, to judge its results);
    one outcome per check, in :data:`CHECKS` order."""
    run = _Run(device, kind, wait, segments=segments)
    if kind == "shoe":
        device.load_shoe("CHECK", 1)  # type: ignore[attr-defined]
    elif kind == "shuffler":
        device.load(1, 52)  # type: ignore[attr-defined]
    out = [_typed(run), _arming(run), _silence(run, side), _reconnect(run, side)]
    return [*out, _no_card_twice(run), _named(run), _plausible(run)]
