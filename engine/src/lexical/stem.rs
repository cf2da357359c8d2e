//! English Snowball stemming with a per-thread cache: the same stems as tantivy's `Stemmer`
//! (both run `frostem`'s English algorithm on the token), looked up instead of recomputed for a
//! word met before. Text repeats its words, so indexing a vault and highlighting snippets stem
//! each distinct word once per thread, not once per occurrence.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Distinct words a thread's cache holds before it starts over (a bound on memory, about
/// 4 MiB: far more words than a vault's vocabulary usually has).
const CACHE_WORDS: usize = 65_536;

struct Cache {
    stemmer: frostem::Stemmer,
    stems: FxHashMap<String, String>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache {
        stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
        stems: FxHashMap::default(),
    });
}

/// `word`'s English stem into `out` (cleared first).
fn stem_into(word: &str, out: &mut String) {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        out.clear();
        if let Some(s) = c.stems.get(word) {
            out.push_str(s);
            return;
        }
        let stem = c.stemmer.stem(word).into_owned();
        out.push_str(&stem);
        if c.stems.len() >= CACHE_WORDS {
            c.stems.clear();
        }
        c.stems.insert(word.to_string(), stem);
    });
}

/// The token filter: English stems, cached per thread; with [`CachedStemmer::without`], stop
/// words dropped first (what tantivy's `StopWordFilter` did before it, in one pass and with a
/// faster hash).
#[derive(Clone, Debug, Default)]
pub(super) struct CachedStemmer {
    stop_words: Option<std::sync::Arc<rustc_hash::FxHashSet<&'static str>>>,
}

impl CachedStemmer {
    /// Drops the tokens that are one of `stop_words` (as they reach the filter: lowercased and
    /// folded), and stems the others.
    pub(super) fn without(stop_words: &[&'static str]) -> CachedStemmer {
        CachedStemmer {
            stop_words: Some(std::sync::Arc::new(stop_words.iter().copied().collect())),
        }
    }
}

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner: tokenizer,
            stop_words: self.stop_words,
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct CachedStemmerFilter<T> {
    inner: T,
    stop_words: Option<std::sync::Arc<rustc_hash::FxHashSet<&'static str>>>,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            buffer: String::new(),
            stop_words: self.stop_words.as_deref(),
        }
    }
}

pub(super) struct CachedStemmerStream<'a, T> {
    tail: T,
    buffer: String,
    stop_words: Option<&'a rustc_hash::FxHashSet<&'static str>>,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        loop {
            if !self.tail.advance() {
                return false;
            }
            let token = self.tail.token_mut();
            if self
                .stop_words
                .is_some_and(|stop| stop.contains(token.text.as_str()))
            {
                continue;
            }
            stem_into(&token.text, &mut self.buffer);
            std::mem::swap(&mut token.text, &mut self.buffer);
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::{Language, SimpleTokenizer, Stemmer, TextAnalyzer};

    fn tokens(mut a: TextAnalyzer, text: &str) -> Vec<String> {
        let mut s = a.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = s.next() {
            out.push(t.text.clone());
        }
        out
    }

    #[test]
    fn the_cache_gives_tantivys_stems_seen_or_not() {
        let text = "retries retrying connections connected dying skies news generously \
                    retries connections ÄÖ 2026 idly";
        let plain = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(Stemmer::new(Language::English))
            .build();
        let cached = || {
            TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(CachedStemmer::default())
                .build()
        };
        let want = tokens(plain, text);
        // Twice: the second run is all cache hits.
        assert_eq!(tokens(cached(), text), want);
        assert_eq!(tokens(cached(), text), want);
        // With stop words: tantivy's filter, then the stems.
        let stops = ["the", "news", "and"];
        let plain = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(tantivy::tokenizer::StopWordFilter::remove(
                stops.iter().map(|w| w.to_string()),
            ))
            .filter(Stemmer::new(Language::English))
            .build();
        let text = "the news and the retries of connections and news";
        let cached = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedStemmer::without(&stops))
            .build();
        assert_eq!(tokens(cached, text), tokens(plain, text));
    }
}
