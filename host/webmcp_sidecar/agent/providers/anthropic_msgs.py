"""Anthropic Messages, streaming, with tool use, through the `anthropic` SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anthropic

from webmcp_sidecar.agent.history import Message, ToolCall
from webmcp_sidecar.agent.presets import Preset
from webmcp_sidecar.agent.providers.args import parse
from webmcp_sidecar.agent.providers.base import Calls, StreamEvent, TextPiece
from webmcp_sidecar.agent.providers.errors import SdkProvider
from webmcp_sidecar.agent.toolset import ToolSpec

MAX_TOKENS = 4096


def to_anthropic(messages: list[Message]) -> list[dict[str, Any]]:
    """Blocks per message; tool results are user blocks, and same-role neighbours are merged
    (the API wants user and assistant to alternate)."""
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in messages:
        if m.role == "user":
            push("user", [{"type": "text", "text": m.text}])
        elif m.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if m.text:
                blocks.append({"type": "text", "text": m.text})
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                       for c in m.tool_calls]
            push("assistant", blocks or [{"type": "text", "text": "(no answer)"}])
        else:
            push("user", [{"type": "tool_result", "tool_use_id": m.tool_call_id or "",
                           "content": m.text, "is_error": m.is_error}])
    return out


class AnthropicMessages(SdkProvider):
    def __init__(self, preset: Preset, base_url: str, model: str, api_key: str) -> None:
        super().__init__(preset, base_url, model)
        self.client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0,
            timeout=anthropic.Timeout(120.0, connect=10.0),
        )

    async def stream(self, system: str, messages: list[Message],
                     tools: list[ToolSpec]) -> AsyncIterator[StreamEvent]:
        params: dict[str, Any] = {
            "model": self.model, "max_tokens": MAX_TOKENS, "system": system,
            "messages": to_anthropic(messages), "stream": True,
        }
        if tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
        # index -> [id, name, json pieces]
        blocks: dict[int, list[Any]] = {}
        stop = ""
        try:
            stream = await self.client.messages.create(**params)
            async with stream:
                async for ev in stream:
                    kind = ev.type
                    if kind == "content_block_delta":
                        d = ev.delta
                        if d.type == "text_delta":
                            if d.text:
                                yield TextPiece(d.text)
                        elif d.type == "input_json_delta":
                            if ev.index in blocks:
                                blocks[ev.index][2].append(d.partial_json)
                    elif kind == "content_block_start":
                        b = ev.content_block
                        if b.type == "tool_use":
                            blocks[ev.index] = [b.id, b.name, [], b.input]
                        elif b.type == "text" and getattr(b, "text", ""):
                            yield TextPiece(b.text)
                    elif kind == "message_delta":
                        stop = ev.delta.stop_reason or stop
        except anthropic.APIError as e:
            raise self._error(e) from None
        except Exception as e:
            if type(e).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "anthropic"):
                raise self._error(e) from None
            raise
        calls = []
        for index in sorted(blocks):
            call_id, name, pieces, start_input = blocks[index]
            text = "".join(pieces)
            args, invalid = parse(text) if text else (start_input or {}, None)
            calls.append(ToolCall(id=call_id, name=name, arguments=args, invalid=invalid))
        yield Calls(calls, stop)
