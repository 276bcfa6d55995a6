"""The stream decoder: resync after garbage, limits, silence, never raising."""

from hypothesis import given
from hypothesis import strategies as st

from drivers.tdl.decoder import StreamDecoder
from drivers.tdl.errors import FrameError, NakReason
from drivers.tdl.frame import MAX_FRAME_LEN, Frame, encode

HEL = encode(Frame(1, 0, "HEL"))
STS = encode(Frame(1, 1, "STS", ("IDLE", "0")))


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def frames_of(results: list) -> list[Frame]:
    return [r for r in results if isinstance(r, Frame)]


def test_whole_frames_in_one_chunk() -> None:
    assert StreamDecoder().feed(HEL + STS) == [Frame(1, 0, "HEL"), Frame(1, 1, "STS", ("IDLE", "0"))]


def test_byte_by_byte() -> None:
    decoder = StreamDecoder()
    out = [r for b in HEL + STS for r in decoder.feed(bytes([b]))]
    assert out == [Frame(1, 0, "HEL"), Frame(1, 1, "STS", ("IDLE", "0"))]


def test_garbage_before_between_and_after() -> None:
    out = StreamDecoder().feed(b"\xff\x00noise" + HEL + b"\r\n\x03junk" + STS + b"tail")
    assert out == [Frame(1, 0, "HEL"), Frame(1, 1, "STS", ("IDLE", "0"))]


def test_damaged_delimited_frame_is_reported_with_its_seq() -> None:
    bad = HEL.replace(b"HEL", b"HEX")
    out = StreamDecoder().feed(bad + STS)
    assert isinstance(out[0], FrameError)
    assert (out[0].reason, out[0].addr, out[0].seq) == (NakReason.CRC, 1, 0)
    assert out[1:] == [Frame(1, 1, "STS", ("IDLE", "0"))]


def test_frame_cut_short_by_a_new_stx_yields_the_new_frame() -> None:
    assert StreamDecoder().feed(HEL[:8] + STS) == [Frame(1, 1, "STS", ("IDLE", "0"))]


def test_frame_whose_trailer_was_lost_does_not_swallow_the_next() -> None:
    # STX..ETX of a frame, trailer lost, next frame right after: the error
    # for the first (so it can be NAKed) and the second intact.
    out = StreamDecoder().feed(HEL[:-6] + STS)
    assert isinstance(out[0], FrameError) and out[0].seq == 0
    assert frames_of(out) == [Frame(1, 1, "STS", ("IDLE", "0"))]


def test_no_etx_within_256_bytes_drops_the_partial_frame() -> None:
    decoder = StreamDecoder()
    assert decoder.feed(b"\x02" + b"A" * 300) == []
    # Had the 300 bytes been kept, this frame would be glued to them.
    assert decoder.feed(HEL) == [Frame(1, 0, "HEL")]


def test_a_stream_without_etx_never_holds_more_than_a_frame() -> None:
    decoder = StreamDecoder()
    decoder.feed(b"\x02")
    for _ in range(100):
        decoder.feed(b"A" * 100)
        assert decoder.buffered <= MAX_FRAME_LEN


def test_etx_too_far_drops_but_keeps_a_following_frame() -> None:
    assert StreamDecoder().feed(b"\x02" + b"A" * 260 + b"\x03" + HEL) == [Frame(1, 0, "HEL")]


def test_silent_partial_frame_is_dropped() -> None:
    clock = FakeClock()
    decoder = StreamDecoder(max_gap=0.1, clock=clock)
    assert decoder.feed(HEL[:10]) == []
    clock.now += 0.15
    # The rest of the old frame is now garbage; the resent frame decodes.
    assert decoder.feed(HEL[10:] + HEL) == [Frame(1, 0, "HEL")]


def test_slow_but_steady_frame_is_not_dropped() -> None:
    # 9600 baud: about 1 ms a byte; a long frame takes longer than max_gap
    # in total but never goes silent for that long.
    clock = FakeClock()
    decoder = StreamDecoder(max_gap=0.1, clock=clock)
    raw = encode(Frame(1, 5, "HDO", ("7", "x" * 200)))
    out = []
    for b in raw:
        clock.now += 0.05
        out += decoder.feed(bytes([b]))
    assert out == [Frame(1, 5, "HDO", ("7", "x" * 200))]


def test_feeding_nothing_expires_a_silent_partial_frame() -> None:
    clock = FakeClock()
    decoder = StreamDecoder(max_gap=0.1, clock=clock)
    decoder.feed(HEL[:10])
    clock.now += 0.2
    assert decoder.feed(b"") == []
    assert decoder.feed(HEL[10:]) == []


printable_but_bar = st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="|")
field_text = st.text(alphabet=printable_but_bar, max_size=30)
frames = st.builds(
    Frame,
    addr=st.integers(0, 255),
    seq=st.integers(0, 255),
    type=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3),
    fields=st.lists(field_text, max_size=4).map(tuple),
)
# Garbage rich in the bytes that matter to framing.
garbage = st.binary(max_size=300) | st.lists(st.sampled_from(b"\x02\x03\r\n|0A"), max_size=40).map(bytes)


def is_subsequence(needles: list, haystack: list) -> bool:
    it = iter(haystack)
    return all(any(n == h for h in it) for n in needles)


@given(st.lists(st.tuples(garbage, frames), max_size=6), garbage)
def test_recovers_every_frame_between_arbitrary_garbage(pieces: list, tail: bytes) -> None:
    stream = b"".join(g + encode(f) for g, f in pieces) + tail
    out = StreamDecoder().feed(stream)
    # Garbage could in principle hold a valid frame of its own, hence subsequence.
    assert is_subsequence([f for _, f in pieces], frames_of(out))


@given(st.lists(st.tuples(garbage.map(lambda g: g.replace(b"\x02", b"")), frames), max_size=6))
def test_garbage_without_stx_yields_exactly_the_frames(pieces: list) -> None:
    stream = b"".join(g + encode(f) for g, f in pieces)
    assert frames_of(StreamDecoder().feed(stream)) == [f for _, f in pieces]


@given(st.binary(max_size=600), st.data())
def test_chunking_does_not_change_the_result(stream: bytes, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10), label="cuts"))
    decoder = StreamDecoder()
    out = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)]):
        out += decoder.feed(stream[a:b])
    whole = StreamDecoder().feed(stream)
    assert [repr(r) for r in out] == [repr(r) for r in whole]


@given(st.lists(st.binary(max_size=80), max_size=20))
def test_never_raises(chunks: list) -> None:
    decoder = StreamDecoder()
    for chunk in chunks:
        for r in decoder.feed(chunk):
            assert isinstance(r, (Frame, FrameError))


@given(frames, st.data())
def test_a_bit_flip_never_yields_the_original_or_breaks_the_next_frame(frame: Frame, data: st.DataObject) -> None:
    raw = bytearray(encode(frame))
    bit = data.draw(st.integers(0, len(raw) * 8 - 1), label="bit")
    raw[bit // 8] ^= 1 << (bit % 8)
    out = StreamDecoder().feed(bytes(raw) + STS)
    assert frame not in out
    assert frames_of(out)[-1:] == [Frame(1, 1, "STS", ("IDLE", "0"))]
