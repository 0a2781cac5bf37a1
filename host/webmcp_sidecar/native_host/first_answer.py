"""The browser link's first frames, `ping` and `hello`, answered without pydantic (issue 14: the
host's cold start, from the browser spawning it to its first answer, is mostly importing
pydantic and building models; the first answer needs neither). Speed only (bench/cold_start.py,
"Host cold start"): drop it when the host answers its first hello within 300 ms median with
the models built at start.

Only a frame whose model would take it as it is comes this way (each field of the JSON type its
model wants, so the model could neither refuse nor convert it); anything else takes the models,
with their errors as ever. tests/unit/test_cold_imports.py holds both ways to the same answers.
"""

from __future__ import annotations

import sys
from typing import Any

from webmcp_sidecar import __version__
from webmcp_sidecar.wire.codec import FrameError
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION


def plain_ping(raw: dict[str, Any]) -> str | None:
    """The id of a `ping` that `messages.Ping` takes unchanged (`id`: a string, default "")."""
    call_id = raw.get("id", "")
    return call_id if isinstance(call_id, str) else None


def plain_hello(raw: dict[str, Any]) -> tuple[str, str, int, str] | None:
    """`extension_version`, `browser`, `protocol`, `origin` of a `hello` that `messages.Hello`
    takes unchanged (three strings, one of them required, and an int that is no bool), else
    None."""
    version, browser, protocol, origin = (
        raw.get("extension_version"),
        raw.get("browser", ""),
        raw.get("protocol", 1),
        raw.get("origin", ""),
    )
    if (isinstance(version, str) and isinstance(browser, str) and type(protocol) is int
            and isinstance(origin, str)):
        return version, browser, protocol, origin
    return None


def pong(call_id: str) -> dict[str, Any]:
    """`messages.Pong(id=call_id).model_dump()`."""
    return {"type": "pong", "id": call_id}


def host_hello() -> dict[str, Any]:
    """`messages.HostHello(protocol=PROTOCOL_VERSION, host_version=__version__).model_dump()`."""
    return {"type": "host_hello", "protocol": PROTOCOL_VERSION, "host_version": __version__}


def is_bad_frame(e: Exception) -> bool:
    """A FrameError or pydantic's ValidationError: the frame's fault, not the host's. pydantic is
    looked up, not imported: until some message needed a model, nothing could raise its error."""
    core = sys.modules.get("pydantic_core")
    return isinstance(e, FrameError) or (core is not None and isinstance(e, core.ValidationError))
