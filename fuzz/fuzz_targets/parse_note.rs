//! The markdown / frontmatter / wikilink parser and the chunker, on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = mindex::parse_note("fuzz/Note.md", &text);
    let chunks = mindex::chunk::chunk_note(&parsed.note, &mindex::chunk::ChunkOptions::default());
    for c in &chunks {
        assert!(c.line_start <= c.line_end, "chunk line range");
    }
});
