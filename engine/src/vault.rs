//! [`Vault`]: the handle every surface uses — update the index, search it, read notes, report status.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::chunk::ChunkOptions;
use crate::error::{Error, Result};
use crate::lexical::Lexical;
use crate::state::IndexState;

pub(crate) mod agent;
mod graph;
mod health;
mod outcome;
mod pending;
mod read;
mod reason;
mod recall;
mod remember;
mod render;
mod search;
mod update;
mod vectors;
mod work;

pub(crate) use read::note_text;
pub use read::{MultiGetItem, NoteText, Status, StatusOptions};
pub(crate) use update::{Scope, Updated, link_targets};
pub use vectors::{
    EMBED_ESTIMATE_MIN_CHUNKS, EmbedEstimate, EmbedReport, SharedModel, VectorCoverage,
    VectorStatus, Vectors,
};

pub use crate::state::LastUpdate;
pub use reason::{
    REASON_SOURCE, REASON_TIMEOUT, REASON_VIEW_CAP, ReasonOptions, Reasoning, ScopedHits,
};
pub use work::MAX_WORK_NOTE_BYTES;

pub use graph::{BrokenLink, Expansion, GraphAudit, LinkedNote};
pub use health::Health;
pub use outcome::{Outcome, Refusal, Surface};
pub use recall::{Recall, RecallOptions, RecallRanking, RecalledMemory};
pub use remember::Remembered;
pub use work::{WorkInput, WorkKind, WorkRecord};

/// Name of the default index folder inside a vault.
pub const INDEX_DIR_NAME: &str = ".mindex";
/// The file that marks a folder as a vault root.
pub const MANIFEST_FILE: &str = "vault-manifest.json";
pub use crate::note::DEFAULT_MAX_NOTE_BYTES;
/// Default [`VaultOptions::hnsw_threshold`], chosen by measurement (benches/README.md, "Vector
/// search"): the graph opens in well under a millisecond (it is memory-mapped) and answers a
/// vault's vector sub-query in ~0.3 ms at recall ~1.0, while the exact scan costs ~2.5 ms at
/// 50,000 vectors on 2 cores and grows linearly; below this the scan is exact, about as fast, and
/// spares building the graph (~15 s for the first 50,000 vectors, then extended as chunks are
/// embedded).
pub const DEFAULT_HNSW_THRESHOLD: usize = 50_000;
/// Options for opening a [`Vault`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultOptions {
    /// Where the index lives; `<vault>/.mindex` when `None`.
    pub index_dir: Option<PathBuf>,
    /// How notes are cut into chunks. Changing it rebuilds the index on the next update.
    pub chunking: ChunkOptions,
    /// Notes larger than this are skipped with a warning.
    pub max_note_bytes: u64,
    /// From this many vectors on, `embed` builds an approximate-neighbour graph (HNSW) and vector
    /// searches use it; below it they scan every vector exactly.
    pub hnsw_threshold: usize,
}

impl Default for VaultOptions {
    fn default() -> Self {
        VaultOptions {
            index_dir: None,
            chunking: ChunkOptions::default(),
            max_note_bytes: DEFAULT_MAX_NOTE_BYTES,
            hnsw_threshold: DEFAULT_HNSW_THRESHOLD,
        }
    }
}

