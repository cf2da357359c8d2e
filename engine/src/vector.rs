//! The vector store: one unit-length f32 vector per distinct chunk text, keyed by the chunk's
//! content key (xxh3-64 of the text that was embedded) and tagged with the model id.
//!
//! Layout under `<index>/vectors/`:
//! - `meta.json`: `{model_id, dim, generation, count}`, replaced atomically; it is the commit point.
//! - `g<generation>.keys`: `count` little-endian u64 keys; `g<generation>.f32`: `count × dim` f32.
//!
//! Appends write past `count` and then publish the new `meta.json`, so a reader (which reads only
//! `count` rows) never sees a half-written vector, and a crash leaves only ignored bytes that the
//! next append truncates. Compaction (dropping vectors of chunks no longer in the index) writes a
//! new generation and switches `meta.json` to it. A different model id starts a new, empty store.
//! Search is an exact scan over the memory-mapped matrix (rayon-parallel when large).

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::simd::multiversion;

mod hnsw;
use hnsw::{Ann, Graph};

/// Default candidate list size of a graph search.
pub const DEFAULT_EF_SEARCH: usize = 32;

/// Links per node of the graph's upper layers (twice as many on its base layer).
pub const GRAPH_M: usize = hnsw::M;
/// Candidate list size while inserting into the graph.
pub const GRAPH_EF_CONSTRUCTION: usize = hnsw::EF_CONSTRUCTION;

/// Rows appended after the graph was written that the exact scan covers before the graph is
/// extended with them (scanning 1,024 rows of 384 floats takes about 0.1 ms).
pub const GRAPH_TAIL: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Meta {
    model_id: String,
    dim: usize,
    generation: u64,
    count: usize,
    /// The approximate-neighbour graph over the first `rows` rows, when the store is large.
    #[serde(default)]
    hnsw: Option<HnswMeta>,
}

impl Meta {
    /// Names a published state (model, generation, rows): changes with every append and
    /// compaction.
    fn state_id(&self) -> String {
        format!("{}/{}/{}", self.model_id, self.generation, self.count)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct HnswMeta {
    /// The graph's file name in the store's directory.
    basename: String,
    rows: usize,
}

/// A read view of the vector store (see the module docs for the layout).
pub struct VectorStore {
    dir: PathBuf,
    meta: Meta,
    keys: Vec<u64>,
    data: Option<Mmap>,
    ann: Option<Ann>,
}

impl std::fmt::Debug for VectorStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorStore")
            .field("dir", &self.dir)
            .field("meta", &self.meta)
            .finish_non_exhaustive()
    }
}

fn corrupt(path: &Path, detail: impl Into<String>) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

impl VectorStore {
    fn files(dir: &Path, generation: u64) -> (PathBuf, PathBuf) {
        (
            dir.join(format!("g{generation}.keys")),
            dir.join(format!("g{generation}.f32")),
        )
    }

