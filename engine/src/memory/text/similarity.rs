//! Similarity of memories (§A.6): the tokenizer (stop words, plural stemming) and Jaccard
//! scores over title and body.

use std::collections::HashSet;
use std::sync::LazyLock;

// ---------------------------------------------------------------------------------------------
// §A.6 similarity (text parts)
// ---------------------------------------------------------------------------------------------

/// English function words dropped by [`tokens`].
pub(super) static STOPWORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    [
        "a", "an", "the", "and", "or", "but", "nor", "if", "then", "else", "so", "of", "to", "in",
        "on", "at", "by", "for", "with", "from", "as", "about", "into", "onto", "than", "too",
        "very", "just", "also", "only", "own", "same", "up", "down", "out", "off", "over", "under",
        "again", "more", "most", "some", "any", "all", "each", "both", "few", "other", "such",
        "no", "not", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did",
        "doing", "has", "have", "had", "having", "it", "its", "this", "that", "these", "those",
        "there", "here", "i", "me", "my", "mine", "you", "your", "yours", "we", "our", "ours",
        "us", "they", "them", "their", "theirs", "he", "him", "his", "she", "her", "hers", "what",
        "which", "who", "whom", "whose", "how", "why", "when", "where", "because", "while", "can",
        "could", "will", "would", "shall", "should", "may", "might", "must", "per", "via",
    ]
    .into_iter()
    .collect()
});

/// Folds an English plural to its singular (§A.6): `dependencies` → `dependency`,
/// `patches` → `patch`, `externals` → `external`; `class`, `https`, `ios` and `css` stay.
pub(crate) fn stem(token: &str) -> String {
    let len = token.chars().count();
    if len > 4
        && let Some(root) = token.strip_suffix("ies")
    {
        return format!("{root}y");
    }
    if len > 4 {
        for suffix in ["ses", "xes", "zes", "ches", "shes"] {
            if token.ends_with(suffix) {
                return token[..token.len() - 2].to_owned();
            }
        }
    }
    if len > 3
        && !token.ends_with("ss")
        && let Some(root) = token.strip_suffix('s')
        && root.contains(['a', 'e', 'i', 'o', 'u'])
    {
        return root.to_owned();
    }
    token.to_owned()
}

/// The content words of `text` as a set (§A.6): lowercased, markdown punctuation and anything
/// outside `[a-z0-9._/-]` split away, edge `._/-` trimmed, one-character words and stopwords
/// dropped, plurals folded by [`stem`]. Version numbers such as `0.1.5` survive.
pub(crate) fn tokens(text: &str) -> HashSet<String> {
    let lower = text.to_lowercase();
    let mut out = HashSet::new();
    let words = lower.split(|c: char| {
        !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '/' | '-'))
    });
    for word in words {
        let word = word.trim_matches(['.', '_', '/', '-']);
        if word.len() > 1 && !STOPWORDS.contains(word) {
            out.insert(stem(word));
        }
    }
    out
}

/// Jaccard index of two token sets: two empty sets score 1, one empty set scores 0.
pub(crate) fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let shared = small.iter().filter(|t| large.contains(*t)).count();
    let union = a.len() + b.len() - shared;
    shared as f64 / union as f64
}

/// The token sets of one memory that near-duplicate detection compares.
#[derive(Debug, Clone, Default)]
pub(crate) struct Digest {
    /// Tokens of the title.
    pub(crate) title: HashSet<String>,
    /// Tokens of the body.
    pub(crate) body: HashSet<String>,
}

impl Digest {
    /// Tokenises a memory's title and body.
    pub(crate) fn new(title: &str, body: &str) -> Digest {
        Digest {
            title: tokens(title),
            body: tokens(body),
        }
    }
}

/// Similarity of two memories: 0.6 × title Jaccard + 0.4 × body Jaccard, so a memory scores
/// exactly 1 against itself.
pub(crate) fn similarity(a: &Digest, b: &Digest) -> f64 {
    0.6 * jaccard(&a.title, &b.title) + 0.4 * jaccard(&a.body, &b.body)
}
