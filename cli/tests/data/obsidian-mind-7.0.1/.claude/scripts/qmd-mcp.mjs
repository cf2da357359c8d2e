// stub: obsidian-mind's qmd MCP launcher (not a copy)