    /// Opens the store for `model_id`; `Ok(None)` when there is no store for that model.
    pub fn open(dir: &Path, model_id: &str) -> Result<Option<Self>> {
        let meta_path = dir.join("meta.json");
        let meta: Meta = match fs::read(&meta_path) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| corrupt(&meta_path, e.to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&meta_path, e)),
        };
        if meta.model_id != model_id {
            return Ok(None);
        }
        Self::open_with(dir, meta)
    }

    fn open_with(dir: &Path, meta: Meta) -> Result<Option<Self>> {
        let (kp, dp) = Self::files(dir, meta.generation);
        let kbytes = fs::read(&kp).map_err(|e| Error::io(&kp, e))?;
        if kbytes.len() < meta.count * 8 {
            return Err(corrupt(
                &kp,
                format!(
                    "{} keys expected, file holds {}",
                    meta.count,
                    kbytes.len() / 8
                ),
            ));
        }
        let keys: Vec<u64> = kbytes[..meta.count * 8]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let data = if meta.count == 0 {
            None
        } else {
            let f = File::open(&dp).map_err(|e| Error::io(&dp, e))?;
            // SAFETY: the file is only ever appended to past `count` rows or replaced by a new
            // generation (a new file); rows below `count` are never rewritten while mapped.
            let m = unsafe { Mmap::map(&f) }.map_err(|e| Error::io(&dp, e))?;
            if m.len() < meta.count * meta.dim * 4 {
                return Err(corrupt(&dp, "vector data shorter than meta.json says"));
            }
            Some(m)
        };
        // The graph is a cache over the rows: one that is missing, damaged or from an older
        // format is searched around (exact scan) and rebuilt by the next `ensure_index`.
        let ann = match &meta.hnsw {
            Some(h) if h.rows <= meta.count => Ann::load(&dir.join(&h.basename))
                .ok()
                .filter(|a| a.rows() == h.rows),
            _ => None,
        };
        Ok(Some(VectorStore {
            dir: dir.to_path_buf(),
            meta,
            keys,
            data,
            ann,
        }))
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.meta.count
    }

    /// Whether the store holds no vector.
    pub fn is_empty(&self) -> bool {
        self.meta.count == 0
    }

    /// The keys stored.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Names the store's published state: see [`Meta::state_id`].
    pub(crate) fn state_id(&self) -> String {
        self.meta.state_id()
    }

    fn rows(&self) -> &[f32] {
        match &self.data {
            None => &[],
            Some(m) => {
                let bytes = &m[..self.meta.count * self.meta.dim * 4];
                // SAFETY: mmap memory is page-aligned (so 4-aligned) and `bytes` holds whole f32s;
                // every bit pattern is a valid f32.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), bytes.len() / 4) }
            }
        }
    }

    /// Whether searches go through the approximate-neighbour graph.
    pub fn is_approximate(&self) -> bool {
        self.ann.is_some()
    }

    /// The `k` keys closest to `query` by dot product (cosine for unit vectors), best first:
    /// through the graph when the store has one (rows appended after it was built are scanned
    /// exactly), else by an exact scan.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(u64, f32)> {
        self.search_with_ef(query, k, DEFAULT_EF_SEARCH)
    }

    /// [`VectorStore::search`] with the graph's candidate list size `ef` (at least `k`): larger
    /// is slower and closer to exact. Ignored by the exact scan.
    pub fn search_with_ef(&self, query: &[f32], k: usize, ef: usize) -> Vec<(u64, f32)> {
        let dim = self.meta.dim;
        if query.len() != dim || k == 0 || self.meta.count == 0 {
            return Vec::new();
        }
        match &self.ann {
            Some(ann) => {
                let mut all: Vec<(f32, usize)> = ann
                    .search(self.rows(), dim, query, k, ef.max(k))
                    .into_iter()
                    .map(|(r, s)| (s, r))
                    .collect();
                all.extend(self.scan(query, k, ann.rows()));
                all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                all.truncate(k);
                all.into_iter().map(|(s, i)| (self.keys[i], s)).collect()
            }
            None => self
                .scan(query, k, 0)
                .into_iter()
                .map(|(s, i)| (self.keys[i], s))
                .collect(),
        }
    }

    /// The `k` keys closest to `query` by an exact scan of every vector, best first.
    pub fn search_exact(&self, query: &[f32], k: usize) -> Vec<(u64, f32)> {
        if query.len() != self.meta.dim || k == 0 {
            return Vec::new();
        }
        self.scan(query, k, 0)
            .into_iter()
            .map(|(s, i)| (self.keys[i], s))
            .collect()
    }

    fn scan(&self, query: &[f32], k: usize, from: usize) -> Vec<(f32, usize)> {
        let dim = self.meta.dim;
        if from >= self.meta.count {
            return Vec::new();
        }
        let rows = &self.rows()[from * dim..];
        let score_block = |start: usize, block: &[f32]| -> Vec<(f32, usize)> {
            let mut top = TopK::new(k);
            for (i, row) in block.chunks_exact(dim).enumerate() {
                top.push(dot(row, query), start + i);
            }
            top.into_vec()
        };
        const BLOCK: usize = 4096;
        let mut all: Vec<(f32, usize)> = if self.meta.count - from > 2 * BLOCK {
            rows.par_chunks(BLOCK * dim)
                .enumerate()
                .flat_map_iter(|(b, block)| score_block(from + b * BLOCK, block))
                .collect()
        } else {
            score_block(from, rows)
        };
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(k);
        all
    }
}

