"""The line drivers against their emulators and against a pty the test
plays itself, over real ptys and TCP: typed events in order, arm and
disarm, malformed and unknown lines never events, polling, link loss and
reconnection, command answers, refusals and timeouts."""

from __future__ import annotations

import socket

import pytest

from drivers.events import (
    DISPLAY_READBACK,
    DRAWN_WHILE_DISARMED,
    WHEEL_MOTION_IDLE,
    CardRead,
    DrawShown,
    FaultCleared,
    FaultRaised,
    LinkLost,
    LinkRestored,
    SpinResult,
)
from drivers.lineproto.checksum import xor8
from drivers.registry import open_device
from drivers.serial import COMMAND_NOT_DELIVERED, COMMAND_REFUSED
from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from line_support import Responder, emulated, quiet, raw_device, settings_of, spec_of, until, wait_events

SHOE = settings_of("fortune3-line", "shoe")
WHEEL = settings_of("wheel-line-turns", "wheel")  # a polled controller
DISPLAY = settings_of("football-line", "display")


def types(events) -> list[str]:
    return [type(e).__name__ for e in events]


def reports(events) -> list:
    """Events but the link's own (a loaded machine may starve a poll into a lost link)."""
    return [e for e in events if not isinstance(e, (LinkLost, LinkRestored))]


@pytest.mark.parametrize("tcp", [False, True], ids=["pty", "tcp"])
def test_a_shoe_deals_only_while_armed_and_in_order(tcp):
    with emulated("shoe", SHOE, tcp=tcp) as (shoe, emu, _):
        assert quiet(shoe, 0.2) == []
        shoe.arm("R1", 3)
        cards = wait_events(shoe, 3)
        assert [(c.round_id, c.index) for c in cards] == [("R1", 0), ("R1", 1), ("R1", 2)]
        assert all(isinstance(c, CardRead) for c in cards) and len({c.card for c in cards}) == 3
        shoe.disarm()
        assert quiet(shoe, 0.3) == [] and emu.count["card"] == 3
        shoe.arm("R1", 2)  # the same round armed again goes on with its indices
        assert [c.index for c in wait_events(shoe, 2)] == [3, 4]
        assert shoe.counts["malformed"] == shoe.counts["unknown"] == 0


def line(payload: str) -> bytes:
    return f"${payload}*{xor8(payload.encode()):02X}\r\n".encode()


def test_malformed_and_unknown_lines_are_logged_never_events_and_a_disarmed_card_is_204():
    with raw_device("shoe", SHOE) as (shoe, port):
        port.write(line("C,Q,H")[:-5] + b"00\r\n")  # a wrong checksum
        port.write(b"C,Q,H\r\n")  # no start character, no checksum
        port.write(line("Z,1"))  # a good line that is no message
        port.write(line("C,1,H"))  # a card line that is no card
        port.write(line("R,12"))  # the reader's keep-alive: no event
        port.write(line("C,Q,H"))  # a card, but the shoe is disarmed
        (fault,) = wait_events(shoe, 1)
        assert isinstance(fault, FaultRaised) and fault.code == DRAWN_WHILE_DISARMED and fault.card.code == "QH"
        assert fault.severity == "W"
        shoe.arm("R7", 3)
        port.write(line("C,10,S"))
        (card,) = wait_events(shoe, 1)
        assert isinstance(card, CardRead) and (card.round_id, card.index, card.card.code) == ("R7", 0, "TS")
        assert quiet(shoe, 0.2) == []
        assert (shoe.counts["malformed"], shoe.counts["unknown"], shoe.counts["refused"]) == (2, 2, 0)


def test_a_shoe_on_a_tcp_line_reconnects_after_the_line_is_cut():
    listener = socket.create_server(("127.0.0.1", 0))
    url = f"socket://127.0.0.1:{listener.getsockname()[1]}"
    try:
        shoe = open_device("shoe", "line", {**SHOE, "url": url, "reconnect": 0.1})
        try:
            first, _ = listener.accept()
            shoe.arm("R1", 5)
            first.sendall(line("C,A,S"))
            assert types(wait_events(shoe, 1)) == ["CardRead"]
            first.close()  # the serial server drops the connection
            assert types(until(shoe, lambda e: isinstance(e, LinkLost))) == ["LinkLost"]
            second, _ = listener.accept()
            assert types(until(shoe, lambda e: isinstance(e, LinkRestored))) == ["LinkRestored"]
            second.sendall(line("C,K,S"))
            (card,) = wait_events(shoe, 1)
            assert (card.index, card.card.code) == (1, "KS")  # no card lost, none twice
            second.close()
        finally:
            shoe.close()
    finally:
        listener.close()


def test_a_polled_wheel_reports_each_spin_once():
    with emulated("wheel", WHEEL) as (wheel, emu, _):
        wheel.arm("R1", 3, 60)
        events = reports(until(wheel, lambda e: isinstance(e, SpinResult)))
        assert types(events) == ["SpinStarted", "SpinResult"] and events[1].round_id == "R1"
        assert events[1].segment == emu.result[0] and events[1].turns == emu.result[1]
        assert events[1].direction == emu.result[2] == events[0].direction
        polls = emu.count["poll"]
        assert reports(quiet(wheel, 0.8)) == []  # the status keeps showing that result: taken once
        assert emu.count["poll"] > polls
        wheel.arm("R2", 3, 60)
        second = until(wheel, lambda e: isinstance(e, SpinResult))
        assert second[-1].round_id == "R2" and emu.spins == 2


