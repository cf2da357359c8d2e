//! The chunk a hit shows, picked from its note's own postings.
//!
//! A note's text is indexed once, in its note document: chunk documents are stored, not indexed
//! (indexing both doubled a full build). Each note document stores where its chunks sit in its
//! `text` field, in token positions ([`ChunkSpans`]). To pick the chunk a hit shows, the
//! positions of the query's terms in that note are counted per chunk and the chunks scored by
//! BM25 ([`ChunkPick`]): the term weights are the notes' own, the lengths the chunks', and a term
//! on one of the chunk's heading lines counts again at the headings' weight, as a chunk's
//! headings did when they were a field of their own.

use std::ops::Range;

use tantivy::postings::Postings as _;
use tantivy::query::{Bm25StatisticsProvider, Query};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet as _, Searcher, Term};

use super::{HEADINGS_BOOST, KindStats, tokenizer};
use crate::chunk::Chunk;
use crate::error::Result;
use crate::note::Note;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;

/// Where one chunk sits in its note's `text` field: its token positions, and those of the
/// heading lines inside it (the note's title repeated as its H1 excepted, as in the note's
/// headings field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ChunkSpan {
    pub(super) body: Range<u32>,
    pub(super) headings: Vec<Range<u32>>,
}

/// Every chunk's [`ChunkSpan`], in chunk order: stored with the note document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct ChunkSpans(pub(super) Vec<ChunkSpan>);

impl ChunkSpans {
    /// The spans of `chunks`, cut from `note` (its body's lines are the `text` field's).
    pub(super) fn of(note: &Note, chunks: &[Chunk]) -> ChunkSpans {
        if chunks.is_empty() {
            return ChunkSpans::default();
        }
        let starts = tokenizer::line_positions(&note.body);
        let last = starts.len() - 1;
        // A file line's first position (a line past the body's end: the total).
        let at = |line: usize| starts[line.saturating_sub(note.body_start_line).min(last)];
        let heading_lines: Vec<usize> = note
            .headings
            .iter()
            .filter(|h| !h.text.trim().eq_ignore_ascii_case(note.title.trim()))
            .map(|h| h.line)
            .collect();
        let mut spans: Vec<ChunkSpan> = chunks
            .iter()
            .map(|c| ChunkSpan {
                body: at(c.line_start)..at(c.line_end + 1),
                headings: heading_lines
                    .iter()
                    .filter(|l| (c.line_start..=c.line_end).contains(l))
                    .map(|&l| at(l)..at(l + 1))
                    .collect(),
            })
            .collect();
        // The pieces of one line too long for a chunk share that line: each gets the positions
        // of its own words, counted piece by piece from the line's first (a piece cut inside a
        // word counts it twice; the last piece ends where the line does).
        let mut i = 0;
        while i < chunks.len() {
            let line = (chunks[i].line_start, chunks[i].line_end);
            let mut j = i + 1;
            while j < chunks.len()
                && line.0 == line.1
                && (chunks[j].line_start, chunks[j].line_end) == line
            {
                j += 1;
            }
            if j - i > 1 {
                let whole = spans[i].body.clone();
                let mut from = whole.start;
                for k in i..j {
                    let words = tokenizer::line_positions(&chunks[k].text)
                        .last()
                        .copied()
                        .unwrap_or(0);
                    let to = if k + 1 == j {
                        whole.end
                    } else {
                        (from + words).min(whole.end)
                    };
                    spans[k].body = from..to;
                    from = to;
                }
            }
            i = j;
        }
        ChunkSpans(spans)
    }

