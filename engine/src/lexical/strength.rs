//! Match strength on words: how much of a query a note holds, for a hit's relevance
//! ([`crate::query::relevance`]). Not a ranking: BM25 orders the notes; this says how well the
//! ones shown match.

use std::collections::BTreeMap;

use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, Term};

use super::fields::{KIND_NOTE, analyze};
use super::{Lexical, live_docs};
use crate::error::Result;

/// Distinct words of a query weighed, at most this many (a pasted paragraph is not a query).
const MAX_WORDS: usize = 32;

impl Lexical {
    /// For each of `paths`, the share of the distinct words of `query` that the note holds in
    /// any of its text fields (title, aliases, description, headings, tags, frontmatter, path,
    /// body): 1.0 when it holds every word, 0.0 when it holds none or the query has no words.
    /// Words are analyzed as the index analyzes each field (stop words and question words
    /// dropped, stems in the text fields), so "retries" counts where the note says "retry".
    ///
    /// Every word weighs the same. Weighing by IDF was measured as no better at telling on-topic
    /// from off-topic questions (dev sets, benches/README.md), and the IDF of a word the note
    /// lacks counts every note holding it, hidden ones too: an agent could learn from a
    /// visible hit's relevance whether a note it may not read holds a word. This share depends
    /// on the query and the note alone.
    pub(crate) fn coverage(&self, query: &str, paths: &[&str]) -> Result<Vec<f32>> {
        let words = query_words(query);
        if words.is_empty() || paths.is_empty() {
            return Ok(vec![0.0; paths.len()]);
        }
        self.refresh()?;
        let searcher = self.reader.searcher();
        let f = &self.fields;
        let stemmed_fields = [
            f.title,
            f.aliases,
            f.description,
            f.note_headings,
            f.meta,
            f.text,
        ];
        let plain_fields = [f.tags, f.path_text];
        // The shown notes' documents, found once from the path postings of each segment (a
        // note document per live path); then each word is looked up in each field's postings of
        // their segments (a seek per note), not searched for.
        let mut by_segment: BTreeMap<u32, Vec<(DocId, usize)>> = BTreeMap::new();
        let note_kind = Term::from_field_u64(f.kind, KIND_NOTE);
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let mut docs: Vec<(DocId, usize)> = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                let term = Term::from_field_text(f.path, p);
                docs.extend(live_docs(reader, &term)?.into_iter().map(|doc| (doc, i)));
            }
            if docs.is_empty() {
                continue;
            }
            // Only note documents (a path's chunks and withheld marker share its path).
            docs.sort_unstable();
            let Some(mut kinds) = reader
                .inverted_index(f.kind)?
                .read_postings(&note_kind, IndexRecordOption::Basic)
                .map_err(tantivy::TantivyError::from)?
            else {
                continue;
            };
            docs.retain(|&(doc, _)| kinds.doc() <= doc && kinds.seek(doc) == doc);
            by_segment.insert(ord as u32, docs);
        }
        let mut held = vec![0usize; paths.len()];
        for (&segment, docs) in &by_segment {
            let reader = searcher.segment_reader(segment);
            let mut indexes = Vec::new();
            for &field in stemmed_fields.iter().chain(&plain_fields) {
                indexes.push((field, reader.inverted_index(field)?));
            }
            for word in &words {
                let mut holds = vec![false; docs.len()];
                for (field, index) in &indexes {
                    let forms: &[String] = if plain_fields.contains(field) {
                        &word.plain
                    } else {
                        std::slice::from_ref(&word.stem)
                    };
                    for form in forms {
                        let term = Term::from_field_text(*field, form);
                        let Some(mut postings) = index
                            .read_postings(&term, IndexRecordOption::Basic)
                            .map_err(tantivy::TantivyError::from)?
                        else {
                            continue;
                        };
                        for (k, &(doc, _)) in docs.iter().enumerate() {
                            if !holds[k] && postings.seek(doc) == doc {
                                holds[k] = true;
                            }
                        }
                    }
                }
                for (k, &(_, i)) in docs.iter().enumerate() {
                    held[i] += usize::from(holds[k]);
                }
            }
        }
        Ok(held
            .into_iter()
            .map(|h| (h as f32 / words.len() as f32).min(1.0))
            .collect())
    }
}

/// A word of a query: its form in the stemmed fields, and its forms in the fields indexed
/// plain (tags, path: lowercased, not stemmed).
struct Word {
    stem: String,
    plain: Vec<String>,
}

/// The distinct words of `query` as the index analyzes them (its `-excluded` words left out), at
/// most [`MAX_WORDS`].
fn query_words(query: &str) -> Vec<Word> {
    use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer};
    let mut plain = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .build();
    let mut words: Vec<Word> = Vec::new();
    for part in query.split_whitespace().filter(|w| !w.starts_with('-')) {
        // The text fields' analyzer, as queries are analyzed (the index's per-thread one).
        let stems: Vec<String> = analyze(part, false).into_iter().map(|(t, _)| t).collect();
        let mut plains = Vec::new();
        let mut stream = plain.token_stream(part);
        while let Some(token) = stream.next() {
            plains.push(token.text.clone());
        }
        let paired = stems.len() == plains.len();
        for (i, stem) in stems.into_iter().enumerate() {
            let forms = if paired {
                vec![plains[i].clone()]
            } else {
                plains.clone()
            };
            match words.iter_mut().find(|w| w.stem == stem) {
                Some(w) => w.plain.extend(forms),
                None => words.push(Word { stem, plain: forms }),
            }
        }
        if words.len() >= MAX_WORDS {
            words.truncate(MAX_WORDS);
            break;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::{NoProgress, Vault, VaultOptions};

    #[test]
    fn coverage_is_the_share_of_the_query_words_a_note_holds() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        fs::write(
            root.join("Retry budget.md"),
            "---\ntags: [payments]\n---\n# Retry budget\n\nWebhooks are retried three times.\n",
        )
        .unwrap();
        fs::write(
            root.join("Webhooks.md"),
            "# Webhooks\n\nSigned with HMAC.\n",
        )
        .unwrap();
        fs::write(root.join("Lunch.md"), "# Lunch\n\nSoup on Fridays.\n").unwrap();
        let v = Vault::open(root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let lex = v.lexical().unwrap();
        let paths = ["Retry budget.md", "Webhooks.md", "Lunch.md", "Missing.md"];
        // Stems and stop words as indexed ("retries" ~ "retried"; "how", "do", "we" dropped);
        // a tag counts (as tags are indexed: whole, not stemmed).
        let c = lex
            .coverage("how do we handle payments retries for webhooks?", &paths)
            .unwrap();
        assert_eq!(c, vec![0.75, 0.25, 0.0, 0.0], "{c:?}");
        // Excluded words and an empty query weigh nothing.
        assert_eq!(
            lex.coverage("webhooks -lunch", &paths).unwrap(),
            vec![1.0, 1.0, 0.0, 0.0]
        );
        assert_eq!(lex.coverage("the of", &paths).unwrap(), vec![0.0; 4]);
        // What other notes hold changes nothing: a word no note held, then one another holds.
        let before = lex.coverage("webhooks zebra", &paths).unwrap();
        fs::write(root.join("Zoo.md"), "# Zoo\n\nA zebra.\n").unwrap();
        v.update(&NoProgress).unwrap();
        assert_eq!(
            v.lexical()
                .unwrap()
                .coverage("webhooks zebra", &paths)
                .unwrap(),
            before
        );
        assert_eq!(before, vec![0.5, 0.5, 0.0, 0.0]);
    }
}
