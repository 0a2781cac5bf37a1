"""A local LLM server that speaks the providers' real wire protocols, scripted by tests.

- `POST /v1/chat/completions` answers as OpenAI does with `stream: true`: `data: {chunk}` SSE
  lines (`chat.completion.chunk`, text in `delta.content`, tool calls as `delta.tool_calls`
  pieces with index/id/name and `arguments` text fragments), ending `data: [DONE]`.
- `POST /v1/messages` answers as Anthropic's Messages API does: `event:`/`data:` SSE with
  message_start, content_block_start (text / tool_use), content_block_delta (text_delta /
  input_json_delta), content_block_stop, message_delta (stop_reason), message_stop.
- Errors come back as the providers' JSON error bodies with their HTTP status.

Each request takes the next scripted reply. Requests are recorded (body, auth header) so tests
can check what the agent sent; timestamps (time.time()) let benchmarks see when tokens left.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Text:
    """A streamed text answer (split into `pieces` chunks, `delay` seconds apart)."""

    text: str
    pieces: int = 4
    delay: float = 0.01


@dataclass
class Calls:
    """Tool calls, optionally after some text. `calls` = [(name, arguments dict), ...]."""

    calls: list[tuple[str, dict[str, Any]]]
    text: str = ""
    delay: float = 0.005


@dataclass
class Error:
    status: int
    message: str
    kind: str = "invalid_request_error"


@dataclass
class Hang:
    """Streams `text`, then keeps the stream open (keep-alives) until released or the client
    goes away; `disconnected` is set when the client closed it (e.g. the user pressed Stop)."""

    text: str = "Working on it"
    released: threading.Event = field(default_factory=threading.Event)
    disconnected: threading.Event = field(default_factory=threading.Event)
    max_s: float = 30.0


@dataclass
class Raw:
    """Bytes replayed as they are (a recorded transcript)."""

    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"


Reply = Text | Calls | Error | Hang | Raw


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    auth: str
    received: float
    first_token: float | None = None
    ended: float | None = None


class FakeLLM:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        handler = _make_handler(self)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def _next(self) -> Reply:
        with self._lock:
            return self.replies.popleft() if self.replies else Text("(the fake model has no more replies)")

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _split(text: str, n: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, n)))
    return [text[i:i + size] for i in range(0, len(text), size)]


def _make_handler(llm: FakeLLM) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: and never print what a client sent (its key)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            anthropic = self.path.rstrip("/").endswith("/messages")
            # Each API's own key header (Anthropic's SDK may add an Authorization header too).
            key = self.headers.get("x-api-key") if anthropic else None
            auth = key or self.headers.get("authorization") or ""
            req = Request(self.path, body, auth, time.time())
            llm.requests.append(req)
            reply = llm._next()
            if isinstance(reply, Raw):
                self._start(reply.status, reply.content_type)
                self._write(reply.body)
                self._end(req)
            elif isinstance(reply, Error):
                self._error(reply, anthropic)
            else:
                self._start(200, "text/event-stream")
                try:
                    (self._anthropic if anthropic else self._openai)(reply, req)
                except (BrokenPipeError, ConnectionResetError):
                    if isinstance(reply, Hang):
                        reply.disconnected.set()
                self._end(req)

        # --- transport --------------------------------------------------------------------

        def _start(self, status: int, ctype: str) -> None:
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("transfer-encoding", "chunked")
            self.send_header("cache-control", "no-cache")
            self.end_headers()

        def _write(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def _end(self, req: Request) -> None:
            try:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                pass
            req.ended = time.time()

        def _error(self, reply: Error, anthropic: bool) -> None:
            if anthropic:
                body = {"type": "error", "error": {"type": reply.kind, "message": reply.message}}
            else:
                body = {"error": {"message": reply.message, "type": reply.kind, "param": None,
                                  "code": None}}
            data = json.dumps(body).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _token(self, req: Request) -> None:
            if req.first_token is None:
                req.first_token = time.time()

        def _hang(self, reply: Hang, keepalive: bytes) -> None:
            end = time.time() + reply.max_s
            while not reply.released.is_set() and time.time() < end:
                self._write(keepalive)
                reply.released.wait(0.1)

        # --- OpenAI chat completions ------------------------------------------------------

        def _openai(self, reply: Reply, req: Request) -> None:
            base = {"id": "chatcmpl-fake1", "object": "chat.completion.chunk",
                    "created": int(time.time()), "model": req.body.get("model", "fake"),
                    "system_fingerprint": "fp_fake"}

            def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
                data = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                             "finish_reason": finish}]}
                self._write(b"data: " + json.dumps(data).encode() + b"\n\n")

            chunk({"role": "assistant", "content": ""})
            if isinstance(reply, (Text, Hang)):
                for piece in _split(reply.text, reply.pieces if isinstance(reply, Text) else 1):
                    chunk({"content": piece})
                    self._token(req)
                    time.sleep(reply.delay if isinstance(reply, Text) else 0)
                if isinstance(reply, Hang):
                    self._hang(reply, b": keep-alive\n\n")
                chunk({}, "stop")
            elif isinstance(reply, Calls):
                for piece in _split(reply.text, 3):
                    chunk({"content": piece})
                    self._token(req)
                for i, (name, args) in enumerate(reply.calls):
                    call_id = f"call_{int(time.time() * 1000) % 100000}_{i}"
                    chunk({"tool_calls": [{"index": i, "id": call_id, "type": "function",
                                           "function": {"name": name, "arguments": ""}}]})
                    self._token(req)
                    for piece in _split(json.dumps(args), 3):
                        chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
                        time.sleep(reply.delay)
                chunk({}, "tool_calls")
            self._write(b"data: [DONE]\n\n")

        # --- Anthropic messages -----------------------------------------------------------

        def _anthropic(self, reply: Reply, req: Request) -> None:
            def event(name: str, data: dict[str, Any]) -> None:
                self._write(f"event: {name}\ndata: ".encode() + json.dumps(data).encode() + b"\n\n")

            event("message_start", {"type": "message_start", "message": {
                "id": "msg_fake1", "type": "message", "role": "assistant",
                "model": req.body.get("model", "fake"), "content": [], "stop_reason": None,
                "stop_sequence": None, "usage": {"input_tokens": 25, "output_tokens": 1}}})
            index = 0
            text = reply.text if isinstance(reply, (Text, Hang, Calls)) else ""
            stop = "end_turn"
            if text:
                event("content_block_start", {"type": "content_block_start", "index": 0,
                                              "content_block": {"type": "text", "text": ""}})
                event("ping", {"type": "ping"})
                n = reply.pieces if isinstance(reply, Text) else 2
                for piece in _split(text, n):
                    event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "text_delta", "text": piece}})
                    self._token(req)
                    time.sleep(reply.delay if isinstance(reply, (Text, Calls)) else 0)
                if isinstance(reply, Hang):
                    self._hang(reply, b"event: ping\ndata: {\"type\": \"ping\"}\n\n")
                event("content_block_stop", {"type": "content_block_stop", "index": 0})
                index = 1
            if isinstance(reply, Calls):
                stop = "tool_use"
                for i, (name, args) in enumerate(reply.calls):
                    event("content_block_start", {
                        "type": "content_block_start", "index": index,
                        "content_block": {"type": "tool_use", "id": f"toolu_fake{index}{i}",
                                          "name": name, "input": {}}})
                    self._token(req)
                    for piece in _split(json.dumps(args), 3):
                        event("content_block_delta", {
                            "type": "content_block_delta", "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece}})
                        time.sleep(reply.delay)
                    event("content_block_stop", {"type": "content_block_stop", "index": index})
                    index += 1
            event("message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": stop, "stop_sequence": None},
                                    "usage": {"output_tokens": 42}})
            event("message_stop", {"type": "message_stop"})

    return Handler
