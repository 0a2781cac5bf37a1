"""Skills: tools for sites that have none, as JSON documents (docs/SKILLS.md).

`model` (the document's pydantic models, the truth for the format), `problems` (a file's text
to a skill, or to messages with line and column), `store` (the installed skills and their
on/off state), `cli` (`webmcp-sidecar skills ...`). The extension interprets the steps.
"""