multiversion! {
    /// Dot product, written so the compiler vectorises it (16 independent accumulators: two
    /// 8-lane registers under AVX2).
    #[inline]
    fn dot(a: &[f32], b: &[f32]) -> f32 {
        let mut acc = [0f32; 16];
        let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
        let (ra, rb) = (ca.remainder(), cb.remainder());
        for (x, y) in ca.zip(cb) {
            for j in 0..16 {
                acc[j] += x[j] * y[j];
            }
        }
        let mut s: f32 = acc.iter().sum();
        for (x, y) in ra.iter().zip(rb) {
            s += x * y;
        }
        s
    }
}

/// Keeps the `k` best (score, row) pairs.
struct TopK {
    k: usize,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(OrdF32, usize)>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdF32(f32);
impl Eq for OrdF32 {}
impl PartialOrd for OrdF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl TopK {
    fn new(k: usize) -> Self {
        TopK {
            k,
            heap: std::collections::BinaryHeap::with_capacity(k + 1),
        }
    }
    #[inline]
    fn push(&mut self, score: f32, row: usize) {
        if self.heap.len() < self.k {
            self.heap.push(std::cmp::Reverse((OrdF32(score), row)));
        } else if let Some(min) = self.heap.peek()
            && score > min.0.0.0
        {
            self.heap.pop();
            self.heap.push(std::cmp::Reverse((OrdF32(score), row)));
        }
    }
    fn into_vec(self) -> Vec<(f32, usize)> {
        self.heap.into_iter().map(|r| (r.0.0.0, r.0.1)).collect()
    }
}

/// Writes to the store; holds `vectors/.lock` so only one writer (in any process) runs at once.
#[derive(Debug)]
pub struct VectorWriter {
    dir: PathBuf,
    meta: Meta,
    _lock: File,
}

impl VectorWriter {
    /// Names the state this writer last published: see [`Meta::state_id`].
    pub(crate) fn state_id(&self) -> String {
        self.meta.state_id()
    }

    /// Opens (or starts) the store for `model_id` with vectors of `dim`.
    pub fn open(dir: &Path, model_id: &str, dim: usize) -> Result<Self> {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let lock_path = dir.join(".lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Error::io(&lock_path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(Error::Busy {
                    path: dir.to_path_buf(),
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::io(&lock_path, e)),
        }
        let meta_path = dir.join("meta.json");
        let existing: Option<Meta> = fs::read(&meta_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let meta = match existing {
            Some(m) if m.model_id == model_id && m.dim == dim => m,
            other => {
                // A new model (or no store yet): start an empty generation after the last one.
                let generation = other.map_or(0, |m| m.generation + 1);
                let meta = Meta {
                    model_id: model_id.to_string(),
                    dim,
                    generation,
                    count: 0,
                    hnsw: None,
                };
                let (kp, dp) = VectorStore::files(dir, generation);
                for p in [&kp, &dp] {
                    File::create(p).map_err(|e| Error::io(p, e))?;
                }
                let w = VectorWriter {
                    dir: dir.to_path_buf(),
                    meta,
                    _lock: lock,
                };
                w.publish()?;
                w.remove_other_generations();
                return Ok(w);
            }
        };
        Ok(VectorWriter {
            dir: dir.to_path_buf(),
            meta,
            _lock: lock,
        })
    }

    fn publish(&self) -> Result<()> {
        let bytes =
            serde_json::to_vec(&self.meta).map_err(|e| Error::invalid("meta", e.to_string()))?;
        crate::atomic::write_replace(&self.dir.join("meta.json"), &bytes)
    }

