"""wire/constants.py's call-id grammar and timeout words (the JS side reads the same, generated:
tests/js/call-ids.test.mjs, tests/js/protocol-version.test.mjs)."""

from __future__ import annotations

import pytest

from webmcp_sidecar.wire.constants import call_prefix, timeout_text


@pytest.mark.parametrize(
    ("call_id", "prefix"),
    [("h.3", "h"), ("c12.7", "c12"), ("c.t.4", "c"), ("s.1", "s"), ("nodot", ""), (".5", "")],
)
def test_a_call_id_is_read_up_to_its_first_dot(call_id, prefix):
    assert call_prefix(call_id) == prefix


@pytest.mark.parametrize(
    ("ms", "text"),
    [(60_000, "The page did not answer within 60 s."), (1_500, "The page did not answer within 1.5 s."),
     (300, "The page did not answer within 0.3 s.")],
)
def test_timeouts_are_said_in_one_way(ms, text):
    assert timeout_text("The page", ms) == text
