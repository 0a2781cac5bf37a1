"""The extension's copies of the protocol (constants, limits, error codes, browser-tool table,
the message tables in docs/PROTOCOL.md) are generated from the Python source: a stale one
fails here, with the command that fixes it."""

from __future__ import annotations

import typing

from webmcp_sidecar import gen_js
from webmcp_sidecar.agent import panel_messages as pm
from webmcp_sidecar.wire import constants as c


def test_generated_files_are_up_to_date():
    stale = gen_js.stale()
    assert not stale, f"stale generated files {stale}: run `{gen_js.COMMAND}` and commit them"


def test_generated_module_holds_every_constant():
    text = gen_js.module_js()
    for name in (*gen_js.SCALARS, *gen_js.LIMITS, *gen_js.LISTS, "TOOL_NAME_RE", "BROWSER_TOOLS"):
        assert f"export const {name} = " in text, name
    assert '"upload_file"' in text and '"maxItems": 32' in text
    assert gen_js.settings_ranges()["call_timeout_s"] == {"min": 1, "max": 600}
    assert "export const SETTINGS_RANGES = " in text


def test_stale_file_is_found(tmp_path):
    for rel, text in gen_js.outputs().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert gen_js.stale(tmp_path) == []
    (tmp_path / gen_js.ISOLATED).write_text("// edited by hand\n", encoding="utf-8")
    assert gen_js.stale(tmp_path) == [gen_js.ISOLATED]


def _types(union: typing.Any) -> list[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return [typing.get_args(m.model_fields["type"].annotation)[0] for m in members]


def test_panel_and_agent_types_are_the_models():
    assert tuple(_types(pm.PanelMessage)) == c.PANEL_TYPES
    agent = {
        typing.get_args(v.model_fields["type"].annotation)[0]
        for v in vars(pm).values()
        if isinstance(v, type) and issubclass(v, pm.BaseModel) and "type" in v.model_fields
    }
    assert set(c.AGENT_TYPES) == {t for t in agent if t.startswith("agent_")}


def test_error_codes_have_texts():
    assert list(c.ERROR_TEXTS) == list(c.ERROR_CODES)
    assert all(text.endswith(".") for text in c.ERROR_TEXTS.values())


def test_js_regex_matches_python_rule():
    assert gen_js.js_regex(c.TOOL_NAME_PATTERN) == "/^[A-Za-z0-9_.-]{1,128}$/"
