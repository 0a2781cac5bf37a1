"""A skill tool's steps (docs/SKILLS.md, "Steps"): one model per `action`, a union told apart
by it. Field names, caps and defaults are the doc's; `extra="forbid"`, so a misspelt field is
an error rather than a step that quietly does something else.

The extension's interpreter runs these; each field's description is what an editor shows.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from webmcp_sidecar.wire.messages import json_over_limits

MAX_SELECTOR = 1024
DEFAULT_TIMEOUT_MS = 5000
MAX_TIMEOUT_MS = 60_000
DEFAULT_EXTRACT_LIMIT = 50
MAX_EXTRACT_LIMIT = 500
# A name a template may hold (`{{name}}`) and an `extract` may store under. The extension
# matches templates with the same rule.
VAR_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"

Selector = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_SELECTOR),
    Field(description="A CSS selector (templates allowed); the first visible match, else the first."),
]
Text = Annotated[str, StringConstraints(min_length=1)]
VarName = Annotated[str, StringConstraints(pattern=VAR_PATTERN)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Step(_Strict):
    action: str  # each step's Literal; declared here so it comes first in dumps
    timeout_ms: Annotated[int, Field(ge=1, le=MAX_TIMEOUT_MS)] = Field(
        DEFAULT_TIMEOUT_MS, description="How long to wait for the element or condition (ms)."
    )
    optional: bool = Field(False, description="true: a failure of this step is ignored and the run goes on.")


class _Trusted(_Step):
    trusted: bool = Field(
        False,
        description="true: sent as real input through the browser's debugger (the tab shows "
        "Chrome's debugging banner while it runs), for pages that ignore synthetic events.",
    )


class Fill(_Step):
    """Set an input's / textarea's / contenteditable's value at once; fires input and change."""

    action: Literal["fill"]
    selector: Selector
    value: str = Field(description="The value (a template).")


class Type(_Trusted):
    """Focus the element and type key by key."""

    action: Literal["type"]
    selector: Selector
    text: str = Field(description="What to type (a template).")
    clear: bool = Field(True, description="Empty the field first.")


class Click(_Trusted):
    """Scroll the element into view and click it."""

    action: Literal["click"]
    selector: Selector
    text: Text | None = Field(None, description="Only an element whose text contains this (any case).")


class Press(_Trusted):
    """Fire keydown/keyup of one key; Enter in a form's field submits the form."""

    action: Literal["press"]
    key: Text = Field(description="A KeyboardEvent.key: Enter, Escape, ArrowDown, a, ...")
    selector: Selector | None = Field(None, description="Default: the focused element.")


class Select(_Step):
    """Pick options of a <select> by value, else by visible label."""

    action: Literal["select"]
    selector: Selector
    value: str | None = Field(None, description="The option to pick (one of value / values).")
    values: list[str] | None = Field(None, description="The options to pick, for <select multiple>.")

    @model_validator(mode="after")
    def _one_choice(self) -> Select:
        if (self.value is None) == (self.values is None):
            raise ValueError("give exactly one of `value` or `values`")
        return self


class Check(_Step):
    """Set a checkbox or radio button by clicking it when its state differs."""

    action: Literal["check"]
    selector: Selector
    checked: bool = Field(True, description="The state wanted.")


class Scroll(_Step):
    """Scroll an element into view, or the page to its top or bottom."""

    action: Literal["scroll"]
    selector: Selector | None = None
    to: Literal["top", "bottom"] | None = None

    @model_validator(mode="after")
    def _one_target(self) -> Scroll:
        if (self.selector is None) == (self.to is None):
            raise ValueError("give exactly one of `selector` or `to`")
        return self


class WaitFor(_Step):
    """Wait up to timeout_ms for one condition."""

    action: Literal["wait_for"]
    selector: Selector | None = Field(None, description="An element exists (or, with gone, does not).")
    gone: bool | None = Field(None, description="With selector: wait for it to go.")
    text: Text | None = Field(None, description="The page's text contains this.")
    url: Text | None = Field(None, description="The full URL matches this glob (`*` wildcard).")
    navigation: Literal[True] | None = Field(None, description="A new document or URL since the step began.")

    @model_validator(mode="after")
    def _one_condition(self) -> WaitFor:
        given = [k for k in ("selector", "text", "url", "navigation") if getattr(self, k) is not None]
        if len(given) != 1:
            said = f" (it has {', '.join(given)})" if given else ""
            raise ValueError(f"give exactly one condition: selector, text, url or navigation{said}")
        if self.gone is not None and self.selector is None:
            raise ValueError("`gone` goes with `selector` only")
        return self


class Navigate(_Step):
    """Load a URL (absolute or relative to the page, on the tab's site) and wait for it."""

    action: Literal["navigate"]
    url: Text = Field(description="The URL (a template; values are percent-encoded).")


class ExtractField(_Strict):
    selector: Selector | None = Field(None, description="Within the record; none: the record itself.")
    attribute: Text | None = Field(None, description="An attribute to read; none: the element's text.")


class Extract(_Step):
    """Store a value under `as` for later steps: one element's text or attribute (`all`: every
    match's), or records from repeated elements (`list` + `fields`)."""

    action: Literal["extract"]
    as_: VarName = Field(alias="as", description="The name later steps use: {{name}}.")
    selector: Selector | None = None
    attribute: Text | None = Field(None, description="With selector: an attribute instead of the text.")
    all: bool | None = Field(None, description="With selector: a list of every match.")
    list: Selector | None = Field(None, description="The selector of the repeated elements.")
    fields: dict[Annotated[str, StringConstraints(min_length=1, max_length=128)], ExtractField] | None = (
        Field(None, min_length=1, max_length=64, description="With list: record field -> where.")
    )
    limit: Annotated[int, Field(ge=1, le=MAX_EXTRACT_LIMIT)] | None = Field(
        None, description=f"With list: at most this many records (default {DEFAULT_EXTRACT_LIMIT})."
    )

    @model_validator(mode="after")
    def _one_source(self) -> Extract:
        if self.selector is not None:
            if self.list is not None or self.fields is not None or self.limit is not None:
                raise ValueError(
                    "give either `selector` (+ attribute, all) or `list` + `fields` (+ limit), not both"
                )
        elif self.list is None or self.fields is None:
            raise ValueError("give either `selector`, or `list` with `fields`")
        elif self.attribute is not None or self.all is not None:
            raise ValueError("`attribute` and `all` go with `selector`; with `list`, each field has its own")
        else:
            self.limit = DEFAULT_EXTRACT_LIMIT if self.limit is None else self.limit
        return self


class Return(_Step):
    """End the tool with `value` (any JSON; its strings are templates) as its result."""

    action: Literal["return"]
    value: Any = Field(description="The result (any JSON; its strings are templates).")

    @field_validator("value")
    @classmethod
    def _capped(cls, v: Any) -> Any:
        if wrong := json_over_limits(v):
            raise ValueError(f"the value {wrong}")
        return v


Step = Annotated[
    Fill | Type | Click | Press | Select | Check | Scroll | WaitFor | Navigate | Extract | Return,
    Field(discriminator="action"),
]
