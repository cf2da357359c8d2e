// obsidian-mind session-start.ts (recorded vault: content not needed by the tests)