    /// Removes files of other generations and of graphs not in use.
    fn remove_other_generations(&self) {
        let keep = (
            format!("g{}.keys", self.meta.generation),
            format!("g{}.f32", self.meta.generation),
        );
        let graph = self.meta.hnsw.as_ref().map(|h| h.basename.as_str());
        if let Ok(entries) = fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let old_rows = name.starts_with('g')
                    && (name.ends_with(".keys") || name.ends_with(".f32"))
                    && name != keep.0
                    && name != keep.1;
                let old_graph = name.starts_with("hnsw-") && graph != Some(name.as_str());
                if old_rows || old_graph {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
    }

    /// Keeps the approximate-neighbour graph in step with the store: none below `threshold`
    /// vectors; at or above it, a graph built once and then extended with the rows appended since
    /// (once more than [`GRAPH_TAIL`] of them wait; until then the exact scan covers them).
    /// `progress` is told (rows inserted, rows to insert) after each batch. Returns whether a
    /// graph was written.
    pub fn ensure_index(
        &mut self,
        threshold: usize,
        progress: &dyn Fn(usize, usize),
    ) -> Result<bool> {
        let count = self.meta.count;
        if count < threshold {
            if self.meta.hnsw.take().is_some() {
                self.publish()?;
                self.remove_other_generations();
            }
            return Ok(false);
        }
        self.grow_graph(GRAPH_TAIL, progress)
    }

    /// Builds the approximate-neighbour graph, or extends it with every row appended since it
    /// was written, whatever the store's size. Returns whether a graph was written.
    pub fn extend_index(&mut self, progress: &dyn Fn(usize, usize)) -> Result<bool> {
        self.grow_graph(0, progress)
    }

    /// Brings the graph up to every row unless at most `tail` rows wait.
    fn grow_graph(&mut self, tail: usize, progress: &dyn Fn(usize, usize)) -> Result<bool> {
        let count = self.meta.count;
        let Some(store) = VectorStore::open(&self.dir, &self.meta.model_id)? else {
            return Ok(false);
        };
        let mut graph = match &store.ann {
            Some(ann) if count - ann.rows() <= tail => return Ok(false),
            Some(ann) => ann.to_graph().unwrap_or_else(Graph::new),
            None => Graph::new(),
        };
        let from = graph.rows();
        graph.extend(store.rows(), self.meta.dim, count, &|done| {
            progress(done - from, count - from)
        });
        let basename = format!("hnsw-g{}-{count}.graph", self.meta.generation);
        graph.write(&self.dir.join(&basename))?;
        drop(store);
        self.meta.hnsw = Some(HnswMeta {
            basename,
            rows: count,
        });
        self.publish()?;
        self.remove_other_generations();
        Ok(true)
    }

    /// Appends vectors and publishes them.
    pub fn append(&mut self, keys: &[u64], vectors: &[Vec<f32>]) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let dim = self.meta.dim;
        if let Some(v) = vectors.iter().find(|v| v.len() != dim) {
            return Err(Error::invalid(
                "vectors",
                format!("dimension {} where the store holds {dim}", v.len()),
            ));
        }
        let (kp, dp) = VectorStore::files(&self.dir, self.meta.generation);
        let count = self.meta.count;
        let mut kb = Vec::with_capacity(keys.len() * 8);
        for k in keys {
            kb.extend_from_slice(&k.to_le_bytes());
        }
        let mut db = Vec::with_capacity(vectors.len() * dim * 4);
        for v in vectors {
            for x in v {
                db.extend_from_slice(&x.to_le_bytes());
            }
        }
        for (path, offset, bytes) in [(&kp, count * 8, &kb), (&dp, count * dim * 4, &db)] {
            let mut f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| Error::io(path, e))?;
            // Drop anything past the published rows (left by an interrupted append).
            f.set_len(offset as u64).map_err(|e| Error::io(path, e))?;
            f.seek(SeekFrom::Start(offset as u64))
                .map_err(|e| Error::io(path, e))?;
            f.write_all(bytes).map_err(|e| Error::io(path, e))?;
            f.sync_data().map_err(|e| Error::io(path, e))?;
        }
        self.meta.count += keys.len();
        self.publish()
    }

