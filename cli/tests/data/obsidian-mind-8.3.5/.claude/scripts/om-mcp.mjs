// stub: obsidian-mind's om MCP server launcher (not a copy)
