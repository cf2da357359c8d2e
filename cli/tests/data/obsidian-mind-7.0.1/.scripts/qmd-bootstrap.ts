// stub: obsidian-mind's qmd bootstrap (not a copy)
