//! Vectors: the [`Vectors`] handle — `embed` (with its timed estimate), `refresh`, coverage and
//! status of the store, `search` by meaning alone.

use std::collections::HashSet;
use std::fs;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{NoProgress, Progress, Vault};
use crate::embed::{BertEmbedder, Embedder};
use crate::error::{Error, Result};
use crate::lexical::{Hit, SearchOptions};
use crate::vector::{VectorStore, VectorWriter};

/// From this many chunks to embed on, [`Vectors::embed`] first embeds a sample spread over the
/// run's text lengths, times it and reports an estimate ([`Progress::estimate`]).
pub const EMBED_ESTIMATE_MIN_CHUNKS: usize = 500;
/// Characters of text the estimate's sample holds at least: enough inference batches (about 16k
/// tokens, eight 2,048-token batches) that every core stays busy as in the full run; a smaller
/// sample measured 20-25% slow on two cores (its last batch leaves a core idle).
pub(super) const EMBED_SAMPLE_CHARS: usize = 64_000;

/// The estimate of a large [`Vectors::embed`], from a sample timed on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EmbedEstimate {
    /// Chunks to embed in this run (sample included).
    pub chunks: usize,
    /// Chunks of the timed sample (embedded and kept).
    pub sampled: usize,
    /// Measured rate: chunks per second over the timed part of the sample.
    pub chunks_per_s: f64,
    /// Estimated seconds for the rest, at that rate.
    pub remaining_s: f64,
}

impl EmbedEstimate {
    /// The estimate for a run of `chunks` chunks holding `chars` characters of text, of which
    /// `sampled` chunks are done; `timed_chars` of the sample's text took `secs` seconds (the rest
    /// of the sample warmed the model up). Time follows the text's length, not the chunk count,
    /// so the rest is priced by its characters; the rate shown is the chunks per second that
    /// implies for the rest.
    pub fn measured(
        chunks: usize,
        chars: usize,
        sampled: usize,
        sampled_chars: usize,
        timed_chars: usize,
        secs: f64,
    ) -> EmbedEstimate {
        let chars_per_s = timed_chars.max(1) as f64 / secs.max(1e-6);
        let rest = chunks.saturating_sub(sampled);
        let remaining_s = chars.saturating_sub(sampled_chars) as f64 / chars_per_s;
        EmbedEstimate {
            chunks,
            sampled,
            chunks_per_s: if remaining_s > 0.0 {
                rest as f64 / remaining_s
            } else {
                0.0
            },
            remaining_s,
        }
    }
}

/// Strata of the estimate's sample.
pub(super) const EMBED_SAMPLE_STRATA: usize = 8;

/// Indices of the estimate's sample in `todo` (sorted by text length), ascending: a run of
/// neighbours from the middle of each of [`EMBED_SAMPLE_STRATA`] equal slices of the run, so the
/// sample's lengths follow the run's and each run batches like the real one (similar lengths
/// together; single texts spread over all lengths measured 20% slow with the padded encoder of
/// the time). At least [`EMBED_SAMPLE_CHARS`] of text (and 32 chunks), never more than a tenth
/// of the run. Empty below [`EMBED_ESTIMATE_MIN_CHUNKS`].
pub(super) fn estimate_sample(todo: &[(u64, String)]) -> Vec<usize> {
    let n = todo.len();
    if n < EMBED_ESTIMATE_MIN_CHUNKS {
        return Vec::new();
    }
    let chars: usize = todo.iter().map(|(_, t)| t.len()).sum();
    let avg = (chars / n).max(1);
    let want = EMBED_SAMPLE_CHARS.div_ceil(avg).clamp(32, n / 10);
    let per = want / EMBED_SAMPLE_STRATA;
    let slice = n / EMBED_SAMPLE_STRATA;
    (0..EMBED_SAMPLE_STRATA)
        .flat_map(|k| {
            let start = k * slice + (slice - per) / 2;
            start..start + per
        })
        .collect()
}

/// What [`Vectors::embed`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EmbedReport {
    /// The model's id (name and weights fingerprint).
    pub model_id: String,
    /// Distinct chunk texts in the index.
    pub chunks: usize,
    /// Chunks embedded now.
    pub embedded: usize,
    /// Chunks whose vector was already stored (same model, same text).
    pub reused: usize,
    /// Stale vectors dropped by compaction.
    pub dropped: usize,
    /// Whether the approximate-neighbour graph was (re)built.
    pub graph_built: bool,
    /// Vectors in the store afterwards.
    pub vectors: usize,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
    /// The estimate made from a timed sample, for runs of at least
    /// [`EMBED_ESTIMATE_MIN_CHUNKS`] chunks.
    pub estimate: Option<EmbedEstimate>,
}

