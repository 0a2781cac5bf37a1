"""Length-prefixed JSON frames, and chunking of messages too big for one frame.

Native messaging: a 32-bit length in native byte order, then that many bytes of UTF-8 JSON.
Chrome kills the port if a host->browser frame exceeds 1 MiB, and refuses browser->host frames over
64 MiB. The local socket link uses the same framing with little-endian lengths.
"""

from __future__ import annotations

import json
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from webmcp_sidecar.wire.constants import (
    MAX_FROM_BROWSER,
    MAX_REASSEMBLED,
    MAX_TO_BROWSER,
)

NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"
_HEADER = {"native": struct.Struct(NATIVE_ORDER + "I"), "little": struct.Struct("<I")}


class FrameError(ValueError):
    """A frame that cannot be decoded. The stream stays usable unless `fatal` is set."""

    def __init__(self, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


def header(order: str = "native") -> struct.Struct:
    return _HEADER[order]


def encode_frame(payload: bytes, order: str = "native") -> bytes:
    return _HEADER[order].pack(len(payload)) + payload


def dumps(message: Any) -> bytes:
    """Compact JSON, UTF-8, non-ASCII kept as is (smaller than \\u escapes).

    A lone surrogate (a page's string cut mid-emoji arrives as `"\\ud83d"`) has no UTF-8 form:
    it goes out as the same `\\uXXXX` escape it came in as, instead of failing the message."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")


def parse_payload(payload: bytes) -> dict[str, Any]:
    """Decode one frame's bytes to a JSON object, or raise a non-fatal FrameError."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FrameError(f"frame is not valid UTF-8 ({e.reason} at byte {e.start})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise FrameError(f"frame is not valid JSON ({e.msg} at {e.pos})") from None
    except RecursionError:
        # The decoder recurses once per level: a few KB of `[[[...` reach Python's limit.
        raise FrameError("frame nests too deep to decode") from None
    except ValueError as e:  # e.g. an integer too long to convert
        raise FrameError(f"frame cannot be decoded ({str(e)[:200]})") from None
    if not isinstance(value, dict):
        raise FrameError(f"frame is JSON but not an object (got {type(value).__name__})")
    return value


@dataclass
class FrameDecoder:
    """Incremental decoder: feed bytes, get complete frame payloads.

    A declared length above `max_frame` cannot be resynchronised (we do not know where the next
    frame starts), so it is fatal: the caller must drop the connection.
    """

    max_frame: int = MAX_FROM_BROWSER
    order: str = "native"
    _buf: bytearray = field(default_factory=bytearray)

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._buf += data
        hdr = _HEADER[self.order]
        while len(self._buf) >= 4:
            (n,) = hdr.unpack_from(self._buf)
            if n > self.max_frame:
                raise FrameError(
                    f"frame length {n} exceeds the {self.max_frame}-byte limit", fatal=True
                )
            if len(self._buf) < 4 + n:
                return
            payload = bytes(self._buf[4 : 4 + n])
            del self._buf[: 4 + n]
            yield payload

    @property
    def pending(self) -> int:
        return len(self._buf)


def split_message(text: str, cid: str, max_frame: int = MAX_TO_BROWSER) -> list[bytes]:
    """Split a message's JSON text into `chunk` message payloads each <= max_frame bytes.

    Slices are sized by the encoded frame, so escapes and multi-byte characters are counted
    exactly (Python slices whole code points, so no character is ever cut).
    """
    budget = max_frame - 64
    out: list[bytes] = []
    pos, seq, n = 0, 0, len(text)
    while pos < n or not out:
        end = min(n, pos + budget)
        while True:
            frame = dumps(
                {"type": "chunk", "cid": cid, "seq": seq, "last": end >= n, "data": text[pos:end]}
            )
            if len(frame) <= max_frame or end - pos <= 1:
                break
            # Shrink in proportion to the overshoot (CJK is 3 bytes a char, escapes up to 6).
            end = pos + max(1, int((end - pos) * budget / len(frame) * 0.98))
        out.append(frame)
        pos, seq = end, seq + 1
    return out


class Reassembler:
    """Joins `chunk` messages back into the message they carry."""

    def __init__(self, max_total: int = MAX_REASSEMBLED) -> None:
        self._parts: dict[str, list[str]] = {}
        self._sizes: dict[str, int] = {}
        self.max_total = max_total

    def add(self, cid: str, seq: int, last: bool, data: str, limit: int | None = None) -> str | None:
        """Add one piece; return the whole JSON text when `last` arrives, else None. limit: this
        message's cap, if lower than `max_total`."""
        parts = self._parts.get(cid)
        if parts is None:
            if seq != 0:
                raise FrameError(f"chunk {seq} of {cid!r} arrived before chunk 0")
            parts = self._parts[cid] = []
            self._sizes[cid] = 0
        elif seq != len(parts):
            self.drop(cid)
            raise FrameError(f"chunk {seq} of {cid!r} out of order (expected {len(parts)})")
        self._sizes[cid] += len(data)
        cap = self.max_total if limit is None else min(limit, self.max_total)
        if self._sizes[cid] > cap:
            self.drop(cid)
            raise FrameError(f"chunked message {cid!r} exceeds {cap} characters")
        parts.append(data)
        if not last:
            return None
        self.drop(cid)
        return "".join(parts)

    def drop(self, cid: str) -> None:
        self._parts.pop(cid, None)
        self._sizes.pop(cid, None)

    def __len__(self) -> int:
        return len(self._parts)