    /// Rewrites the store keeping only vectors whose key is in `live`. Returns how many were dropped.
    pub fn compact(&mut self, live: &HashSet<u64>) -> Result<usize> {
        let Some(store) = VectorStore::open(&self.dir, &self.meta.model_id)? else {
            return Ok(0);
        };
        let dim = self.meta.dim;
        let rows = store.rows();
        let keep: Vec<usize> = (0..store.len())
            .filter(|&i| live.contains(&store.keys[i]))
            .collect();
        let dropped = store.len() - keep.len();
        if dropped == 0 {
            return Ok(0);
        }
        let next = Meta {
            generation: self.meta.generation + 1,
            count: keep.len(),
            hnsw: None,
            ..self.meta.clone()
        };
        let (kp, dp) = VectorStore::files(&self.dir, next.generation);
        let mut kb = Vec::with_capacity(keep.len() * 8);
        let mut db = Vec::with_capacity(keep.len() * dim * 4);
        for &i in &keep {
            kb.extend_from_slice(&store.keys[i].to_le_bytes());
            for x in &rows[i * dim..(i + 1) * dim] {
                db.extend_from_slice(&x.to_le_bytes());
            }
        }
        for (p, b) in [(&kp, &kb), (&dp, &db)] {
            let mut f = File::create(p).map_err(|e| Error::io(p, e))?;
            f.write_all(b).map_err(|e| Error::io(p, e))?;
            f.sync_all().map_err(|e| Error::io(p, e))?;
        }
        drop(store);
        self.meta = next;
        self.publish()?;
        self.remove_other_generations();
        Ok(dropped)
    }

    /// Number of published vectors.
    pub fn len(&self) -> usize {
        self.meta.count
    }

