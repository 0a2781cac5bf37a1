"""Chat-site adapters as a kind of user document (documents/kind.py): plain data, imported at
host start. We ship adapters (`builtin/`); the user's replace them."""

from __future__ import annotations

from pathlib import Path

from webmcp_sidecar.documents.kind import DocKind, Feed, Words

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
FILE_SUFFIX = ".chat.json"
MAX_FILE_BYTES = 64 * 1024
BUILTIN = Path(__file__).parent / "builtin"

CHAT_SITES = DocKind(
    name="chat_sites",
    folder="chat-sites",
    suffix=FILE_SUFFIX,
    max_bytes=MAX_FILE_BYTES,
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
    feed=Feed(get="chat_sites_get", type="chat_sites", field="sites"),
    source="chat.json",
    builtin=BUILTIN,
    push_to_panels=True,
)
