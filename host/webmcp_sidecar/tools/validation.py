"""Checking tool arguments against the page's inputSchema before the page sees them.

The schema comes from a page, so checking must not let it fetch anything, hang, or block the
event loop:
- references: an empty registry whose retrieve refuses everything; a `$ref` outside the schema
  or a `$ref` loop refuses the schema up front (schema_refs.py);
- regexes run with RE2 (safe_regex.py), in `pattern`, `patternProperties` and
  `additionalProperties`; a `pattern` RE2 cannot run (lookaround, backreferences) is not
  enforced (the page still judges its input), nor is a schema with such a `patternProperties`
  name, nor `unevaluatedProperties` next to `patternProperties` (jsonschema would match those
  names with Python's backtracking `re`);
- time: every keyword checks a deadline, so a schema that makes checking explode (nested
  `anyOf`s through `$ref`s, say) stops with a plain error; `check_arguments_async` tries a cached
  validator inline for a couple of milliseconds (what almost every call needs) and otherwise
  runs the check in a worker thread.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Any

import anyio

from webmcp_sidecar.tools.safe_regex import compile_pattern, search
from webmcp_sidecar.tools.schema_refs import inspect

if TYPE_CHECKING:
    import referencing
    from jsonschema import ValidationError

DEADLINE_S = 1.0  # the most one check may take, in a worker thread
INLINE_BUDGET_S = 0.002  # how long a check may hold the event loop before moving to a thread
_MAX_ERRORS = 100

TOO_SLOW = ("Not checked: the tool's input schema took too long to check against these arguments "
            f"(over {DEADLINE_S:g} s), so the call was not sent to the page.")


class _TooSlow(Exception):
    pass


class _Clock(threading.local):
    deadline = math.inf  # per thread: the event loop's inline tries and workers never share one
    inline = False  # on the event loop: one long uninterruptible step goes to a thread instead


_clock = _Clock()
_INLINE_MAX_TEXT = 65536  # characters one RE2 search may scan on the event loop


def _tick() -> None:
    if time.monotonic() > _clock.deadline:
        raise _TooSlow


def _searched(patrn: str, text: str) -> bool:
    if _clock.inline and len(text) > _INLINE_MAX_TEXT:
        raise _TooSlow  # linear, but long: not on the event loop
    return search(patrn, text)


# jsonschema and referencing load on the first check, not with the module: the MCP entry imports
# this at start, and most of its clients' sessions begin with no call (~60 ms of its start).
_loaded = False


def _load() -> None:
    """Imports jsonschema (and referencing) once, outside any check's deadline."""
    global _loaded
    if not _loaded:
        import jsonschema  # noqa: F401
        import referencing.exceptions  # noqa: F401

        _loaded = True


def _refuse(uri: str) -> referencing.Resource[Any]:
    import referencing.exceptions

    # referencing's attrs classes declare their fields in a way mypy cannot read (hence also below).
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


@lru_cache(maxsize=1)
def _no_fetch() -> referencing.Registry[Any]:
    import referencing

    return referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]


def _error(message: str) -> ValidationError:
    from jsonschema import ValidationError

    return ValidationError(message)


# --- keywords: page regexes through RE2, no quadratic uniqueItems, a deadline everywhere ----------

def _pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and compile_pattern(patrn) is not None \
            and not _searched(patrn, instance):
        yield _error(f"{_short(repr(instance))} does not match {_short(repr(patrn))}")


