// The Cline CLI's own reading of its MCP settings (the CLI has `mcp add/remove`, no `list`):
// prints what @cline/core resolves from cline_mcp_settings.json, as JSON.
import { resolveMcpServerRegistrations } from "@cline/core";

console.log(JSON.stringify(resolveMcpServerRegistrations()));
