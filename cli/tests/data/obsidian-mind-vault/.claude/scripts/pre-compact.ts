// obsidian-mind pre-compact.ts (recorded vault: content not needed by the tests)