def _pattern_properties(validator: Any, pp: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in pp.items():
        for k, v in instance.items():
            _tick()
            if _searched(patrn, k):
                yield from validator.descend(v, subschema, path=k, schema_path=patrn)


def _additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    props, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = []
    for k in instance:
        _tick()
        if k not in props and not any(_searched(p, k) for p in patterns):
            extras.append(k)
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        if patterns:
            names = ", ".join(repr(e) for e in sorted(extras))
            verb = "does" if len(extras) == 1 else "do"
            listed = ", ".join(repr(p) for p in sorted(patterns))
            yield _error(_short(f"{names} {verb} not match any of the regexes: {listed}"))
        else:
            names = ", ".join(repr(e) for e in sorted(extras))
            verb = "was" if len(extras) == 1 else "were"
            text = f"Additional properties are not allowed ({names} {verb} unexpected)"
            yield _error(_short(text))


def _unique_items(validator: Any, ui: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if ui and validator.is_type(instance, "array"):
        seen: set[Any] = set()
        for i, item in enumerate(instance):
            if i % 256 == 0:
                _tick()
            key = _canonical(item)
            if key in seen:
                yield _error(f"{_short(repr(instance))} has non-unique elements")
                return
            seen.add(key)


def _canonical(v: Any) -> Any:
    """A hashable stand-in equal exactly when JSON Schema calls two values equal (1 == 1.0,
    true != 1), so uniqueItems is one pass instead of jsonschema's pairwise comparison."""
    if isinstance(v, bool) or v is None:
        return ("b", v)
    if isinstance(v, str | int | float):
        return v
    if isinstance(v, list | tuple):
        return ("l", tuple(_canonical(x) for x in v))
    if isinstance(v, dict):
        return ("d", frozenset((k, _canonical(x)) for k, x in v.items()))
    return ("o", id(v))


def _not_enforced(validator: Any, value: Any, instance: Any, schema: Any) -> None:
    return None


def _timed(fn: Callable[..., Any]) -> Callable[..., Any]:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _tick()
        return fn(validator, value, instance, schema)
    return keyword


@lru_cache(maxsize=32)
def _safe_class(base: Any, skip_unevaluated_properties: bool) -> Any:
    from jsonschema import validators

    own: dict[str, Callable[..., Any]] = {
        "pattern": _pattern, "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties, "uniqueItems": _unique_items,
    }
    if skip_unevaluated_properties:
        own["unevaluatedProperties"] = _not_enforced
    merged = {**base.VALIDATORS, **{k: f for k, f in own.items() if k in base.VALIDATORS}}
    return validators.extend(base, {k: _timed(f) for k, f in merged.items()})


# --- building (once per schema) ----------------------------------------------------------------

class _Refused:
    def __init__(self, problem: str) -> None:
        self.problem = problem  # why the schema cannot be used; worded per use by `_Words`


@dataclass(frozen=True)
class _Words:
    """How messages name what is checked: a call's arguments, or a result (output_schema.py)."""

    value: str = "arguments"
    schema: str = "input schema"
    outcome: str = "so the call was not sent to the page."

    def refused(self, problem: str) -> str:
        return f"The tool's {self.schema} cannot be used: {problem}. {self.outcome[3:].capitalize()}"


ARGUMENTS = _Words()
RESULT = _Words("result", "output schema", "so the result was not passed on.")


Built = Any  # a validator, None (not enforced: the page judges), or _Refused


def _build(schema_json: str) -> Built:
    from jsonschema import Draft202012Validator, validators

    schema = json.loads(schema_json)
    if not isinstance(schema, dict | bool):
        return None
    base = validators.validator_for(schema, default=Draft202012Validator)
    # The schema against its metaschema, with no `format` checks (jsonschema's `regex` format
    # would compile every page pattern with Python's `re`).
    meta = _safe_class(validators.validator_for(base.META_SCHEMA, default=base), False)
    if next(meta(base.META_SCHEMA, registry=_no_fetch()).iter_errors(schema), None) is not None:
        return None  # a page's broken schema cannot be enforced; the page gets to judge
    found = inspect(schema)
    if found.problem:
        return _Refused(found.problem)
    if any(compile_pattern(p) is None for p in found.property_patterns):
        return None  # a property-name regex RE2 cannot run: the page judges
    skip = found.unevaluated_properties and bool(found.property_patterns)
    return _safe_class(base, skip)(schema, registry=_no_fetch())


class _Cache:
    """Built validators by schema JSON, most recently used kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[str, Built] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> tuple[bool, Built]:
        with self.lock:
            if key not in self.items:
                return False, None
            self.items.move_to_end(key)
            return True, self.items[key]

    def put(self, key: str, value: Built) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_cache = _Cache(256)


# --- checking ----------------------------------------------------------------------------------

def schema_key(schema: dict[str, Any] | None) -> str | None:
    return None if schema is None else json.dumps(schema, sort_keys=True)


def check_arguments(schema_json: str | None, args: Any,
                    deadline_s: float = DEADLINE_S, words: _Words = ARGUMENTS) -> str | None:
    """None when `args` fit the schema, else a plain message listing what is wrong (or why the
    schema could not be used). Blocks for up to `deadline_s`: async code uses
    `check_arguments_async`."""
    if schema_json is None:
        return None
    _load()
    _clock.deadline = time.monotonic() + deadline_s
    try:
        hit, built = _cache.get(schema_json)
        if not hit:
            try:
                built = _build(schema_json)
            except _TooSlow:
                built = _Refused("it is too complex to check")
            except Exception:  # a schema jsonschema cannot read: the page judges
                built = None
            _cache.put(schema_json, built)
        return _run(built, args, words)
    except _TooSlow:
        return _too_slow(words)
    finally:
        _clock.deadline = math.inf


async def check_arguments_async(schema_json: str | None, args: Any,
                                words: _Words = ARGUMENTS) -> str | None:
    """`check_arguments` that never holds the event loop for more than a few milliseconds."""
    if schema_json is None:
        return None
    if not _loaded:
        await anyio.to_thread.run_sync(_load)
    hit, built = _cache.get(schema_json)
    if hit:
        _clock.deadline, _clock.inline = time.monotonic() + INLINE_BUDGET_S, True
        try:
            return _run(built, args, words)
        except _TooSlow:
            pass  # a slow one: again, in a thread, with the whole deadline
        finally:
            _clock.deadline, _clock.inline = math.inf, False
    try:
        # The worker stops itself at its deadline; this is the backstop for one slow keyword.
        with anyio.fail_after(DEADLINE_S + 1):
            return await anyio.to_thread.run_sync(check_arguments, schema_json, args, DEADLINE_S,
                                                  words, abandon_on_cancel=True)
    except TimeoutError:
        return _too_slow(words)


def _too_slow(words: _Words) -> str:
    if words is ARGUMENTS:
        return TOO_SLOW
    return (f"Not checked: the tool's {words.schema} took too long to check against this "
            f"{words.value} (over {DEADLINE_S:g} s), {words.outcome}")


def _run(built: Built, args: Any, words: _Words = ARGUMENTS) -> str | None:
    if built is None:
        return None
    if isinstance(built, _Refused):
        return words.refused(built.problem)
    import referencing.exceptions

    try:
        errors = list(islice(built.iter_errors(args), _MAX_ERRORS))
    except referencing.exceptions.Unresolvable as e:
        return words.refused(f"it refers to `{_short(str(e.ref))}`, which it does not contain")
    except RecursionError:
        verb = "nest" if words is ARGUMENTS else "nests"
        return f"Not checked: the {words.value} {verb} too deeply to check against the tool's {words.schema}."
    except _TooSlow:
        raise
    except Exception:  # jsonschema or referencing tripping over an odd schema
        return f"Not checked: the tool's {words.schema} could not be checked, {words.outcome}"
    if not errors:
        return None
    errors.sort(key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path])
    lines = []
    for err in errors[:8]:
        where = "/".join(str(p) for p in err.absolute_path)
        lines.append(f"- {_short(where, 100) or f'({words.value})'}: {_short(err.message)}")
    more = ""
    if len(errors) > 8:
        more = f"\n(and {'at least ' if len(errors) == _MAX_ERRORS else ''}{len(errors) - 8} more)"
    heading = ("Invalid arguments:" if words is ARGUMENTS
               else f"The tool's {words.value} does not match its {words.schema}:")
    return heading + "\n" + "\n".join(lines) + more


def _short(text: str, limit: int = 300) -> str:
    """At most about `limit` characters, keeping the end (jsonschema's messages put the value
    first and what is wrong with it last)."""
    if len(text) <= limit:
        return text
    tail = limit // 3
    return text[: limit - tail] + "…" + text[-tail:]
