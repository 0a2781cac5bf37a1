"""The side panel agent's confirm policy: a page's read-only hint decides nothing across sites."""

from __future__ import annotations

from webmcp_sidecar.agent.confirm_policy import carried_sites, data_source, decide, moves_tab
from webmcp_sidecar.agent.history import UNKNOWN_SITE, Message
from webmcp_sidecar.agent.toolset import ToolSpec

SCHEMA = {"type": "object", "properties": {}}


def page_tool(site: str, read_only: bool = True) -> ToolSpec:
    return ToolSpec("lookup", "", SCHEMA, read_only, site, "lookup", origin="page")


def browser_tool(tool: str, read_only: bool) -> ToolSpec:
    return ToolSpec(f"browser_{tool}", "", SCHEMA, read_only, None, tool, origin="browser")


def result(data_from: str | None) -> Message:
    return Message(role="tool", tool_call_id="c", text="x", data_from=data_from)


def test_a_page_hint_skips_the_confirm_only_while_no_other_sites_data_is_in_the_conversation():
    b = page_tool("b.test")
    assert not decide(b, "confirm", set()).confirm
    assert not decide(b, "confirm", {"b.test"}).confirm
    d = decide(b, "confirm", {"a.test", "b.test"})
    assert d.confirm and "a.test" in d.reason and "own claim" in d.reason
    assert decide(b, "confirm", {UNKNOWN_SITE}).confirm
    assert "unknown site" in decide(b, "confirm", {UNKNOWN_SITE}).reason
    many = decide(b, "confirm", {f"s{i}.test" for i in range(9)})
    assert many.confirm and "and 6 more" in many.reason
    # A tool the page says changes things is asked about as before; auto mode asks nothing.
    assert decide(page_tool("b.test", read_only=False), "confirm", set()).confirm
    assert not decide(b, "auto", {"a.test"}).confirm


def test_browser_tools_and_other_sources_keep_their_own_classification():
    carried = {"a.test", UNKNOWN_SITE}
    assert not decide(browser_tool("snapshot", True), "confirm", carried).confirm
    assert decide(browser_tool("click", False), "confirm", set()).confirm
    local = ToolSpec("notes", "", SCHEMA, True, None, "notes")
    assert local.origin == "other" and not decide(local, "confirm", carried).confirm


def test_uploads_are_asked_about_in_every_mode():
    upload = ToolSpec("browser_upload_file", "", SCHEMA, False, None, "upload_file",
                      origin="browser", always_confirm=True)
    for mode in ("auto", "confirm"):
        d = decide(upload, mode, set())
        assert d.confirm and "files from your computer" in d.reason


def test_where_results_come_from():
    assert carried_sites([result("a.test"), result(None), Message(role="user", text="hi"),
                          result("b.test")]) == {"a.test", "b.test"}
    # A result stored before sources were recorded counts as of unknown site.
    legacy = Message.model_validate({"role": "tool", "tool_call_id": "c", "text": "x"})
    assert carried_sites([legacy]) == {UNKNOWN_SITE}
    assert data_source(page_tool("b.test"), "a.test", False) == "b.test"
    snap = browser_tool("snapshot", True)
    assert data_source(snap, "a.test", False) == "a.test"  # the panel's tab
    assert data_source(snap, "a.test", True) == UNKNOWN_SITE  # it may show another page now
    assert data_source(snap, None, False) == UNKNOWN_SITE
    assert data_source(ToolSpec("notes", "", SCHEMA, True, None, "notes"), "a.test", False) is None
    assert [t for t in ("navigate", "click", "type", "press_key", "back", "select_option")
            if not moves_tab(browser_tool(t, False))] == []
    assert [t for t in ("snapshot", "page_text", "screenshot", "scroll", "hover", "upload_file")
            if moves_tab(browser_tool(t, True))] == []
    assert not moves_tab(page_tool("a.test", read_only=False))
