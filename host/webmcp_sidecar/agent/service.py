"""The host side of the panel protocol: settings, keys, conversations, and running turns.

Handlers are called by the host for each `panel_*` message from the browser; slow work (the
keyring talks D-Bus, turns talk to a model) runs in tasks so the host keeps routing MCP calls.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from webmcp_sidecar.agent import conversations, keys, providers, rules, settings, toolset
from webmcp_sidecar.agent import panel_messages as p
from webmcp_sidecar.agent.conversations import Conversation
from webmcp_sidecar.agent.loop import TurnContext, result_text, run_turn
from webmcp_sidecar.agent.presets import PRESETS
from webmcp_sidecar.agent.providers.base import ProviderError
from webmcp_sidecar.agent.toolset import ToolFailed, ToolSpec
from webmcp_sidecar.texts import NO_EXTENSION
from webmcp_sidecar.tools.validation import check_arguments_async, schema_key
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import NO_REASON_TEXT, timeout_text

if TYPE_CHECKING:
    from webmcp_sidecar.agent.port import HostPort

log = logging.getLogger(__name__)


class RunningTurn:
    def __init__(self, turn_id: str, conv: Conversation) -> None:
        self.id = turn_id
        self.conv = conv
        self.task: asyncio.Task[Any] | None = None
        self.ctx: TurnContext | None = None
        self.call_id = ""  # the tool call that runs (calls run one at a time): for its progress


class AgentService:
    def __init__(self, host: HostPort, tool_providers: list[Any] | None = None) -> None:
        self.host = host
        self.tool_providers = tool_providers if tool_providers is not None else []
        self.settings = settings.load()
        self.store = conversations.Store()
        self.conv = Conversation()
        self.turn: RunningTurn | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        recent = self.store.list()
        if recent:
            self.conv = self.store.load(recent[0].id) or Conversation()

    # --- plumbing ---------------------------------------------------------------------------

    def send(self, msg: BaseModel) -> None:
        self.host.send_to_browser(dumps(msg.model_dump(mode="json")))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (e := task.exception()) is not None:
            log.error("panel request failed: %s", type(e).__name__, exc_info=e)
            self.send(p.AgentError(about="request", message=f"The host failed on that request "
                                   f"({type(e).__name__}); see the host log."))

    def handle(self, raw: dict[str, Any]) -> None:
        try:
            msg = p.panel_message.validate_python(raw)
        except ValidationError as e:
            # Never echo the input: it may be a key.
            where = "; ".join(f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}"
                              for err in e.errors(include_input=False, include_url=False))[:500]
            log.warning("bad %s message from the panel: %s", str(raw.get("type"))[:40], where)
            about = "key" if raw.get("type") == "panel_key" else (
                "settings" if raw.get("type") == "panel_settings" else "request")
            self.send(p.AgentError(about=about, message=f"That was not accepted: {where}"))
            return
        if isinstance(msg, p.PanelHello):
            self._spawn(self._hello())
        elif isinstance(msg, p.PanelSettings):
            self.settings = msg.settings
            settings.save(self.settings)
            self._spawn(self._hello(with_conversation=False))
        elif isinstance(msg, p.PanelKey):
            self._spawn(self._key(msg))
        elif isinstance(msg, p.PanelChat):
            self._chat(msg)
        elif isinstance(msg, p.PanelStop):
            if self.turn and self.turn.task and (msg.turn_id in (None, self.turn.id)):
                self.turn.task.cancel()
        elif isinstance(msg, p.PanelConfirm):
            self._confirm(msg)
        elif isinstance(msg, p.PanelOpen):
            self._open(msg.conversation_id)
        elif isinstance(msg, p.PanelNew):
            if self._busy():
                return
            self.conv = Conversation()
            self._send_conversation()
        elif isinstance(msg, p.PanelDelete):
            if self._busy():
                return
            if msg.conversation_id is None:
                self.store.delete_all()
                self.conv = Conversation()
            else:
                self.store.delete(msg.conversation_id)
                if msg.conversation_id == self.conv.id:
                    self.conv = Conversation()
            self._send_conversation()

    def _busy(self) -> bool:
        if self.turn is not None:
            self.send(p.AgentError(about="conversation",
                                   message="A turn is running: wait for it or press Stop first."))
            return True
        return False

    # --- state, keys ------------------------------------------------------------------------

    async def _key_state(self) -> tuple[dict[str, bool], p.KeyringStatus]:
        def read() -> tuple[dict[str, bool], p.KeyringStatus]:
            ok, message = keys.check()
            if not ok:
                return {k: False for k in PRESETS}, p.KeyringStatus(ok=False, message=message)
            try:
                return keys.which(), p.KeyringStatus(ok=True, message=message)
            except keys.KeyringUnavailable as e:
                return {k: False for k in PRESETS}, p.KeyringStatus(ok=False, message=str(e))

        return await asyncio.to_thread(read)

    async def _hello(self, with_conversation: bool = True) -> None:
        have, status = await self._key_state()
        self.send(p.AgentState(
            settings=self.settings,
            providers=[p.ProviderInfo(id=x.id, label=x.label, kind=x.kind, base_url=x.base_url,
                                      model=x.model, needs_key=x.needs_key, note=x.note)
                       for x in PRESETS.values()],
            keys=have, keyring=status, conversations=self.store.list(),
            conversation=self.conv.view() if with_conversation else None,
            running=self.turn.id if self.turn else None,
        ))

    async def _key(self, msg: p.PanelKey) -> None:
        def change() -> None:
            if msg.key is None:
                keys.delete_key(msg.provider)
            else:
                keys.set_key(msg.provider, msg.key.get_secret_value())

        try:
            await asyncio.to_thread(change)
        except (keys.KeyringUnavailable, ValueError) as e:
            self.send(p.AgentError(about="key", message=str(e)))
            return
        have, status = await self._key_state()
        self.send(p.AgentKeys(keys=have, keyring=status, changed=msg.provider))

    # --- conversations ----------------------------------------------------------------------

    def _send_conversation(self) -> None:
        self.send(p.AgentConversation(conversation=self.conv.view(), conversations=self.store.list()))

    def _open(self, cid: str) -> None:
        if self._busy():
            return
        conv = self.store.load(cid) if conversations.valid_id(cid) else None
        if conv is None:
            self.send(p.AgentError(about="conversation", message="That conversation is no longer there."))
            return
        self.conv = conv
        self._send_conversation()

    # --- turns ------------------------------------------------------------------------------

    def _confirm(self, msg: p.PanelConfirm) -> None:
        t = self.turn
        if t is None or t.id != msg.turn_id or t.ctx is None:
            return
        t.ctx.confirms.resolve(msg.call_id, msg.run)

    def _chat(self, msg: p.PanelChat) -> None:
        if self.turn is not None:
            self.send(p.AgentError(about="chat", message="The agent is still working on your last "
                                   "message: wait for it, or press Stop."))
            return
        if msg.conversation_id and msg.conversation_id != self.conv.id:
            cid = msg.conversation_id
            self.conv = (self.store.load(cid) if conversations.valid_id(cid) else None) or Conversation()
        turn = RunningTurn(f"t{secrets.token_hex(4)}", self.conv)
        self.turn = turn
        turn.task = self._spawn(self._run(turn, msg))

    def _emitter(self, turn: RunningTurn) -> Any:
        def emit(event: BaseModel) -> None:
            if isinstance(event, p.ToolCallEvent):
                turn.call_id = event.call_id
            self.send(p.AgentEvent(conversation_id=turn.conv.id, turn_id=turn.id, event=event))
        return emit

    async def _run(self, turn: RunningTurn, msg: p.PanelChat) -> None:
        emit = self._emitter(turn)
        s = self.settings.model_copy(deep=True)
        site = msg.site
        tools = self.host.sites.get(site, []) if site else []
        tab = msg.tab or p.TabInfo()
        servers = None if msg.servers is None else tuple(msg.servers)
        target = toolset.Target(site, tab.id, tab.url, servers=servers)
        try:
            problems = await self._prepare(target)
        except asyncio.CancelledError:  # Stop while local servers start
            emit(p.TurnStart(text=msg.text, site=site))
            emit(p.TurnEnd(reason="stopped"))
            self.turn = None
            raise
        ts = toolset.build(target, tools, list(self.tool_providers))
        emit(p.TurnStart(text=msg.text, site=site, tools=len(ts.specs)))
        for problem in problems:
            emit(p.NoticeEvent(text=problem))
        try:
            try:
                key = await asyncio.to_thread(keys.get_key, s.provider) if PRESETS[s.provider].needs_key or \
                    s.provider == "custom" else None
            except keys.KeyringUnavailable as e:
                if PRESETS[s.provider].needs_key:
                    raise ProviderError("keyring", str(e)) from None
                key = None
            provider = providers.make(s, key, prompt_tools=s.tool_mode == "prompt")
        except ProviderError as e:
            emit(p.ErrorEvent(code=e.code, message=e.message))
            emit(p.TurnEnd(reason="error"))
            self.turn = None
            return
        fallback = (lambda: providers.make(s, key, prompt_tools=True)) if s.tool_mode == "auto" else None
        ctx = TurnContext(
            turn_id=turn.id, settings=s, provider=provider, toolset=ts,
            system=rules.system_prompt(site, tab.url, tab.title, len(ts.specs)),
            history=turn.conv.history, items=turn.conv.items, emit=emit,
            run_tool=self._run_tool(ts, target, turn, emit), save=lambda: self.store.save(turn.conv),
            fallback=fallback,
            precheck=_precheck(ts), tab_site=site,
        )
        turn.ctx = ctx
        try:
            await run_turn(ctx, msg.text)
        finally:
            self.turn = None
            for prov in {id(provider): provider, id(ctx.provider): ctx.provider}.values():
                await prov.aclose()

    async def _prepare(self, target: toolset.Target) -> list[str]:
        """Providers with work to do before the turn's tools are known (local MCP servers start
        on first use): their problems, in plain words, for the panel."""
        problems: list[str] = []
        for prov in self.tool_providers:
            prepare = getattr(prov, "prepare", None)
            if prepare is None:
                continue
            try:
                problems += await prepare(target)
            except Exception as e:
                log.exception("a tool source failed to prepare")
                problems.append(f"A tool source failed ({type(e).__name__}); see the host log.")
        return problems

    def _run_tool(self, ts: toolset.Toolset, target: toolset.Target, turn: RunningTurn,
                  emit: Any) -> Any:
        async def run(spec: ToolSpec, args: dict[str, Any], timeout: float) -> str:
            other = ts.providers.get(spec.name)
            if other is None:
                return await self._run_site_tool(spec, args, timeout)
            token = toolset.progress_sink.set(_progress_to(emit, turn.call_id))
            try:
                return await other.run(spec, args, timeout, target)
            finally:
                toolset.progress_sink.reset(token)
        return run

    async def _run_site_tool(self, spec: ToolSpec, args: dict[str, Any], timeout: float) -> str:
        call = {"type": "call", "site": spec.site, "tool": spec.tool, "args": args,
                "timeout_ms": int(timeout * 1000), "max_bytes": 4 * 1024 * 1024}
        return await run_call(self.host, call, spec, args, timeout)


PROGRESS_EVERY_S = 0.1


def _progress_to(emit: Any, call_id: str) -> toolset.ProgressSink:
    """Progress of one call as `progress` events for its card: at most one per PROGRESS_EVERY_S
    (a server may send thousands), but always the one that says it is done."""
    last = 0.0

    def progress(value: float, total: float | None, message: str | None) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last < PROGRESS_EVERY_S and (total is None or value < total):
            return
        last = now
        emit(p.ProgressEvent(call_id=call_id, progress=value, total=total,
                             message=message[:500] if message else None))
    return progress


def _precheck(ts: toolset.Toolset) -> Any:
    async def check(spec: ToolSpec, args: dict[str, Any]) -> str | None:
        fn = getattr(ts.providers.get(spec.name), "precheck", None)
        return None if fn is None else await fn(spec, args)
    return check


async def run_call(host: HostPort, call: dict[str, Any], spec: ToolSpec, args: dict[str, Any],
                   timeout: float) -> str:
    """Check `args`, send `call` (a site tool's `call` or a `browser_call`) through the host, and
    return the result as the model reads it; raise ToolFailed with a plain message otherwise."""
    problem = await check_arguments_async(schema_key(spec.parameters), args)
    if problem:
        raise ToolFailed(f"Not run. {problem}", "invalid_args")
    if not host.extension_connected:
        raise ToolFailed(NO_EXTENSION, "no_extension")
    try:
        # The worker answers `timeout` itself a moment after timeout_ms; this is the backstop.
        res = await host.request(call, timeout + 2)
    except TimeoutError:
        raise ToolFailed(timeout_text("The page", timeout * 1000), "timeout") from None
    if res.get("ok"):
        return result_text(res.get("value"))
    err = res.get("error") or {}
    raise ToolFailed(str(err.get("message") or NO_REASON_TEXT),
                     str(err.get("code") or "page_error"))
