"""A local replica of an AI chat website, for the chat-sites e2e tests (docs/CHAT_SITES.md).

It serves the chat page (tests/e2e/site/chat/) and its chat API on one loopback port, speaking
one wire format: `sse` (OpenAI-like `data: {"choices": [{"delta": {"content": ...}}]}` events,
ending `data: [DONE]`) or `ndjson` (`{"message": {"content": ...}, "done": false}` lines, the way
Ollama streams). The page posts `{"messages": [{role, content}...], "stream": true}` to
`api/chat`. The scripted model answers each request with the next of `replies`; when they run
out, it answers a message that carries a tool result with a final answer quoting it. A reply
of format `other` streams `{"delta_text": ...}` events no adapter reads (the page still shows
them), for the DOM fallback. Requests' bodies are recorded for the tests' assertions.

A replica of a real site's protocol (`kind` one of tests/support/chat_protocols.py's PROTOCOLS)
serves that site's endpoint and streams its format; its page (chat.js `?protocol=`) sends that
site's request body. `messages` holds each request's user message.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.chat_protocols import PROTOCOLS, unframe

SITE = Path(__file__).parents[1] / "e2e" / "site" / "chat"


@dataclass
class Reply:
    text: str
    pieces: int = 6
    format: str = ""  # "" (the replica's own) or "other" (a format the adapter cannot read)


class Replica:
    def __init__(self, kind: str) -> None:
        assert kind in ("sse", "ndjson") or kind in PROTOCOLS
        self.kind = kind
        self.protocol = PROTOCOLS.get(kind)
        self.messages: list[str] = []
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        # ("request", n) when request n arrives, ("end", n) once its answer has been streamed whole.
        self.log: list[tuple[str, int]] = []
        self.lock = threading.Lock()
        self.url = ""

    def answer_for(self, body: dict[str, Any], message: str | None = None) -> Reply:
        with self.lock:
            self.requests.append(body)
            if message is not None:
                self.messages.append(message)
            self.log.append(("request", len(self.requests) - 1))
            if self.replies:
                return self.replies.popleft()
        last = message if message is not None else str((body.get("messages") or [{}])[-1].get("content", ""))
        if "[tool_result" in last:
            quoted = last.split("\n", 2)[1] if "\n" in last else last
            return Reply(f"Final answer: the tool said {quoted}")
        return Reply("I have nothing to call.")

    def stream(self, reply: Reply) -> Iterator[bytes]:
        text = reply.text
        n = max(1, min(reply.pieces, len(text)))
        size = -(-len(text) // n)
        if self.protocol is not None:
            yield from self.protocol.stream([text[i : i + size] for i in range(0, len(text), size)])
            return
        for i in range(0, len(text), size):
            piece = text[i : i + size]
            if reply.format == "other":
                yield f"data: {json.dumps({'delta_text': piece})}\n\n".encode()
            elif self.kind == "sse":
                yield f"data: {json.dumps({'choices': [{'delta': {'content': piece}}]})}\n\n".encode()
            else:
                yield (
                    json.dumps({"message": {"role": "assistant", "content": piece}, "done": False}) + "\n"
                ).encode()
        if self.kind == "sse" or reply.format == "other":
            yield b"data: [DONE]\n\n"
        else:
            yield b'{"done": true}\n'

    def bodies(self) -> list[str]:
        with self.lock:
            return [json.dumps(b, ensure_ascii=False) for b in self.requests]


class _Handler(http.server.SimpleHTTPRequestHandler):
    replica: Replica

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path, sep, query = self.path.partition("?")
        if path in ("/", "/index.html"):  # the one page; its query string sets it up (chat.js)
            self.path = "/chat.html" + sep + query
        super().do_GET()

    def do_POST(self) -> None:
        protocol = self.replica.protocol
        if self.path.split("?")[0] != (protocol.path if protocol else "/api/chat"):
            self.send_error(404)
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = (
                (raw if protocol.form else unframe(raw) if protocol.binary else json.loads(raw))
                if protocol
                else json.loads(raw or b"{}")
            )
            message = protocol.message(body) if protocol else None
        except (ValueError, KeyError, IndexError, TypeError, AssertionError):
            self.send_error(400)
            return
        reply = self.replica.answer_for(body, message)
        n = len(self.replica.requests) - 1
        ctype = (
            protocol.ctype
            if protocol
            else "text/event-stream"
            if self.replica.kind == "sse" or reply.format == "other"
            else "application/x-ndjson"
        )
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        for chunk in self.replica.stream(reply):
            self.wfile.write(chunk)
            self.wfile.flush()
            time.sleep(0.02)
        with self.replica.lock:
            self.replica.log.append(("end", n))
        self.close_connection = True


@contextmanager
def serve_replica(kind: str) -> Iterator[Replica]:
    replica = Replica(kind)
    cls = type("Handler", (_Handler,), {"replica": replica})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(cls, directory=str(SITE)))
    # shutdown() waits for serve_forever's next poll: 0.05 s, not the default 0.5 s, per replica.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    replica.url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield replica
    finally:
        server.shutdown()
        server.server_close()
