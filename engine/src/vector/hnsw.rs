//! Approximate nearest neighbours: a hierarchical navigable small-world graph (HNSW, Malkov and
//! Yashunin) over the rows of one store generation, kept in a flat file that a reader maps into
//! memory and searches in place (opening costs nothing, whatever the graph's size), and that a
//! writer extends with appended rows instead of rebuilding.
//!
//! File `<basename>.graph`, little-endian, every section 4-byte aligned:
//! - header, 40 bytes: magic `MXHNSW\x01\0`, rows u64, upper_len u64, entry u32, top u32, m u32,
//!   m0 u32;
//! - levels: one byte per node, padded to 4;
//! - layer 0: per node a link count then `m0` slots (u32);
//! - upper offsets: per node, where its upper layers start in the upper arena (u32::MAX: none);
//! - upper arena: `upper_len` u32; a node of level L holds L blocks (layers 1..=L) of a link
//!   count then `m` slots.
//!
//! Links are bounds-checked where they are read, so a damaged file gives worse neighbours, never a
//! panic. Building and extending are one operation: rows are inserted in batches whose searches
//! run in parallel against the graph as it stood before the batch, then each new node's links are
//! written and its neighbours' links merged (in parallel per neighbour, pruned by the same
//! diversity rule). The first rows go one at a time; later batches are at most a sixteenth of the
//! graph (and 1,024 rows), so rows of one batch rarely needed each other as neighbours.
//! Searches and inserts descend the upper layers with a short candidate list ([`UPPER_EF`]), not
//! one greedy step at a time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

use super::{OrdF32, dot};
use crate::error::{Error, Result};

/// Links per node on the upper layers (and links a new node makes on every layer).
pub(crate) const M: usize = 16;
/// Links per node on layer 0.
pub(crate) const M0: usize = 2 * M;
/// Candidate list size while inserting.
pub(crate) const EF_CONSTRUCTION: usize = 100;
/// Candidate list size on the layers above the one being searched or linked. The classic greedy
/// walk (a list of one) gets stuck among clusters that are unrelated to each other: at 1M vectors
/// in 2,000 clusters it lost whole queries and built a graph that plateaued at recall 0.976; a
/// list of 32 costs ~30% more build time and reaches 0.999 (benches/README.md, "Vector search").
const UPPER_EF: usize = 32;
const MAGIC: &[u8; 8] = b"MXHNSW\x01\0";
const HEADER: usize = 40;
const NONE: u32 = u32::MAX;
const MAX_LEVEL: usize = 15;
/// Rows inserted one at a time before batches start.
const SERIAL_ROWS: usize = 2048;
const MAX_BATCH: usize = 1024;

/// Read access to a graph, memory-mapped or in memory.
#[derive(Clone, Copy)]
struct View<'a> {
    entry: u32,
    top: usize,
    m: usize,
    m0: usize,
    levels: &'a [u8],
    layer0: &'a [u32],
    upper_off: &'a [u32],
    upper: &'a [u32],
}

impl<'a> View<'a> {
    fn rows(&self) -> usize {
        self.levels.len()
    }

    /// `node`'s links on `layer` (empty when the node has no such layer).
    fn links(&self, node: u32, layer: usize) -> &'a [u32] {
        let node = node as usize;
        let (arena, start, cap) = if layer == 0 {
            (self.layer0, node * (1 + self.m0), self.m0)
        } else {
            match (self.upper_off.get(node), self.levels.get(node)) {
                (Some(&off), Some(&level)) if off != NONE && layer <= level as usize => (
                    self.upper,
                    off as usize + (layer - 1) * (1 + self.m),
                    self.m,
                ),
                _ => return &[],
            }
        };
        let Some(&n) = arena.get(start) else {
            return &[];
        };
        arena
            .get(start + 1..start + 1 + (n as usize).min(cap))
            .unwrap_or(&[])
    }
}

