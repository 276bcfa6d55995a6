"""Fault injection for mock devices.

A fault fires when the device is about to deliver its ``after``-th item of
the round (0 = before the first), so a script can say "the shuffler jams
after 4 hands" or "the 6th card is misread".
"""

from __future__ import annotations

from dataclasses import dataclass

from tablecore.cards import Card

#: fault name -> the device kinds it applies to
FAULT_KINDS = {
    "jam": ("shuffler",),
    "misread": ("shoe", "shuffler"),
    "drawn_while_disarmed": ("shoe",),
    "duplicate": ("shoe", "shuffler"),
    "count_mismatch": ("shuffler",),
    # a hand of two or four cards: a misdeal the table catches (Art. 11(1))
    "short_hand": ("shuffler",),
    "long_hand": ("shuffler",),
}


@dataclass(frozen=True)
class MockFault:
    kind: str
    after: int = 0
    card: Card | None = None  # for drawn_while_disarmed: the card drawn

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r} (faults: {', '.join(FAULT_KINDS)})")
