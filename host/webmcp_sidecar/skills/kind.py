"""Skills as a kind of user document (documents/kind.py): plain data, imported at host start."""

from __future__ import annotations

from webmcp_sidecar.documents.kind import DocKind, Feed, Words

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
FILE_SUFFIX = ".skill.json"
MAX_FILE_BYTES = 256 * 1024

SKILLS = DocKind(
    name="skills",
    folder="skills",
    suffix=FILE_SUFFIX,
    max_bytes=MAX_FILE_BYTES,
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
    feed=Feed(get="skills_get", type="skills", field="skills"),
    source="skill.json",
    folders=True,
)
