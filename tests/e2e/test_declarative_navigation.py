"""Declarative forms that navigate (issue 10, spec issue #135): a `toolautosubmit` form whose
submission loads another document answers from that document (its URL, title and a compact
text), not with a navigation error; a form that answers through `respondWith` keeps its answer.
A form in a same-origin iframe answers from the frame's next document, unless that document is
another origin's: then the call says the frame left the site, and nothing of that document.
Both modes, through MCP `tools/call`.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_session import text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

SITE = Path(__file__).parent / "site"


class _Handler(SimpleHTTPRequestHandler):
    """The test site, where a POST gets the page a GET would (the form's result page)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.do_GET()


def _serve() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def form_site() -> Iterator[str]:
    yield from _serve()


@pytest.fixture(scope="module")
def other_form_site() -> Iterator[str]:
    """The same pages on another port: another origin."""
    yield from _serve()


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


def landed(r: Any) -> dict[str, Any]:
    """The destination document the call's result describes."""
    assert not r.is_error, text(r)
    return r.structured_content or json.loads(text(r))


async def test_a_form_that_gets_another_page_answers_from_it(browser, mcp, form_site):
    page = await browser.open(form_site + "nav-form.html")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__book_table" in n)
    got = landed(await mcp.call(f"{s}__book_table", {"who": "Ann", "guests": 2}))
    assert got["submitted"] is True
    assert "nav-result.html?who=Ann&guests=2" in got["url"]
    assert got["title"] == "Reservation received"
    assert "Table for 2 in the name of Ann." in got["text"]
    # Playwright hears of the navigation on its own connection, maybe after the MCP answer.
    await page.wait_for_url(got["url"])


async def test_a_form_that_posts_answers_from_the_result_page(browser, mcp, form_site):
    await browser.open(form_site + "nav-form.html")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__send_note" in n)
    got = landed(await mcp.call(f"{s}__send_note", {"note": "window seat please"}))
    assert got["url"].endswith("nav-result.html?posted=1")
    assert "Your note was sent." in got["text"]


async def test_respond_with_and_a_navigation(browser, mcp, form_site):
    page = await browser.open(form_site + "nav-form.html")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__book_answered" in n)
    r = await mcp.call(f"{s}__book_answered", {"who": "Bea"})
    if browser.mode == "polyfill":
        # The form's own answer, given before its document went.
        assert not r.is_error and text(r) == "booked for Bea"
    else:
        # Chromium 156 drops respondWith when the submission navigates (its executeTool gives
        # "null"), so the destination document answers (docs/PAGE_CODE.md, "Forms that navigate").
        assert "in the name of Bea." in landed(r)["text"]
    await page.wait_for_url("**/nav-result.html?who=Bea")


async def test_a_form_in_a_frame_answers_from_the_frames_next_document(browser, mcp, form_site):
    page = await browser.open(form_site + "nav-frame.html")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__frame_book" in n)
    got = landed(await mcp.call(f"{s}__frame_book", {"who": "Ann", "guests": 2}))
    assert got["submitted"] is True and got["frame"] is True
    assert "nav-result.html?who=Ann&guests=2" in got["url"]
    assert got["title"] == "Reservation received"
    assert "Table for 2 in the name of Ann." in got["text"]
    assert "The page around the frame" not in got["text"]  # the frame's document, not the tab's
    await page.frames[1].wait_for_url(got["url"])  # Playwright may hear of it after the answer
    assert page.url == form_site + "nav-frame.html"  # the page around it stayed


async def test_a_form_two_frames_down_answers_from_its_frame(browser, mcp, form_site):
    """The frame is found again by its place among the page's frames (native: the top frame
    runs the call): here the second iframe of an iframe."""
    page = await browser.open(form_site + "nav-frame.html?nest=1")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__frame_book" in n)
    got = landed(await mcp.call(f"{s}__frame_book", {"who": "Dee", "guests": 4}))
    assert got["frame"] is True
    assert "nav-result.html?who=Dee&guests=4" in got["url"]
    assert "Table for 4 in the name of Dee." in got["text"]
    assert "The page around the frame" not in got["text"]
    deep = [f for f in page.frames if f.parent_frame and f.parent_frame.parent_frame]
    forms = next(f for f in deep if f.url != "about:blank")
    await forms.wait_for_url(got["url"])  # the frame two down went there, the page stayed
    assert page.url == form_site + "nav-frame.html?nest=1"


async def test_a_form_in_a_frame_that_posts_answers_from_the_frames_result(browser, mcp, form_site):
    await browser.open(form_site + "nav-frame.html")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__frame_note" in n)
    got = landed(await mcp.call(f"{s}__frame_note", {"note": "by the window"}))
    assert got["frame"] is True
    assert got["url"].endswith("nav-result.html?posted=1")
    assert "Your note was sent." in got["text"]


async def test_a_frame_that_leaves_the_site_is_not_read(browser, mcp, form_site, other_form_site):
    """The frame's next document is another origin's: the call fails, saying so, and carries
    nothing of that document (not its URL, title or text)."""
    other = other_form_site.rstrip("/")
    page = await browser.open(form_site + "nav-frame.html?other=" + other)
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__leave_site" in n)
    r = await mcp.call(f"{s}__leave_site", {"who": "Cy", "guests": 3})
    assert r.is_error
    said = text(r)
    assert "left the site" in said
    for leaked in ("Reservation received", "Table for 3", other):
        assert leaked not in said
    # It did go there: the frame shows the other origin's page.
    frame = page.frames[1]
    await frame.wait_for_url(other + "/nav-result.html?who=Cy&guests=3")
    assert "Table for 3 in the name of Cy." in await frame.inner_text("body")


async def test_another_frames_navigation_during_a_call_is_not_the_calls(browser, mcp, form_site):
    """A top-frame tool answers null (as a form without respondWith does) while an unrelated
    same-origin iframe navigates: the call answers for itself, not from the iframe's next
    document (native mode runs every call from the top frame, which hears each frame's
    navigations)."""
    page = await browser.open(form_site + "nav-stay.html")
    s = slug(form_site)
    await mcp.wait_tools(lambda n: f"{s}__move_side" in n)
    r = await mcp.call(f"{s}__move_side")
    said = text(r)
    assert not r.is_error and "Table for 9" not in said and "Reservation received" not in said, said
    await page.frames[1].wait_for_url("**/nav-result.html?who=Side&guests=9")  # it did navigate
    assert page.url == form_site + "nav-stay.html"
