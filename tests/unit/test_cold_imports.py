"""Issue 14, the host's cold start: starting the host imports nothing heavy (no pydantic, no MCP
or LLM SDK, no servers or skills), builds no model, and answers `ping` and `hello` so; the models
build on first use, and the answers without them are the models' answers."""

import json
import subprocess
import sys
import textwrap

import pytest
from pydantic import ValidationError

from webmcp_sidecar import __version__
from webmcp_sidecar.native_host import first_answer
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.codec import FrameError
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

# In a fresh interpreter: the host's start as `cli._run_host` composes it (its plugins installed
# on a Host whose browser is a list), then a ping and a hello from the browser.
START = textwrap.dedent(
    """
    import json, sys
    from webmcp_sidecar import cli
    from webmcp_sidecar.native_host import process

    composed = {}
    process.main = lambda origin, compose=None: composed.update(compose=compose) or 0
    cli._run_host("chrome-extension://x/")
    from webmcp_sidecar.native_host.app import Host
    from webmcp_sidecar.native_host.stdio import FrameWriter

    sent = []
    host = Host("chrome-extension://x/", FrameWriter(sent.append))
    for plugin in composed["compose"](host):
        host.add(plugin)
    host.on_browser_frame(b'{"type":"ping","id":"1"}')
    host.on_browser_frame(b'{"type":"hello","extension_version":"9","browser":"B"}')
    at_start = sorted(sys.modules)
    from webmcp_sidecar.wire import messages as m  # as the MCP entry imports it

    built = [
        name for name, v in vars(m).items()
        if isinstance(v, type) and issubclass(v, m._Model) and v.__pydantic_complete__
    ]
    print(json.dumps({
        "answers": [json.loads(frame[4:]) for frame in sent],
        "modules": at_start,
        "built": built,
        "adapters": m._adapter.cache_info().currsize,
    }))
    """
)
HEAVY = ("pydantic", "pydantic_core", "mcp", "openai", "anthropic", "httpx", "importlib.metadata")
HEAVY_PACKAGES = ("webmcp_sidecar.servers.", "webmcp_sidecar.skills.", "webmcp_sidecar.chat_sites.")


@pytest.fixture(scope="module")
def started() -> dict:
    out = subprocess.run(
        [sys.executable, "-c", START], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_host_start_answers_ping_and_hello(started):
    assert started["answers"] == [
        {"type": "pong", "id": "1"},
        {"type": "host_hello", "protocol": PROTOCOL_VERSION, "host_version": __version__},
    ]


def test_host_start_imports_nothing_heavy(started):
    modules = started["modules"]
    assert "webmcp_sidecar.native_host.app" in modules  # (what is measured did run)
    assert [name for name in modules if name in HEAVY or name.startswith(HEAVY)] == []
    assert [name for name in modules if name.startswith(HEAVY_PACKAGES)] == []
    assert "webmcp_sidecar.wire.messages" not in modules
    assert "webmcp_sidecar.agent.service" not in modules


def test_importing_the_messages_builds_no_model(started):
    assert started["built"] == []
    assert started["adapters"] == 0  # no union's TypeAdapter made either


def test_a_model_builds_on_first_use_and_validates_as_ever():
    with pytest.raises(ValidationError, match="extension_version"):
        m.extension_message.validate_python({"type": "hello"})
    msg = m.extension_message.validate_python({"type": "ping", "id": "7"})
    assert isinstance(msg, m.Ping) and msg.id == "7"
    assert m.extension_message is m.extension_message  # made once
    with pytest.raises(AttributeError):
        _ = m.no_such_adapter


PINGS = [{}, {"id": "1"}, {"id": ""}, {"id": "\ud800x"}, {"id": 1}, {"id": None}, {"id": ["a"]}]
HELLOS = [
    {"extension_version": "1.2"},
    {"extension_version": "1.2", "browser": "Chrome 150", "protocol": 1},
    {"extension_version": "1.2", "protocol": 2},
    {"extension_version": "1.2", "protocol": 2**70},
    {"extension_version": "1.2", "protocol": True},  # pydantic takes it as 1: the model's way
    {"extension_version": "1.2", "protocol": 1.0},
    {"extension_version": "1.2", "protocol": "1"},
    {"extension_version": "1.2", "browser": None},
    {"extension_version": 3},
    {"browser": "x"},
    {"extension_version": "1.2", "origin": "moz-extension://u/"},
    {"extension_version": "1.2", "origin": 7},
]


@pytest.mark.parametrize("raw", PINGS)
def test_a_plain_ping_is_what_the_model_takes(raw):
    raw = {"type": "ping", **raw}
    plain = first_answer.plain_ping(raw)
    try:
        model: m.Ping | None = m.Ping.model_validate(raw)
    except ValidationError:
        model = None
    if plain is None:  # the models answer it: here, refuse it as ever
        assert model is None
        return
    assert model is not None and model.id == plain
    assert first_answer.pong(plain) == m.Pong(id=plain).model_dump()


@pytest.mark.parametrize("raw", HELLOS)
def test_a_plain_hello_is_what_the_model_takes(raw):
    raw = {"type": "hello", **raw}
    plain = first_answer.plain_hello(raw)
    try:
        model: m.Hello | None = m.Hello.model_validate(raw)
    except ValidationError:
        model = None
    if plain is None:  # the models answer it: refuse it, or take it converted
        assert model is None or type(raw.get("protocol")) is not int
        return
    assert model is not None
    assert plain == (model.extension_version, model.browser, model.protocol, model.origin)
    assert [type(v) for v in plain] == [str, str, int, str]


def test_the_plain_ways_take_the_usual_frames():
    assert first_answer.plain_ping({"type": "ping", "id": "1"}) == "1"
    hello = {"type": "hello", "extension_version": "1.2", "browser": "C", "protocol": 1}
    assert first_answer.plain_hello(hello) == ("1.2", "C", 1, "")
    assert first_answer.plain_hello({**hello, "origin": "moz-extension://u/"}) == (
        "1.2", "C", 1, "moz-extension://u/")
    assert first_answer.plain_hello({**hello, "origin": None}) is None
    assert first_answer.plain_hello({**hello, "protocol": True}) is None
    assert first_answer.plain_ping({"type": "ping", "id": 1}) is None


def test_host_hello_is_the_models():
    expected = m.HostHello(protocol=PROTOCOL_VERSION, host_version=__version__).model_dump()
    assert first_answer.host_hello() == expected
    assert list(first_answer.host_hello()) == list(expected)  # the same bytes: the same order


def test_bad_frame_errors():
    with pytest.raises(ValidationError) as refused:
        m.Ping.model_validate({"id": 1})
    assert first_answer.is_bad_frame(refused.value)
    assert first_answer.is_bad_frame(FrameError("x"))
    assert not first_answer.is_bad_frame(ValueError("x"))
    assert not first_answer.is_bad_frame(KeyError("x"))