def test_a_spin_while_the_wheel_is_disarmed_is_fault_506_never_a_result():
    status = {"spin": 4}
    spec = spec_of("wheel", WHEEL)
    with raw_device_answering("wheel", WHEEL, lambda l: [f"*X;1;{status['spin']};12;0;5;0"]) as (wheel, responder):
        status["spin"] = 5  # the wheel was spun while the sensor was idle
        fault = until(wheel, lambda e: isinstance(e, FaultRaised))[-1]
        assert fault.code == WHEEL_MOTION_IDLE and fault.severity == "W"
        assert reports(quiet(wheel, 0.5)) == []
        wheel.arm("R1", 3, 60)
        status["spin"] = 6
        events = reports(until(wheel, lambda e: isinstance(e, SpinResult)))
        assert types(events) == ["SpinStarted", "SpinResult"] and events[-1].segment == 12
        assert spec.poll_interval == 0.2 and responder.heard.count("*X") >= 3


def test_a_silent_wheel_is_a_lost_link_then_restored_and_rearmed():
    settings = {**WHEEL, "poll_misses": 3}
    with raw_device_answering("wheel", settings, lambda l: ["*X;1;1;3;0;5;0"]) as (wheel, responder):
        wheel.arm("R1", 3, 60)
        responder.silent = True
        lost = until(wheel, lambda e: isinstance(e, LinkLost))
        assert "polls unanswered" in lost[-1].reason and not wheel.health.link_up
        responder.silent = False
        assert types(until(wheel, lambda e: isinstance(e, LinkRestored)))[-1] == "LinkRestored"
        assert wheel.health.link_up


class raw_device_answering:
    """A raw pty whose device the test plays with ``answer`` from before the driver opens."""

    def __init__(self, kind, settings, answer):
        self.kind, self.settings, self.answer = kind, settings, answer

    def __enter__(self):
        from drivers.emulators.transport import PtyPort

        self.port = PtyPort()
        self.responder = Responder(self.port, spec_of(self.kind, self.settings), self.answer).__enter__()
        try:
            self.device = open_device(self.kind, "line", {**self.settings, "url": self.port.path})
        except BaseException:
            self.responder.__exit__()
            self.port.close()
            raise
        return self.device, self.responder

    def __exit__(self, *exc):
        self.device.close()
        self.responder.__exit__()
        self.port.close()


def test_a_display_shows_and_reads_back():
    with emulated("display", DISPLAY) as (display, emu, _):
        display.show("R1", "D1", 3, (3, 4, 5, 6), (7, 8, 1, 2))
        (shown,) = wait_events(display, 1)
        assert shown == DrawShown("D1", 3, device="display") and display.health.ok
        assert emu.showing == ("D1", "3456/7812")
        display.clear()
        assert emu.count["clear"] == 1 and display.health.ok


def test_a_read_back_of_another_draw_names_that_draw_and_is_fault_402():
    answers = {"SHOW D1 3456 7812": ["OK D1", "SHOWN D1 7812/3456"]}
    with raw_device_answering("display", DISPLAY, lambda l: answers.get(l, [])) as (display, _):
        display.learn_draws({3: ((3, 4, 5, 6), (7, 8, 1, 2)), 7: ((7, 8, 1, 2), (3, 4, 5, 6))})
        display.show("R1", "D1", 3, (3, 4, 5, 6), (7, 8, 1, 2))
        (shown,) = wait_events(display, 1)
        assert shown.shown == 7
        assert "reads back 7812/3456, 3456/7812 was sent" in display.health.faults[DISPLAY_READBACK]


def test_a_command_refused_is_102_unanswered_is_101_and_both_clear_when_one_goes_through():
    replies = {"mode": "refuse"}

    def answer(text: str) -> list[str]:
        if not text.startswith("SHOW"):
            return ["OK"]
        return {"refuse": ["ERR busy"], "mute": [], "ok": [f"OK {text.split()[1]}"]}[replies["mode"]]

    with raw_device_answering("display", DISPLAY, answer) as (display, _):
        display.show("R1", "D1", 3, (3,), (4,))
        (refused,) = wait_events(display, 1)
        assert (refused.code, refused.severity) == (COMMAND_REFUSED, "E") and "'ERR busy'" in refused.text
        replies["mode"] = "mute"
        display.show("R1", "D2", 3, (3,), (4,))
        (unanswered,) = wait_events(display, 1)
        assert unanswered.code == COMMAND_NOT_DELIVERED and "within 1 s (expected 'OK D2')" in unanswered.text
        replies["mode"] = "ok"
        display.show("R1", "D3", 3, (3,), (4,))
        cleared = wait_events(display, 2)
        assert sorted(e.code for e in cleared if isinstance(e, FaultCleared)) == [COMMAND_NOT_DELIVERED, COMMAND_REFUSED]
        assert display.health.faults == {}


def test_opening_a_polled_device_that_never_answers_fails_in_one_line():
    from drivers.emulators.transport import PtyPort
    from drivers.serial import DeviceUnavailable

    port = PtyPort()
    try:
        with pytest.raises(DeviceUnavailable, match=r"no line from the device on .* within 0.3 s of polling"):
            open_device("wheel", "line", {**WHEEL, "url": port.path, "identify": 0.3})
    finally:
        port.close()
