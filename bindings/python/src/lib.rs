//! Python bindings for the mindex engine (module `mindex._mindex`).
//!
//! This crate starts small: the version and a `Vault` with `update`, `search` and `status`.
//! Typed results, the exception hierarchy, stubs and the wheel tests come with the bindings issue.

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn to_py(e: mindex::Error) -> PyErr {
    use mindex::ErrorCode as C;
    match e.code() {
        C::VaultNotFound | C::NoteNotFound => PyFileNotFoundError::new_err(e.to_string()),
        C::InvalidArgument | C::InvalidUtf8 => PyValueError::new_err(e.to_string()),
        C::Io => PyOSError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// A vault: a folder of markdown notes and its index.
#[pyclass(module = "mindex._mindex", name = "Vault", frozen)]
struct PyVault {
    inner: mindex::Vault,
}

#[pymethods]
impl PyVault {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let inner = mindex::Vault::open(path, mindex::VaultOptions::default()).map_err(to_py)?;
        Ok(PyVault { inner })
    }

    /// Brings the index up to date; returns the number of notes changed.
    fn update(&self, py: Python<'_>) -> PyResult<usize> {
        let r = py
            .detach(|| self.inner.update(&mindex::NoProgress))
            .map_err(to_py)?;
        Ok(r.changes.len())
    }

    /// BM25 search; returns a list of dicts (path, title, heading, line_start, line_end, score, snippet).
    #[pyo3(signature = (query, limit = 10))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &str,
        limit: usize,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let opts = mindex::SearchOptions {
            limit,
            ..Default::default()
        };
        let hits = py
            .detach(|| self.inner.search(query, &opts))
            .map_err(to_py)?;
        hits.into_iter()
            .map(|h| {
                let d = PyDict::new(py);
                d.set_item("path", h.path)?;
                d.set_item("title", h.title)?;
                d.set_item("heading", h.heading)?;
                d.set_item("line_start", h.line_start)?;
                d.set_item("line_end", h.line_end)?;
                d.set_item("line", h.line)?;
                d.set_item("score", h.score)?;
                d.set_item("snippet", h.snippet)?;
                Ok(d)
            })
            .collect()
    }
}

#[pymodule]
fn _mindex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", mindex::VERSION)?;
    m.add_class::<PyVault>()?;
    Ok(())
}
