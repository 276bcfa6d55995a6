"""The serial card-shoe reader against the shoe emulator, end to end over a
pty and over socket://127.0.0.1: deals, faults, link loss, power loss."""

from __future__ import annotations

import time

import pytest

from drivers.events import (
    DRAWN_WHILE_DISARMED,
    MISREAD,
    CardRead,
    FaultCleared,
    FaultRaised,
    LinkLost,
    LinkRestored,
    ShoeCount,
    ShoeEmpty,
)
from drivers.tdl import Frame, NakReason
from drivers.serial import COMMAND_NOT_DELIVERED, COMMAND_REFUSED, DeviceUnavailable, SerialShoe
from tablecore.cards import DECK
from test_serial_support import FAST, no_leaks, rig, types, wait_for  # noqa: F401 - fixture


@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_a_full_deal_from_a_seeded_shoe(transport: str) -> None:
    with rig("shoe", transport=transport, seed=3) as r:
        assert r.driver.identity is not None and r.driver.identity["protocol"] == "TDL/1"
        assert r.driver.health.ok
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 52)
        events = r.events(56)  # 52 cards, a count after every 13th
        cards = [e for e in events if isinstance(e, CardRead)]
        counts = [e for e in events if isinstance(e, ShoeCount)]
        assert [c.index for c in cards] == list(range(52))
        assert {c.round_id for c in cards} == {"R1"}
        assert sorted(c.card.index for c in cards) == [c.index for c in DECK]  # one whole deck, each card once
        assert [(c.shoe_id, c.dealt, c.remaining) for c in counts] == [("P1", 13 * k, 52 - 13 * k) for k in (1, 2, 3, 4)]
        assert types(r.until(lambda e: isinstance(e, ShoeEmpty))) == ["ShoeEmpty"]
        r.driver.disarm()
        assert r.driver.health.ok


def test_the_same_seed_deals_the_same_cards() -> None:
    def deal() -> list[str]:
        with rig("shoe", seed=99) as r:
            r.driver.load_shoe("P", 1)
            r.driver.arm("R", 6)
            return [e.card.code for e in r.events(6)]

    assert deal() == deal()


def test_cards_come_only_while_armed_and_up_to_max_cards() -> None:
    with rig("shoe") as r:
        r.driver.load_shoe("P1", 1)
        assert r.quiet(0.2) == []  # disarmed: nothing
        r.driver.arm("R1", 3)
        assert [e.index for e in r.events(3)] == [0, 1, 2]
        assert r.quiet(0.2) == []  # max-cards reached: the dealer waits
        r.driver.arm("R1", 2)  # armed again for the same round: the indices go on
        assert [e.index for e in r.events(2)] == [3, 4]
        r.driver.disarm()
        r.driver.arm("R2", 2)  # a new round starts at index 0
        assert [(e.round_id, e.index) for e in r.events(2)] == [("R2", 0), ("R2", 1)]


def test_misread_is_a_fault_with_the_guess_and_takes_its_index() -> None:
    with rig("shoe", faults=["misread@card=2"]) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 4)
        events = r.events(4)
        assert types(events) == ["CardRead", "FaultRaised", "CardRead", "CardRead"]
        fault = events[1]
        assert (fault.code, fault.severity, fault.card is not None) == (MISREAD, "E", True)
        assert [e.index for e in events if isinstance(e, CardRead)] == [0, 2, 3]
        assert MISREAD in r.driver.health.faults
        r.driver.disarm()
        r.driver.arm("R2", 1)  # the next round clears the misread
        assert types(r.events(2)) == ["FaultCleared", "CardRead"]
        assert r.driver.health.faults == {}


def test_exposed_card_comes_face_up() -> None:
    with rig("shoe", faults=["exposed@card=2"]) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 3)
        assert [e.exposed for e in r.events(3)] == [False, True, False]


