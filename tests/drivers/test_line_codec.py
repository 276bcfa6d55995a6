"""Line framing and checksums: catalogue check values, round trips, and
every damaged or foreign line said to be malformed, never taken."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.lineproto.checksum import CHECKSUMS, CRC16, checksum, sum8, xor8
from drivers.lineproto.codec import BadLine, LineDecoder, LineFormat, Template, TemplateError


@pytest.mark.parametrize("name", sorted(CRC16))
def test_each_crc16_gives_its_catalogue_check_value(name):
    crc = CRC16[name]
    assert crc(b"123456789") == crc.check


def test_the_8_bit_sums():
    assert sum8(b"123456789") == 0xDD and xor8(b"123456789") == 0x31
    assert checksum("XOR-8").text(b"C,QH") == f"{xor8(b'C,QH'):02X}".encode()


def test_nmea_style_line_is_written_and_read_back():
    fmt = LineFormat(b"\r\n", b"$", checksum("xor-8"), b"*")
    wire = fmt.encode("C,Q,H")
    assert wire == b"$C,Q,H*" + f"{xor8(b'C,Q,H'):02X}".encode() + b"\r\n"
    assert LineDecoder(fmt).feed(wire[:3]) == []
    decoder = LineDecoder(fmt)
    assert decoder.feed(wire[:3]) + decoder.feed(wire[3:]) == ["C,Q,H"]


@pytest.mark.parametrize("damage, why", [
    (lambda w: w.replace(b"Q", b"K"), "does not match"),  # a flipped character
    (lambda w: w.replace(b"*", b"#"), "no xor-8 checksum"),
    (lambda w: w[1:], "no start character"),
    (lambda w: w.replace(b"Q", b"\x9a"), "not printable"),
])
def test_a_damaged_line_is_malformed(damage, why):
    fmt = LineFormat(b"\r\n", b"$", checksum("xor-8"), b"*")
    (item,) = LineDecoder(fmt).feed(damage(fmt.encode("C,Q,H")))
    assert isinstance(item, BadLine) and why in item.reason


def test_an_overlong_line_is_malformed_once_and_the_next_line_is_read():
    fmt = LineFormat(b"\n", max_length=16)
    items = LineDecoder(fmt).feed(b"x" * 100 + b"\nOK\n")
    assert [type(i).__name__ for i in items] == ["BadLine", "str"] and items[1] == "OK"


@given(st.sampled_from(sorted(CHECKSUMS)), st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60),
       st.sampled_from([b"\r\n", b"\n", b"\r", b"\x03"]), st.sampled_from([b"", b"$", b"\x02"]))
def test_any_printable_payload_round_trips(name, payload, terminator, start):
    fmt = LineFormat(terminator, start, checksum(name), b";" if CHECKSUMS[name].digits else b"", max_length=200)
    if not payload.strip("\r\n") or (start and start.decode() in payload):
        return
    assert LineDecoder(fmt).feed(fmt.encode(payload)) == [payload]


@given(st.binary(max_size=300))
def test_random_bytes_never_pass_a_crc16_line_unnoticed(data):
    fmt = LineFormat(b"\r\n", b"$", checksum("crc-16/modbus"), b"*")
    for item in LineDecoder(fmt).feed(data):
        if isinstance(item, str):  # only if the bytes really were a line with its right CRC
            assert fmt.encode(item) in data


def test_templates_render_and_read_back_their_fields():
    t = Template("SHOW {draw_id} {upper} {lower}", ("draw_id", "upper", "lower"))
    line = t.render({"draw_id": "D7", "upper": "3456", "lower": "7812"})
    assert line == "SHOW D7 3456 7812" and t.match(line) == {"draw_id": "D7", "upper": "3456", "lower": "7812"}
    with pytest.raises(TemplateError, match="unknown field"):
        Template("ARM {round}", ("round_id",))
