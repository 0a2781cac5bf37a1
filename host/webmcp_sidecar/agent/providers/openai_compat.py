"""OpenAI-compatible chat completions (DeepSeek, Qwen, GLM, Moonshot, OpenAI, OpenRouter, Ollama,
any base URL), streaming, with tool calling, through the `openai` SDK."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import openai

from webmcp_sidecar.agent.history import Message, ToolCall
from webmcp_sidecar.agent.presets import Preset
from webmcp_sidecar.agent.providers.args import CallAccumulator
from webmcp_sidecar.agent.providers.base import Calls, StreamEvent, TextPiece
from webmcp_sidecar.agent.providers.errors import SdkProvider
from webmcp_sidecar.agent.toolset import ToolSpec


def to_openai(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for m in messages:
        if m.role == "user":
            out.append({"role": "user", "content": m.text})
        elif m.role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if m.tool_calls:
                # The spec's `arguments` is JSON *text*; every compatible server accepts that.
                msg["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                    for c in m.tool_calls
                ]
            elif not m.text:
                msg["content"] = ""
            out.append(msg)
        else:
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.text})
    return out


def tool_params(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"type": "function",
         "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


class OpenAICompat(SdkProvider):
    def __init__(self, preset: Preset, base_url: str, model: str, api_key: str) -> None:
        super().__init__(preset, base_url, model)
        # Retries are the user's call (they see the error and can send again): a silent retry
        # on 429 would only make the wait longer.
        self.client = openai.AsyncOpenAI(
            api_key=api_key or "not-needed", base_url=base_url, max_retries=0,
            timeout=openai.Timeout(120.0, connect=10.0),
        )

    async def stream(self, system: str, messages: list[Message],
                     tools: list[ToolSpec]) -> AsyncIterator[StreamEvent]:
        params: dict[str, Any] = {
            "model": self.model, "messages": to_openai(system, messages), "stream": True,
        }
        if tools:
            params["tools"] = tool_params(tools)
            if self.preset.tool_choice_auto:
                params["tool_choice"] = "auto"
            if self.preset.parallel_flag:
                params["parallel_tool_calls"] = False
        acc = CallAccumulator()
        finish = ""
        try:
            stream = await self.client.chat.completions.create(**params)
            async with stream:
                async for chunk in stream:
                    for choice in chunk.choices or []:
                        delta = choice.delta
                        if delta is None:
                            continue
                        if delta.content:
                            yield TextPiece(delta.content)
                        for tc in delta.tool_calls or []:
                            fn = tc.function
                            acc.add(tc.index, tc.id, fn.name if fn else None,
                                    fn.arguments if fn else None)
                        if choice.finish_reason:
                            finish = choice.finish_reason
        except openai.APIError as e:
            raise self._error(e) from None
        except Exception as e:  # the HTTP layer under the SDK (e.g. the connection dropped)
            if type(e).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "openai"):
                raise self._error(e) from None
            raise
        calls = []
        for n, slot in enumerate(acc.slots):
            args, invalid = slot.arguments()
            calls.append(ToolCall(id=slot.id or f"call_{n}", name=slot.name, arguments=args, invalid=invalid))
        yield Calls(calls, finish)