/// The vector store as [`Vault::status`] sees it.
#[derive(Debug, Clone, Serialize)]
pub struct VectorStatus {
    /// The model the vectors belong to.
    pub model_id: String,
    /// Vector dimension.
    pub dim: usize,
    /// Number of vectors (including any of chunks deleted since the last `embed`).
    pub count: usize,
    /// Vectors covered by the approximate-neighbour graph (0 = exact scan only).
    pub graph_rows: usize,
}

/// In the vectors folder: the coverage the last `embed` counted, and of which index commit and
/// store state, so queries need not count it again.
pub(super) const COVERAGE_FILE: &str = "coverage.json";

#[derive(Serialize, Deserialize)]
struct CoverageRecord {
    index: String,
    store: String,
    coverage: VectorCoverage,
}

/// How much of the index has vectors ([`Vectors::coverage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorCoverage {
    /// Distinct chunk texts in the index.
    pub chunks: usize,
    /// Those without a vector for the store's model.
    pub missing: usize,
}

impl VectorCoverage {
    /// The notice shown while chunks lack vectors (`None` when none do).
    pub fn notice(&self) -> Option<String> {
        (self.missing > 0).then(|| {
            format!(
                "{} of {} chunks {} no vector yet (semantic ranking misses them): run `mindex embed`, or keep `mindex watch` running",
                self.missing,
                self.chunks,
                if self.missing == 1 { "has" } else { "have" }
            )
        })
    }
}

/// The embedding model of a long-lived handle (the MCP server, a Python `Vault`): loaded once,
/// on first use, and shared. [`SharedModel::for_vectors`] is the rule every surface follows for
/// the operations that use vectors when the vault has them (search, query, recall, remember,
/// reason), as [`Vectors::model`] is for a one-shot process.
#[derive(Debug, Default)]
pub struct SharedModel {
    dir: Option<std::path::PathBuf>,
    cell: std::sync::OnceLock<Option<std::sync::Arc<BertEmbedder>>>,
}

impl SharedModel {
    /// The model at [`crate::embed::model_dir`]`(dir)`, not loaded yet.
    pub fn new(dir: Option<&std::path::Path>) -> SharedModel {
        SharedModel {
            dir: dir.map(std::path::Path::to_path_buf),
            cell: std::sync::OnceLock::new(),
        }
    }

    /// The model, loaded on the first call (`None` when it cannot be loaded; not retried).
    pub fn get(&self) -> Option<std::sync::Arc<BertEmbedder>> {
        self.cell
            .get_or_init(|| {
                BertEmbedder::load(&crate::embed::model_dir(self.dir.as_deref()))
                    .ok()
                    .map(std::sync::Arc::new)
            })
            .clone()
    }

    /// The model when `vault` has vectors (nothing is loaded until it has), else `None`.
    pub fn for_vectors(&self, vault: &Vault) -> Option<std::sync::Arc<BertEmbedder>> {
        vault.vectors().status().and_then(|_| self.get())
    }
}

/// The vault's vector store, the handle [`Vault::vectors`] gives: embedding the index's chunks,
/// the store's state, and search by meaning alone. Hybrid search ([`Vault::query`]) and the
/// agents' operations read the same store.
#[derive(Debug, Clone, Copy)]
pub struct Vectors<'v> {
    vault: &'v Vault,
}

impl Vault {
    /// The vector store's handle.
    pub fn vectors(&self) -> Vectors<'_> {
        Vectors { vault: self }
    }
}

