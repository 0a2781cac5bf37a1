"""Provider adapters on recorded wire-format transcripts (tests/unit/fixtures/providers/*.sse),
served over real HTTP by the fake LLM server, so the SDKs parse exactly these bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fake_llm import Error, FakeLLM, Raw
from webmcp_sidecar.agent.history import Message, ToolCall
from webmcp_sidecar.agent.providers import make
from webmcp_sidecar.agent.providers.base import Calls, ProviderError, TextPiece
from webmcp_sidecar.agent.providers.errors import explain
from webmcp_sidecar.agent.providers.prompt_tools import parse_calls
from webmcp_sidecar.agent.settings import ProviderConfig, Settings
from webmcp_sidecar.agent.toolset import ToolSpec

pytestmark = pytest.mark.anyio
FIX = Path(__file__).parent / "fixtures" / "providers"
TOOLS = [
    ToolSpec("searchFlights", "Search flights",
             {"type": "object", "properties": {"from": {"type": "string"}}}, True, "demo.test",
             "searchFlights"),
    ToolSpec("bookFlight", "Book", {"type": "object", "properties": {}}, False, "demo.test", "bookFlight"),
]


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def settings_for(llm: FakeLLM, provider: str = "custom", **kw) -> Settings:
    url = llm.anthropic_url if provider == "anthropic" else llm.openai_url
    return Settings(provider=provider, providers={provider: ProviderConfig(model="m-1", base_url=url)}, **kw)


async def collect(provider, messages=None, tools=TOOLS):
    texts, calls = [], None
    try:
        async for ev in provider.stream("rules", messages or [Message(role="user", text="hi")], tools):
            if isinstance(ev, TextPiece):
                texts.append(ev.text)
            else:
                assert isinstance(ev, Calls)
                calls = ev
    finally:
        await provider.aclose()
    assert calls is not None, "a stream always ends with Calls"
    return "".join(texts), calls


def replay(llm: FakeLLM, name: str) -> None:
    llm.script(Raw((FIX / name).read_bytes()))


async def test_openai_text_then_a_call_in_pieces(llm):
    replay(llm, "openai_text_then_call.sse")
    text, res = await collect(make(settings_for(llm), "sk-test", prompt_tools=False))
    assert text == "I'll search flights."
    assert [(c.id, c.name, c.arguments) for c in res.calls] == [
        ("call_Qm1", "searchFlights", {"from": "PEK", "to": "SHA", "date": "2026-12-01"})]
    assert res.stop_reason == "tool_calls"
    body = llm.requests[0].body
    assert body["stream"] is True and body["model"] == "m-1"
    assert body["messages"][0] == {"role": "system", "content": "rules"}
    assert [t["function"]["name"] for t in body["tools"]] == ["searchFlights", "bookFlight"]
    # custom servers get no tool_choice and no parallel flag (many reject them)
    assert "tool_choice" not in body and "parallel_tool_calls" not in body
    assert llm.requests[0].auth == "Bearer sk-test"


async def test_openai_preset_sends_parallel_false_and_auto(llm):
    replay(llm, "openai_parallel_calls.sse")
    _, res = await collect(make(settings_for(llm, "openai"), "sk-x", prompt_tools=False))
    assert [(c.id, c.name, c.arguments) for c in res.calls] == [
        ("call_A", "listFlights", {}), ("call_B", "setFilters", {"maxStops": 0})]
    body = llm.requests[0].body
    assert body["parallel_tool_calls"] is False and body["tool_choice"] == "auto"


async def test_qwen_repeats_id_and_name_in_every_chunk(llm):
    replay(llm, "qwen_repeated_id_and_name.sse")
    _, res = await collect(make(settings_for(llm, "qwen"), "sk-q", prompt_tools=False))
    assert [(c.id, c.name, c.arguments) for c in res.calls] == [
        ("call_8f2", "searchFlights", {"from": "PEK", "to": "SHA", "date": "2026-12-01"})]


async def test_arguments_as_an_object_without_index(llm):
    replay(llm, "args_as_object_no_index.sse")
    _, res = await collect(make(settings_for(llm, "glm"), "k", prompt_tools=False))
    assert [(c.name, c.arguments, c.invalid) for c in res.calls] == [
        ("bookFlight", {"flightId": "CA123", "passengerName": "Li Lei"}, None)]


async def test_repeated_whole_arguments_and_a_second_id_on_the_same_index(llm):
    replay(llm, "repeated_args_same_index.sse")
    _, res = await collect(make(settings_for(llm, "moonshot"), "k", prompt_tools=False))
    assert [(c.id, c.name, c.arguments) for c in res.calls] == [
        ("call_r1", "setFilters", {"maxPrice": 800}), ("call_r2", "listFlights", {})]


async def test_an_error_inside_the_stream_is_plain(llm):
    replay(llm, "error_in_stream.sse")
    with pytest.raises(ProviderError) as e:
        await collect(make(settings_for(llm, "deepseek"), "k", prompt_tools=False))
    assert e.value.code == "server" and "overloaded" in e.value.message


async def test_anthropic_text_then_tool_use(llm):
    replay(llm, "anthropic_text_then_tool_use.sse")
    history = [
        Message(role="user", text="find flights"),
        Message(role="assistant", text="", tool_calls=[ToolCall(id="toolu_0", name="listFlights")]),
        Message(role="tool", tool_call_id="toolu_0", text="nothing yet", is_error=False),
    ]
    text, res = await collect(make(settings_for(llm, "anthropic"), "sk-ant", prompt_tools=False), history)
    assert text == "Searching now."
    assert [(c.id, c.name, c.arguments) for c in res.calls] == [
        ("toolu_01T1", "searchFlights", {"from": "PEK", "to": "SHA", "date": "2026-12-01"}),
        ("toolu_01T2", "listFlights", {})]
    assert res.stop_reason == "tool_use"
    req = llm.requests[0]
    assert req.path == "/v1/messages" and req.auth.removeprefix("Bearer ") == "sk-ant"
    assert req.body["system"] == "rules" and req.body["tools"][0]["input_schema"]["type"] == "object"
    # the tool result travels as a user tool_result block after the assistant's tool_use
    assert [m["role"] for m in req.body["messages"]] == ["user", "assistant", "user"]
    assert req.body["messages"][2]["content"][0]["type"] == "tool_result"


async def test_anthropic_error_event(llm):
    replay(llm, "anthropic_error_event.sse")
    with pytest.raises(ProviderError) as e:
        await collect(make(settings_for(llm, "anthropic"), "sk-ant", prompt_tools=False))
    assert e.value.code == "server" and "Overloaded" in e.value.message


async def test_prompt_mode_parses_the_call_and_hides_its_markup(llm):
    replay(llm, "prompt_mode_answer.sse")
    text, res = await collect(make(settings_for(llm, "ollama"), None, prompt_tools=True))
    assert text.strip() == "I'll look that up."
    assert [(c.name, c.arguments) for c in res.calls] == [
        ("searchFlights", {"from": "PEK", "to": "SHA", "date": "2026-12-01"})]
    body = llm.requests[0].body
    assert "tools" not in body
    system = body["messages"][0]["content"]
    assert "<tool_call>" in system and "searchFlights" in system


def test_prompt_mode_takes_calls_only_in_the_tool_call_markup():
    """A model quoting a page (fenced JSON, bare JSON) makes no call; only the documented
    `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` does."""
    quoted = ('The page says:\n```json\n{"name": "bookFlight", "arguments": {"flightId": "CA1"}}\n```\n'
              '```tool_call\n{"name": "bookFlight", "arguments": {}}\n```\n'
              '{"name": "bookFlight", "arguments": {}}')
    assert parse_calls(quoted) == []
    (call,) = parse_calls(quoted + '\n<tool_call>{"name": "searchFlights", "arguments": {"from": "PEK"}}'
                          '</tool_call>')
    assert (call.name, call.arguments, call.invalid) == ("searchFlights", {"from": "PEK"}, None)


@pytest.mark.parametrize(("status", "message", "code", "says"), [
    (401, "Incorrect API key provided: sk-****abcd.", "auth", "refused the API key"),
    (429, "Rate limit reached for requests", "rate_limit", "Wait a few seconds"),
    (429, "You exceeded your current quota, please check your plan and billing details.", "quota", "credit"),
    (402, "Insufficient Balance", "quota", "Top up"),
    (400, "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens",
     "context_too_long", "Start a new conversation"),
    (400, "registry.ollama.ai/library/gemma:2b does not support tools", "tools_unsupported", "In the prompt"),
    (404, "The model `gpt-9` does not exist", "not_found", "Check the model name"),
    (503, "upstream connect error", "server", "Try again in a moment"),
])
async def test_http_errors_become_plain_language(llm, status, message, code, says):
    for provider in ("deepseek", "anthropic"):
        llm.script(Error(status, message))
        with pytest.raises(ProviderError) as e:
            await collect(make(settings_for(llm, provider), "k", prompt_tools=False))
        assert e.value.code == code, (provider, e.value.message)
        assert says in e.value.message and message in e.value.message


async def test_network_failure_says_what_to_check():
    s = Settings(provider="ollama", providers={"ollama": ProviderConfig(base_url="http://127.0.0.1:9/v1")})
    with pytest.raises(ProviderError) as e:
        await collect(make(s, None, prompt_tools=False))
    assert e.value.code == "network"
    assert "ollama serve" in e.value.message and "127.0.0.1:9" in e.value.message


def test_missing_key_and_missing_base_url_are_plain():
    with pytest.raises(ProviderError) as e:
        make(Settings(provider="deepseek"), None, prompt_tools=False)
    assert e.value.code == "missing_key" and "keys set deepseek" in e.value.message
    with pytest.raises(ProviderError) as e:
        make(Settings(provider="custom"), None, prompt_tools=False)
    assert e.value.code == "config" and "base URL" in e.value.message


def test_explain_without_status_is_network():
    err = explain(None, "", label="DeepSeek", provider_id="deepseek", model="m", base_url="https://x")
    assert err.code == "network" and "https://x" in err.message
