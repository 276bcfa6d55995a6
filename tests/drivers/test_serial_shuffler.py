"""The serial shuffler against the shuffler emulator, over a pty and a socket."""

from __future__ import annotations

import pytest

from drivers.events import MISREAD, SHUFFLER_JAM, FaultCleared, FaultRaised, HandDispensed, ShuffleDone
from drivers.serial import COMMAND_REFUSED
from test_serial_support import FAST, no_leaks, rig, types  # noqa: F401 - fixture


@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_shuffle_then_hands(transport: str) -> None:
    with rig("shuffler", transport=transport, seed=4) as r:
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        (done,) = r.events(1)
        assert done == ShuffleDone("SH1", 52, True, device="shuffler")
        for hand in range(1, 8):
            r.driver.deal_hand(hand, 3)
        r.driver.deal_hand(8, 1)  # a replacement card for an exposed dealer card
        hands = r.events(8)
        assert [h.hand_no for h in hands] == [1, 2, 3, 4, 5, 6, 7, 8]
        assert [len(h.cards) for h in hands] == [3] * 7 + [1]
        dealt = [c for h in hands for c in h.cards]
        assert len(set(dealt)) == 22  # never the same card twice from one deck
        assert r.driver.health.ok


def test_a_hand_before_the_shuffle_is_refused() -> None:
    with rig("shuffler") as r:
        r.driver.load(1, 52)
        r.driver.deal_hand(1, 3)  # not shuffled: NAK|STA
        (event,) = r.events(1)
        assert isinstance(event, FaultRaised) and event.code == COMMAND_REFUSED and "DLH" in event.text
        assert r.quiet(0.2) == []  # and no hand comes


def test_jam_stops_the_hands_and_is_cleared_by_a_reload() -> None:
    with rig("shuffler", faults=["jam@hand=2"]) as r:
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        r.events(1)
        for hand in (1, 2):
            r.driver.deal_hand(hand, 3)
        events = r.events(2)
        assert types(events) == ["HandDispensed", "FaultRaised"]
        assert (events[1].code, events[1].severity) == (SHUFFLER_JAM, "E")
        assert r.driver.health.faults == {SHUFFLER_JAM: "card jam while dispensing"}
        assert r.quiet(0.2) == []
        r.driver.deal_hand(3, 3)  # jammed: refused, no hand
        assert [e.code for e in r.events(1)] == [COMMAND_REFUSED]
        assert r.quiet(0.2) == []
        r.driver.abort()
        r.driver.load(1, 52)
        r.driver.shuffle("SH2")
        events = r.events(3)
        assert FaultCleared(SHUFFLER_JAM, device="shuffler") in events
        assert SHUFFLER_JAM not in r.driver.health.faults


def test_misread_loses_the_hand() -> None:
    with rig("shuffler", faults=["misread@hand=1"]) as r:
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        r.events(1)
        r.driver.deal_hand(1, 3)
        r.driver.deal_hand(2, 3)
        events = r.events(2)
        assert isinstance(events[0], FaultRaised) and events[0].code == MISREAD
        assert isinstance(events[1], HandDispensed) and events[1].hand_no == 2


def test_count_mismatch_is_reported_by_the_shuffle() -> None:
    with rig("shuffler", faults=["count@shuffle=1"]) as r:
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        assert r.events(1)[0] == ShuffleDone("SH1", 51, False, device="shuffler")


def test_power_loss_while_dispensing_delivers_each_hand_once() -> None:
    with rig("shuffler", faults=["power@hand=2,for=0.05s"], timing=FAST) as r:
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        r.events(1)
        r.driver.deal_hand(1, 3)
        r.driver.deal_hand(2, 3)
        events = r.until(lambda e: isinstance(e, HandDispensed) and e.hand_no == 2)
        events += r.quiet(0.3)
        assert [e.hand_no for e in events if isinstance(e, HandDispensed)] == [1, 2]
        assert types(events)[-2:] == ["LinkLost", "LinkRestored"]  # the power loss, reported once
        assert r.driver.power_losses == 1


def test_the_shuffler_never_tells_the_order_inside() -> None:
    with rig("shuffler") as r:
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        r.events(1)
        r.driver._command("STA")
        r.driver._command("SLF")
        r.quiet(0.2)
        status = r.driver.status
        assert status == ("READY", "", "1", "52")  # state, faults, decks, how many: never which
        assert r.driver.self_test == []


def test_hands_asked_for_during_the_shuffle_are_dispensed_after_it() -> None:
    with rig("shuffler", time_scale=0.01) as r:  # a 0.25 s shuffle
        r.driver.load(1, 52)
        r.driver.shuffle("SH1")
        r.driver.deal_hand(1, 3)
        r.driver.deal_hand(2, 3)
        events = r.events(3)
        assert types(events) == ["ShuffleDone", "HandDispensed", "HandDispensed"]
        assert r.driver.health.ok