/// Receives progress of long operations. Every method has an empty default.
pub trait Progress: Sync {
    /// A phase starts with `total` steps.
    fn start(&self, _phase: &str, _total: u64) {}
    /// `n` more steps are done.
    fn advance(&self, _n: u64) {}
    /// The phase is over.
    fn finish(&self) {}
    /// [`Vectors::embed`](crate::Vectors::embed) measured a sample of a large run and estimates the rest (called once,
    /// after `start` and the sample's `advance`, before the rest is embedded).
    fn estimate(&self, _estimate: &EmbedEstimate) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// A vault: a folder of markdown notes and its index.
///
/// `Vault` is `Send + Sync`; share one per process. Searches run concurrently; an update takes the
/// index's writer lock, so a second concurrent update (in any process) fails with [`Error::Busy`].
#[derive(Debug)]
pub struct Vault {
    root: PathBuf,
    index_dir: PathBuf,
    options: VaultOptions,
    lexical: Mutex<Option<Arc<Lexical>>>,
    agent: Mutex<Option<Arc<agent::AgentContext>>>,
}

/// How long an engine write (a memory, a work record) waits for another process's index writer
/// before it gives up indexing (the file is written either way; the next update indexes it).
pub const WRITER_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Whether `dir` is the root of a vault: it holds a `vault-manifest.json` or Obsidian's
/// `.obsidian/` folder.
pub fn is_vault_root(dir: &Path) -> bool {
    dir.join(MANIFEST_FILE).is_file() || dir.join(".obsidian").is_dir()
}

/// Finds the vault containing `start`: the nearest ancestor (or `start` itself) that is a vault
/// root ([`is_vault_root`]).
pub fn find_vault_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| is_vault_root(d))
        .map(Path::to_path_buf)
}

/// Splits `path:LINE` into the path and the line; a path without a numeric suffix has no line.
pub fn parse_get_spec(spec: &str) -> (&str, Option<usize>) {
    if let Some((path, line)) = spec.rsplit_once(':')
        && !path.is_empty()
        && let Ok(n) = line.parse::<usize>()
    {
        return (path, Some(n.max(1)));
    }
    (spec, None)
}

impl Vault {
    /// Opens the vault rooted at `root`. Nothing is created until [`Vault::update`].
    pub fn open(root: impl AsRef<Path>, options: VaultOptions) -> Result<Vault> {
        let given = root.as_ref();
        let root = fs::canonicalize(given).map_err(|e| Error::VaultNotFound {
            path: given.to_path_buf(),
            detail: e.to_string(),
        })?;
        if !root.is_dir() {
            return Err(Error::VaultNotFound {
                path: given.to_path_buf(),
                detail: "not a folder".into(),
            });
        }
        let index_dir = match &options.index_dir {
            Some(d) if d.is_absolute() => d.clone(),
            Some(d) => std::env::current_dir()
                .map_err(|e| Error::io(d, e))?
                .join(d),
            None => root.join(INDEX_DIR_NAME),
        };
        Ok(Vault {
            root,
            index_dir,
            options,
            lexical: Mutex::new(None),
            agent: Mutex::new(None),
        })
    }

    /// The vault root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The options this vault was opened with.
    pub fn options(&self) -> &VaultOptions {
        &self.options
    }

    /// The index folder.
    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    /// The vector store folder (`<index>/vectors`).
    pub fn vectors_dir(&self) -> PathBuf {
        self.index_dir.join("vectors")
    }

    fn lexical_dir(&self) -> PathBuf {
        self.index_dir.join("lexical")
    }

    fn state_path(&self) -> PathBuf {
        self.index_dir.join("state.bin")
    }

    pub(crate) fn lexical(&self) -> Result<Arc<Lexical>> {
        let mut slot = self.lexical.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = slot.as_ref() {
            return Ok(l.clone());
        }
        let l = Arc::new(Lexical::open(&self.lexical_dir())?);
        l.set_manifest(crate::manifest::Manifest::load(&self.root));
        *slot = Some(l.clone());
        Ok(l)
    }

    /// The index state (what is indexed), if there is an index.
    pub(crate) fn state(&self) -> Result<Option<IndexState>> {
        IndexState::load(&self.state_path())
    }
}

#[cfg(test)]
mod tests {
    use super::vectors::{EMBED_SAMPLE_STRATA, estimate_sample};
    use super::*;
    use crate::embed::Embedder;
    use crate::query::{QueryOptions, QueryResult, Stage, SubQuery};

