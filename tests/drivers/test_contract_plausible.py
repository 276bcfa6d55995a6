"""``devices check`` judges the sense of what a device reports, not only its
shape: each implausible device below keeps every other check and fails
"plausible reports" with its reason named."""

from __future__ import annotations

from decimal import Decimal

from drivers.base import CardShoeReader, WheelSensor
from drivers.contract import CHECKS, check_device
from drivers.events import CardRead, SpinResult, SpinStarted
from tablecore.cards import DECK


class Wheel(WheelSensor):
    """A wheel that spins at once when armed, reporting what it is given."""

    def __init__(self, turns: str = "5", segment: int = 7) -> None:
        super().__init__("wheel")
        self.turns, self.segment, self.pending = Decimal(turns), segment, []

    def arm(self, round_id, min_turns, max_seconds):
        self.pending = [SpinStarted(round_id, "CW", device="wheel"),
                        SpinResult(round_id, self.segment, self.turns, "CW", "field", device="wheel")]

    def disarm(self):
        self.pending = []

    def next_event(self, timeout=0.0):
        return self.pending.pop(0) if self.pending else None


class Shoe(CardShoeReader):
    """A shoe dealing from one deck; ``repeat``: each card read twice (a repeated frame taken as a card)."""

    def __init__(self, repeat: bool = False) -> None:
        super().__init__("shoe")
        self.deck, self.pending, self.repeat = iter(DECK), [], repeat

    def load_shoe(self, shoe_id, decks):
        pass

    def arm(self, round_id, max_cards):
        self.pending, index = [], 0
        while len(self.pending) < 3:
            card = next(self.deck)
            for _ in range(2 if self.repeat else 1):
                self.pending.append(CardRead(round_id, index, card, device="shoe"))
                index += 1

    def disarm(self):
        self.pending = []

    def next_event(self, timeout=0.0):
        return self.pending.pop(0) if self.pending else None


class Mute(Shoe):
    """A shoe whose lines are read (it answers) but which never reports a card."""

    def __init__(self) -> None:
        super().__init__()
        self.counts = {"lines": 0}

    def arm(self, round_id, max_cards):
        self.counts["lines"] += 4

    def next_event(self, timeout=0.0):
        return None


def plausible(device, kind, **kw):
    outcome = check_device(device, kind, wait=0.2, **kw)[-1]
    assert outcome.check == CHECKS[6]
    return outcome


def test_a_wheel_that_never_reports_turns_above_0_fails():
    assert plausible(Wheel(), "wheel", segments=52).status == "pass"
    outcome = plausible(Wheel("0"), "wheel", segments=52)
    assert outcome.status == "fail" and "never reports turns above 0" in outcome.detail


def test_a_result_outside_the_layout_fails():
    outcome = plausible(Wheel(segment=60), "wheel", segments=52)
    assert outcome.status == "fail" and "outside the layout's segments 0-51: [60" in outcome.detail


def test_a_shoe_reading_the_same_card_twice_in_a_row_fails():
    assert plausible(Shoe(), "shoe").status == "pass"
    outcome = plausible(Shoe(repeat=True), "shoe")
    assert outcome.status == "fail" and "the same card twice in a row within a round" in outcome.detail


def test_a_device_that_answers_but_never_changes_state_fails():
    outcome = plausible(Mute(), "shoe")
    assert outcome.status == "fail" and "answers but never changes state" in outcome.detail
