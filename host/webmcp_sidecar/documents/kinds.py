"""The kinds of user documents the host keeps (documents/kind.py): plain data, imported at host
start (nothing of skills/ or chat_sites/ loads then: each names its model and store by their
module). Adding a kind is a model and a declaration here (docs/DOCUMENTS.md)."""

from __future__ import annotations

from pathlib import Path

from webmcp_sidecar.documents.kind import DocKind, Words

# A document's name: the file is `<name><suffix>`.
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"

SKILL_SUFFIX = ".skill.json"
SKILL_MAX_BYTES = 256 * 1024

SKILLS = DocKind(
    name="skills",
    folder="skills",
    suffix=SKILL_SUFFIX,
    max_bytes=SKILL_MAX_BYTES,
    name_pattern=NAME_PATTERN,
    model="webmcp_sidecar.skills.model:Skill",
    store="webmcp_sidecar.skills.store:SkillStore",
    words=Words(
        noun="skill",
        a_file="a skill file",
        bad_name="{name!r} is not a skill name (lower-case letters, digits, `_` and `-`, "
        "starting with a letter or digit, at most 64).",
        missing="No skill named {name!r} is installed (see `webmcp-sidecar skills list`).",
        exists="A skill named {name!r} is already installed; remove it first or replace it.",
    ),
    feeds_worker=True,
    source="skill.json",
    folders=True,
)

# Chat-site adapters: we ship some (`chat_sites/builtin/`, read-only); the user's replace them.
CHAT_SUFFIX = ".chat.json"
CHAT_MAX_BYTES = 64 * 1024
CHAT_BUILTIN = Path(__file__).parents[1] / "chat_sites" / "builtin"

CHAT_SITES = DocKind(
    name="chat_sites",
    folder="chat-sites",
    suffix=CHAT_SUFFIX,
    max_bytes=CHAT_MAX_BYTES,
    name_pattern=NAME_PATTERN,
    model="webmcp_sidecar.chat_sites.model:ChatSite",
    store="webmcp_sidecar.chat_sites.store:ChatSiteStore",
    words=Words(
        noun="adapter",
        a_file="an adapter",
        bad_name="{name!r} is not an adapter name (lower-case letters, digits, `_` and `-`, at most 64).",
        missing="No chat-site adapter named {name!r} (see `webmcp-sidecar chat-sites list`).",
        exists="An adapter named {name!r} is already added; remove it first.",
    ),
    feeds_worker=True,
    source="chat.json",
    builtin=CHAT_BUILTIN,
    push_to_panels=True,
)
