"""The host's one routing table (native_host/app.py `Host.ROUTES` and the plugins' `HANDLES`,
composed by host_parts.py; docs/PROTOCOL.md "Routes in the host" is made from it and
tests/unit/test_generated.py fails when that is stale)."""

from __future__ import annotations

import typing

import pytest

from webmcp_sidecar import host_parts
from webmcp_sidecar.native_host.app import Host
from webmcp_sidecar.native_host.stdio import FrameWriter
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.constants import PANEL_TYPES


def composed() -> Host:
    host = Host("chrome-extension://x/", FrameWriter(lambda frame: None))
    for plugin in host_parts.plugins(host):
        host.add(plugin)
    return host


def test_every_type_the_browser_sends_has_a_route():
    union = typing.get_args(typing.get_args(m.ExtensionMessage)[0])
    sent = {model.model_fields["type"].default for model in union} | set(PANEL_TYPES)
    assert sent - set(composed().routes) == {"pong"}  # a pong needs nothing done


def test_a_type_routed_twice_is_refused():
    host = composed()

    class Greedy:
        HANDLES: typing.ClassVar[dict[str, str]] = {"panel_chat": "on"}

        def on(self, raw, payload):
            pass

    with pytest.raises(ValueError, match="panel_chat"):
        host.add(Greedy())

