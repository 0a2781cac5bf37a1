"""The `tools` permission (Permissions Policy) as the page sees it: the polyfill against Chromium
156's own (issue 28). The same three browsers as test_webmcp_conformance.py.

Chromium gives `tools` to the top document and, by default ('self'), to frames of the parent's
origin; a frame of another origin needs `allow="tools"` (which names its `src`'s origin). In a
frame without it, registerTool, getTools and executeTool reject with NotAllowedError. A
polyfilled frame under a parent of its origin reads its iframe element; under one of another
origin it asks the parent's polyfill (frame-remote.js `policy?`), and the calls made before the
answer wait for it. Order and outcomes are checked, never time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.page_harness.harness import MARKS, serve, three_modes
from tests.e2e.page_harness.test_webmcp_cross_origin import SETUP, WAIT_LISTED, frame

pytestmark = MARKS

MODES = ["native", "native_ext", "polyfill"]
DENIED = 'NotAllowedError: Access to the feature "tools" is disallowed by permissions policy.'


@pytest.fixture(scope="module")
def origins() -> Iterator[tuple[str, str, str]]:
    with serve() as a, serve() as b, serve() as c:
        yield a, b, c


@pytest.fixture(scope="module")
def contexts() -> Iterator[dict[str, Any]]:
    with three_modes() as ctxs:
        yield ctxs


@pytest.fixture(params=MODES)
def page(
    request: pytest.FixtureRequest, contexts: dict[str, Any], origins: tuple[str, str, str]
) -> Iterator[Any]:
    pg = contexts[request.param].new_page()
    pg.goto(f"{origins[0]}/conformance/blank.html")
    yield pg
    pg.close()


# In a frame: each method of the API, as the frame's own page would call it.
IN_FRAME = r"""async () => {
  const mc = document.modelContext;
  const mine = { name: 'mine', description: 'd', origin: location.origin, window };
  return [
    await settle(mc.registerTool({ name: 'mine', description: 'd', execute: () => 'mine ran' })),
    await settle(mc.getTools().then((l) => l.map((t) => t.name).join())),
    await settle(mc.getTools({ fromOrigins: [location.ancestorOrigins[0]] }).then((l) => l.length)),
    await settle(mc.executeTool(mine, {})),
  ];
}"""


def test_the_api_in_frames_with_and_without_the_tools_permission(
    page: Any, origins: tuple[str, str, str]
) -> None:
    a, b, _ = origins
    page.evaluate(SETUP, [b, [["xo_none", None], ["xo_allow", "tools"], ["xo_self", "tools 'self'"]]])
    page.evaluate(SETUP, [a, [["so_none", None], ["so_deny", "tools 'none'"]]])
    tags = ("xo_none", "xo_self", "so_deny", "xo_allow", "so_none")
    seen = {tag: frame(page, tag).evaluate(IN_FRAME) for tag in tags}
    for tag in ("xo_none", "xo_self", "so_deny"):
        assert seen[tag] == [DENIED] * 4, tag
    assert seen["xo_allow"] == ["ok:undefined", "ok:mine", "ok:1", "ok:mine ran"]
    assert seen["so_none"] == ["ok:undefined", "ok:mine", "ok:1", "ok:mine ran"]


def test_calls_made_while_a_cross_origin_frame_parses(page: Any, origins: tuple[str, str, str]) -> None:
    """Made before the polyfill can know its permission: they wait for it, in order."""
    b = origins[1]
    page.evaluate(
        r"""async ([other]) => {
      for (const [id, allow] of [['early_none', null], ['early_allow', 'tools']]) {
        const f = document.createElement('iframe');
        if (allow) f.allow = allow;
        f.src = other + '/conformance/early.html?' + id;
        const loaded = new Promise((r) => { f.onload = r; });
        document.body.appendChild(f);
        await loaded;
      }
    }""",
        [b],
    )
    assert frame(page, "early_none").evaluate("() => early") == [DENIED] * 4
    assert frame(page, "early_allow").evaluate("() => early") == [
        "ok:undefined", "InvalidStateError: Duplicate tool name", "ok:early", "ok:early ran",
    ]


def test_register_tool_after_the_frame_navigated_to_an_origin_its_iframe_does_not_name(
    page: Any, origins: tuple[str, str, str]
) -> None:
    _, b, c = origins
    page.evaluate(SETUP, [b, [["nav", "tools"]]])
    child = frame(page, "nav")
    assert child.evaluate(IN_FRAME)[0] == "ok:undefined"
    with page.expect_event("framenavigated", predicate=lambda f: f.url.endswith("?moved")) as ev:
        child.evaluate("(u) => { location.href = u + '/conformance/blank.html?moved'; }", c)
    moved = ev.value
    moved.wait_for_load_state()
    assert moved.evaluate(IN_FRAME) == [DENIED] * 4


def test_execute_tool_after_the_frame_revoked_exposed_to(page: Any, origins: tuple[str, str, str]) -> None:
    a, b, _ = origins
    page.evaluate(SETUP, [b, [["rev", "tools"]]])
    child = frame(page, "rev")
    child.evaluate(
        r"""async ([top]) => {
      window.reg = new AbortController();
      await document.modelContext.registerTool({ name: 'r', description: 'd', execute: () => 'exposed' },
                                               { exposedTo: [top], signal: reg.signal });
    }""",
        [a],
    )
    page.evaluate(WAIT_LISTED, [[b], "r", True])
    held = "async ([o]) => { window.r = (await document.modelContext.getTools({ fromOrigins: [o] }))[0]; }"
    page.evaluate(held, [b])
    # The same name again, exposed to nobody: the tool the parent holds is no longer its to run.
    child.evaluate(
        r"""async () => {
      reg.abort();
      await document.modelContext.registerTool({ name: 'r', description: 'd', execute: () => 'private' });
    }"""
    )
    page.evaluate(WAIT_LISTED, [[b], "r", False])
    assert page.evaluate("() => settle(document.modelContext.executeTool(r, {}))") == (
        "UnknownError: The operation failed for an unknown transient reason (e.g. out of memory)."
    )
    names = "() => settle(document.modelContext.getTools().then((l) => l.map((t) => t.name).join()))"
    assert child.evaluate(names) == "ok:r"
