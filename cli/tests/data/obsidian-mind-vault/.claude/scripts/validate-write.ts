// obsidian-mind validate-write.ts (recorded vault: content not needed by the tests)