def test_card_drawn_while_disarmed_is_a_flagged_fault_never_a_card() -> None:
    with rig("shoe", faults=["disarmed"]) as r:
        r.driver.load_shoe("P1", 1)
        (event,) = r.events(1)
        assert isinstance(event, FaultRaised)
        assert (event.code, event.severity) == (DRAWN_WHILE_DISARMED, "W")
        assert event.card is not None
        r.driver.arm("R1", 2)
        events = r.events(3)
        assert types(events) == ["FaultCleared", "CardRead", "CardRead"]
        assert event.card not in [e.card for e in events[1:]]


def test_a_card_the_host_refuses_after_disarming_becomes_fault_204() -> None:
    with rig("shoe", time_scale=0.1, card_interval=0.5) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 10)
        r.driver.armed = False  # the host has decided; its DRM has not gone out yet
        events = r.events(1, timeout=4)
        assert isinstance(events[0], FaultRaised) and events[0].code == DRAWN_WHILE_DISARMED
        assert events[0].card is not None
        assert events[0].shoe_id == "P1"  # the pack it came from, however late the table handles it
        r.driver.disarm()
        r.driver.load_shoe("P2", 1)
        assert r.driver.fault_source(DRAWN_WHILE_DISARMED, None) == "P2"
        assert [e for e in r.quiet(0.3) if isinstance(e, CardRead)] == []


@pytest.mark.parametrize("fault", ["crc@frame=3", "drop@frame=3", "crc@frame=1", "drop@frame=4"])
def test_damaged_or_lost_frames_are_resent_and_delivered_once(fault: str) -> None:
    with rig("shoe", faults=[fault], seed=5) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 5)
        events = r.events(5)
        assert [e.index for e in events] == [0, 1, 2, 3, 4]
        assert r.quiet(0.2) == []
        assert r.driver.health.ok
        assert r.emulator.plan.specs == []  # the fault did fire


def test_silence_is_link_lost_then_restored_and_no_card_is_lost() -> None:
    with rig("shoe", faults=["silent@frame=3,for=0.6s"], time_scale=0.0, timing=FAST) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 4)
        events = r.until(lambda e: isinstance(e, LinkLost))
        assert r.driver.health.link_up is False
        assert "heartbeats missed" in events[-1].reason
        events += r.until(lambda e: isinstance(e, LinkRestored), timeout=3)
        while len([e for e in events if isinstance(e, CardRead)]) < 4:
            events += r.events(1, timeout=4)
        cards = [e for e in events if isinstance(e, CardRead)]
        assert [c.index for c in cards] == [0, 1, 2, 3]  # none lost, none twice
        wait_for(lambda: r.driver.health.link_up)
        links = [type(e).__name__ for e in events + r.quiet(0.2) if isinstance(e, (LinkLost, LinkRestored))]
        assert links[0] == "LinkLost" and links[-1] == "LinkRestored"  # (a busy machine may flap once more)


def test_power_loss_replays_without_duplicates() -> None:
    with rig("shoe", faults=["power@card=3,for=0.1s"], seed=8, timing=FAST) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 6)
        events = r.until(lambda e: isinstance(e, CardRead) and e.index == 5, timeout=5)
        cards = [e for e in events if isinstance(e, CardRead)]
        assert [c.index for c in cards] == [0, 1, 2, 3, 4, 5]  # card 3 (index 2) once
        assert len({c.card for c in cards}) == 6
        assert "LinkLost" in types(events) and "LinkRestored" in types(events)
        assert r.emulator.power_losses == 1 and r.driver.power_losses == 1
        assert r.driver.boot == 2
        assert r.driver.health.ok
        assert r.quiet(0.2) == []


def test_power_loss_before_a_card_was_taken_replays_it_once() -> None:
    # power@event: the shoe loses power right after its 4th event (IDN=1, cards 2..)
    with rig("shoe", faults=["power@event=3,for=0.05s"], timing=FAST) as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 4)
        events = r.until(lambda e: isinstance(e, CardRead) and e.index == 3, timeout=5)
        assert [e.index for e in events if isinstance(e, CardRead)] == [0, 1, 2, 3]


