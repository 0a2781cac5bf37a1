"""One turn of the agent: the model answers text (done) or tool calls
(run them one at a time, append the results, ask again), within the turn's limits.

Events go to the panel as they happen through `emit`; Stop is the cancellation of the task that
runs `run_turn` (it reaches the model's HTTP stream and the page's running tool).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from webmcp_sidecar.agent import confirm_policy
from webmcp_sidecar.agent import panel_messages as p
from webmcp_sidecar.agent.history import Message, ToolCall
from webmcp_sidecar.agent.providers.base import Calls, Provider, ProviderError, TextPiece
from webmcp_sidecar.agent.settings import Settings
from webmcp_sidecar.agent.toolset import ToolFailed, Toolset, ToolSpec
from webmcp_sidecar.tools.untrusted import untrusted_result
from webmcp_sidecar.wire.pending import PendingRequests

# What the model gets of one result, and what the panel shows of it.
MAX_RESULT_TO_MODEL = 100_000
MAX_RESULT_SHOWN = 20_000

Emit = Callable[[Any], None]
Runner = Callable[[ToolSpec, dict[str, Any], float], Awaitable[str]]
# Checks a call before the user is asked about it: a reason it cannot run (e.g. an upload
# outside the allowed folders), or None.
Precheck = Callable[[ToolSpec, dict[str, Any]], Awaitable[str | None]]


@dataclass
class TurnContext:
    turn_id: str
    settings: Settings
    provider: Provider
    toolset: Toolset
    system: str
    history: list[Message]
    items: list[Any]  # protocol ChatItems, what the panel shows on reopen
    emit: Emit
    run_tool: Runner
    save: Callable[[], None]
    # Switch to tools-in-the-prompt (models that refuse native tool calling); None = not allowed.
    fallback: Callable[[], Provider] | None = None
    precheck: Precheck | None = None
    tab_site: str | None = None  # the site of the panel's tab when the turn began
    tab_moved: bool = False  # a browser tool may have taken the tab to another page this turn
    confirms: PendingRequests[bool] = field(default_factory=PendingRequests)  # by call id
    stats: p.TurnStats = field(default_factory=p.TurnStats)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters cut)"


def repair(history: list[Message]) -> None:
    """Every tool call of the last assistant message gets a result (APIs insist), e.g. after
    Stop cut a turn short."""
    for i in range(len(history) - 1, -1, -1):
        m = history[i]
        if m.role == "assistant":
            answered = {x.tool_call_id for x in history[i + 1:] if x.role == "tool"}
            for c in m.tool_calls:
                if c.id not in answered:
                    history.append(Message(role="tool", tool_call_id=c.id, tool_name=c.name,
                                           text="Not run: the turn was stopped.", is_error=True,
                                           data_from=None))
            return
        if m.role == "user":
            return


async def run_turn(ctx: TurnContext, user_text: str) -> str:
    """Runs the turn; returns how it ended (a TurnEnd reason). Never raises for provider or tool
    failures: they become events. Cancellation (Stop) ends it as `stopped`."""
    ctx.history.append(Message(role="user", text=user_text))
    ctx.items.append(p.UserItem(text=user_text))
    ctx.save()  # and once more when the turn ends: not per step, that is the user's wait
    reason = "error"
    try:
        async with asyncio.timeout(ctx.settings.turn_timeout_s) as deadline:
            reason = await _steps(ctx, deadline)
    except TimeoutError:
        reason = "timeout"
        _error(ctx, "turn_timeout",
               f"The turn took longer than {ctx.settings.turn_timeout_s:g} s and was stopped (the limit "
               "per turn; change it in Settings).")
    except asyncio.CancelledError:
        reason = "stopped"
        ctx.items.append(p.NoticeItem(text="Stopped."))
    except ProviderError as e:
        reason = "error"
        _error(ctx, e.code, e.message)
    finally:
        ctx.confirms.cancel_all()
        for item in ctx.items:
            if isinstance(item, p.ToolItem) and item.state in ("running", "confirm"):
                item.state, item.error = "error", "Stopped before it finished."
        repair(ctx.history)
        ctx.save()
        ctx.emit(p.TurnEnd(reason=reason, stats=ctx.stats))
    return reason


def _error(ctx: TurnContext, code: str, message: str) -> None:
    ctx.items.append(p.NoticeItem(text=message, level="error"))
    ctx.emit(p.ErrorEvent(code=code, message=message))


async def _steps(ctx: TurnContext, deadline: asyncio.Timeout) -> str:
    calls_made = 0
    provider = ctx.provider
    ready_at: float | None = None  # when the last tool step's work was done (overhead clock)
    pending_overhead = 0.0
    while True:
        if ready_at is not None:
            ctx.stats.overhead_ms.append(round((pending_overhead + time.perf_counter() - ready_at) * 1000, 3))
        t0 = time.perf_counter()
        try:
            text, calls = await _ask(ctx, provider)
        except ProviderError as e:
            if e.code == "tools_unsupported" and ctx.fallback is not None and ctx.toolset.specs:
                provider = ctx.provider = ctx.fallback()
                ctx.fallback = None
                note = (f"{provider.label} does not support tool calling for this model: describing "
                        "the tools in the prompt instead.")
                ctx.items.append(p.NoticeItem(text=note))
                ctx.emit(p.NoticeEvent(text=note))
                ready_at = None
                continue
            raise
        model_done = time.perf_counter()
        ctx.stats.model_ms += (model_done - t0) * 1000
        _unique_ids(ctx.history, calls)
        ctx.history.append(Message(role="assistant", text=text, tool_calls=calls))
        if text:
            ctx.items.append(p.AssistantItem(text=text))
        if not calls:
            return "done"
        ready_at, pending_overhead = model_done, 0.0
        for call in calls:
            if calls_made >= ctx.settings.max_tool_calls:
                msg = (f"Stopped after {ctx.settings.max_tool_calls} tool calls, the limit per turn "
                       "(change it in Settings). Send a message to let it go on.")
                ctx.items.append(p.NoticeItem(text=msg))
                ctx.emit(p.NoticeEvent(text=msg))
                return "limit"
            calls_made += 1
            ready_at, spent = await _one_call(ctx, call, ready_at, deadline)
            pending_overhead += spent


def _unique_ids(history: list[Message], calls: list[ToolCall]) -> None:
    """Some servers send no call ids, or reuse them across steps: results are matched by id,
    so each call of the conversation gets its own."""
    seen = {c.id for m in history if m.role == "assistant" for c in m.tool_calls}
    for call in calls:
        if not call.id or call.id in seen:
            call.id = f"call_{secrets.token_hex(6)}"
        seen.add(call.id)


async def _ask(ctx: TurnContext, provider: Provider) -> tuple[str, list[ToolCall]]:
    parts: list[str] = []
    calls: list[ToolCall] = []
    async for ev in provider.stream(ctx.system, ctx.history, ctx.toolset.specs):
        if isinstance(ev, TextPiece):
            parts.append(ev.text)
            ctx.emit(p.TextDelta(text=ev.text))
        elif isinstance(ev, Calls):
            calls = ev.calls
    return "".join(parts), calls


async def _one_call(ctx: TurnContext, call: ToolCall, ready_at: float,
                    deadline: asyncio.Timeout) -> tuple[float, float]:
    """Runs one call (after the user's OK in confirm mode). Returns (when its result was in,
    the agent's own time spent on it before the tool started)."""
    spec = ctx.toolset.by_name(call.name)
    item = p.ToolItem(call_id=call.id, tool=spec.tool if spec else call.name,
                      site=spec.site if spec else None, args=call.arguments,
                      read_only=bool(spec and spec.read_only))
    ctx.items.append(item)
    ctx.emit(p.ToolCallEvent(call_id=call.id, tool=item.tool, site=item.site, args=call.arguments,
                             read_only=item.read_only))
    if spec is None:
        names = ", ".join(s.name for s in ctx.toolset.specs) or "none"
        return _finish(ctx, call, item, None, f"There is no tool named {call.name!r}. Tools: {names}.",
                       0.0), 0.0
    if call.invalid:
        return _finish(ctx, call, item, None, f"Not run: {call.invalid}. Send the call again with a "
                       "JSON object as arguments.", 0.0), 0.0
    if ctx.precheck is not None and (problem := await ctx.precheck(spec, call.arguments)):
        return _finish(ctx, call, item, None, problem, 0.0), 0.0
    decision = confirm_policy.decide(spec, ctx.settings.mode, confirm_policy.carried_sites(ctx.history))
    if decision.confirm:
        spent = time.perf_counter() - ready_at
        item.state = "confirm"
        ctx.emit(p.ConfirmEvent(call_id=call.id, reason=decision.reason or None))
        loop = asyncio.get_running_loop()
        ctx.confirms.open(call.id)
        # The user's thinking time does not count against the turn's limit: the clock stops.
        when = deadline.when()
        left = None if when is None else when - loop.time()
        deadline.reschedule(None)
        try:
            run = await ctx.confirms.wait(call.id)
        finally:
            if left is not None:
                deadline.reschedule(loop.time() + left)
        if not run:
            item.state = "denied"
            msg = "The user denied this call: it was not run. Do not retry it unless the user asks."
            res = _finish(ctx, call, item, None, msg, 0.0, denied=True)
            return res, spent
        item.state = "running"
        ready_at = time.perf_counter() - spent
    if confirm_policy.moves_tab(spec):
        ctx.tab_moved = True  # set before it runs: even its own result may show the new page
    source = confirm_policy.data_source(spec, ctx.tab_site, ctx.tab_moved)
    start = time.perf_counter()
    spent = start - ready_at
    try:
        value = await ctx.run_tool(spec, call.arguments, ctx.settings.call_timeout_s)
        error, from_page = None, False
    except ToolFailed as e:
        value, error, from_page = None, str(e), e.code == "page_error"
    ms = (time.perf_counter() - start) * 1000
    ctx.stats.tool_ms += ms
    return _finish(ctx, call, item, value, error, ms, from_page=from_page, source=source), spent


def _finish(ctx: TurnContext, call: ToolCall, item: p.ToolItem, value: str | None, error: str | None,
            ms: float, *, denied: bool = False, from_page: bool = False,
            source: str | None = None) -> float:
    """Records the call's outcome. `source`: the site whose data the outcome may hold (any
    outcome of a tool that ran, errors too: they can quote the page); None for our refusals."""
    site, tool = item.site, item.tool
    if error is None:
        text = untrusted_result(site, tool, _cap(value or "", MAX_RESULT_TO_MODEL))
        item.state, item.value = "done", _cap(value or "", MAX_RESULT_SHOWN)
    else:
        # The page's own error message is page content; ours (denied, bad arguments) is not.
        text = untrusted_result(site, tool, error, error=True) if from_page else error
        if not denied:
            item.state = "error"
        item.error = error
    item.ms = round(ms, 1) if ms else None
    ctx.history.append(Message(role="tool", tool_call_id=call.id, tool_name=call.name, text=text,
                               is_error=error is not None, data_from=source))
    ctx.emit(p.ToolResultEvent(call_id=call.id, ok=error is None, value=item.value, error=error,
                               denied=denied, ms=item.ms))
    return time.perf_counter()


def result_text(raw_value: str | None) -> str:
    """A page's JSON result text as the model reads it (strings unquoted)."""
    if raw_value is None or raw_value == "undefined":
        return "(the tool returned nothing)"
    try:
        v = json.loads(raw_value)
    except ValueError:
        return raw_value
    if isinstance(v, dict) and isinstance(v.get("content"), list):
        # MCP content (e.g. a screenshot): the model reads its text; images are described,
        # not pasted as base64.
        parts = []
        for c in v["content"]:
            if isinstance(c, dict) and c.get("type") == "text":
                parts.append(str(c.get("text", "")))
            elif isinstance(c, dict):
                parts.append(f"[{c.get('type')} {c.get('mimeType', '')} omitted]".replace(" ]", "]"))
        return "\n".join(parts)
    return v if isinstance(v, str) else raw_value
