"""The fault-spec grammar, the emulators' determinism and the launcher."""

from __future__ import annotations

import os

import pytest

from drivers.emulators import EMULATORS, make_emulator
from drivers.emulators.faults import FAULTS, FaultSpec, parse_fault
from drivers.emulators.launcher import running_emulators, split_faults
from drivers.events import CardRead
from drivers.registry import open_device
from test_serial_support import STEADY, no_leaks  # noqa: F401 - fixture


@pytest.mark.parametrize(
    "text, device, expected",
    [
        ("jam@hand=3", "shuffler", FaultSpec("jam", "hand", 3, None, "jam@hand=3")),
        ("misread@card=5", "shoe", FaultSpec("misread", "card", 5, None, "misread@card=5")),
        ("misread@hand=2", "shuffler", FaultSpec("misread", "hand", 2, None, "misread@hand=2")),
        ("silent@after=2s", "shoe", FaultSpec("silent", "after", 2.0, None, "silent@after=2s")),
        ("silent@after=250ms,for=1.5s", "wheel", FaultSpec("silent", "after", 0.25, 1.5, "silent@after=250ms,for=1.5s")),
        ("silent@frame=4,for=1", "display", FaultSpec("silent", "frame", 4, 1.0, "silent@frame=4,for=1")),
        ("crc@frame=4", "shoe", FaultSpec("crc", "frame", 4, None, "crc@frame=4")),
        ("drop@frame=6", "wheel", FaultSpec("drop", "frame", 6, None, "drop@frame=6")),
        ("readback", "display", FaultSpec("readback", "show", 1, None, "readback")),
        ("short-spin@spin=1", "wheel", FaultSpec("short-spin", "spin", 1, None, "short-spin@spin=1")),
        ("peg@spin=2", "wheel", FaultSpec("peg", "spin", 2, None, "peg@spin=2")),
        ("disagree", "wheel", FaultSpec("disagree", "spin", 1, None, "disagree")),
        ("power@card=4", "shoe", FaultSpec("power", "card", 4, 0.2, "power@card=4")),
        ("power", "wheel", FaultSpec("power", "spin", 1, 0.2, "power")),
        ("power@event=2,for=50ms", "display", FaultSpec("power", "event", 2, 0.05, "power@event=2,for=50ms")),
        ("disarmed", "shoe", FaultSpec("disarmed", "card", 0, None, "disarmed")),
        ("idle-motion@spin=3", "wheel", FaultSpec("idle-motion", "spin", 3, None, "idle-motion@spin=3")),
    ],
)
def test_grammar(text: str, device: str, expected: FaultSpec) -> None:
    assert parse_fault(text, device) == expected


@pytest.mark.parametrize(
    "text, device, message",
    [
        ("jam@hand=3", "shoe", "fault 'jam' does not apply to the shoe"),
        ("boom", None, "unknown fault 'boom'"),
        ("jam@hand", "shuffler", "'hand' is not key=value"),
        ("jam@hand=x", "shuffler", "hand must be a whole number"),
        ("jam@hand=0", "shuffler", "hand counts from 1"),
        ("jam@card=2", "shuffler", "unknown key 'card'"),
        ("crc@frame=1,for=2s", "shoe", "only silent and power take a duration"),
        ("silent@after=soon", "shoe", "'soon' is not a duration"),
        ("jam@hand=1,hand=2", "shuffler", "hand given twice"),
        ("Jam", None, "is not kind[@key=value,...]"),
    ],
)
def test_grammar_errors(text: str, device: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_fault(text, device)


def test_every_fault_kind_applies_to_some_emulator() -> None:
    for kind, (devices, _keys) in FAULTS.items():
        for device in devices:
            assert device in EMULATORS
            parse_fault(kind, device)


def test_split_faults() -> None:
    assert split_faults(["shoe:misread@card=2", "display:readback"], ["shoe", "display"]) == {
        "shoe": ["misread@card=2"], "display": ["readback"]}
    assert split_faults({"shoe": "disarmed"}, ["shoe"]) == {"shoe": ["disarmed"]}
    with pytest.raises(ValueError, match="must name its device"):
        split_faults(["readback"], ["display"])
    with pytest.raises(ValueError, match="not emulated here"):
        split_faults(["wheel:peg"], ["shoe"])


def test_launcher_runs_emulators_on_ptys_and_stops_them() -> None:
    with running_emulators(["shoe", "display", "wheel", "shuffler"], seed=1, time_scale=0, timing=STEADY,
                           faults=["shoe:misread@card=1"]) as urls:
        assert set(urls) == {"shoe", "display", "wheel", "shuffler"}
        assert all(os.path.exists(path) for path in urls.values())
        shoe = open_device("shoe", "serial", {"url": urls["shoe"], "timing": STEADY})
        try:
            shoe.load_shoe("P", 1)
            shoe.arm("R", 2)
            first, second = shoe.next_event(10), shoe.next_event(10)
            assert first.code == 201 and isinstance(second, CardRead)
        finally:
            shoe.close()
    # Stopped: no emulator thread and no pty descriptor is left (the leak check).


def test_launcher_refuses_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="no emulator for 'roulette'"):
        with running_emulators(["roulette"]):
            pass


def test_seeded_emulators_are_reproducible() -> None:
    def cards(seed: int) -> list[str]:
        emulator = make_emulator("shoe", seed=seed, decks=2)
        return [c.code for c in emulator.pack]

    assert cards(5) == cards(5) and cards(5) != cards(6)
    assert len(cards(5)) == 104


def test_emulator_refuses_bad_commands() -> None:
    from drivers.tdl import Frame

    shoe = make_emulator("shoe", seed=1)
    assert shoe._on_frame(Frame(2, 0, "ARM", ("R1",))) == "FMT"
    assert shoe._on_frame(Frame(2, 0, "ARM", ("R1", "x"))) == "FMT"
    assert shoe._on_frame(Frame(2, 0, "SHW", ())) == "UNK"
    assert shoe._on_frame(Frame(2, 0, "ARM", ("R1", "3"))) is None
    assert shoe._on_frame(Frame(2, 0, "LDS", ("P", "1"))) == "STA"  # not while armed
    shuffler = make_emulator("shuffler", seed=1)
    assert shuffler._on_frame(Frame(1, 0, "DLH", ("1", "3"))) == "STA"  # nothing loaded
    assert shuffler._on_frame(Frame(1, 0, "LDK", ("1", "52"))) is None
    assert shuffler._on_frame(Frame(1, 0, "SHF", ("BATCH", "S1"))) is None
    assert shuffler._on_frame(Frame(1, 0, "DLH", ("1", "3"))) == "BSY"  # shuffling
