// obsidian-mind classify-message.ts (recorded vault: content not needed by the tests)
