"""The page harness's shared fixtures: two origins of the harness's site, and the three
browsers a page-level test compares (harness.three_modes), one set per test module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.page_harness.harness import serve, three_modes


@pytest.fixture(scope="module")
def origins() -> Iterator[tuple[str, str]]:
    with serve() as a, serve() as b:
        yield a, b


@pytest.fixture(scope="module")
def contexts() -> Iterator[dict[str, Any]]:
    with three_modes() as ctxs:
        yield ctxs
