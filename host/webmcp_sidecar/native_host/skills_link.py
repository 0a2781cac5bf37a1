"""The host's side of skills: the worker asks for them (`doc_get {kind: skills}`, after
`host_hello`) and gets the user's enabled skills (`docs`), again whenever they change
(native_host/doc_link.py; the Skills view manages them through the documents plugin's
`panel_doc`)."""

from __future__ import annotations

from webmcp_sidecar.documents.kinds import SKILLS
from webmcp_sidecar.native_host.doc_link import DocLink


class SkillsLink(DocLink):
    """Host plugin (native_host/plugins.py): the worker's copy of the skills (through
    `Documents`: `doc_get`, `panel_doc`)."""

    KIND = SKILLS
