"""The mock electronic draw display and the draw sources."""

from __future__ import annotations

import random

import pytest

from drivers.events import DISPLAY_SEGMENT, DrawShown, FaultCleared, FaultRaised
from drivers.mock.display import DisplayFault, MockDisplay
from tablecore.errors import ConfigError
from tablesim.games.football.draw import ScriptedDraw, SecureDraw, SeededDraw, check_source


def test_the_display_reads_back_what_it_shows():
    d = MockDisplay()
    d.show("R1", "R1-D", 3, (3, 4, 5, 6), (7, 8, 1, 2))
    assert d.next_event() == DrawShown("R1-D", 3, device="display")
    assert d.next_event() is None
    assert d.showing == ("R1-D", 3) and d.health.ok


def test_read_back_mismatch_injection():
    d = MockDisplay([DisplayFault("readback_mismatch")])
    d.show("R1", "R1-D", 8, (8, 1, 2, 3), (4, 5, 6, 7))
    assert d.next_event().shown == 1  # the next combination, wrapping 8 -> 1
    d.inject(DisplayFault("readback_mismatch", shown=2))
    d.show("R2", "R2-D", 5, (5, 6, 7, 8), (1, 2, 3, 4))
    assert d.next_event().shown == 2
    d.show("R3", "R3-D", 5, (5, 6, 7, 8), (1, 2, 3, 4))
    assert d.next_event().shown == 5  # a fault fires once


def test_segment_fault_injection_and_repair():
    d = MockDisplay([DisplayFault("segment_fault")])
    d.show("R1", "R1-D", 4, (4, 5, 6, 7), (8, 1, 2, 3))
    event = d.next_event()
    assert isinstance(event, FaultRaised) and event.code == DISPLAY_SEGMENT and event.severity == "E"
    assert d.next_event() is None  # no read-back from a faulted display
    assert not d.health.ok and d.showing is None
    d.repair()
    assert d.next_event() == FaultCleared(DISPLAY_SEGMENT, device="display") and d.health.ok


def test_unknown_display_fault():
    with pytest.raises(ValueError, match="unknown display fault"):
        DisplayFault("smoke")


def test_draw_sources():
    indices = tuple(range(1, 9))
    assert SecureDraw().secure and not SeededDraw(random.Random(1)).secure
    a = [SeededDraw(random.Random(4)).draw(indices) for _ in range(1)]
    b = [SeededDraw(random.Random(4)).draw(indices) for _ in range(1)]
    assert a == b  # reproducible
    s = ScriptedDraw()
    s.next = 6
    assert s.draw(indices) == 6
    with pytest.raises(ConfigError):
        s.draw(indices)  # each scripted draw is used once
    check_source(SecureDraw(), "live")
    check_source(SeededDraw(random.Random(1)), "mock")
    check_source(ScriptedDraw(), "script")
    with pytest.raises(ConfigError, match="not on a live table"):
        check_source(ScriptedDraw(), "live")
    with pytest.raises(ConfigError, match="unknown table mode"):
        check_source(SecureDraw(), "demo")