/// The vectors a graph indexes: row-major, `dim` wide.
#[derive(Clone, Copy)]
struct Rows<'a> {
    data: &'a [f32],
    dim: usize,
}

impl<'a> Rows<'a> {
    fn get(&self, i: u32) -> &'a [f32] {
        let s = i as usize * self.dim;
        &self.data[s..s + self.dim]
    }
}

/// Nodes seen by one search (a bit per node, reused across searches).
#[derive(Default)]
struct Visited {
    bits: Vec<u64>,
}

impl Visited {
    fn reset(&mut self, rows: usize) {
        self.bits.clear();
        self.bits.resize(rows.div_ceil(64), 0);
    }

    /// Marks `i`; false when it was already marked.
    fn insert(&mut self, i: u32) -> bool {
        let (w, b) = (i as usize / 64, 1u64 << (i % 64));
        let fresh = self.bits[w] & b == 0;
        self.bits[w] |= b;
        fresh
    }
}

/// From the entry point down to layer `lowest`: the [`UPPER_EF`] nodes of `lowest` closest to
/// `q`, best first (the entry point alone when the graph has no layer that high).
fn descend(v: View, rows: Rows, q: &[f32], lowest: usize, seen: &mut Visited) -> Vec<(f32, u32)> {
    let mut entry = vec![(dot(q, rows.get(v.entry)), v.entry)];
    for layer in (lowest..=v.top).rev() {
        entry = search_layer(v, rows, q, &entry, UPPER_EF, layer, seen);
    }
    entry
}

/// The `ef` nodes of `layer` closest to `q` reachable from `entry`, best first.
fn search_layer(
    v: View,
    rows: Rows,
    q: &[f32],
    entry: &[(f32, u32)],
    ef: usize,
    layer: usize,
    seen: &mut Visited,
) -> Vec<(f32, u32)> {
    seen.reset(v.rows());
    let mut todo: BinaryHeap<(OrdF32, u32)> = BinaryHeap::new();
    let mut best: BinaryHeap<Reverse<(OrdF32, u32)>> = BinaryHeap::with_capacity(ef + 1);
    for &(s, e) in entry {
        if seen.insert(e) {
            todo.push((OrdF32(s), e));
            best.push(Reverse((OrdF32(s), e)));
        }
    }
    while best.len() > ef {
        best.pop();
    }
    while let Some((OrdF32(s), c)) = todo.pop() {
        let worst = best.peek().map_or(f32::NEG_INFINITY, |w| w.0.0.0);
        if best.len() >= ef && s < worst {
            break;
        }
        for &n in v.links(c, layer) {
            if n as usize >= v.rows() || !seen.insert(n) {
                continue;
            }
            let sn = dot(q, rows.get(n));
            let worst = best.peek().map_or(f32::NEG_INFINITY, |w| w.0.0.0);
            if best.len() < ef || sn > worst {
                todo.push((OrdF32(sn), n));
                best.push(Reverse((OrdF32(sn), n)));
                if best.len() > ef {
                    best.pop();
                }
            }
        }
    }
    let mut out: Vec<(f32, u32)> = best.into_iter().map(|Reverse((s, n))| (s.0, n)).collect();
    out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    out
}

/// The `k` rows closest to `q` (similarity, row), best first.
fn knn(v: View, rows: Rows, q: &[f32], k: usize, ef: usize) -> Vec<(f32, u32)> {
    if v.rows() == 0 || v.entry as usize >= v.rows() {
        return Vec::new();
    }
    let mut seen = Visited::default();
    let entry = descend(v, rows, q, 1, &mut seen);
    let mut found = search_layer(v, rows, q, &entry, ef.max(k), 0, &mut seen);
    found.truncate(k);
    found
}

