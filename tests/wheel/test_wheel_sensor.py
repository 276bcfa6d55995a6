"""The mock wheel indicator sensor: what it reports, spin by spin."""

from __future__ import annotations

from decimal import Decimal

import random
from statistics import mean

import pytest

from drivers.base import WheelSensor
from drivers.events import FaultRaised, InvalidSpin, Revolution, SpinResult, SpinStarted
from drivers.mock.wheel import MockWheelSensor, RandomSpins, ScriptedSpins, Spin, WheelFault


def drain(sensor):
    out = []
    while (event := sensor.next_event(0)) is not None:
        out.append(event)
    return out


def test_a_spin_is_start_each_full_turn_then_the_result():
    sensor = MockWheelSensor(ScriptedSpins([Spin(33, 4.1, "CCW")]), name="wheel1")
    assert isinstance(sensor, WheelSensor)
    assert drain(sensor) == []  # idle: the dealer has not spun
    sensor.arm("R1", 3, 60)
    events = drain(sensor)
    assert events == [
        SpinStarted("R1", "CCW", device="wheel1"),
        *[Revolution("R1", n, device="wheel1") for n in (1, 2, 3, 4)],
        SpinResult("R1", 33, Decimal("4.1"), "CCW", device="wheel1"),
    ]
    assert not sensor.armed  # one ARM, one spin


def test_a_short_spin_is_reported_as_measured_unless_the_sensor_judges_it():
    sensor = MockWheelSensor(ScriptedSpins([Spin(5, 2.4)]))
    sensor.arm("R", 3, 60)
    assert drain(sensor)[-1] == SpinResult("R", 5, Decimal("2.4"), "CW", device="wheel")
    judging = MockWheelSensor(ScriptedSpins([Spin(5, 2.4)]), judge_turns=True)
    judging.arm("R", 3, 60)
    assert drain(judging)[-1] == InvalidSpin("R", Decimal("2.4"), "few_turns", device="wheel")


def test_an_invalid_spin_carries_its_reason():
    sensor = MockWheelSensor(ScriptedSpins([Spin(None, 6.0, "CW", "peg")]))
    sensor.arm("R", 3, 60)
    assert drain(sensor)[-1] == InvalidSpin("R", 6.0, "peg", device="wheel")


def test_error_faults_fire_instead_of_the_nth_spin():
    sensor = MockWheelSensor(ScriptedSpins([Spin(1, 1.0), Spin(2, 5.0)]), [WheelFault("sensors_disagree", 1)])
    sensor.arm("R", 3, 60)
    assert isinstance(drain(sensor)[-1], SpinResult)
    sensor.arm("R", 3, 60)
    events = drain(sensor)
    assert events == [FaultRaised(503, "E", "position sensors disagree", device="wheel")]
    assert sensor.health.faults == {503: "position sensors disagree"} and not sensor.health.ok
    encoder = MockWheelSensor(ScriptedSpins([Spin(1, 5.0)]), [WheelFault("encoder")])
    encoder.arm("R", 3, 60)
    assert drain(encoder)[0].code == 502


def test_motion_while_idle_fires_only_while_idle():
    sensor = MockWheelSensor(ScriptedSpins([Spin(2, 5.0)]), [WheelFault("motion_while_idle", segment=9, turns=3.5)])
    events = drain(sensor)
    assert events[0] == FaultRaised(506, "W", "wheel moved while the sensor was idle", device="wheel")
    assert events[-1] == SpinResult("", 9, 3.5, "CW", device="wheel")
    sensor.arm("R", 3, 60)
    assert drain(sensor)[-1] == SpinResult("R", 2, 5.0, "CW", device="wheel")


def test_faults_and_spins_are_validated():
    with pytest.raises(ValueError):
        WheelFault("jam")
    with pytest.raises(ValueError):
        Spin(3, -1.0)
    with pytest.raises(ValueError):
        Spin(None, 4.0)
    with pytest.raises(ValueError):
        Spin(3, 4.0, "UP")


def test_random_spins_are_realistic_and_reproducible():
    spins = [RandomSpins(random.Random(11)).next_spin() for _ in range(1)]
    source = RandomSpins(random.Random(11))
    many = [source.next_spin() for _ in range(4000)]
    assert many[0] == spins[0]
    again = RandomSpins(random.Random(11))
    assert [again.next_spin() for _ in range(4000)] == many
    results = [s for s in many if s.invalid is None]
    full = [s for s in results if s.turns >= 3]
    short = [s for s in results if s.turns < 3]
    assert len(full) / len(many) > 0.85  # most spins count
    assert all(3 <= s.turns <= 8.5 for s in full)
    assert 0.03 < len(short) / len(many) < 0.10  # an occasional short spin
    assert any(s.invalid == "peg" for s in many)
    assert {s.direction for s in many} == {"CW", "CCW"}
    segments = [s.segment for s in results]
    assert set(segments) == set(range(52))
    assert 4 < mean(s.turns for s in full) < 6
