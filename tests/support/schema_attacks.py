"""Hostile page schemas for the argument-validation tests, and a local HTTP server that counts
the requests a `$ref` would make."""

from __future__ import annotations

import http.server
import threading
from typing import Any


class CountingServer:
    """An HTTP server on 127.0.0.1 that answers any GET with a schema and records the path."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"type": "string"}')

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/schema.json"

    def __enter__(self) -> CountingServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def with_ref(ref: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"q": {"$ref": ref}}}


def backtracking_pattern() -> dict[str, Any]:
    """`^(a+)+$`: exponential for a backtracking engine on 'aaa…a!'."""
    return {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}


HOSTILE_INPUT = "a" * 40 + "!"


def exploding(levels: int = 40) -> dict[str, Any]:
    """Each level an anyOf of two refs to the next: 2**levels checks for a failing value, with no
    regex and no loop, in a schema of a few KiB."""
    defs = {f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]}
            for i in range(levels)}
    defs[f"l{levels}"] = {"type": "string"}
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/l0"}}}