/// From `cands` (similarity to a node, best first), keeps up to `cap` that are each closer to the
/// node than to any link kept before them: links spread over directions instead of piling into
/// the nearest cluster, which keeps clustered data navigable.
fn select(rows: Rows, cands: &[(f32, u32)], cap: usize) -> Vec<u32> {
    let mut kept: Vec<u32> = Vec::with_capacity(cap);
    for &(s, c) in cands {
        if kept.len() >= cap {
            break;
        }
        let rc = rows.get(c);
        if kept.iter().all(|&r| dot(rc, rows.get(r)) < s) {
            kept.push(c);
        }
    }
    kept
}

/// A node's level: deterministic in its row, geometric with ratio 1/M.
fn level_of(row: usize) -> usize {
    let mut z = (row as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let u = ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    ((-u.ln() / (M as f64).ln()) as usize).min(MAX_LEVEL)
}

/// Where a new row links, found against the graph before its batch.
struct Plan {
    level: usize,
    /// Per layer from 0, up to the lower of its level and the graph's top.
    links: Vec<Vec<u32>>,
}

fn plan(v: View, rows: Rows, row: u32, seen: &mut Visited) -> Plan {
    let level = level_of(row as usize);
    if v.rows() == 0 {
        return Plan {
            level,
            links: Vec::new(),
        };
    }
    let q = rows.get(row);
    let mut entry = descend(v, rows, q, level + 1, seen);
    let reach = level.min(v.top);
    let mut links = vec![Vec::new(); reach + 1];
    for layer in (0..=reach).rev() {
        let found = search_layer(v, rows, q, &entry, EF_CONSTRUCTION, layer, seen);
        links[layer] = select(rows, &found, M);
        entry = found;
    }
    Plan { level, links }
}

/// A graph in memory, being built or extended.
pub(crate) struct Graph {
    entry: u32,
    top: usize,
    levels: Vec<u8>,
    layer0: Vec<u32>,
    upper_off: Vec<u32>,
    upper: Vec<u32>,
}

impl Graph {
    pub fn new() -> Graph {
        Graph {
            entry: 0,
            top: 0,
            levels: Vec::new(),
            layer0: Vec::new(),
            upper_off: Vec::new(),
            upper: Vec::new(),
        }
    }

    /// Number of rows in the graph.
    pub fn rows(&self) -> usize {
        self.levels.len()
    }

    fn view(&self) -> View<'_> {
        View {
            entry: self.entry,
            top: self.top,
            m: M,
            m0: M0,
            levels: &self.levels,
            layer0: &self.layer0,
            upper_off: &self.upper_off,
            upper: &self.upper,
        }
    }

    fn push_node(&mut self, level: usize) {
        self.levels.push(level as u8);
        self.layer0.resize(self.layer0.len() + 1 + M0, 0);
        if level == 0 {
            self.upper_off.push(NONE);
        } else {
            self.upper_off.push(self.upper.len() as u32);
            self.upper.resize(self.upper.len() + level * (1 + M), 0);
        }
    }

    fn set_links(&mut self, node: u32, layer: usize, links: &[u32]) {
        let node = node as usize;
        let (arena, start) = if layer == 0 {
            (&mut self.layer0, node * (1 + M0))
        } else {
            (
                &mut self.upper,
                self.upper_off[node] as usize + (layer - 1) * (1 + M),
            )
        };
        arena[start] = links.len() as u32;
        arena[start + 1..start + 1 + links.len()].copy_from_slice(links);
    }

    /// Inserts rows `self.rows()..to` of `data` (row-major, `dim` wide); `progress` is told how
    /// many rows the graph holds after each batch.
    pub fn extend(&mut self, data: &[f32], dim: usize, to: usize, progress: &dyn Fn(usize)) {
        let rows = Rows { data, dim };
        while self.rows() < to {
            let start = self.rows();
            let batch = if start < SERIAL_ROWS {
                1
            } else {
                (start / 16).min(MAX_BATCH).min(to - start)
            };
            let plans: Vec<Plan> = {
                let v = self.view();
                (start..start + batch)
                    .into_par_iter()
                    .map_init(Visited::default, |seen, r| plan(v, rows, r as u32, seen))
                    .collect()
            };
            let mut proposals: Vec<(u8, u32, u32)> = Vec::new();
            for (i, p) in plans.into_iter().enumerate() {
                let id = (start + i) as u32;
                self.push_node(p.level);
                for (layer, links) in p.links.iter().enumerate() {
                    self.set_links(id, layer, links);
                    proposals.extend(links.iter().map(|&n| (layer as u8, n, id)));
                }
                if id == 0 || p.level > self.top {
                    self.entry = id;
                    self.top = p.level;
                }
            }
            proposals.sort_unstable();
            let merged: Vec<(usize, u32, Vec<u32>)> = {
                let v = self.view();
                let groups: Vec<&[(u8, u32, u32)]> = proposals
                    .chunk_by(|a, b| a.0 == b.0 && a.1 == b.1)
                    .collect();
                groups
                    .par_iter()
                    .map(|g| {
                        let (layer, node) = (g[0].0 as usize, g[0].1);
                        let cap = if layer == 0 { M0 } else { M };
                        let mut ids = v.links(node, layer).to_vec();
                        ids.extend(g.iter().map(|p| p.2));
                        if ids.len() > cap {
                            let base = rows.get(node);
                            let mut cands: Vec<(f32, u32)> =
                                ids.iter().map(|&i| (dot(base, rows.get(i)), i)).collect();
                            cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                            ids = select(rows, &cands, cap);
                        }
                        (layer, node, ids)
                    })
                    .collect()
            };
            for (layer, node, ids) in merged {
                self.set_links(node, layer, &ids);
            }
            progress(self.rows());
        }
    }

    /// The `k` rows closest to `q` (similarity, row), best first.
    #[cfg(test)]
    fn search(&self, data: &[f32], dim: usize, q: &[f32], k: usize, ef: usize) -> Vec<(f32, u32)> {
        knn(self.view(), Rows { data, dim }, q, k, ef)
    }

    /// Writes the graph to `path` (through a temporary file, synced, then renamed into place).
    pub fn write(&self, path: &Path) -> Result<()> {
        let tmp = path.with_extension("graph.tmp");
        let io = |e| Error::io(&tmp, e);
        let mut f = BufWriter::with_capacity(1 << 20, File::create(&tmp).map_err(io)?);
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&(self.rows() as u64).to_le_bytes());
        header.extend_from_slice(&(self.upper.len() as u64).to_le_bytes());
        for x in [self.entry, self.top as u32, M as u32, M0 as u32] {
            header.extend_from_slice(&x.to_le_bytes());
        }
        f.write_all(&header).map_err(io)?;
        f.write_all(&self.levels).map_err(io)?;
        f.write_all(&[0u8; 3][..self.levels.len().next_multiple_of(4) - self.levels.len()])
            .map_err(io)?;
        for part in [&self.layer0, &self.upper_off, &self.upper] {
            for x in part.iter() {
                f.write_all(&x.to_le_bytes()).map_err(io)?;
            }
        }
        let f = f.into_inner().map_err(|e| io(e.into_error()))?;
        f.sync_all().map_err(io)?;
        drop(f);
        fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }
}