def test_a_command_the_device_refuses_is_a_fault_event_not_an_exception() -> None:
    with rig("shoe") as r:
        r.driver.load_shoe("P1", 1)
        r.driver.arm("R1", 1)
        r.events(1)
        r.driver.load_shoe("P2", 1)  # loading while armed: NAK|STA
        (event,) = r.events(1)
        assert isinstance(event, FaultRaised) and event.code == COMMAND_REFUSED
        assert "LDS" in event.text and COMMAND_REFUSED in r.driver.health.faults
        r.driver.disarm()
        (cleared,) = r.events(1)
        assert isinstance(cleared, FaultCleared) and cleared.code == COMMAND_REFUSED
        assert r.driver.health.ok


def test_a_command_to_a_dead_device_is_fault_101_and_link_lost() -> None:
    with rig("shoe", timing=FAST) as r:
        r.emulator.stop()  # the device is gone; its pty is still there
        r.driver.arm("R1", 3)
        events = r.until(lambda e: isinstance(e, FaultRaised))
        assert events[-1].code == COMMAND_NOT_DELIVERED
        wait_for(lambda: not r.driver.health.link_up)


def test_opening_a_missing_port_is_one_line() -> None:
    shoe = SerialShoe("/dev/does-not-exist-tdl", timing=FAST)
    with pytest.raises(DeviceUnavailable) as info:
        shoe.open()
    assert "\n" not in str(info.value) and "/dev/does-not-exist-tdl" in str(info.value)


def test_a_silent_port_fails_open_after_hel() -> None:
    shoe = SerialShoe("loop://", timing=FAST, identify_timeout=0.2)
    with pytest.raises(DeviceUnavailable) as info:
        shoe.open()
    assert "HEL" in str(info.value) or "IDN" in str(info.value)


def test_close_twice_and_next_event_after_close() -> None:
    with rig("shoe") as r:
        r.driver.close()
        r.driver.close()
        assert r.driver.next_event(None) is None  # a blocked reader is released
        assert r.driver.health.link_up is False


def test_driver_reconnects_when_the_tcp_connection_drops() -> None:
    with rig("shoe", transport="socket", driver_kw={"reconnect_interval": 0.1}, timing=FAST) as r:
        r.driver.load_shoe("P1", 1)
        r.server._replace(None)  # the emulator hangs up
        events = r.until(lambda e: isinstance(e, LinkLost))
        assert "transport" in events[-1].reason
        r.until(lambda e: isinstance(e, LinkRestored), timeout=4)
        r.driver.arm("R1", 2)
        assert [e.index for e in r.until(lambda e: isinstance(e, CardRead) and e.index == 1)
                if isinstance(e, CardRead)] == [0, 1]
        time.sleep(0.05)


def test_a_refused_card_of_the_round_before_is_reported_with_that_round_s_pack() -> None:
    """A CRD of round R1 that reaches the host only after it loaded pack P2 and
    armed R2 (the reader resent it after a slow ACK) is refused; the reader
    then reports the card as drawn while disarmed. That card came out of P1,
    and the fault report says so, so the table does not count it in P2 (where
    the same card is still to come). Frames are fed as the link session
    hands them over (``_on_frame``), with the arming the host's commands
    left behind."""
    driver = SerialShoe(None)
    with driver._lock:
        driver._pack, driver.round_id = "P1", "R1"
        driver._round_pack["R1"] = "P1"
        # R1 ended, P2 was loaded and R2 armed
        driver._pack, driver.round_id, driver.armed = "P2", "R2", True
        driver._round_pack["R2"] = "P2"
    assert driver._on_frame(Frame(2, 8, "CRD", ("R1", "7", "J", "S", "D"))) == NakReason.STA
    assert driver._on_frame(Frame(2, 9, "FLT", ("204", "W", "card drawn while the shoe was disarmed", "JS"))) is None
    event = driver._events.get_nowait()
    assert isinstance(event, FaultRaised) and event.code == DRAWN_WHILE_DISARMED
    assert (event.card.code, event.shoe_id) == ("JS", "P1")
    # a card drawn while disarmed that no refused CRD announced comes from the pack loaded now
    assert driver._on_frame(Frame(2, 10, "FLT", ("204", "W", "card drawn while the shoe was disarmed", "QH"))) is None
    assert driver._events.get_nowait().shoe_id == "P2"
