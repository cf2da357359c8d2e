// obsidian-mind qmd-mcp.mjs (recorded vault: content not needed by the tests)