    #[test]
    fn a_model_is_loaded_for_vectors_only_once_the_vault_has_them() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.md"), "# A\n\nretry budgets for webhooks\n").unwrap();
        let v = Vault::open(&root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let model_dir = d.path().join("tiny");
        // No vectors: nothing to compare with, so nothing is loaded (the model is not even
        // there yet, and that is no error).
        assert!(matches!(v.vectors().model(Some(&model_dir)), Ok(None)));
        let shared = SharedModel::new(Some(&model_dir));
        assert!(shared.for_vectors(&v).is_none());
        // Vectors of a model: now it loads; a missing model is an error the caller sees.
        crate::rerank::tests::write_tiny_bert(&model_dir, false, 5);
        let tiny = crate::BertEmbedder::load(&model_dir).unwrap();
        v.vectors().embed(&tiny, &NoProgress).unwrap();
        let loaded = v.vectors().model(Some(&model_dir)).unwrap().unwrap();
        assert_eq!(loaded.model_id(), tiny.model_id());
        assert!(v.vectors().model(Some(&d.path().join("none"))).is_err());
        // The shared model was not loaded (nor its absence cached) before vectors existed.
        let kept = shared.for_vectors(&v).expect("loaded once vectors exist");
        assert_eq!(kept.model_id(), tiny.model_id());
        assert!(std::sync::Arc::ptr_eq(&kept, &shared.get().unwrap()));
    }

    /// A deterministic stand-in for a model: words hashed into 64 dimensions, normalised. It
    /// records the size of every `embed` call.
    struct FakeEmbedder {
        id: String,
        calls: Mutex<Vec<usize>>,
    }

    impl FakeEmbedder {
        fn new(id: &str) -> FakeEmbedder {
            FakeEmbedder {
                id: id.to_string(),
                calls: Mutex::new(Vec::new()),
            }
        }
        fn calls(&self) -> Vec<usize> {
            self.calls.lock().unwrap().clone()
        }
    }

