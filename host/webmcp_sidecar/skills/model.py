"""The skill document (docs/SKILLS.md): these models are the truth, and `editor_schema()` (what
`webmcp-sidecar skills schema` prints) is their JSON Schema for editors.

Strict everywhere: `extra="forbid"` (a misspelt field is an error) and strict types (`"5"` is
not a number). Rules that span fields come back as `skill_rule` errors carrying, in their
context, `problems`: a list of `[path, message]` with the path below the error's own location,
so `problems.py` can point at the very string that is wrong.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from webmcp_sidecar.documents.kinds import NAME_PATTERN as NAME_PATTERN
from webmcp_sidecar.documents.kinds import SKILL_MAX_BYTES, SKILL_SUFFIX
from webmcp_sidecar.skills import input_schema, templates
from webmcp_sidecar.skills.match_patterns import parse as parse_pattern
from webmcp_sidecar.skills.steps import Selector, Step
from webmcp_sidecar.tools.schemas import empty
from webmcp_sidecar.wire.constants import MAX_DESCRIPTION, MAX_TITLE, TOOL_NAME_PATTERN

FILE_SUFFIX = SKILL_SUFFIX
MAX_FILE_BYTES = SKILL_MAX_BYTES
MAX_PATTERNS = 32
MAX_TOOLS = 64
MAX_STEPS = 64
MAX_HEALTH_SELECTORS = 16
RULE_ERROR = "skill_rule"


def rule_error(problems: list[templates.Problem]) -> PydanticCustomError:
    """One error for several problems found by a cross-field rule (see the module's doc)."""
    text = "; ".join(f"{_dotted(at)}: {msg}" if at else msg for at, msg in problems)
    return PydanticCustomError(
        RULE_ERROR, "{text}", {"text": text, "problems": [[list(at), m] for at, m in problems]}
    )


def _dotted(at: templates.Where) -> str:
    out = ""
    for part in at:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _pattern(text: str) -> str:
    parse_pattern(text)  # PatternError is a ValueError: pydantic reports its words
    return text


Pattern = Annotated[
    str,
    AfterValidator(_pattern),
    Field(description="A Chrome match pattern, e.g. `https://*.example.com/shop/*`."),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Health(_Strict):
    """When the skill's tools are offered: every selector matches an element and the page's
    text contains `text`. No health: always."""

    selectors: list[Selector] = Field(default_factory=list, max_length=MAX_HEALTH_SELECTORS)
    text: Annotated[str, StringConstraints(min_length=1)] | None = None


class SkillAnnotations(_Strict):
    """Hints for MCP clients and the side panel's agent."""

    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None
    consequentialHint: bool | None = None
    untrustedContentHint: bool | None = None


class SkillTool(_Strict):
    """A tool the skill adds to the site's tools (source `skill`)."""

    name: Annotated[str, StringConstraints(pattern=TOOL_NAME_PATTERN)] = Field(
        description="The tool's name, unique in the skill."
    )
    title: Annotated[str, StringConstraints(max_length=MAX_TITLE)] | None = None
    description: Annotated[str, StringConstraints(min_length=1, max_length=MAX_DESCRIPTION)]
    inputSchema: dict[str, Any] = Field(
        default_factory=empty,
        description="A JSON Schema of the arguments object; its properties are the names templates may use.",
    )
    annotations: SkillAnnotations | None = None
    steps: list[Step] = Field(min_length=1, max_length=MAX_STEPS)

    @field_validator("inputSchema")
    @classmethod
    def _usable_schema(cls, v: dict[str, Any]) -> dict[str, Any]:
        if wrong := input_schema.problem(v):
            raise ValueError(f"inputSchema {wrong}")
        return v

    @model_validator(mode="after")
    def _known_names(self) -> SkillTool:
        if found := templates.check(self.steps, input_schema.properties(self.inputSchema)):
            raise rule_error(found)
        return self


class Skill(_Strict):
    """A skill: tools for a site that has none, as data the extension interprets."""

    model_config = ConfigDict(title="WebMCP Sidecar skill")

    schema_: str | None = Field(None, alias="$schema", description="For editors; ignored.")
    name: Annotated[str, StringConstraints(pattern=NAME_PATTERN)] = Field(
        description="Unique among installed skills; the file is `<name>.skill.json`."
    )
    version: Annotated[str, StringConstraints(min_length=1, max_length=32)] = Field(
        description="Semver by convention."
    )
    description: Annotated[str, StringConstraints(min_length=1, max_length=MAX_DESCRIPTION)]
    match: list[Pattern] = Field(
        min_length=1, max_length=MAX_PATTERNS, description="The pages the skill is for."
    )
    exclude: list[Pattern] = Field(
        default_factory=list,
        max_length=MAX_PATTERNS,
        description="Pages matching any of these are not matched.",
    )
    priority: int = Field(
        0,
        ge=-1000,
        le=1000,
        description="When two matching skills declare the "
        "same tool name, the higher priority wins (then the name).",
    )
    health: Health | None = None
    tools: list[SkillTool] = Field(min_length=1, max_length=MAX_TOOLS)

    @model_validator(mode="after")
    def _unique_tools(self) -> Skill:
        seen: dict[str, int] = {}
        found: list[templates.Problem] = []
        for i, tool in enumerate(self.tools):
            if tool.name in seen:
                found.append(
                    (("tools", i, "name"), f"`{tool.name}` is already the name of tools[{seen[tool.name]}]")
                )
            seen.setdefault(tool.name, i)
        if found:
            raise rule_error(found)
        return self

    def dump(self) -> dict[str, Any]:
        """As JSON data, the way the extension receives it (no `$schema`, nothing left unset)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"schema_"})


def editor_schema() -> dict[str, Any]:
    """The JSON Schema of a skill file, for editors (`$schema` in a skill points at a copy)."""
    schema = Skill.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    return json.dumps(editor_schema(), indent=2, ensure_ascii=False) + "\n"