/// A graph file, memory-mapped.
pub(crate) struct Ann {
    map: Mmap,
    entry: u32,
    top: usize,
    m: usize,
    m0: usize,
    rows: usize,
    upper_len: usize,
}

impl std::fmt::Debug for Ann {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ann").field("rows", &self.rows).finish()
    }
}

impl Ann {
    /// Maps the graph file at `path`, checking its header and size.
    pub fn load(path: &Path) -> Result<Ann> {
        let bad = |d: &str| Error::Corrupt {
            path: path.to_path_buf(),
            detail: format!("vector graph: {d}"),
        };
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: graph files are written under a temporary name and renamed into place, never
        // modified afterwards; a new graph is a new file.
        let map = unsafe { Mmap::map(&f) }.map_err(|e| Error::io(path, e))?;
        if map.len() < HEADER || &map[..8] != MAGIC {
            return Err(bad("not a graph file"));
        }
        let u64_at = |o: usize| u64::from_le_bytes(map[o..o + 8].try_into().expect("8 bytes"));
        let u32_at = |o: usize| u32::from_le_bytes(map[o..o + 4].try_into().expect("4 bytes"));
        let (rows, upper_len) = (u64_at(8) as usize, u64_at(16) as usize);
        let (entry, top, m, m0) = (
            u32_at(24),
            u32_at(28) as usize,
            u32_at(32) as usize,
            u32_at(36) as usize,
        );
        let expected = rows
            .checked_mul(2 + m0)
            .and_then(|x| x.checked_add(upper_len))
            .and_then(|x| x.checked_mul(4))
            .and_then(|x| x.checked_add(HEADER + rows.next_multiple_of(4)));
        if expected != Some(map.len()) || top > MAX_LEVEL || m == 0 || m0 == 0 {
            return Err(bad("size does not match its header"));
        }
        if cfg!(target_endian = "big") {
            return Err(bad("graph files are little-endian"));
        }
        Ok(Ann {
            map,
            entry,
            top,
            m,
            m0,
            rows,
            upper_len,
        })
    }

