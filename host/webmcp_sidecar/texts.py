"""Plain-language texts said in more than one place, written once so they cannot drift.

NO_BROWSER: the MCP server reaches no browser at all (no host, or no host with its extension
connected); NO_EXTENSION: the host runs but the browser's extension has not (yet) said hello, so
nothing can be called in it (what the host answers its MCP entries and the panel's agent hears).
"""

NO_BROWSER = (
    "No browser is connected to WebMCP Sidecar. Open Chrome (or Edge, Brave, Chromium) with the "
    "WebMCP Sidecar extension enabled, or call open_browser with the site's URL. If the browser "
    "is open and this persists, run `webmcp-sidecar doctor` in a terminal: it says what is wrong."
)

NO_EXTENSION = (
    "The browser has not finished connecting to WebMCP Sidecar yet. Wait a moment; if it "
    "persists, open the browser and check the extension is enabled (webmcp-sidecar doctor)."
)
