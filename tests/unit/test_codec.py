import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_sidecar.wire.codec import (
    FrameDecoder,
    FrameError,
    Reassembler,
    dumps,
    encode_frame,
    parse_payload,
    split_message,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def test_round_trip_in_native_and_little_order():
    for order in ("native", "little"):
        dec = FrameDecoder(order=order)
        frames = [dumps({"type": "x", "n": i}) for i in range(3)]
        data = b"".join(encode_frame(f, order) for f in frames)
        assert list(dec.feed(data)) == frames
        assert dec.pending == 0


def test_decoder_handles_byte_at_a_time_delivery():
    dec = FrameDecoder()
    payload = dumps({"type": "hello", "text": "你好 🌏"})
    out = []
    for b in encode_frame(payload):
        out += list(dec.feed(bytes([b])))
    assert out == [payload]


def test_oversized_length_is_fatal_and_says_why():
    dec = FrameDecoder(max_frame=10)
    with pytest.raises(FrameError) as e:
        list(dec.feed(struct.pack("=I", 11) + b"x" * 11))
    assert e.value.fatal and "exceeds" in str(e.value)


@pytest.mark.parametrize(
    ("payload", "why"),
    [(b"\xff\xfe", "UTF-8"), (b"{not json", "JSON"), (b"[1,2]", "not an object")],
)
def test_bad_payloads_are_non_fatal_errors(payload, why):
    with pytest.raises(FrameError) as e:
        parse_payload(payload)
    assert why in str(e.value) and not e.value.fatal


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_decoder_never_crashes_on_arbitrary_bytes(data):
    dec = FrameDecoder(max_frame=64)
    try:
        for payload in dec.feed(data):
            assert len(payload) <= 64
            try:
                assert isinstance(parse_payload(payload), dict)
            except FrameError as e:
                assert not e.fatal
    except FrameError as e:
        assert e.fatal  # only an impossible length is fatal


@settings(max_examples=200, deadline=None)
@given(json_values, st.integers(min_value=0, max_value=50))
def test_decoder_round_trips_any_message_any_split(value, cut):
    payload = dumps({"v": value})
    data = encode_frame(payload) * 2
    cut = min(cut, len(data))
    dec = FrameDecoder()
    out = list(dec.feed(data[:cut])) + list(dec.feed(data[cut:]))
    assert out == [payload, payload]
    assert json.loads(out[0]) == {"v": value}


@pytest.mark.parametrize(
    "text",
    [
        "a" * 5000,
        "数据" * 3000,
        "🙂" * 2000,
        '\\"\n\x01' * 2000,
        'mixed ascii 中文 🙂 \\ " \x1f ' * 400,
    ],
)
def test_split_fits_limit_and_reassembles(text):
    message = dumps({"type": "result", "id": "c1.1", "ok": True, "value": text}).decode()
    pieces = split_message(message, "h1", max_frame=1000)
    assert len(pieces) > 1
    assert all(len(p) <= 1000 for p in pieces)
    r = Reassembler()
    joined = None
    for p in pieces:
        c = json.loads(p)
        joined = r.add(c["cid"], c["seq"], c["last"], c["data"])
    assert joined == message and len(r) == 0


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1, max_size=3000), st.integers(min_value=120, max_value=2000))
def test_split_property(text, limit):
    pieces = split_message(text, "x", max_frame=limit)
    assert all(len(p) <= limit for p in pieces)
    assert "".join(json.loads(p)["data"] for p in pieces) == text
    assert [json.loads(p)["last"] for p in pieces] == [False] * (len(pieces) - 1) + [True]


def test_reassembler_rejects_out_of_order_and_oversize():
    r = Reassembler(max_total=10)
    with pytest.raises(FrameError, match="before chunk 0"):
        r.add("a", 1, False, "x")
    r.add("b", 0, False, "x")
    with pytest.raises(FrameError, match="out of order"):
        r.add("b", 2, True, "x")
    assert len(r) == 0
    r.add("c", 0, False, "x" * 6)
    with pytest.raises(FrameError, match="exceeds"):
        r.add("c", 1, True, "x" * 6)


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nests too deep"),
        (b'{"type":"site_tools","site":"x","tools":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
         "nests too deep"),
        (b'{"n":' + b"1" * 5000 + b"}", "cannot be decoded"),
    ],
)
def test_frames_the_decoder_cannot_take_are_bad_frames_not_crashes(payload, why):
    # Before: RecursionError / ValueError escaped parse_payload and ended the reader calling it.
    with pytest.raises(FrameError) as e:
        parse_payload(payload)
    assert why in str(e.value) and not e.value.fatal


def test_a_lone_surrogate_from_a_page_survives_a_round_trip():
    # A page's string cut mid-emoji: JSON.stringify sends it as an escape; json.loads makes it
    # a lone surrogate, which has no UTF-8 form. Before: dumps raised UnicodeEncodeError.
    value = parse_payload(b'{"type":"log","message":"cut \\ud83d here \\\\"}')
    assert value["message"] == "cut \ud83d here \\"
    payload = dumps(value)
    assert payload.decode("utf-8") and parse_payload(payload) == value
