"""CRC-16/CCITT-FALSE against published check values and an independent oracle."""

import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.tdl.crc import crc16


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"123456789", 0x29B1),  # the catalogue check value of CRC-16/CCITT-FALSE
        (b"", 0xFFFF),  # nothing processed: the init value
        (b"A", 0xB915),
        (b"01|00|HEL\x03", 0x7754),  # the example frame in docs/protocol.md
    ],
)
def test_known_vectors(data: bytes, expected: int) -> None:
    assert crc16(data) == expected


@given(st.binary(max_size=300))
def test_matches_stdlib_crc_hqx(data: bytes) -> None:
    # binascii.crc_hqx is the same polynomial, unreflected, with a given init.
    assert crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.binary(max_size=100), st.binary(max_size=100))
def test_can_continue_over_pieces(a: bytes, b: bytes) -> None:
    assert crc16(b, crc16(a)) == crc16(a + b)
