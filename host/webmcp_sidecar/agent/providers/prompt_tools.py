"""Tool calling for models without it: the tools are described in the system prompt, the model
writes `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, and we parse that out of its
answer (the Hermes/Qwen convention, which many open models were trained on).

Text before a call streams to the user as usual; the call markup itself is held back. Only
that markup is a call: JSON that merely looks like one (a fenced block the model quotes from a
page, say) is text, or a page could write calls for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

from webmcp_sidecar.agent.history import Message, ToolCall
from webmcp_sidecar.agent.providers.args import parse
from webmcp_sidecar.agent.providers.base import Calls, Provider, StreamEvent, TextPiece
from webmcp_sidecar.agent.toolset import ToolSpec

OPEN, CLOSE = "<tool_call>", "</tool_call>"
# A block the answer ends in without its closing tag still counts: some servers cut the answer
# at the closing tag (a stop sequence).
_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def describe(tools: list[ToolSpec]) -> str:
    lines = [
        "",
        "You can call tools. To call one, write exactly one block like this and then stop "
        "writing (the result comes back in the next message):",
        f'{OPEN}{{"name": "TOOL_NAME", "arguments": {{...}}}}{CLOSE}',
        "The arguments must match the tool's JSON schema. Available tools:",
    ]
    for t in tools:
        lines.append(json.dumps({"name": t.name, "description": t.description,
                                 "parameters": t.parameters}, ensure_ascii=False))
    return "\n".join(lines)


def to_plain(messages: list[Message]) -> list[Message]:
    """History with calls and results as text, for an API that has no tool roles."""
    out: list[Message] = []
    for m in messages:
        if m.role == "assistant" and m.tool_calls:
            calls = "".join(
                f"{OPEN}{json.dumps({'name': c.name, 'arguments': c.arguments}, ensure_ascii=False)}{CLOSE}"
                for c in m.tool_calls
            )
            out.append(Message(role="assistant", text=(m.text + "\n" if m.text else "") + calls))
        elif m.role == "tool":
            label = "failed" if m.is_error else "returned"
            out.append(Message(role="user", text=f"Tool {m.tool_name or ''} {label}:\n{m.text}"))
        else:
            out.append(m)
    return out


def parse_calls(text: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for n, body in enumerate(_BLOCK.findall(text)):
        value, invalid = parse(body)
        name = value.get("name") if isinstance(value, dict) else None
        raw_args: Any = value.get("arguments", value.get("parameters", {})) if value else {}
        if isinstance(raw_args, str):
            raw_args, invalid2 = parse(raw_args)
            invalid = invalid or invalid2
        if not isinstance(raw_args, dict):
            raw_args, invalid = {}, invalid or "the arguments must be a JSON object"
        calls.append(ToolCall(id=f"pcall_{n}", name=str(name or ""), arguments=raw_args,
                              invalid=invalid or (None if name else "the call names no tool")))
    return calls


class _Holdback:
    """Passes text through, holding back anything from `<tool_call>` on (and a partial tag)."""

    def __init__(self) -> None:
        self.buf = ""
        self.inside = False

    def feed(self, piece: str) -> str:
        if self.inside:
            return ""
        self.buf += piece
        at = self.buf.find(OPEN)
        if at >= 0:
            self.inside = True
            out, self.buf = self.buf[:at], ""
            return out
        # Keep a tail that could be the start of the tag.
        keep = 0
        for k in range(1, len(OPEN)):
            if self.buf.endswith(OPEN[:k]):
                keep = k
        out = self.buf[: len(self.buf) - keep]
        self.buf = self.buf[len(self.buf) - keep:]
        return out

    def flush(self) -> str:
        out, self.buf = ("" if self.inside else self.buf), ""
        return out


class PromptTools:
    """Wraps a provider: no tools reach its API; they live in the prompt instead."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.label = inner.label

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def stream(self, system: str, messages: list[Message],
                     tools: list[ToolSpec]) -> AsyncIterator[StreamEvent]:
        full: list[str] = []
        hold = _Holdback()
        stop = ""
        async for ev in self.inner.stream(system + describe(tools) if tools else system,
                                          to_plain(messages), []):
            if isinstance(ev, TextPiece):
                full.append(ev.text)
                shown = hold.feed(ev.text)
                if shown:
                    yield TextPiece(shown)
            else:
                stop = ev.stop_reason
        rest = hold.flush()
        if rest:
            yield TextPiece(rest)
        yield Calls(parse_calls("".join(full)) if tools else [], stop)
