"""What the MCP server and the side panel's agent share from `tools/`: one name sanitizer and one
object-schema normaliser, so a page tool gets the same name rule and the same schema on both."""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from webmcp_sidecar.agent import toolset
from webmcp_sidecar.mcp_server.hosts import HostLink
from webmcp_sidecar.mcp_server.site_tools import mcp_tool
from webmcp_sidecar.tools import naming, schemas
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.messages import Tool

SCHEMAS = [
    None,
    {},
    {"properties": {"q": {"type": "string"}}, "required": ["q"]},  # no `type`, as pages write it
    {"type": "object"},
    {"type": "object", "properties": {"n": {"type": "integer"}}},
    {"type": "string"},
    {"type": "array", "items": {}},
]


def _both(schema):
    tool = Tool(name="find.it", description="d", inputSchema=schema)
    link = HostLink(localsock.Endpoint(Path("/nonexistent")), pool=None)  # type: ignore[arg-type]
    listed = mcp_tool("a_test__find_it", "a.test", tool, link).input_schema
    (spec,) = toolset.build(toolset.Target("a.test"), [tool], []).specs
    return listed, spec.parameters


def test_the_mcp_server_and_the_agent_give_a_page_schema_the_same_object_schema():
    for schema in SCHEMAS:
        listed, offered = _both(schema)
        assert listed == offered == schemas.object_schema(schema)
        assert listed["type"] == "object" and "properties" in listed
    assert _both(SCHEMAS[2])[0] == {"type": "object", **SCHEMAS[2]}
    assert _both({"type": "string"})[0] == {"type": "object", "properties": {}}


def test_the_normaliser_never_changes_the_pages_schema():
    page = {"properties": {"q": {"type": "string"}}}
    schemas.object_schema(page)
    assert page == {"properties": {"q": {"type": "string"}}}
    schemas.empty()["properties"]["x"] = {}
    assert schemas.empty() == {"type": "object", "properties": {}}


@given(st.text(max_size=200))
def test_agent_names_and_mcp_names_follow_one_rule(name):
    agent_name = naming.unique_name(name, set())
    assert naming.VALID.fullmatch(agent_name)
    # The same sanitizer as the MCP server's `<site>__<tool>` names, cut to the limit.
    assert agent_name == naming.tool_slug(name)[: naming.MAX_LEN]
    assert naming.plain_name("a.test", name).endswith("__" + naming.tool_slug(name))


def test_agent_names_stay_unique():
    taken: set[str] = set()
    names = [naming.unique_name(n, taken) for n in ("a.b", "a_b", "a-b", "a.b", "x" * 80, "x" * 81)]
    assert names[:4] == ["a_b", "a_b_2", "a-b", "a_b_3"]
    assert names[4] == "x" * 64 and names[5] == "x" * 62 + "_2"
    assert len(set(names)) == len(names)