    /// Little-endian `u32`s: the chunk count, then per chunk its start, end, heading count and
    /// each heading's start and end.
    pub(super) fn to_bytes(&self) -> Vec<u8> {
        let mut words = vec![self.0.len() as u32];
        for c in &self.0 {
            words.extend([c.body.start, c.body.end, c.headings.len() as u32]);
            for h in &c.headings {
                words.extend([h.start, h.end]);
            }
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The spans [`Self::to_bytes`] wrote; `None` for bytes it cannot have written.
    pub(super) fn from_bytes(bytes: &[u8]) -> Option<ChunkSpans> {
        if !bytes.len().is_multiple_of(4) {
            return None;
        }
        let mut words = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let n = words.next()? as usize;
        // Every chunk takes at least three words: a count beyond that is not ours.
        if n > bytes.len() / 12 {
            return None;
        }
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let (start, end, heads) = (words.next()?, words.next()?, words.next()? as usize);
            if heads > bytes.len() / 8 {
                return None;
            }
            let mut headings = Vec::with_capacity(heads);
            for _ in 0..heads {
                headings.push(words.next()?..words.next()?);
            }
            out.push(ChunkSpan {
                body: start..end,
                headings,
            });
        }
        Some(ChunkSpans(out))
    }
}

/// A query's terms in the `text` field with their weights (idf over note documents): weighed
/// once per query, then used for every hit.
pub(super) struct ChunkPick {
    terms: Vec<(Term, f32)>,
}

/// One chunk's score for a query: BM25, and how many of the query's terms it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ChunkScore {
    pub(super) chunk: usize,
    pub(super) score: f32,
    pub(super) terms: usize,
}

impl ChunkPick {
    /// The terms of `query` (parsed on the `text` field) weighed with `stats`.
    pub(super) fn new(
        stats: &KindStats<'_>,
        query: &dyn Query,
        text: tantivy::schema::Field,
    ) -> Result<ChunkPick> {
        let mut found: Vec<Term> = Vec::new();
        query.query_terms(&mut |term, _| {
            if term.field() == text && !found.contains(term) {
                found.push(term.clone());
            }
        });
        let docs = stats.total_num_docs()? as f32;
        let mut terms = Vec::with_capacity(found.len());
        for term in found {
            let n = stats.doc_freq(&term)? as f32;
            let idf = (1.0 + (docs - n + 0.5) / (n + 0.5)).ln();
            terms.push((term, idf));
        }
        Ok(ChunkPick { terms })
    }

    /// How many terms the query has in the `text` field.
    pub(super) fn len(&self) -> usize {
        self.terms.len()
    }

    /// Each term's positions in the note document at `addr` (empty for a term it lacks).
    pub(super) fn positions(
        &self,
        searcher: &Searcher,
        addr: tantivy::DocAddress,
    ) -> Result<Vec<Vec<u32>>> {
        let reader = searcher.segment_reader(addr.segment_ord);
        let mut out = Vec::with_capacity(self.terms.len());
        for (term, _) in &self.terms {
            let mut positions = Vec::new();
            let postings = reader
                .inverted_index(term.field())?
                .read_postings(term, IndexRecordOption::WithFreqsAndPositions)
                .map_err(tantivy::TantivyError::from)?;
            if let Some(mut p) = postings
                && p.seek(addr.doc_id) == addr.doc_id
            {
                p.positions(&mut positions);
            }
            out.push(positions);
        }
        Ok(out)
    }

    /// Every chunk of `spans` that holds a query term, scored from the terms' `positions` in
    /// the note (as [`Self::positions`] gives them).
    pub(super) fn score(&self, spans: &ChunkSpans, positions: &[Vec<u32>]) -> Vec<ChunkScore> {
        let n = spans.0.len().max(1) as f32;
        let avg = (spans.0.iter().map(|c| c.body.len()).sum::<usize>() as f32 / n).max(1.0);
        let count = |ps: &[u32], r: &Range<u32>| -> usize {
            ps.partition_point(|&p| p < r.end) - ps.partition_point(|&p| p < r.start)
        };
        let saturate = |tf: f32, norm: f32| tf * (K1 + 1.0) / (tf + K1 * norm);
        let mut out = Vec::new();
        for (i, c) in spans.0.iter().enumerate() {
            let norm = 1.0 - B + B * c.body.len() as f32 / avg;
            let mut score = 0.0;
            let mut held = 0;
            for ((_, idf), ps) in self.terms.iter().zip(positions) {
                let tf = count(ps, &c.body);
                if tf == 0 {
                    continue;
                }
                held += 1;
                let in_headings: usize = c.headings.iter().map(|h| count(ps, h)).sum();
                score += idf * saturate(tf as f32, norm);
                if in_headings > 0 {
                    score += HEADINGS_BOOST * idf * saturate(in_headings as f32, 1.0);
                }
            }
            if held > 0 {
                out.push(ChunkScore {
                    chunk: i,
                    score,
                    terms: held,
                });
            }
        }
        out
    }

