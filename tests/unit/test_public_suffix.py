"""Public suffixes as sites (wire/public_suffix.py; issue 27): a shared skill or chat-site adapter
file naming `*.com`, `co.uk`, `*.github.io` or a bare `com` would act on most of the web. The host
refuses such a file when it is added, and the extension (lib/public-suffix.js, from the same
list, generated) matches nothing with such a pattern; both sides agree on what is a suffix."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from webmcp_sidecar.chat_sites.model import ChatSite
from webmcp_sidecar.skills.match_patterns import PatternError, parse
from webmcp_sidecar.wire.public_suffix import is_public_suffix, rules

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = ["*://*.com/*", "https://co.uk/*", "*://*.github.io/*", "http://com/", "*://*.blogspot.com/*"]


@pytest.mark.parametrize("pattern", SUFFIXES)
def test_a_skill_pattern_on_a_public_suffix_is_refused(pattern):
    with pytest.raises(PatternError, match="is a public suffix"):
        parse(pattern)


@pytest.mark.parametrize(
    "pattern",
    ["*://*.example.com/*", "https://user.github.io/*", "http://localhost/*", "http://127.0.0.1:*/x/*"],
)
def test_a_site_under_a_suffix_is_fine(pattern):
    parse(pattern)


def adapter(hostnames: list[str]) -> dict:
    return {
        "name": "x", "title": "X", "version": "1.0.0", "source": "test", "hostnames": hostnames,
        "request": {"url": "/api/chat", "method": "POST", "message_path": "messages[-1].content"},
        "response": {"kind": "sse", "text_paths": ["x"]}, "selectors": {"input": "#i", "last_answer": ".a"},
    }  # fmt: skip


@pytest.mark.parametrize("host", ["com", "*.co.uk", "*.github.io", "co.uk:443"])
def test_a_chat_adapter_on_a_public_suffix_is_refused(host):
    with pytest.raises(ValueError, match="is a public suffix"):
        ChatSite.model_validate(adapter(["chat.example.com", host]))
    ChatSite.model_validate(adapter(["chat.example.com", "*.chat.example.com"]))


def test_the_extension_and_the_host_agree():
    """lib/public-suffix.js, run by node, against the host on a sample of the list's own names,
    names under them, and exceptions."""
    node = shutil.which("node")
    assert node, "node is needed (the extension's tests use it too)"
    names = [
        "com",
        "a.com",
        "co.uk",
        "x.co.uk",
        "github.io",
        "me.github.io",
        "localhost",
        "test",
        "127.0.0.9",
    ]
    for r in rules()[::97]:
        base = r.lstrip("!").removeprefix("*.")
        names += [base, "x." + base, "www." + base]
    script = (
        f"import {{ isPublicSuffix }} from '{ROOT / 'extension/lib/public-suffix.js'}';"
        "const names = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(names.map((n) => isPublicSuffix(n))));"
    )
    out = subprocess.run(
        [node, "--input-type=module", "-e", script, json.dumps(names)],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    js = json.loads(out.stdout)
    py = [is_public_suffix(n) for n in names]
    assert sum(py) > 50 and not all(py)  # a sample with both kinds
    assert [n for n, a, b in zip(names, py, js, strict=True) if a != b] == []
