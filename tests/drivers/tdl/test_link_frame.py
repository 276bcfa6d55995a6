"""The frame codec: exact bytes, refusals, round trips, single-bit damage."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.tdl.crc import crc16
from drivers.tdl.errors import FrameError, NakReason
from drivers.tdl.frame import MAX_FRAME_LEN, Frame, decode, encode

HEL = b"\x0201|00|HEL\x037754\r\n"
CRD = b"\x0202|1F|CRD|R1|3|A|S|U\x03AFF6\r\n"


def framed(body: bytes) -> bytes:
    """A frame around ``body`` with a correct CRC, whatever the body holds."""
    payload = body + b"\x03"
    return b"\x02" + payload + b"%04X\r\n" % crc16(payload)


def test_encode_examples() -> None:
    assert encode(Frame(1, 0, "HEL")) == HEL
    assert encode(Frame(2, 0x1F, "CRD", ("R1", "3", "A", "S", "U"))) == CRD


def test_decode_examples() -> None:
    assert decode(HEL) == Frame(1, 0, "HEL")
    assert decode(CRD) == Frame(2, 0x1F, "CRD", ("R1", "3", "A", "S", "U"))


def test_empty_fields_are_kept_apart_from_no_fields() -> None:
    assert decode(encode(Frame(1, 1, "ACK"))).fields == ()
    assert decode(encode(Frame(1, 1, "HDO", ("", "")))).fields == ("", "")
    assert encode(Frame(1, 1, "HDO", ("",))).startswith(b"\x0201|01|HDO|\x03")


def test_fields_given_as_a_list_become_a_tuple() -> None:
    frame = Frame(1, 2, "SHW", ["a", "b"])  # type: ignore[arg-type]
    assert frame.fields == ("a", "b")
    assert hash(frame) == hash(Frame(1, 2, "SHW", ("a", "b")))


@pytest.mark.parametrize(
    "frame",
    [
        Frame(1, 0, "ACk"),
        Frame(1, 0, "AC"),
        Frame(1, 0, "ACKS"),
        Frame(256, 0, "ACK"),
        Frame(1, -1, "ACK"),
        Frame(True, 0, "ACK"),  # type: ignore[arg-type]
        Frame(1, 0, "SHW", ("a|b",)),
        Frame(1, 0, "SHW", ("line\n",)),
        Frame(1, 0, "SHW", ("caf\u00e9",)),
        Frame(1, 0, "SHW", (7,)),  # type: ignore[arg-type]
        Frame(1, 0, "SHW", ("x" * 240,)),
    ],
)
def test_encode_refuses_invalid_frames(frame: Frame) -> None:
    with pytest.raises(FrameError) as info:
        encode(frame)
    assert info.value.reason is NakReason.FMT
    assert isinstance(info.value, ValueError)


def test_longest_frame_is_exactly_the_limit() -> None:
    # 17 bytes of framing leave 239 for "|" + field.
    assert len(encode(Frame(1, 0, "SHW", ("x" * 238,)))) == MAX_FRAME_LEN
    with pytest.raises(FrameError):
        encode(Frame(1, 0, "SHW", ("x" * 239,)))


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (HEL.replace(b"7754", b"7755"), NakReason.CRC),  # checksum mismatch
        (HEL.replace(b"7754", b"775G"), NakReason.CRC),  # not hex
        (HEL.replace(b"\r\n", b"\n\r"), NakReason.CRC),  # damaged trailer
        (CRD.replace(b"AFF6", b"aff6"), NakReason.CRC),  # hex must be uppercase
        (framed(b"01|00|hel"), NakReason.FMT),  # right CRC, wrong grammar
        (framed(b"01|00"), NakReason.FMT),
        (framed(b"1|00|HEL"), NakReason.FMT),
        (framed(b"01|00|HEL|\x7f"), NakReason.FMT),
        (framed(b"01|00|HEL|" + b"x" * 240), NakReason.FMT),  # too long
        (HEL[1:], NakReason.FMT),  # no STX
        (HEL[:-7] + b"\x04" + HEL[-6:], NakReason.FMT),  # no ETX
        (b"\x02\x03", NakReason.FMT),
    ],
)
def test_decode_classifies_damage(raw: bytes, reason: NakReason) -> None:
    with pytest.raises(FrameError) as info:
        decode(raw)
    assert info.value.reason is reason


def test_decode_error_carries_the_header_as_read() -> None:
    # The receiver NAKs a damaged frame with the SEQ it read.
    with pytest.raises(FrameError) as info:
        decode(b"\x0203|7A|SHW|1234\x030000\r\n")
    assert (info.value.addr, info.value.seq, info.value.type) == (3, 0x7A, "SHW")
    assert "0000" in str(info.value)


printable_but_bar = st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="|")
field_text = st.text(alphabet=printable_but_bar, max_size=40)
frames = st.builds(
    Frame,
    addr=st.integers(0, 255),
    seq=st.integers(0, 255),
    type=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3),
    fields=st.lists(field_text, max_size=5).map(tuple),
)


@given(frames)
def test_round_trip(frame: Frame) -> None:
    raw = encode(frame)
    assert len(raw) <= MAX_FRAME_LEN
    assert decode(raw) == frame


@given(frames, st.data())
def test_any_single_bit_flip_is_detected(frame: Frame, data: st.DataObject) -> None:
    raw = bytearray(encode(frame))
    bit = data.draw(st.integers(0, len(raw) * 8 - 1), label="bit")
    raw[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(FrameError):
        decode(bytes(raw))


@pytest.mark.parametrize("raw", [HEL, CRD])
def test_every_single_bit_flip_of_the_examples_is_detected(raw: bytes) -> None:
    for bit in range(len(raw) * 8):
        damaged = bytearray(raw)
        damaged[bit // 8] ^= 1 << (bit % 8)
        with pytest.raises(FrameError):
            decode(bytes(damaged))


@given(st.binary(max_size=300))
def test_decode_raises_only_frame_error(raw: bytes) -> None:
    try:
        decode(raw)
    except FrameError:
        pass
