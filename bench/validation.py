"""Argument validation on the page-tool hot path: the `add(a, b)` schema, old vs new.

- old: the previous check (jsonschema's Draft 2020-12 validator, cached, run inline);
- new inline: `check_arguments_async` on a cached validator (the keyword deadline wrappers and
  RE2 keywords included), what every call of a known tool pays;
- new thread: the same check through a worker thread, what the fast path saves (and what a
  first call or a slow schema pays).

Variants run interleaved, one call each per round, so machine load hits them alike.

    .venv/bin/python -m bench.validation --rounds 20000
"""

from __future__ import annotations

import argparse
import json
import time
from functools import lru_cache
from typing import Any

import anyio
from jsonschema import Draft202012Validator

from bench._util import Stats
from webmcp_sidecar.tools.validation import check_arguments, check_arguments_async, schema_key

ADD = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
       "required": ["a", "b"]}


@lru_cache(maxsize=16)
def _old_validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def old_check(schema_json: str, args: dict[str, Any]) -> str | None:
    errors = sorted(_old_validator(schema_json).iter_errors(args), key=lambda e: list(e.absolute_path))
    return "Invalid arguments" if errors else None


async def main(rounds: int) -> None:
    key = schema_key(ADD)
    assert key is not None
    args = {"a": 2, "b": 3}
    assert old_check(key, args) is None and await check_arguments_async(key, args) is None
    times: dict[str, list[float]] = {"old (inline)": [], "new (async, inline)": [], "new (worker thread)": []}
    for _ in range(rounds):
        t0 = time.perf_counter()
        old_check(key, args)
        t1 = time.perf_counter()
        await check_arguments_async(key, args)
        t2 = time.perf_counter()
        await anyio.to_thread.run_sync(check_arguments, key, args)
        t3 = time.perf_counter()
        times["old (inline)"].append(t1 - t0)
        times["new (async, inline)"].append(t2 - t1)
        times["new (worker thread)"].append(t3 - t2)
    print(f"add(a, b) schema, valid arguments, {rounds} rounds (microseconds)")
    print(f"{'variant':<22} {'median':>8} {'p90':>8} {'p99':>8}")
    for name, xs in times.items():
        s = Stats.of_seconds(xs)
        print(f"{name:<22} {s.median * 1000:8.1f} {s.p90 * 1000:8.1f} {s.p99 * 1000:8.1f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20000)
    anyio.run(main, ap.parse_args().rounds)