    /// Number of rows the graph covers.
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn view(&self) -> View<'_> {
        let words = |from: usize, len: usize| -> &[u32] {
            let bytes = &self.map[from..from + len * 4];
            // SAFETY: the map is page-aligned and every section starts at a multiple of 4 (checked
            // by `load`'s size arithmetic), so `bytes` is 4-aligned and holds `len` whole u32s,
            // and every bit pattern is a valid u32. The file is little-endian (checked by `load`).
            unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u32>(), len) }
        };
        let l0 = HEADER + self.rows.next_multiple_of(4);
        let off = l0 + self.rows * (1 + self.m0) * 4;
        let up = off + self.rows * 4;
        View {
            entry: self.entry,
            top: self.top,
            m: self.m,
            m0: self.m0,
            levels: &self.map[HEADER..HEADER + self.rows],
            layer0: words(l0, self.rows * (1 + self.m0)),
            upper_off: words(off, self.rows),
            upper: words(up, self.upper_len),
        }
    }

    /// The `k` rows of `data` (row-major, `dim` wide) closest to `q`: (row, similarity), best
    /// first, with a candidate list of `ef`.
    pub fn search(
        &self,
        data: &[f32],
        dim: usize,
        q: &[f32],
        k: usize,
        ef: usize,
    ) -> Vec<(usize, f32)> {
        knn(self.view(), Rows { data, dim }, q, k, ef)
            .into_iter()
            .map(|(s, r)| (r as usize, s))
            .collect()
    }

    /// The graph in memory, to extend; `None` when it was written with other link counts.
    pub fn to_graph(&self) -> Option<Graph> {
        let v = self.view();
        if v.m != M || v.m0 != M0 {
            return None;
        }
        Some(Graph {
            entry: v.entry,
            top: v.top,
            levels: v.levels.to_vec(),
            layer0: v.layer0.to_vec(),
            upper_off: v.upper_off.to_vec(),
            upper: v.upper.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit vectors around `clusters` centres, like sentence embeddings.
    fn clustered(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let centres: Vec<Vec<f32>> = (0..clusters)
            .map(|_| (0..dim).map(|_| rnd()).collect())
            .collect();
        let mut out = Vec::with_capacity(n * dim);
        for i in 0..n {
            let v: Vec<f32> = centres[i % clusters]
                .iter()
                .map(|c| c + 0.25 * rnd())
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            out.extend(v.iter().map(|x| x / norm));
        }
        out
    }

    fn exact(data: &[f32], dim: usize, q: &[f32], k: usize) -> Vec<u32> {
        let mut all: Vec<(f32, u32)> = data
            .chunks_exact(dim)
            .enumerate()
            .map(|(i, r)| (dot(q, r), i as u32))
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|t| t.1).collect()
    }

    fn recall(found: &[Vec<u32>], truth: &[Vec<u32>]) -> f64 {
        let hits: usize = found
            .iter()
            .zip(truth)
            .map(|(f, t)| f.iter().filter(|x| t.contains(x)).count())
            .sum();
        hits as f64 / truth.iter().map(Vec::len).sum::<usize>() as f64
    }

    #[test]
    fn built_extended_and_mapped_graphs_find_true_neighbours() {
        let dim = 24;
        let all = clustered(8100, dim, 40, 11);
        let (data, queries) = all.split_at(8000 * dim);
        let truth: Vec<Vec<u32>> = queries
            .chunks_exact(dim)
            .map(|q| exact(data, dim, q, 10))
            .collect();
        // Built in two steps: the second extends the first (batched, past the serial rows).
        let mut g = Graph::new();
        g.extend(data, dim, 5000, &|_| {});
        assert_eq!(g.rows(), 5000);
        g.extend(data, dim, 8000, &|_| {});
        let found: Vec<Vec<u32>> = queries
            .chunks_exact(dim)
            .map(|q| g.search(data, dim, q, 10, 64).iter().map(|t| t.1).collect())
            .collect();
        let r = recall(&found, &truth);
        assert!(r >= 0.95, "recall@10 {r}");
        // Written, mapped: the same answers.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.graph");
        g.write(&path).unwrap();
        let ann = Ann::load(&path).unwrap();
        assert_eq!(ann.rows(), 8000);
        for q in queries.chunks_exact(dim) {
            let a: Vec<u32> = ann
                .search(data, dim, q, 10, 64)
                .iter()
                .map(|t| t.0 as u32)
                .collect();
            let b: Vec<u32> = g.search(data, dim, q, 10, 64).iter().map(|t| t.1).collect();
            assert_eq!(a, b);
        }
        // Loaded back into memory, it is the same graph.
        let back = ann.to_graph().unwrap();
        assert_eq!(back.layer0, g.layer0);
        assert_eq!(back.upper, g.upper);
    }

    #[test]
    fn every_row_is_reachable_from_the_entry() {
        let dim = 16;
        let data = clustered(4000, dim, 25, 5);
        let mut g = Graph::new();
        g.extend(&data, dim, 4000, &|_| {});
        let v = g.view();
        let mut seen = vec![false; g.rows()];
        let mut stack = vec![v.entry];
        seen[v.entry as usize] = true;
        while let Some(n) = stack.pop() {
            for &m in v.links(n, 0) {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    stack.push(m);
                }
            }
        }
        assert_eq!(seen.iter().filter(|s| **s).count(), g.rows());
    }

    #[test]
    fn damaged_files_are_refused_or_harmless() {
        let dim = 8;
        let data = clustered(300, dim, 5, 3);
        let mut g = Graph::new();
        g.extend(&data, dim, 300, &|_| {});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.graph");
        g.write(&path).unwrap();
        let bytes = fs::read(&path).unwrap();
        // Truncated: refused, naming the file.
        fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
        let e = Ann::load(&path).unwrap_err();
        assert!(e.to_string().contains("g.graph"), "{e}");
        // Links pointing past the rows and counts past the slots: searched without a panic.
        let mut bad = bytes.clone();
        let l0 = HEADER + 300usize.next_multiple_of(4);
        for i in (l0..bad.len()).step_by(4) {
            bad[i..i + 4].copy_from_slice(&(i as u32 * 7919).to_le_bytes());
        }
        fs::write(&path, &bad).unwrap();
        let ann = Ann::load(&path).unwrap();
        let top = ann.search(&data, dim, &data[..dim], 5, 16);
        assert!(top.iter().all(|t| t.0 < 300));
    }
}
