"""The entry's tool list (mcp_server/tool_list.py) is built per site and kept: a change in one
site builds that site's tools again, not the others', and the kept tools/list bytes follow."""

import json

from webmcp_sidecar.mcp_server.hosts import SiteEntry
from webmcp_sidecar.mcp_server.tool_list import ToolList
from webmcp_sidecar.wire import messages as m


class _Welcome:
    host_id = "h1"


class _Link:
    welcome = _Welcome()


LINK = _Link()


def tools(*names: str) -> list[m.Tool]:
    return [
        m.Tool.model_validate({"name": n, "description": f"does {n}", "inputSchema": {"type": "object"}})
        for n in names
    ]


def by_name(tl: ToolList) -> dict:
    return {t.name: t for t in tl.tools}


def test_a_change_in_one_site_builds_only_that_site() -> None:
    tl = ToolList()
    a, b = tools("x", "y"), tools("z")
    merged = {"a.test": SiteEntry(a, LINK), "b.test": SiteEntry(b, LINK)}  # type: ignore[arg-type]
    assert tl.rebuild(merged, []) is True
    before = by_name(tl)
    assert {"a_test__x", "a_test__y", "b_test__z"} <= set(before)
    assert tl.rebuild(dict(merged), []) is False  # nothing changed: nothing to tell
    merged["b.test"] = SiteEntry(tools("z", "w"), LINK)  # type: ignore[arg-type]
    assert tl.rebuild(merged, []) is True
    after = by_name(tl)
    assert after["a_test__x"] is before["a_test__x"]  # kept as built
    assert after["b_test__z"] is not before["b_test__z"]  # its site's list is new: built again
    assert "b_test__w" in after and set(tl.refs) == {"a_test__x", "a_test__y", "b_test__z", "b_test__w"}
    # A new list object with the same tools: built again, but clients hear of nothing.
    merged["b.test"] = SiteEntry(tools("z", "w"), LINK)  # type: ignore[arg-type]
    assert tl.rebuild(merged, []) is False
    del merged["b.test"]
    assert tl.rebuild(merged, []) is True
    assert "b_test__z" not in by_name(tl) and "b_test__z" not in tl.refs


def test_names_another_site_changes_rebuild_the_kept_site() -> None:
    """Names are assigned over all sites: a site whose tools' names change is built again even
    though its own list did not change."""
    tl = ToolList()
    same = tools("go")
    merged = {"a.test": SiteEntry(same, LINK)}  # type: ignore[arg-type]
    tl.rebuild(merged, [])
    assert set(tl.refs) == {"a_test__go"}
    merged["a_test"] = SiteEntry(tools("go"), LINK)  # type: ignore[arg-type]  (the same plain name)
    assert tl.rebuild(merged, []) is True
    names = set(tl.refs)
    assert len(names) == 2 and "a_test__go" not in names  # both hashed, a.test's built again
    assert {tl.refs[n].site for n in names} == {"a.test", "a_test"}
    assert names <= set(by_name(tl))


def test_the_kept_bytes_are_the_list_and_are_dropped_on_a_rebuild() -> None:
    tl = ToolList()
    merged = {"a.test": SiteEntry(tools("x"), LINK)}  # type: ignore[arg-type]
    tl.rebuild(merged, [])
    first = tl.wire_result("2025-11-25")
    assert tl.wire_result("2025-11-25") is first  # kept
    assert "a_test__x" in {t["name"] for t in json.loads(first)["tools"]}
    merged["a.test"] = SiteEntry(tools("y"), LINK)  # type: ignore[arg-type]
    tl.rebuild(merged, [])
    names = {t["name"] for t in json.loads(tl.wire_result("2025-11-25"))["tools"]}
    assert "a_test__y" in names and "a_test__x" not in names
