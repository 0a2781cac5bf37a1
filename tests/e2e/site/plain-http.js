// Test pages plain-http*.html (test_plain_http.py): what a page can see of WebMCP, or of an
// extension's marks, in its window; recorded at load and readable later.
window.seenHere = () => ({
  secure: isSecureContext,
  documentModelContext: "modelContext" in document,
  navigatorModelContext: "modelContext" in navigator,
  interfaces: ["ModelContext", "ToolActivatedEvent", "ToolCancelEvent"].filter((n) => n in window),
  symbols: Object.getOwnPropertySymbols(window).map(String),
});
window.seenAtLoad = window.seenHere();
