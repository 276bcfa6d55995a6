"""Fuzzing the line drivers' readers over a real pty: random bytes and
random lines (well framed, right checksum) never become events unless they
are a message the configuration describes, and never stop the reader."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events import CardRead
from drivers.lineproto.codec import LineDecoder
from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from line_support import quiet, raw_device, settings_of, spec_of, until
from examples import examples

SHOE = settings_of("fortune3-line", "shoe")
SPEC = spec_of("shoe", SHOE)
SENTINEL = SPEC.fmt.encode("C,7,D")


def messages_in(data: bytes) -> int:
    """How many lines of ``data`` really are one of the shoe's messages that report (its cards)."""
    n = 0
    for item in LineDecoder(SPEC.fmt).feed(data):
        if isinstance(item, str):
            m = next((m for m in SPEC.messages if m.pattern.fullmatch(item)), None)
            n += m is not None and m.event == "card"
    return n


@pytest.mark.property  # (its examples are drawn inside, on one open device)
def test_random_bytes_never_become_events_and_never_stop_the_reader():
    with raw_device("shoe", SHOE) as (shoe, port):
        shoe.arm("F1", 52)

        @settings(max_examples=examples(50))
        @given(st.binary(max_size=300) | st.lists(st.sampled_from([b"$", b"*", b"\r", b"\n", b"C,", b"Q,H", b"00"]),
                                                   max_size=40).map(b"".join))
        def feed(data: bytes) -> None:
            port.write(data + b"\r\n")  # ended, so the sentinel after it is a line of its own
            port.write(SENTINEL)
            events = until(shoe, lambda e: isinstance(e, CardRead) and e.card.code == "7D")
            # garbage piling up is the device's line-noise fault (103), never an event of its lines
            events = [e for e in events if getattr(e, "code", None) not in (103, 104)]
            assert len(events) - 1 == messages_in(data + b"\r\n"), events

        feed()
        assert all(t.is_alive() for t in shoe._threads)
        assert quiet(shoe, 0.1) == []


@pytest.mark.property  # (its examples are drawn inside, on one open device)
def test_random_framed_lines_become_events_only_when_a_pattern_takes_them():
    printable = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=40)
    with raw_device("shoe", SHOE) as (shoe, port):
        shoe.arm("F2", 52)

        @settings(max_examples=examples(50))
        @given(st.lists(printable | st.sampled_from(["C,Q,H", "C,10,S", "C,1,H", "E,201,misread", "K,201", "R,5"]),
                        max_size=5))
        def feed(lines: list[str]) -> None:
            data = b"".join(SPEC.fmt.encode(text) for text in lines if "$" not in text)
            port.write(data + SENTINEL)
            events = until(shoe, lambda e: isinstance(e, CardRead) and e.card.code == "7D")
            reported = [e for e in events[:-1]]
            taken = [t for t in lines if "$" not in t and any(m.pattern.fullmatch(t) for m in SPEC.messages)]
            assert len(reported) <= len(taken), (lines, events)  # nothing from a line no message describes

        feed()
        assert all(t.is_alive() for t in shoe._threads)
