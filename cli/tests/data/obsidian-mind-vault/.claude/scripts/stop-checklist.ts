// obsidian-mind stop-checklist.ts (recorded vault: content not needed by the tests)
