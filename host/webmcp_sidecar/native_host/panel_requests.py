"""A side-panel request to a host plugin (`panel_doc`: native_host/doc_link.py), answered exactly
once: a request that does not validate gets a plain "bad request" (when it has an id to answer),
the plugin's own error type its message, anything else its message and a log line; the host
lives on whatever happens."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

log = logging.getLogger(__name__)


def answer_panel(
    raw: dict[str, Any],
    request: type[BaseModel],
    answer: Callable[..., BaseModel],
    do: Callable[[Any], BaseModel],
    send: Callable[[BaseModel], None],
    known_error: str,
) -> None:
    """Validates `raw` as `request`, runs `do` on it and sends what it gives; a failure is sent as
    `answer(id=..., ok=False, error=...)`. `known_error`: the plugin's error class name (its
    message is for the user; anything else is also logged)."""
    from pydantic import ValidationError  # not at host start (issue 14: its cold start)

    try:
        req: Any = request.model_validate(raw)
    except ValidationError as e:
        call_id = raw.get("id")
        if isinstance(call_id, str) and call_id:
            send(answer(id=call_id[:100], ok=False, error=f"bad request: {str(e)[:300]}"))
        return
    try:
        out = do(req)
    except Exception as e:
        if type(e).__name__ != known_error:
            log.exception("%s request %s failed", raw.get("type"), req.op)
        out = answer(id=req.id, ok=False, error=str(e)[:4000])
    send(out)


def need(req: Any, field: str) -> str:
    """The request's `field`, which its op requires."""
    value = getattr(req, field)
    if not value:
        raise ValueError(f"`{field}` is required for {req.op}")
    return str(value)
