"""Line devices as they behave on the market, line by line through the
driver's own reader code (``_line``: the bytes of one line, as the port
delivered them), with the driver's clock in the test's hands: an
SS2-shaped wheel controller (rotor speed, wrapping counter, warning flags,
a bare winning number), an index-mark sensor, a controller that judges the
spin, and a shoe that repeats and garbles frames."""

from __future__ import annotations

from decimal import Decimal as D

from drivers.events import CardRead, FaultCleared, FaultRaised, InvalidSpin, Revolution, SpinResult, SpinStarted
from drivers.lineproto.kinds import LineShoe, LineWheel
from drivers.lineproto.spec import line_settings
from line_support import settings_of
from tablecore.validate import Reader


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def device(config: str, kind: str):
    """The configuration's driver, not opened: lines are handed to its reader code."""
    settings = line_settings(kind, Reader({**settings_of(config, kind), "url": "loop://"}, f"devices.{kind}"))
    dev = {"wheel": LineWheel, "shoe": LineShoe}[kind](**settings)
    dev.clock = Clock()
    return dev


def feed(dev, *lines: bytes, step: float = 0.0) -> list:
    for line in lines:
        dev._line(line)
        dev.clock.now += step
    out = []
    while (event := dev.next_event(0)) is not None:
        out.append(event)
    return out


def ss2(state: int, counter: int, number: int, flags: int = 0, speed: int = 0, direction: int = 0) -> bytes:
    return f"*X;{state};{counter:03d};{number:>2};{flags:02X};{speed};{direction}".encode()


def test_the_first_spin_after_opening_is_taken_and_an_old_result_is_not():
    wheel = device("wheel-line", "wheel")
    assert feed(wheel, ss2(5, 41, 9)) == []  # what the controller showed before: an old result
    wheel.arm("R1", 3, 60)
    assert feed(wheel, ss2(5, 41, 9)) == []  # shown again after the arming: still the old one
    events = feed(wheel, ss2(3, 41, 9, speed=300), ss2(5, 42, 30), step=0.5)
    assert [type(e) for e in events] == [SpinStarted, SpinResult] and events[1].segment == 30
    # heard for the first time in motion after the arming: the result that follows is this spin's
    fresh = device("wheel-line", "wheel")
    fresh.arm("R1", 3, 60)
    events = feed(fresh, ss2(3, 77, 9, speed=300), ss2(5, 78, 5), step=0.5)
    assert [type(e) for e in events] == [SpinStarted, SpinResult]
    # the counter wraps 256 -> 001 and is still a new spin
    wheel2 = device("wheel-line", "wheel")
    wheel2.arm("R1", 3, 60)
    events = feed(wheel2, ss2(2, 256, 9), ss2(3, 256, 9, speed=300), ss2(5, 1, 17), step=0.5)
    assert [type(e) for e in events] == [SpinStarted, SpinResult] and events[1].segment == 17


def test_rotor_speed_is_integrated_over_the_motion_with_its_error():
    wheel = device("wheel-line", "wheel")
    feed(wheel, ss2(2, 7, 3), step=0.5)
    wheel.arm("R1", 3, 60)
    speeds = [600, 500, 400, 300, 200, 100]  # rpm x 10, every 0.5 s
    lines = [ss2(2, 7, 3), *[ss2(3 if s > 300 else 4, 7, 3, speed=s) for s in speeds], ss2(5, 8, 12)]
    wheel.clock.now -= 0.5  # the rest sample before the motion is the one at 0 rpm
    events = feed(wheel, *lines, step=0.5)
    result = events[-1]
    # trapezoids: 105 rpm x s = 1.75 turns; lower sum 75 rpm x s, plus half the 0.1 rpm
    # resolution over 3.5 s: (105 - 75 + 0.175) / 60 = 0.503 -> 0.51 (never rounded down)
    assert isinstance(result, SpinResult) and result.turns_source == "rotor_speed"
    assert (result.turns, result.turns_error) == (D("1.75"), D("0.51"))
    assert result.segment == 12 and result.direction == "CW"


def test_the_controllers_no_spin_flag_is_a_no_spin_and_its_warning_bits_are_faults():
    wheel = device("wheel-line", "wheel")
    feed(wheel, ss2(2, 7, 3))
    wheel.arm("R1", 3, 60)
    events = feed(wheel, ss2(3, 7, 3, speed=200), ss2(5, 8, 12, flags=0x10), step=0.5)
    assert isinstance(events[-1], InvalidSpin) and events[-1].reason == "device_no_spin"
    events = feed(wheel, ss2(5, 8, 12, flags=0x01))
    assert events == [FaultRaised(501, "E", "ball/pointer not detected", device="wheel")]
    assert feed(wheel, ss2(5, 8, 12, flags=0x01)) == []  # shown again: the same fault
    assert feed(wheel, ss2(5, 8, 12, flags=0x00)) == [FaultCleared(501, device="wheel")]
    unknown = feed(wheel, ss2(5, 8, 12, flags=0x40))
    assert [(e.code, "0x40" in e.text) for e in unknown] == [(509, True)]


