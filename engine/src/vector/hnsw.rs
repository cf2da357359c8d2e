//! Approximate nearest neighbours with hnsw_rs, for stores above the exact-scan threshold.
//!
//! The graph is built over the rows of one store generation, dumped next to it
//! (`<basename>.hnsw.graph` / `.hnsw.data`) and reloaded with the data memory-mapped, so reopening
//! never rebuilds. Scores are dot products (the vectors are unit length).

use std::path::Path;

use hnsw_rs::hnswio::{HnswIo, ReloadOptions};
use hnsw_rs::prelude::{AnnT, DistDot, Hnsw};

use crate::error::{Error, Result};

/// Neighbours per node per layer.
const MAX_CONNECTIONS: usize = 24;
/// Candidate list size while building.
const EF_CONSTRUCTION: usize = 200;
/// hnsw_rs only dumps graphs created with its maximum layer count (16).
const MAX_LAYER: usize = 16;

fn err(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        path: dir.to_path_buf(),
        detail: format!("vector graph: {e}"),
    }
}

/// A loaded (or freshly built) graph over rows `0..rows` of a store generation.
pub(crate) struct Ann {
    hnsw: Hnsw<'static, f32, DistDot>,
}

impl std::fmt::Debug for Ann {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ann")
            .field("points", &self.hnsw.get_nb_point())
            .finish()
    }
}

impl Ann {
    /// Builds a graph over `rows` (row-major, `dim` wide) in parallel.
    pub fn build(rows: &[f32], dim: usize) -> Ann {
        let n = rows.len() / dim;
        let hnsw = Hnsw::new(
            MAX_CONNECTIONS,
            n.max(1),
            MAX_LAYER,
            EF_CONSTRUCTION,
            DistDot,
        );
        let data: Vec<(&[f32], usize)> = rows
            .chunks_exact(dim)
            .enumerate()
            .map(|(i, r)| (r, i))
            .collect();
        hnsw.parallel_insert_slice(&data);
        Ann { hnsw }
    }

    /// Writes the graph under `dir`; returns the basename actually used.
    pub fn dump(&self, dir: &Path, basename: &str) -> Result<String> {
        self.hnsw.file_dump(dir, basename).map_err(|e| err(dir, e))
    }

    /// Loads a dumped graph, its data memory-mapped.
    pub fn load(dir: &Path, basename: &str) -> Result<Ann> {
        // hnsw_rs ties a loaded graph's lifetime to its loader; the loader is small and a process
        // loads each graph generation at most once per store handle, so it is leaked on purpose.
        let io: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new_with_options(
            dir,
            basename,
            ReloadOptions::new(true),
        )));
        let hnsw = io.load_hnsw::<f32, DistDot>().map_err(|e| err(dir, e))?;
        Ok(Ann { hnsw })
    }

    /// The `k` nearest rows: (row, dot product), best first.
    pub fn search(&self, query: &[f32], k: usize, ef: usize) -> Vec<(usize, f32)> {
        let mut out: Vec<(usize, f32)> = self
            .hnsw
            .search(query, k, ef.max(k))
            .into_iter()
            .map(|n| (n.d_id, 1.0 - n.distance))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}
