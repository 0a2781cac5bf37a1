"""The Python package's layout: no import cycles between its modules, and no oversized module.

The import graph is read from the source (every `webmcp_sidecar` import, including the ones
inside functions, which only hide a cycle from Python, not from the reader), so a new cycle or
a module that outgrows the limit fails here rather than in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[2] / "host"
PACKAGE = "webmcp_sidecar"
MAX_LINES = 450

# Modules allowed past MAX_LINES, as paths under host/ with the reason, e.g.
# {"webmcp_sidecar/x/big.py": "to split"}. None was over the limit when this was written.
OVER_LIMIT: dict[str, str] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((HOST / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(HOST).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports (a name imported from a package counts as
    the submodule when there is one by that name, else as the package itself)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in known else base)
    edges = set()
    for target in found:
        # `import a.b.c` names a.b.c; keep the longest prefix that is one of our modules.
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            edges.add(target)
    return edges


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, set(mods)) for name, path in mods.items()}


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    members.add(m)
                    if m == node:
                        break
                if len(members) > 1:
                    out.append(frozenset(members))
    return out


def test_the_graph_sees_absolute_relative_and_function_level_imports() -> None:
    graph = _graph()
    assert len(graph) > 30
    # A top-level absolute import, and one made inside a function.
    assert "webmcp_sidecar.setup.install.clients" in graph["webmcp_sidecar.setup.doctor.doctor"]
    assert "webmcp_sidecar.wire.localsock" in graph["webmcp_sidecar.setup.doctor.doctor"]
    # `from package import module` points at the module; `from package import NAME` at the
    # package.
    assert "webmcp_sidecar.setup.textedit.jsonc" in graph["webmcp_sidecar.setup.install.clients"]
    assert PACKAGE in graph["webmcp_sidecar.setup.doctor.browsers"]


def test_cycle_finder_finds_a_cycle() -> None:
    cycles = _cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}})
    assert cycles == [frozenset({"a", "b", "c"})]


def test_no_import_cycles() -> None:
    graph = _graph()
    unexpected = [sorted(c) for c in _cycles(graph)]
    assert not unexpected, (
        "import cycles (move what both sides need into a module of its own):\n"
        + "\n".join(" <-> ".join(c) for c in unexpected))


def test_no_module_over_the_line_limit() -> None:
    too_long = {}
    for path in sorted(HOST.rglob("*.py")):
        rel = path.relative_to(HOST).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and rel not in OVER_LIMIT:
            too_long[rel] = lines
    assert not too_long, f"modules over {MAX_LINES} lines (split them by concept): {too_long}"
    gone = [rel for rel in OVER_LIMIT if not (HOST / rel).is_file()]
    assert not gone, f"drop these from OVER_LIMIT, they no longer exist: {gone}"
