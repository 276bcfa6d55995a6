"""The serial wheel sensor against the wheel emulator: spins, no-spins, faults."""

from __future__ import annotations

import pytest

from drivers.events import (
    WHEEL_MOTION_IDLE,
    WHEEL_SENSORS_DISAGREE,
    FaultRaised,
    InvalidSpin,
    Revolution,
    SpinResult,
    SpinStarted,
)
from test_serial_support import no_leaks, rig, types  # noqa: F401 - fixture


def spin(r, round_id: str = "R1"):
    events = r.until(lambda e: isinstance(e, (SpinResult, InvalidSpin, FaultRaised)))
    return events


@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_a_spin_then_a_no_spin_then_a_spin(transport: str) -> None:
    with rig("wheel", transport=transport, faults=["short-spin@spin=2"], seed=2) as r:
        r.driver.arm("R1", 3, 60)
        events = spin(r)
        assert isinstance(events[0], SpinStarted) and events[0].round_id == "R1"
        result = events[-1]
        assert isinstance(result, SpinResult) and 0 <= result.segment < 52 and result.turns >= 3
        revs = [e.n for e in events if isinstance(e, Revolution)]
        assert revs == list(range(1, int(result.turns) + 1))
        assert r.driver.armed is False  # one ARM, one spin
        r.driver.arm("R2", 3, 60)
        events = spin(r)
        assert isinstance(events[-1], InvalidSpin)
        assert (events[-1].round_id, events[-1].reason) == ("R2", "few_turns") and events[-1].turns < 3
        r.driver.arm("R2", 3, 60)  # no spin: the dealer spins again, bets stay
        assert isinstance(spin(r)[-1], SpinResult)
        assert r.driver.health.ok


def test_peg() -> None:
    with rig("wheel", faults=["peg"]) as r:
        r.driver.arm("R1", 3, 60)
        end = spin(r)[-1]
        assert isinstance(end, InvalidSpin) and end.reason == "peg"


def test_sensors_disagree_is_an_error_fault_cleared_by_the_next_arm() -> None:
    with rig("wheel", faults=["disagree"]) as r:
        r.driver.arm("R1", 3, 60)
        end = spin(r)[-1]
        assert isinstance(end, FaultRaised) and (end.code, end.severity) == (WHEEL_SENSORS_DISAGREE, "E")
        assert WHEEL_SENSORS_DISAGREE in r.driver.health.faults
        r.driver.arm("R2", 3, 60)
        events = spin(r)
        assert types(events)[0] == "FaultCleared" and isinstance(events[-1], SpinResult)
        assert r.driver.health.ok


def test_motion_while_idle_is_reported_with_no_round() -> None:
    with rig("wheel", faults=["idle-motion"]) as r:
        r.driver.disarm()
        events = r.until(lambda e: isinstance(e, SpinResult))
        assert isinstance(events[0], FaultRaised) and events[0].code == WHEEL_MOTION_IDLE
        assert events[0].severity == "W"
        assert {getattr(e, "round_id", "") for e in events} == {""}  # never a result of a round


def test_disarm_stops_a_spin() -> None:
    with rig("wheel", time_scale=0.05) as r:
        r.driver.arm("R1", 3, 60)
        r.until(lambda e: isinstance(e, SpinStarted), timeout=3)
        r.driver.disarm()
        assert not [e for e in r.quiet(0.6) if isinstance(e, (SpinResult, InvalidSpin))]