impl Vectors<'_> {
    /// The store's summary, if [`Vectors::embed`] ever ran (reads one small file; unlike
    /// [`Vault::status`] it does not walk the vault).
    pub fn status(&self) -> Option<VectorStatus> {
        fs::read(self.vault.vectors_dir().join("meta.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .map(|m| VectorStatus {
                model_id: m["model_id"].as_str().unwrap_or_default().to_string(),
                dim: m["dim"].as_u64().unwrap_or(0) as usize,
                count: m["count"].as_u64().unwrap_or(0) as usize,
                graph_rows: m["hnsw"]["rows"].as_u64().unwrap_or(0) as usize,
            })
    }

    /// How many distinct chunks of the index lack a vector for the store's model; `None` when
    /// there are no vectors (or no index). Reads the key term dictionary and the store's keys,
    /// not the chunks' text.
    pub fn coverage(&self) -> Result<Option<VectorCoverage>> {
        let Some(vs) = self.status() else {
            return Ok(None);
        };
        let store = match VectorStore::open(&self.vault.vectors_dir(), &vs.model_id)? {
            Some(s) => s,
            None => return Ok(None),
        };
        match self.vault.coverage_of(&store) {
            Ok(c) => Ok(Some(c)),
            Err(Error::IndexMissing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every distinct chunk in the index as (content key, text to embed): what
    /// [`Vectors::embed`] feeds the embedder, for callers that compute vectors themselves.
    pub fn chunk_texts(&self) -> Result<Vec<(u64, String)>> {
        self.vault.lexical()?.chunk_texts()
    }

    /// Embeds every chunk of the index that has no vector for this model yet.
    ///
    /// Vectors are keyed by (model id, chunk text), so unchanged chunks are never embedded twice
    /// and a different model starts over. Work is saved every batch: an interrupted run keeps
    /// what it finished. Vectors of chunks gone from the index are dropped when they exceed a
    /// fifth. A run of at least [`EMBED_ESTIMATE_MIN_CHUNKS`] chunks first embeds a sample
    /// spread over its text lengths, times it and reports the estimate
    /// ([`Progress::estimate`]).
    ///
    /// This is the one embedding path: `mindex embed`, the hooks' refresh and `watch` (through
    /// [`Vectors::refresh`]) all run it.
    pub fn embed(&self, embedder: &dyn Embedder, progress: &dyn Progress) -> Result<EmbedReport> {
        self.vault.embed_until(embedder, progress, None)
    }

    /// [`Vectors::embed`] when this vault already has vectors for `embedder`'s model; `None`
    /// (nothing done, nothing created) otherwise: the first `embed` is the user's choice, and a
    /// store of another model is never replaced behind their back. What the hooks' refresh and
    /// `watch` run after each update.
    pub fn refresh(&self, embedder: &dyn Embedder) -> Result<Option<EmbedReport>> {
        self.vault.refresh_vectors_until(embedder, None)
    }

    /// Vector-only search: the notes whose chunks are closest to the query's embedding.
    pub fn search(
        &self,
        embedder: &dyn Embedder,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<Vec<Hit>> {
        let store = self.vault.vector_store(embedder)?;
        if opts.limit == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut hits = self.vault.vector_hits(embedder, &store, query, opts)?;
        self.vault
            .lexical()?
            .fill(&mut hits, query, crate::lexical::Syntax::Full)?;
        Ok(hits)
    }

    /// The model a one-shot operation that uses vectors when they exist loads (`recall`,
    /// `remember`, `reason`, the hooks' refresh): the one at
    /// [`crate::embed::model_dir`]`(explicit)` when this vault has vectors; `Ok(None)` when it
    /// has none (nothing to compare with, so nothing is loaded); an error when it cannot be
    /// loaded (an operation that can go on by words alone ignores it). Long-lived handles keep
    /// theirs in a [`SharedModel`].
    pub fn model(&self, explicit: Option<&std::path::Path>) -> Result<Option<BertEmbedder>> {
        if self.status().is_none() {
            return Ok(None);
        }
        BertEmbedder::load(&crate::embed::model_dir(explicit)).map(Some)
    }
}

impl Vault {
    /// How much of the index has vectors in `store`: what the last `embed` recorded when neither
    /// the index nor the store changed since (a small file read), else counted (a pass over every
    /// chunk key: ~0.5 s at 600,000 chunks, which every `query` used to pay).
    pub(super) fn coverage_of(&self, store: &VectorStore) -> Result<VectorCoverage> {
        let lexical = self.lexical()?;
        let index = lexical.commit_id()?;
        let recorded = fs::read(self.vectors_dir().join(COVERAGE_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<CoverageRecord>(&b).ok());
        if let Some(r) = recorded.filter(|r| r.index == index && r.store == store.state_id()) {
            return Ok(r.coverage);
        }
        let live = lexical.live_chunks()?;
        let stored: HashSet<u64> = store.keys().iter().copied().collect();
        Ok(VectorCoverage {
            chunks: live.len(),
            missing: live.count_missing(|k| stored.contains(&k)),
        })
    }

    pub(crate) fn refresh_vectors_until(
        &self,
        embedder: &dyn Embedder,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<Option<EmbedReport>> {
        match self.vectors().status() {
            Some(v) if v.model_id == embedder.model_id() && v.dim == embedder.dim() => {
                self.embed_until(embedder, &NoProgress, cancel).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// [`Vectors::embed`], stopping between batches once `cancel` is set (what was embedded is kept).
    pub(super) fn embed_until(
        &self,
        embedder: &dyn Embedder,
        progress: &dyn Progress,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<EmbedReport> {
        let cancelled = || cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed));
        let t0 = Instant::now();
        let lexical = self.lexical()?;
        let dir = self.vectors_dir();
        let mut writer = VectorWriter::open(&dir, embedder.model_id(), embedder.dim())?;
        let stored: HashSet<u64> = match VectorStore::open(&dir, embedder.model_id())? {
            Some(s) => s.keys().iter().copied().collect(),
            None => HashSet::new(),
        };
        let index = lexical.commit_id()?;
        let live = lexical.live_chunks()?;
        let mut todo = live.texts_missing(|k| stored.contains(&k))?;
        // Similar lengths together: less padding per batch.
        todo.sort_by_key(|(_, t)| t.len());
        let total = todo.len();
        progress.start("embedding", total as u64);
        let mut done = 0usize;
        let mut embed_group = |group: &[&(u64, String)]| -> Result<()> {
            let strs: Vec<&str> = group.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = embedder.embed(&strs)?;
            let keys: Vec<u64> = group.iter().map(|(k, _)| *k).collect();
            writer.append(&keys, &vectors)?;
            progress.advance(group.len() as u64);
            done += group.len();
            Ok(())
        };
        let sample = estimate_sample(&todo);
        let mut estimate = None;
        if !sample.is_empty() {
            // A few texts of each stratum warm the model up untimed (weights paged in, buffers
            // grown: one-off costs the rest of the run does not pay); the rest is timed.
            let per = sample.len() / EMBED_SAMPLE_STRATA;
            let warming = |j: usize| j % per < per.div_ceil(8);
            let pick = |warm: bool| -> Vec<&(u64, String)> {
                sample
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| warming(*j) == warm)
                    .map(|(_, &i)| &todo[i])
                    .collect()
            };
            let (warm, timed) = (pick(true), pick(false));
            embed_group(&warm)?;
            let t = Instant::now();
            embed_group(&timed)?;
            let chars = |g: &[&(u64, String)]| g.iter().map(|(_, t)| t.len()).sum::<usize>();
            let e = EmbedEstimate::measured(
                total,
                todo.iter().map(|(_, t)| t.len()).sum(),
                sample.len(),
                chars(&warm) + chars(&timed),
                chars(&timed),
                t.elapsed().as_secs_f64(),
            );
            progress.estimate(&e);
            estimate = Some(e);
        }
        let in_sample: HashSet<usize> = sample.into_iter().collect();
        let rest: Vec<&(u64, String)> = todo
            .iter()
            .enumerate()
            .filter(|(i, _)| !in_sample.contains(i))
            .map(|(_, c)| c)
            .collect();
        for group in rest.chunks(256) {
            if cancelled() {
                break;
            }
            embed_group(group)?;
        }
        progress.finish();
        let keep: HashSet<u64> = live.keys().collect();
        let stale = stored.iter().filter(|k| !keep.contains(k)).count();
        let dropped = if !cancelled() && stale * 5 > writer.len() {
            writer.compact(&keep)?
        } else {
            0
        };
        let graph_built = if cancelled() {
            false
        } else {
            let last = std::sync::atomic::AtomicUsize::new(usize::MAX);
            let built = writer.ensure_index(self.options.hnsw_threshold, &|done, total| {
                let mut before = last.swap(done, std::sync::atomic::Ordering::Relaxed);
                if before == usize::MAX {
                    progress.start("graph", total as u64);
                    before = 0;
                }
                progress.advance(done.saturating_sub(before) as u64);
            })?;
            if last.into_inner() != usize::MAX {
                progress.finish();
            }
            built
        };
        if !cancelled() {
            // Every chunk of `live` without a vector was embedded, and compaction keeps live
            // chunks: none is missing. `index` was read before `live`, so a commit in between
            // leaves the record stale (counted again), never wrong.
            let record = CoverageRecord {
                index,
                store: writer.state_id(),
                coverage: VectorCoverage {
                    chunks: live.len(),
                    missing: 0,
                },
            };
            let bytes = serde_json::to_vec(&record)
                .map_err(|e| Error::invalid("coverage", e.to_string()))?;
            crate::atomic::write_replace(&dir.join(COVERAGE_FILE), &bytes)?;
        }
        Ok(EmbedReport {
            model_id: embedder.model_id().to_string(),
            chunks: live.len(),
            embedded: done,
            reused: live.len() - total,
            dropped,
            graph_built,
            vectors: writer.len(),
            elapsed_ms: t0.elapsed().as_millis() as u64,
            estimate,
        })
    }

    /// Opens the vector store for `embedder`'s model, or says what to do.
    pub(super) fn vector_store(&self, embedder: &dyn Embedder) -> Result<VectorStore> {
        match VectorStore::open(&self.vectors_dir(), embedder.model_id())? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(Error::VectorsMissing {
                path: self.vectors_dir(),
                model_id: embedder.model_id().to_string(),
            }),
        }
    }

    pub(super) fn vector_hits(
        &self,
        embedder: &dyn Embedder,
        store: &VectorStore,
        text: &str,
        opts: &SearchOptions,
    ) -> Result<Vec<Hit>> {
        let q = embedder.embed(&[text])?.pop().unwrap_or_default();
        // Several chunks of one note (and stale vectors) share the top: look deeper than `limit`.
        let scored = store.search(&q, opts.limit.saturating_mul(8).max(64));
        self.lexical()?.hits_for_keys(&scored, opts)
    }
}
