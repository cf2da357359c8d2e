//! Pure text functions of the memory store (slugs, descriptions, similarity, contract rules,
//! markup guard, sanitising, the frontmatter subset memories are written in).