    /// The best chunk among `scores` (the lowest one of equal scores); `None` when none holds a
    /// query term.
    pub(super) fn best(scores: &[ChunkScore]) -> Option<usize> {
        scores
            .iter()
            .fold(None::<&ChunkScore>, |best, s| match best {
                Some(b) if b.score >= s.score => Some(b),
                _ => Some(s),
            })
            .map(|s| s.chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_round_trip_and_bad_bytes_are_refused() {
        let spans = ChunkSpans(vec![
            ChunkSpan {
                body: 0..12,
                headings: vec![0..2, 5..7],
            },
            ChunkSpan {
                body: 9..40,
                headings: vec![],
            },
        ]);
        assert_eq!(ChunkSpans::from_bytes(&spans.to_bytes()), Some(spans));
        assert_eq!(
            ChunkSpans::from_bytes(&ChunkSpans::default().to_bytes()),
            Some(ChunkSpans::default())
        );
        assert_eq!(ChunkSpans::from_bytes(&[1, 2, 3]), None);
        assert_eq!(ChunkSpans::from_bytes(&u32::MAX.to_le_bytes()), None);
        assert_eq!(ChunkSpans::from_bytes(&[2, 0, 0, 0, 1, 0, 0, 0]), None);
    }

    /// A paragraph longer than a chunk is cut in pieces on one line: each piece's span holds its
    /// own words, so a word near the paragraph's end is found in the last piece.
    #[test]
    fn pieces_of_one_long_line_get_their_own_words() {
        let words: Vec<String> = (0..600).map(|i| format!("w{i}")).collect();
        let text = format!("# T\n\n{} needle\n", words.join(" "));
        let note = crate::note::parse_note("T.md", &text).note;
        let chunks = crate::chunk::chunk_note(&note, &Default::default());
        assert!(chunks.len() >= 3, "{}", chunks.len());
        let spans = ChunkSpans::of(&note, &chunks);
        // Disjoint, in order, covering the line.
        for w in spans.0.windows(2) {
            assert!(w[0].body.end <= w[1].body.start, "{:?}", spans.0);
        }
        let needle = tokenizer::tokenize(&note.body, false)
            .into_iter()
            .find(|t| t.text == "needle")
            .unwrap()
            .position as u32;
        let holder = spans
            .0
            .iter()
            .position(|s| s.body.contains(&needle))
            .unwrap();
        assert!(chunks[holder].text.contains("needle"), "piece {holder}");
        assert_eq!(holder, chunks.len() - 1);
        // A word early in the line is in the line's first piece.
        let w2 = tokenizer::tokenize(&note.body, false)
            .into_iter()
            .find(|t| t.text == "w2")
            .unwrap()
            .position as u32;
        let holder = spans.0.iter().position(|s| s.body.contains(&w2)).unwrap();
        assert!(chunks[holder].text.contains("w2 "), "piece {holder}");
    }

    #[test]
    fn spans_follow_the_chunks_lines() {
        let text =
            "---\ntitle: T\n---\n# T\n\nalpha beta gamma\n\n## Second part\n\ndelta epsilon\n";
        let note = crate::note::parse_note("T.md", text).note;
        let chunks = crate::chunk::chunk_note(
            &note,
            &crate::chunk::ChunkOptions {
                max_chars: 30,
                overlap_chars: 0,
                min_chars: 0,
            },
        );
        let spans = ChunkSpans::of(&note, &chunks);
        assert_eq!(spans.0.len(), chunks.len());
        // Each chunk's positions hold exactly the tokens of its text.
        for (c, s) in chunks.iter().zip(&spans.0) {
            let tokens = tokenizer::tokenize(&c.text, false);
            assert_eq!(s.body.len(), tokens.len(), "{:?}", c.text);
        }
        // The H1 repeating the title is no heading here; "Second part" is.
        let heads: Vec<usize> = spans.0.iter().map(|s| s.headings.len()).collect();
        assert_eq!(heads.iter().sum::<usize>(), 1, "{heads:?}");
    }
}
