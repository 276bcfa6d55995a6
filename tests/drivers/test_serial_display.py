"""The serial draw display against the display emulator: show and read back."""

from __future__ import annotations

import pytest

from drivers.events import DISPLAY_READBACK, DISPLAY_SEGMENT, DrawShown, FaultRaised
from drivers.serial.display import draw_text
from test_serial_support import no_leaks, rig  # noqa: F401 - fixture

DRAWS = {1: ((1, 2, 3, 4), (5, 6, 7, 8)), 5: ((5, 6, 7, 8), (1, 2, 3, 4)), 3: ((3, 4, 5, 6), (7, 8, 1, 2))}


@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_show_and_read_back(transport: str) -> None:
    with rig("display", transport=transport) as r:
        r.driver.show("R1", "R1-D", 3, (3, 4, 5, 6), (7, 8, 1, 2))
        assert r.events(1) == [DrawShown("R1-D", 3, device="display")]
        assert r.emulator.showing == ("R1-D", "3456/7812")
        r.driver.clear()
        r.driver.show("R2", "R2-D", 1, (1, 2, 3, 4), (5, 6, 7, 8))
        assert r.events(1) == [DrawShown("R2-D", 1, device="display")]
        assert r.driver.health.ok


def test_readback_mismatch_names_the_combination_shown_and_faults_402() -> None:
    with rig("display", faults=["readback@show=2"], driver_kw={"draws": DRAWS}) as r:
        r.driver.show("R1", "R1-D", 3, *DRAWS[3])
        assert r.events(1)[0].shown == 3
        r.driver.show("R2", "R2-D", 1, *DRAWS[1])
        (event,) = r.events(1)
        assert event == DrawShown("R2-D", 5, device="display")  # the sets swapped: combination 5
        assert DISPLAY_READBACK in r.driver.health.faults
        assert not r.driver.health.ok
        r.driver.clear()  # the table voids the round and clears the display
        assert r.driver.health.ok


def test_readback_of_an_unknown_combination_is_zero() -> None:
    with rig("display", faults=["readback"]) as r:
        r.driver.show("R1", "R1-D", 1, (1, 2, 3, 4), (5, 6, 7, 8))
        assert r.events(1)[0].shown == 0


def test_segment_fault_instead_of_a_read_back() -> None:
    with rig("display", faults=["segment"]) as r:
        r.driver.show("R1", "R1-D", 1, (1, 2, 3, 4), (5, 6, 7, 8))
        (event,) = r.events(1)
        assert isinstance(event, FaultRaised) and (event.code, event.severity) == (DISPLAY_SEGMENT, "E")
        assert DISPLAY_SEGMENT in r.driver.health.faults
        r.driver.show("R2", "R2-D", 1, (1, 2, 3, 4), (5, 6, 7, 8))  # refused while faulted
        assert isinstance(r.events(1)[0], FaultRaised)
        r.driver._command("RST")  # the technician resets it
        assert sorted((type(e).__name__, e.code) for e in r.events(2)) == [
            ("FaultCleared", 102),  # the refused SHW's fault: a command went through
            ("FaultCleared", DISPLAY_SEGMENT),
        ]
        assert DISPLAY_SEGMENT not in r.driver.health.faults


def test_draw_text() -> None:
    assert draw_text((3, 4, 5, 6), (7, 8, 1, 2)) == "3456/7812"
    assert draw_text((10, 11), (1, 2)) == "10,11/12"
