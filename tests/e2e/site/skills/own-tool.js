// This page registers its own `search_books` (WebMCP): it must win over the skill's.
'use strict';
const mc = document.modelContext || navigator.modelContext;
mc.registerTool({
  name: 'search_books',
  description: "The page's own search",
  inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
  execute: async ({ query }) => ({ content: [{ type: 'text', text: `own search: ${query}` }] }),
});