    /// Whether no vector is published.
    pub fn is_empty(&self) -> bool {
        self.meta.count == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn append_search_reopen_compact() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("vectors");
        let mut w = VectorWriter::open(&d, "m1", 3).unwrap();
        w.append(
            &[1, 2, 3],
            &[
                unit(&[1.0, 0.0, 0.0]),
                unit(&[0.0, 1.0, 0.0]),
                unit(&[1.0, 1.0, 0.0]),
            ],
        )
        .unwrap();
        let s = VectorStore::open(&d, "m1").unwrap().unwrap();
        let top = s.search(&unit(&[1.0, 0.1, 0.0]), 2);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), vec![1, 3]);
        // Another model sees nothing.
        assert!(VectorStore::open(&d, "m2").unwrap().is_none());
        // A second writer is refused while the first holds the lock.
        assert_eq!(
            VectorWriter::open(&d, "m1", 3).unwrap_err().code(),
            crate::ErrorCode::Busy
        );
        // Compaction keeps only live keys.
        let dropped = w.compact(&[2u64, 3].into_iter().collect()).unwrap();
        assert_eq!(dropped, 1);
        drop(w);
        let s = VectorStore::open(&d, "m1").unwrap().unwrap();
        assert_eq!(s.keys(), &[2, 3]);
        assert_eq!(s.search(&unit(&[1.0, 0.0, 0.0]), 1)[0].0, 3);
        // Only the live generation's files remain.
        let names: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.starts_with("g0.")), "{names:?}");
    }

    #[test]
    fn hnsw_above_threshold_persists_and_covers_appended_rows() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("vectors");
        let mut w = VectorWriter::open(&d, "m", 32).unwrap();
        // Clustered data, like real embeddings.
        let mut seed = 7u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let centres: Vec<Vec<f32>> = (0..20).map(|_| (0..32).map(|_| rnd()).collect()).collect();
        let mut make = |n: usize| -> Vec<Vec<f32>> {
            (0..n)
                .map(|i| {
                    unit(
                        &centres[i % 20]
                            .iter()
                            .map(|c| c + 0.3 * rnd())
                            .collect::<Vec<_>>(),
                    )
                })
                .collect()
        };
        let first = make(3000);
        w.append(&(0..3000).collect::<Vec<u64>>(), &first).unwrap();
        assert!(w.ensure_index(1000, &|_, _| {}).unwrap());
        assert!(
            !w.ensure_index(1000, &|_, _| {}).unwrap(),
            "a fresh graph is not rebuilt"
        );
        // Appended after the build: found by the exact tail scan.
        let extra = make(50);
        w.append(&(10_000..10_050).collect::<Vec<u64>>(), &extra)
            .unwrap();
        drop(w);
        let s = VectorStore::open(&d, "m").unwrap().unwrap();
        assert!(s.is_approximate());
        let mut hits = 0;
        let mut total = 0;
        for q in first.iter().step_by(100).chain(extra.iter().step_by(10)) {
            let exact: HashSet<u64> = s.search_exact(q, 10).into_iter().map(|t| t.0).collect();
            let approx: Vec<(u64, f32)> = s.search(q, 10);
            assert_eq!(approx.len(), 10);
            hits += approx.iter().filter(|t| exact.contains(&t.0)).count();
            total += 10;
        }
        let recall = hits as f64 / total as f64;
        assert!(recall >= 0.9, "recall@10 {recall}");
        // A query equal to an appended vector finds it first.
        assert_eq!(s.search(&extra[3], 1)[0].0, 10_003);
    }

    #[test]
    fn interrupted_append_is_ignored_and_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("vectors");
        let mut w = VectorWriter::open(&d, "m", 2).unwrap();
        w.append(&[7], &[unit(&[1.0, 1.0])]).unwrap();
        // Garbage past the published rows, as a crash mid-append would leave.
        let mut f = OpenOptions::new()
            .append(true)
            .open(d.join("g0.f32"))
            .unwrap();
        f.write_all(&[1, 2, 3, 4, 5]).unwrap();
        let s = VectorStore::open(&d, "m").unwrap().unwrap();
        assert_eq!(s.len(), 1);
        w.append(&[8], &[unit(&[1.0, 0.0])]).unwrap();
        let s = VectorStore::open(&d, "m").unwrap().unwrap();
        assert_eq!(s.keys(), &[7, 8]);
        assert_eq!(s.search(&unit(&[1.0, 0.0]), 1)[0].0, 8);
    }

    #[test]
    fn new_model_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("vectors");
        let mut w = VectorWriter::open(&d, "a", 2).unwrap();
        w.append(&[1], &[vec![1.0, 0.0]]).unwrap();
        drop(w);
        let w = VectorWriter::open(&d, "b", 2).unwrap();
        assert_eq!(w.len(), 0);
        drop(w);
        assert!(VectorStore::open(&d, "a").unwrap().is_none());
    }

    #[test]
    fn large_scan_matches_naive() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("vectors");
        let mut w = VectorWriter::open(&d, "m", 16).unwrap();
        let mut seed = 1u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let n = 10_000;
        let vecs: Vec<Vec<f32>> = (0..n)
            .map(|_| unit(&(0..16).map(|_| rnd()).collect::<Vec<_>>()))
            .collect();
        let keys: Vec<u64> = (0..n as u64).collect();
        w.append(&keys, &vecs).unwrap();
        let q = unit(&(0..16).map(|_| rnd()).collect::<Vec<_>>());
        let s = VectorStore::open(&d, "m").unwrap().unwrap();
        let got: Vec<u64> = s.search(&q, 10).into_iter().map(|t| t.0).collect();
        let mut naive: Vec<(f32, u64)> = vecs
            .iter()
            .zip(&keys)
            .map(|(v, k)| (dot(v, &q), *k))
            .collect();
        naive.sort_by(|a, b| b.0.total_cmp(&a.0));
        assert_eq!(got, naive.iter().take(10).map(|t| t.1).collect::<Vec<_>>());
    }
}
