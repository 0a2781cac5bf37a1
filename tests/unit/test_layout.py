"""The package's layers: a lower layer never imports a higher one (docs/ARCHITECTURE.md, "Names").

Read from the source (every import statement, at any depth, TYPE_CHECKING ones included), so a
late import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import webmcp_sidecar

PKG = Path(webmcp_sidecar.__file__).parent
# Top-level modules below every package: they import none of ours but each other.
BASE = {"paths", "texts", "textfiles", "logs", "keyring_store"}

# layer -> the parts of ours it may not import (a part is a subpackage or a top-level module).
FORBIDDEN: dict[str, set[str]] = {
    "mcp_server": {"native_host", "agent"},
    "agent": {"native_host", "mcp_server"},
    "servers": {"agent"},
}
# layer -> the only parts of ours it may import (besides itself).
ONLY: dict[str, set[str]] = {
    "wire": BASE,
    "tools": {"wire"} | BASE,
    **{base: BASE for base in BASE},
}


def _ours(path: Path) -> set[str]:
    """The parts of ours (first name under webmcp_sidecar) the file imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    own = path.relative_to(PKG).parts
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = list(own[: len(own) - node.level])
                mod = ".".join(["webmcp_sidecar", *base, *([node.module] if node.module else [])])
            else:
                mod = node.module or ""
            names = [mod] if node.module else [f"{mod}.{alias.name}" for alias in node.names]
            if mod == "webmcp_sidecar":
                names = [f"{mod}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "webmcp_sidecar" and len(parts) > 1:
                found.add(parts[1])
    return found


def _part(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _breaks() -> list[str]:
    out = []
    for path in sorted(PKG.rglob("*.py")):
        part = _part(path)
        imported = _ours(path) - {part}
        bad = imported & FORBIDDEN.get(part, set())
        if part in ONLY:
            bad |= imported - ONLY[part]
        out += [f"{path.relative_to(PKG)} imports {b}" for b in sorted(bad)]
    return out


def test_no_layer_imports_a_higher_one():
    assert _breaks() == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from webmcp_sidecar.agent import keys", {"agent"}),
        ("from webmcp_sidecar import keyring_store as keys", {"keyring_store"}),
        ("def f():\n    import webmcp_sidecar.native_host.app", {"native_host"}),
        ("from ..agent.rules import wrap", {"agent"}),
        ("import json", set()),
    ],
)
def test_imports_are_read_at_any_depth(tmp_path, monkeypatch, source, expected):
    """The reader itself: a check that saw no import would pass anything."""
    fake = PKG / "wire" / "_layout_probe.py"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert _ours(fake) == expected
