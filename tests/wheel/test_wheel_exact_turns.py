"""Wheel turn counts are exact: 2.999... turns is fewer than three."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from drivers.serial import parse
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.settle import exact_count, full_turns, spin_counts

PROFILE = load_profile()


@pytest.mark.parametrize("turns, counts", [(D("2.9999999999999999999"), False), (D(3), True), (3, True),
                                           (D("3.0000000000000000001"), True), (2, False)])
def test_three_full_turns_exactly(turns, counts):
    assert spin_counts(PROFILE, turns) is counts


def test_a_float_is_never_a_turn_count():
    assert float("2.9999999999999999999") == 3.0  # why: a float would count this spin
    with pytest.raises(TypeError):
        full_turns(2.9999999999999999999)


def test_the_serial_sensor_reports_exact_turns():
    turns = parse.measure("2.999999999", "turns")
    assert isinstance(turns, D) and full_turns(turns) == 2


@pytest.mark.parametrize("bad", [D("NaN"), D("-1"), D("Infinity"), "x", None, True, float("nan")])
def test_impossible_counts_are_refused(bad):
    assert exact_count(bad) is None


def test_a_driver_float_is_read_by_its_shortest_repr():
    assert exact_count(2.75) == D("2.75")