    impl Embedder for FakeEmbedder {
        fn model_id(&self) -> &str {
            &self.id
        }
        fn dim(&self) -> usize {
            64
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            self.calls.lock().unwrap().push(texts.len());
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0f32; 64];
                    for w in t.split_whitespace() {
                        v[(xxhash_rust::xxh3::xxh3_64(w.to_lowercase().as_bytes()) % 64)
                            as usize] += 1.0;
                    }
                    v[0] += 0.01;
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    v.iter().map(|x| x / n).collect()
                })
                .collect())
        }
    }

    fn vault_with(notes: &[(&str, String)]) -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in notes {
            let p = dir.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        (dir, v)
    }

    fn hybrid(v: &Vault, e: &dyn Embedder, q: &str) -> QueryResult {
        v.query(Some(e), &SubQuery::hybrid(q), &QueryOptions::default())
            .unwrap()
    }

    /// Issue 39: the vault's scaffolding (templates, agent manuals, the manifest's
    /// infrastructure) ranks below the notes people wrote, on search and on hybrid query, and
    /// is still found when nothing else matches. A version looked up in a question puts the
    /// notes holding it first.
    #[test]
    fn scaffolding_ranks_below_user_notes_and_versions_are_looked_up() {
        let (_d, v) = vault_with(&[
            (
                "templates/Decision Record.md",
                "# Decision Record\n\n## Decision\n\nWhat the decision record decides.\n## Context\n".into(),
            ),
            (
                "CLAUDE.md",
                "# Manual\n\nWrite a decision record for every decision.\n".into(),
            ),
            (
                "brain/Skills.md",
                "# Skills\n\n/decision: writes a decision record.\n".into(),
            ),
            (
                "vault-manifest.json",
                r#"{"infrastructure": ["brain/Skills.md"]}"#.into(),
            ),
            (
                "work/active/Decision - Move ledger to Postgres.md",
                "# Move ledger to Postgres\n\nThe decision: Postgres for the ledger. Recorded after the review.\n".into(),
            ),
            (
                "work/active/Ledger deploys.md",
                "# Ledger deploys\n\nWe deploy the ledger every week; the last safe one was v2.4.6.\n".into(),
            ),
            (
                "work/incidents/Ledger rollback.md",
                "# Ledger rollback\n\nv2.4.7 broke settlement; we rolled back.\n".into(),
            ),
            ("inbox/Template ideas.md", "# Wiggle\n\nzebra\n".into()),
        ]);
        let paths = |hits: Vec<crate::Hit>| hits.into_iter().map(|h| h.path).collect::<Vec<_>>();
        let found = paths(
            v.search("decision record", &crate::SearchOptions::default())
                .unwrap(),
        );
        assert_eq!(
            found[0], "work/active/Decision - Move ledger to Postgres.md",
            "{found:?}"
        );
        for s in [
            "templates/Decision Record.md",
            "CLAUDE.md",
            "brain/Skills.md",
        ] {
            assert!(found.contains(&s.to_string()), "{s} still found: {found:?}");
        }
        let e = FakeEmbedder::new("fake@1");
        v.vectors().embed(&e, &NoProgress).unwrap();
        let q = hybrid(&v, &e, "decision record");
        assert_eq!(
            q.hits[0].hit.path,
            "work/active/Decision - Move ledger to Postgres.md",
            "{:?}",
            q.hits.iter().map(|h| &h.hit.path).collect::<Vec<_>>()
        );
        assert!(q.hits.iter().any(|h| h.hit.scaffold));
        // Only scaffolding matches: it is found.
        let only = paths(
            v.search("context", &crate::SearchOptions::default())
                .unwrap(),
        );
        assert_eq!(only, ["templates/Decision Record.md"]);
        // The version asked about, in a question, first.
        let q = hybrid(&v, &e, "is it safe to deploy the ledger v2.4.7 again?");
        assert_eq!(q.hits[0].hit.path, "work/incidents/Ledger rollback.md");
        assert!(q.hits[0].hit.exact);
    }

    /// `embed` records its coverage; queries use the record only while the index and the store
    /// are as it saw them: a note saved since, or a damaged record, is counted again.
    #[test]
    fn recorded_coverage_is_used_only_while_index_and_store_are_unchanged() {
        let (dir, v) = vault_with(&[
            ("a.md", "# A\n\nalpha text about pools\n".into()),
            ("b.md", "# B\n\nbeta text about queues\n".into()),
        ]);
        let e = FakeEmbedder::new("fake@1");
        v.vectors().embed(&e, &NoProgress).unwrap();
        let record = v.vectors_dir().join(vectors::COVERAGE_FILE);
        let saved: serde_json::Value = serde_json::from_slice(&fs::read(&record).unwrap()).unwrap();
        assert_eq!(saved["coverage"]["missing"], 0, "{saved}");
        assert_eq!(hybrid(&v, &e, "pools").missing_vectors, Some(0));
        // A new note: the index commit changed, so the record no longer applies.
        fs::write(dir.path().join("c.md"), "# C\n\ngamma text\n").unwrap();
        v.update(&NoProgress).unwrap();
        let missing = hybrid(&v, &e, "pools").missing_vectors.unwrap();
        assert!(missing > 0, "{missing}");
        assert_eq!(v.vectors().coverage().unwrap().unwrap().missing, missing);
        // The next embed records the new state.
        v.vectors().embed(&e, &NoProgress).unwrap();
        assert_eq!(hybrid(&v, &e, "pools").missing_vectors, Some(0));
        // A record that says something else of the same state is trusted, which is how the test
        // knows it is read; a damaged one is ignored.
        let mut forged: serde_json::Value =
            serde_json::from_slice(&fs::read(&record).unwrap()).unwrap();
        forged["coverage"]["missing"] = 7.into();
        fs::write(&record, forged.to_string()).unwrap();
        assert_eq!(hybrid(&v, &e, "pools").missing_vectors, Some(7));
        fs::write(&record, "{not json").unwrap();
        assert_eq!(hybrid(&v, &e, "pools").missing_vectors, Some(0));
    }

    #[test]
    fn live_chunk_keys_match_the_stored_chunks_after_edits_and_deletes() {
        let (dir, v) = vault_with(&[
            ("a.md", "# A\n\nalpha text about pools\n".into()),
            ("b.md", "# B\n\nbeta text about queues\n".into()),
            ("c.md", "# C\n\ngamma text\n".into()),
        ]);
        fs::write(dir.path().join("a.md"), "# A\n\nalpha edited\n").unwrap();
        fs::remove_file(dir.path().join("c.md")).unwrap();
        v.update(&NoProgress).unwrap();
        let mut want = v.vectors().chunk_texts().unwrap();
        want.sort();
        let live = v.lexical().unwrap().live_chunks().unwrap();
        let mut got = live.texts_missing(|_| false).unwrap();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(live.len(), 2);
        assert!(got.iter().any(|(_, t)| t.contains("alpha edited")));
        assert!(!got.iter().any(|(_, t)| t.contains("gamma")));
        let first = want[0].0;
        assert_eq!(live.count_missing(|k| k == first), 1);
        assert_eq!(
            live.texts_missing(|k| k == first).unwrap(),
            vec![want[1].clone()]
        );
    }

    #[test]
    fn status_looks_for_missing_files_and_verify_reads_checksums() {
        let (dir, v) = vault_with(&[(
            "pools.md",
            "# Pools\n\nconnection pool exhaustion under load\n".into(),
        )]);
        let st = v.status().unwrap();
        assert!(st.damaged.is_empty() && !st.verified, "{:?}", st.damaged);
        let st = v.status_with(&StatusOptions { verify: true }).unwrap();
        assert!(st.damaged.is_empty() && st.verified, "{:?}", st.damaged);
        // The largest segment file: garbled, only a verified status sees it; emptied, both do.
        let lexical = v.lexical_dir();
        let mut files: Vec<_> = std::fs::read_dir(&lexical)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x != "json" && x != "lock"))
            .collect();
        files.sort_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        let target = files.last().unwrap().clone();
        let mut bytes = std::fs::read(&target).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0xA5;
        std::fs::write(&target, &bytes).unwrap();
        assert!(v.status().unwrap().damaged.is_empty());
        let st = v.status_with(&StatusOptions { verify: true }).unwrap();
        assert!(!st.damaged.is_empty(), "garbled {target:?} not seen");
        std::fs::write(&target, b"").unwrap();
        let st = v.status().unwrap();
        assert!(
            st.damaged
                .iter()
                .any(|d| d.contains(&*target.file_name().unwrap().to_string_lossy())),
            "{:?}",
            st.damaged
        );
        drop(dir);
    }

    #[test]
    fn chunks_without_vectors_are_counted_everywhere_until_embedded() {
        let (dir, v) = vault_with(&[
            (
                "pools.md",
                "# Pools\n\nconnection pool exhaustion under load\n".into(),
            ),
            (
                "queues.md",
                "# Queues\n\nconsumer lag on the orders queue\n".into(),
            ),
        ]);
        let e = FakeEmbedder::new("fake@1");
        // No vectors: nothing to count, and nothing is said about missing ones.
        assert_eq!(v.vectors().coverage().unwrap(), None);
        assert_eq!(v.status().unwrap().missing_vectors, None);
        assert_eq!(hybrid(&v, &e, "pool").missing_vectors, None);
        let r = v.vectors().embed(&e, &NoProgress).unwrap();
        assert_eq!((r.embedded, r.chunks, r.estimate), (2, 2, None));
        assert_eq!(
            v.vectors().coverage().unwrap(),
            Some(VectorCoverage {
                chunks: 2,
                missing: 0
            })
        );
        // A note saved after the embed.
        fs::write(
            dir.path().join("dns.md"),
            "# DNS\n\nresolver timeouts on build agents\n",
        )
        .unwrap();
        v.update(&NoProgress).unwrap();
        assert_eq!(
            v.vectors().coverage().unwrap(),
            Some(VectorCoverage {
                chunks: 3,
                missing: 1
            })
        );
        assert_eq!(v.status().unwrap().missing_vectors, Some(1));
        let q = hybrid(&v, &e, "resolver timeouts");
        assert_eq!(q.missing_vectors, Some(1));
        assert!(
            q.notices
                .iter()
                .any(|n| n.starts_with("1 of 3 chunks has no vector yet")),
            "{:?}",
            q.notices
        );
        let caller = crate::Caller::named("proj").unwrap();
        let h = v.health(&caller).unwrap();
        assert_eq!(h.missing_vectors, Some(1));
        assert!(
            h.warnings.iter().any(|w| w.contains("1 of 3 chunks")),
            "{:?}",
            h.warnings
        );
        assert!(h.to_text().contains("1 chunk without one yet"));
        // The refresh (what watch and the hooks run) embeds just the new chunk.
        let r = v.vectors().refresh(&e).unwrap().expect("vectors exist");
        assert_eq!((r.embedded, r.reused), (1, 2));
        assert_eq!(e.calls().last(), Some(&1));
        assert_eq!(v.status().unwrap().missing_vectors, Some(0));
        let q = hybrid(&v, &e, "resolver timeouts");
        assert_eq!(q.missing_vectors, Some(0));
        assert!(q.notices.is_empty(), "{:?}", q.notices);
        assert!(q.used.contains(&Stage::Vec));
        let h = v.health(&caller).unwrap();
        assert_eq!(h.missing_vectors, Some(0));
        assert!(!h.warnings.iter().any(|w| w.contains("no vector")));
    }

    #[test]
    fn refresh_never_starts_a_store_nor_replaces_another_models() {
        let (_dir, v) = vault_with(&[("a.md", "# A\n\nsome text\n".into())]);
        let a = FakeEmbedder::new("fake@a");
        assert!(v.vectors().refresh(&a).unwrap().is_none());
        assert!(v.vectors().status().is_none(), "no store may appear");
        assert!(a.calls().is_empty());
        v.vectors().embed(&a, &NoProgress).unwrap();
        let b = FakeEmbedder::new("fake@b");
        assert!(v.vectors().refresh(&b).unwrap().is_none());
        assert!(b.calls().is_empty());
        let vs = v.vectors().status().unwrap();
        assert_eq!((vs.model_id.as_str(), vs.count), ("fake@a", 1));
    }

    /// Records what [`Vectors::embed`](crate::Vectors::embed) reports, in order.
    #[derive(Default)]
    struct Recorder {
        log: Mutex<Vec<String>>,
        estimates: Mutex<Vec<(u64, EmbedEstimate)>>,
        advanced: std::sync::atomic::AtomicU64,
    }

    impl Progress for Recorder {
        fn start(&self, phase: &str, total: u64) {
            self.log
                .lock()
                .unwrap()
                .push(format!("start {phase} {total}"));
        }
        fn advance(&self, n: u64) {
            self.advanced
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
        fn estimate(&self, e: &EmbedEstimate) {
            let done = self.advanced.load(std::sync::atomic::Ordering::Relaxed);
            self.estimates.lock().unwrap().push((done, *e));
            self.log.lock().unwrap().push("estimate".into());
        }
        fn finish(&self) {
            self.log.lock().unwrap().push("finish".into());
        }
    }

    #[test]
    fn a_large_embed_estimates_from_a_timed_sample_before_the_rest() {
        let n = EMBED_ESTIMATE_MIN_CHUNKS + 20;
        let notes: Vec<(String, String)> = (0..n)
            .map(|i| {
                let words = "word ".repeat(1 + i % 40);
                (
                    format!("n/{i:04}.md"),
                    format!("# Note {i}\n\n{words}{i}\n"),
                )
            })
            .collect();
        let refs: Vec<(&str, String)> =
            notes.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
        let (_dir, v) = vault_with(&refs);
        let e = FakeEmbedder::new("fake@1");
        let rec = Recorder::default();
        let r = v.vectors().embed(&e, &rec).unwrap();
        assert_eq!(r.embedded, n);
        let est = rec.estimates.lock().unwrap().clone();
        assert_eq!(est.len(), 1, "one estimate");
        let (done_then, e1) = est[0];
        // Told after the sample and before anything else was embedded.
        assert_eq!(done_then as usize, e1.sampled);
        // A warm-up call (an eighth of each stratum), then the timed rest of the sample.
        let warm = EMBED_SAMPLE_STRATA * (e1.sampled / EMBED_SAMPLE_STRATA).div_ceil(8);
        assert_eq!(e.calls()[..2], [warm, e1.sampled - warm]);
        assert!(e1.sampled >= 32 && e1.sampled <= n / 10, "{e1:?}");
        assert_eq!(e1.chunks, n);
        assert!(e1.chunks_per_s > 0.0 && e1.remaining_s > 0.0);
        let expect = (n - e1.sampled) as f64 / e1.chunks_per_s;
        assert!((e1.remaining_s - expect).abs() < 1e-9 * expect.max(1.0));
        assert_eq!(r.estimate, Some(e1));
        assert_eq!(
            *rec.log.lock().unwrap(),
            vec![
                format!("start embedding {n}"),
                "estimate".into(),
                "finish".into()
            ]
        );
        // Every chunk was embedded exactly once, sample included.
        assert_eq!(e.calls().iter().sum::<usize>(), n);
        assert_eq!(v.vectors().coverage().unwrap().unwrap().missing, 0);
        // A small run makes no estimate.
        let again = v.vectors().embed(&e, &Recorder::default()).unwrap();
        assert_eq!((again.embedded, again.estimate), (0, None));
    }

    #[test]
    fn the_estimate_sample_spans_the_lengths() {
        let todo: Vec<(u64, String)> = (0..1000u64)
            .map(|i| (i, "x".repeat(i as usize + 1)))
            .collect();
        let s = estimate_sample(&todo);
        assert!(s.len() >= 32 && s.len() <= 104, "{}", s.len());
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        // One run of neighbours in the middle of each eighth of the lengths.
        let per = s.len() / EMBED_SAMPLE_STRATA;
        assert_eq!(s.len(), per * EMBED_SAMPLE_STRATA);
        for (k, run) in s.chunks(per).enumerate() {
            assert!(run.windows(2).all(|w| w[1] == w[0] + 1), "{run:?}");
            let mid = (run[0] + run[per - 1]) / 2;
            assert!(mid.abs_diff(k * 125 + 62) <= 1, "stratum {k}: {run:?}");
        }
        // Short texts: more of them, capped at a tenth (in whole strata).
        let short: Vec<(u64, String)> = (0..600u64).map(|i| (i, "ab".into())).collect();
        assert_eq!(estimate_sample(&short).len(), 56);
        assert!(estimate_sample(&short[..499]).is_empty());
        // 100 of 1,000 chunks done; 800 of their 1,000 characters took 2 s: 400 chars/s, and
        // the other 9,000 characters take 22.5 s, 900 chunks at 40 chunks/s.
        let m = EmbedEstimate::measured(1000, 10_000, 100, 1_000, 800, 2.0);
        assert_eq!((m.chunks_per_s, m.remaining_s), (40.0, 22.5));
    }

    #[test]
    fn get_spec_parsing() {
        assert_eq!(parse_get_spec("a/b.md"), ("a/b.md", None));
        assert_eq!(parse_get_spec("a/b.md:12"), ("a/b.md", Some(12)));
        assert_eq!(parse_get_spec("a/b.md:0"), ("a/b.md", Some(1)));
        assert_eq!(parse_get_spec("a:b.md"), ("a:b.md", None));
        assert_eq!(parse_get_spec(":12"), (":12", None));
    }

    #[test]
    fn finds_vault_root_upwards() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(MANIFEST_FILE), "{}").unwrap();
        fs::create_dir_all(dir.path().join("a/b")).unwrap();
        assert_eq!(
            find_vault_root(&dir.path().join("a/b")).unwrap(),
            dir.path()
        );
        let other = tempfile::tempdir().unwrap();
        assert!(
            find_vault_root(other.path()).is_none()
                || find_vault_root(other.path()) != Some(other.path().into())
        );
    }
}
