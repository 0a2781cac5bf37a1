"""Reading a page's schema before it is used: what it refers to, and which regexes it holds.

A `$ref` outside the schema would make the validator fetch a URL (any http, https, file or ftp
one, from the user's machine); a `$ref` loop that never moves into the arguments would recurse
forever. Both are found here, by walking the schema once, and the schema is refused with a
plain message. The validator's registry refuses every retrieval besides (see validation.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

# Keywords whose value is one subschema, a list of them, or a name -> subschema map.
_ONE = {"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems",
        "contains", "propertyNames", "not", "if", "then", "else", "items", "extends"}
_LIST = {"allOf", "anyOf", "oneOf", "prefixItems", "items", "extends"}
_MAP = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
# Subschemas applied to the same instance as their parent: a loop through only these never ends.
_SAME_INSTANCE = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas",
                  "dependencies", "extends"}
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")

Path = tuple[str, ...]


@dataclass
class Findings:
    problem: str | None = None  # why the schema cannot be used, in plain words
    patterns: set[str] = field(default_factory=set)  # `pattern` values
    property_patterns: set[str] = field(default_factory=set)  # `patternProperties` names
    unevaluated_properties: bool = False


def inspect(schema: Any) -> Findings:
    return _Walk(schema).run()


class _Walk:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.found = Findings()
        self.seen: set[Path] = set()
        self.edges: dict[Path, list[Path]] = {}
        self.refs: list[tuple[Path, str]] = []
        self.anchors: dict[str, Path] = {}
        self.nested_ids = False
        base = root.get("$id") if isinstance(root, dict) else None
        self.base = base.split("#")[0] if isinstance(base, str) else None

    def run(self) -> Findings:
        todo: list[Path] = [()]
        done_refs = 0
        while todo and self.found.problem is None:
            path = todo.pop()
            if path not in self.seen:
                self.seen.add(path)
                todo.extend(self._visit(path))
            # Refs may lead where no keyword does (`#/anything`): walk their targets too.
            while not todo and done_refs < len(self.refs) and self.found.problem is None:
                path, ref = self.refs[done_refs]
                done_refs += 1
                target = self._resolve(ref)
                if target is not None:
                    self.edges.setdefault(path, []).append(target)
                    todo.append(target)
        if self.found.problem is None and not self.nested_ids and self._has_loop():
            self.found.problem = ("its `$ref`s refer to each other in a loop that never reaches "
                                  "the arguments")
        return self.found

    def _visit(self, path: Path) -> list[Path]:
        node = _at(self.root, path)
        if not isinstance(node, dict):
            return []
        children: list[Path] = []
        same: list[Path] = []
        for key, value in node.items():
            if key in _REFS and isinstance(value, str):
                self.refs.append((path, value))
            elif key in ("$anchor", "$dynamicAnchor") and isinstance(value, str):
                self.anchors.setdefault(value, path)
            elif key in ("$id", "id") and path and isinstance(value, str):
                if value.startswith("#"):
                    self.anchors.setdefault(value[1:], path)  # drafts 4-7 name anchors this way
                else:
                    self.nested_ids = True  # a resource of its own: `#/...` then starts there
            elif key == "pattern" and isinstance(value, str):
                self.found.patterns.add(value)
            elif key == "unevaluatedProperties":
                self.found.unevaluated_properties = True
            subs: list[Path] = []
            if key in _ONE and isinstance(value, dict | bool):
                subs.append((*path, key))
            if key in _LIST and isinstance(value, list):
                subs.extend((*path, key, str(i)) for i in range(len(value)))
            if key in _MAP and isinstance(value, dict):
                subs.extend((*path, key, str(k)) for k, v in value.items() if isinstance(v, dict | bool))
                if key == "patternProperties":
                    self.found.property_patterns.update(str(k) for k in value)
            children.extend(subs)
            if key in _SAME_INSTANCE:
                same.extend(subs)
        self.edges[path] = same
        return children

    def _resolve(self, ref: str) -> Path | None:
        where, _, fragment = ref.partition("#")
        if where and where != self.base:
            self.found.problem = (f"it refers to `{_short(ref)}`, outside itself (only references "
                                  "inside the schema, like `#/$defs/name`, are followed)")
            return None
        if self.nested_ids:
            return None  # `#...` may mean another resource's; the validator resolves it (or fails)
        if not fragment.startswith("/") and fragment:
            if fragment in self.anchors:
                return self.anchors[fragment]
            self.found.problem = f"it refers to `{_short(ref)}`, which is not in it"
            return None
        path = tuple(unquote(p).replace("~1", "/").replace("~0", "~") for p in fragment.split("/")[1:])
        if _at(self.root, path, _MISSING) is _MISSING:
            self.found.problem = f"it refers to `{_short(ref)}`, which is not in it"
            return None
        return path

    def _has_loop(self) -> bool:
        state: dict[Path, int] = {}  # 1: on the current path, 2: done
        for start in self.edges:
            if start in state:
                continue
            stack = [(start, iter(self.edges.get(start, ())))]
            state[start] = 1
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(nxt) == 1:
                    return True
                elif nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(self.edges.get(nxt, ()))))
        return False


_MISSING = object()


def _at(doc: Any, path: Path, default: Any = None) -> Any:
    for part in path:
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            return default
    return doc


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