def test_the_bare_winning_number_is_declared_and_never_malformed():
    wheel = device("wheel-line", "wheel")
    assert feed(wheel, b"17", b" 7") == []
    assert wheel.counts["malformed"] == 0 and wheel.counts["unknown"] == 0


def test_index_passes_are_counted_between_the_start_and_the_result_and_vendor_letters_mapped():
    wheel = device("wheel-line-index", "wheel")
    idle = feed(wheel, b"R", b"S;4;0")  # idle: no arming, nothing counted, never a result
    assert [e.code for e in idle] == [506]
    wheel.arm("R1", 3, 60)
    events = feed(wheel, b"G", *[b"R"] * 5, b"S;12;1")
    assert [e.n for e in events if isinstance(e, Revolution)] == [1, 2, 3, 4, 5]
    result = events[-1]
    assert (result.turns, result.turns_error, result.turns_source, result.direction) == (D(5), D(1), "revolutions", "CCW")
    assert feed(wheel, b"F;I") == [FaultRaised(501, "E", "index mark not seen", device="wheel")]
    assert feed(wheel, b"K;I") == [FaultCleared(501, device="wheel")]
    unknown = feed(wheel, b"F;Z")
    assert unknown[0].code == 509 and "'Z'" in unknown[0].text


def test_a_controller_that_judges_the_spin_says_no_spin_by_its_state():
    wheel = device("wheel-line-judged", "wheel")
    feed(wheel, b"*W;1;010; 3;0")
    wheel.arm("R1", 3, 60)
    events = feed(wheel, b"*W;3;010; 3;0", b"*W;7;011; 3;0")
    assert isinstance(events[-1], InvalidSpin) and events[-1].turns_source == "controller"
    wheel.arm("R1", 3, 60)
    events = feed(wheel, b"*W;3;011; 3;0", b"*W;5;012;22;1")
    assert events[-1] == SpinResult("R1", 22, D(3), "CCW", "controller", D(0), device="wheel")


def test_stray_bytes_before_a_frame_are_noise_and_a_repeated_frame_is_one_read():
    shoe = device("fortune3-line-codes", "shoe")
    shoe.arm("R1", 6)
    events = feed(shoe, b"\x00\xfeA01", b"A01", step=0.1)  # glued noise; the frame again 0.1 s later
    assert [(e.index, e.card.code) for e in events] == [(0, "AS")]
    assert shoe.counts["noise"] == 1 and shoe.counts["duplicates"] == 1
    assert shoe.health.counts["duplicates"] == 1  # in the device's status
    assert [e.card.code for e in feed(shoe, b"H12A01H12")] == ["QH"]  # its first frame's characters repeated
    shoe.clock.now += 1.0
    assert [e.index for e in feed(shoe, b"H12")] == [2]  # the same code outside the window: a second card
    shoe.arm("R1", 6)
    assert [e.index for e in feed(shoe, b"H12")] == [3]  # after an arm: a real card of another deck
    assert feed(shoe, b"\x00\xfe") == [] and shoe.counts["malformed"] == 1  # garbage alone: never a card


def test_a_vendor_fault_code_of_a_shoe_is_the_tables_and_an_unknown_one_named_by_its_value():
    shoe = device("fortune3-line-codes", "shoe")
    assert feed(shoe, b"E2") == [FaultRaised(202, "E", "two cards drawn together", device="shoe")]
    unknown = feed(shoe, b"E9")
    assert unknown[0].code == 209 and "'9'" in unknown[0].text


def test_garbage_and_a_flood_are_named_faults_of_the_device_never_cards():
    shoe = device("fortune3-line-codes", "shoe")
    shoe.arm("R1", 6)
    events = feed(shoe, *[b"\x00\xfe"] * 6, step=0.5)  # six lines of garbage within 10 s
    assert [(e.code, e.severity) for e in events] == [(103, "W")] and "6 malformed lines" in events[0].text
    shoe.clock.now += 11  # ten seconds of clean lines: the noise is over
    cleared = feed(shoe, b"A01")
    assert cleared[0] == FaultCleared(103, device="shoe") and cleared[1].card.code == "AS"
    flood = feed(shoe, *[b"Z99"] * 201)  # far more lines than a reader writes in a second
    assert [e.code for e in flood] == [104] and not any(isinstance(e, CardRead) for e in flood)
