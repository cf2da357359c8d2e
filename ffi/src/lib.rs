//! C ABI for the mindex engine (`libmindex`, header `ffi/include/mindex.h`).
//!
//! Conventions:
//! - Handles are opaque (`mindex_vault`, `mindex_embedder`, `mindex_results`, `mindex_string`,
//!   `mindex_error`); each has a `_free` function, which accepts NULL.
//! - Fallible functions return a `mindex_error*`: NULL on success, else an error the caller frees
//!   with `mindex_error_free`. Results are written through an out-parameter, which is set to NULL
//!   first, so it is NULL whenever an error is returned.
//! - Strings in are `(const uint8_t *ptr, size_t len)`, need not be NUL-terminated, and must be
//!   UTF-8 (`MINDEX_CODE_INVALID_UTF8` otherwise). Optional strings may be NULL.
//! - Structured results (reports, notes, memories) are JSON documents in a `mindex_string`, with
//!   the same fields as the Rust types and the CLI's `--json` output.
//! - Every body runs behind a panic boundary: a panic becomes `MINDEX_CODE_PANIC`, never an
//!   abort of the host. NULL handles and out-pointers give `MINDEX_CODE_NULL_ARG`.

#![expect(non_camel_case_types, reason = "C naming")]

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::ptr;

use mindex::{Embedder, Error, Vault, VaultOptions};

/// Stable numeric error codes; the same numbers as the Rust `mindex::ErrorCode`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum mindex_code {
    /// Success.
    Ok = 0,
    /// A panic was caught at the boundary.
    Panic = 1,
    /// A required pointer argument was NULL.
    NullArg = 2,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 3,
    /// An argument was invalid.
    InvalidArgument = 4,
    /// The vault folder does not exist.
    VaultNotFound = 10,
    /// The note does not exist.
    NoteNotFound = 11,
    /// No index yet: run update first.
    IndexMissing = 12,
    /// The index is corrupt or incompatible.
    Corrupt = 13,
    /// Another process is updating the index.
    Busy = 14,
    /// An I/O error.
    Io = 20,
    /// A lexical index error.
    Lexical = 21,
    /// The model folder lacks a file.
    ModelMissing = 30,
    /// The model could not be loaded or run.
    Model = 31,
    /// No vectors for the model yet: run embed.
    VectorsMissing = 32,
}

impl mindex_code {
    /// Every C code (the header's enum), for the test that holds it equal to the engine's.
    const ALL: &'static [mindex_code] = &[
        mindex_code::Ok,
        mindex_code::Panic,
        mindex_code::NullArg,
        mindex_code::InvalidUtf8,
        mindex_code::InvalidArgument,
        mindex_code::VaultNotFound,
        mindex_code::NoteNotFound,
        mindex_code::IndexMissing,
        mindex_code::Corrupt,
        mindex_code::Busy,
        mindex_code::Io,
        mindex_code::Lexical,
        mindex_code::ModelMissing,
        mindex_code::Model,
        mindex_code::VectorsMissing,
    ];
}

impl From<mindex::ErrorCode> for mindex_code {
    /// By number: the C enum carries the engine's numbers (a test checks every engine code has
    /// its C twin), so a code is never turned into another.
    fn from(c: mindex::ErrorCode) -> Self {
        mindex_code::ALL
            .iter()
            .copied()
            .find(|m| *m as u32 == c as u32)
            .unwrap_or(mindex_code::Panic)
    }
}

/// An error: a stable code and a message.
///
/// Owned by the caller; free with `mindex_error_free`. Not thread-safe to free while another
/// thread reads its message.
#[derive(Debug)]
pub struct mindex_error {
    code: mindex_code,
    message: CString,
}

/// A vault: a folder of notes and its index.
///
/// Thread-safe (`Send + Sync`): share one per process; searches run concurrently, and writes
/// coordinate through the index's lock. Free with `mindex_vault_free` once no call is running.
#[derive(Debug)]
pub struct mindex_vault {
    inner: Vault,
}

/// A loaded embedding model (all-MiniLM-L6-v2 or another BERT sentence encoder).
///
/// Thread-safe: one may serve many threads and vaults. Free with `mindex_embedder_free`.
#[derive(Debug)]
pub struct mindex_embedder {
    inner: mindex::BertEmbedder,
}

/// Search results. The strings its hits point to live until `mindex_results_free`.
///
/// Not for concurrent use from several threads without external locking (reading is safe).
#[derive(Debug)]
pub struct mindex_results {
    hits: Vec<mindex::Hit>,
}

/// An owned UTF-8 string (NUL-terminated). Free with `mindex_string_free`.
#[derive(Debug)]
pub struct mindex_string {
    bytes: CString,
}

/// One search hit, borrowed from its `mindex_results`: the pointers stay valid until the
/// results are freed. Strings are UTF-8, not NUL-terminated; use the lengths.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct mindex_hit {
    /// Vault-relative path of the note.
    pub path: *const u8,
    /// Length of `path` in bytes.
    pub path_len: usize,
    /// The note's title.
    pub title: *const u8,
    /// Length of `title` in bytes.
    pub title_len: usize,
    /// Heading trail of the matching chunk (`A > B`), possibly empty.
    pub heading: *const u8,
    /// Length of `heading` in bytes.
    pub heading_len: usize,
    /// Excerpt with matched words wrapped in `**`.
    pub snippet: *const u8,
    /// Length of `snippet` in bytes.
    pub snippet_len: usize,
    /// First line of the chunk (1-based).
    pub line_start: u64,
    /// Last line of the chunk (1-based, inclusive).
    pub line_end: u64,
    /// Line of the first match.
    pub line: u64,
    /// Score (higher is better): BM25 for a search, cosine similarity for a vector search,
    /// relevance in [0, 1] for a hybrid query: match strength (near 1 a clear match, under 0.5 a
    /// weak one), not rank.
    pub score: f32,
    /// The note holds every identifier the query names (`OPS-2291`) exactly; such notes rank
    /// first.
    pub exact: bool,
}

type Fallible = Result<(), Box<mindex_error>>;

fn err(code: mindex_code, message: impl Into<String>) -> Box<mindex_error> {
    let mut m = message.into();
    m.retain(|c| c != '\0');
    Box::new(mindex_error {
        code,
        message: CString::new(m).unwrap_or_default(),
    })
}

impl From<Error> for Box<mindex_error> {
    fn from(e: Error) -> Self {
        err(e.code().into(), e.to_string())
    }
}

/// Runs `f` behind the panic boundary; NULL on success.
fn boundary(f: impl FnOnce() -> Fallible) -> *mut mindex_error {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => ptr::null_mut(),
        Ok(Err(e)) => Box::into_raw(e),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Box::into_raw(err(mindex_code::Panic, format!("panic in mindex: {what}")))
        }
    }
}

/// Borrows a required handle.
///
/// # Safety
/// `p` is NULL or a live handle from this library.
unsafe fn handle<'a, T>(p: *const T, name: &str) -> Result<&'a T, Box<mindex_error>> {
    // SAFETY: the caller passes NULL or a live handle.
    unsafe { p.as_ref() }.ok_or_else(|| err(mindex_code::NullArg, format!("`{name}` is NULL")))
}

/// Reads a string argument; NULL gives `None`.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes.
unsafe fn opt_str<'a>(
    ptr: *const u8,
    len: usize,
    name: &str,
) -> Result<Option<&'a str>, Box<mindex_error>> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller guarantees `len` readable bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    std::str::from_utf8(bytes).map(Some).map_err(|e| {
        err(
            mindex_code::InvalidUtf8,
            format!("`{name}` is not valid UTF-8 (at byte {})", e.valid_up_to()),
        )
    })
}

/// Reads a required string argument.
///
/// # Safety
/// As [`opt_str`].
unsafe fn req_str<'a>(
    ptr: *const u8,
    len: usize,
    name: &str,
) -> Result<&'a str, Box<mindex_error>> {
    // SAFETY: forwarded.
    unsafe { opt_str(ptr, len, name) }?
        .ok_or_else(|| err(mindex_code::NullArg, format!("`{name}` is NULL")))
}

/// Reads a required JSON argument.
///
/// # Safety
/// As [`opt_str`].
unsafe fn json_arg(
    ptr: *const u8,
    len: usize,
    name: &str,
) -> Result<serde_json::Value, Box<mindex_error>> {
    // SAFETY: forwarded.
    let text = unsafe { req_str(ptr, len, name) }?;
    serde_json::from_str(text)
        .map_err(|e| err(mindex_code::InvalidArgument, format!("`{name}`: {e}")))
}

/// Prepares an out-parameter: NULL is an error; otherwise it is set to NULL.
///
/// # Safety
/// `out` is NULL or valid for writes.
unsafe fn out_slot<'a, T>(
    out: *mut *mut T,
    name: &str,
) -> Result<&'a mut *mut T, Box<mindex_error>> {
    // SAFETY: the caller passes NULL or a writable pointer.
    let slot = unsafe { out.as_mut() }
        .ok_or_else(|| err(mindex_code::NullArg, format!("`{name}` is NULL")))?;
    *slot = ptr::null_mut();
    Ok(slot)
}

fn json_string<T: serde::Serialize>(v: &T) -> Result<*mut mindex_string, Box<mindex_error>> {
    let s =
        serde_json::to_string(v).map_err(|e| err(mindex_code::InvalidArgument, e.to_string()))?;
    Ok(Box::into_raw(Box::new(mindex_string {
        bytes: CString::new(s).unwrap_or_default(),
    })))
}

/// Writes `v` as JSON to an optional out-parameter (NULL: nothing is produced).
///
/// # Safety
/// `out` is NULL or valid for writes.
unsafe fn opt_json<T: serde::Serialize>(out: *mut *mut mindex_string, v: &T) -> Fallible {
    // SAFETY: the caller passes NULL or a writable pointer.
    if let Some(slot) = unsafe { out.as_mut() } {
        *slot = json_string(v)?;
    }
    Ok(())
}

/// The library version as a NUL-terminated string, valid for the life of the process.
#[unsafe(no_mangle)]
pub extern "C" fn mindex_version() -> *const c_char {
    static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

/// The error's stable code (`MINDEX_CODE_PANIC` for a NULL error).
///
/// # Safety
/// `error` is NULL or a live error from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_error_code(error: *const mindex_error) -> mindex_code {
    // SAFETY: NULL or a live error.
    unsafe { error.as_ref() }.map_or(mindex_code::Panic, |e| e.code)
}

/// The error's message, NUL-terminated UTF-8, borrowed until `mindex_error_free` ("" for NULL).
///
/// # Safety
/// `error` is NULL or a live error from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_error_message(error: *const mindex_error) -> *const c_char {
    // SAFETY: NULL or a live error.
    match unsafe { error.as_ref() } {
        Some(e) => e.message.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// Frees an error (NULL is fine).
///
/// # Safety
/// `error` is NULL or an error from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_error_free(error: *mut mindex_error) {
    if !error.is_null() {
        // SAFETY: the caller owns the error.
        drop(unsafe { Box::from_raw(error) });
    }
}

/// The string's bytes, NUL-terminated, borrowed until `mindex_string_free` ("" for NULL).
///
/// # Safety
/// `s` is NULL or a live string from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_string_data(s: *const mindex_string) -> *const c_char {
    // SAFETY: NULL or a live string.
    match unsafe { s.as_ref() } {
        Some(s) => s.bytes.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// The string's length in bytes, without the NUL (0 for NULL).
///
/// # Safety
/// `s` is NULL or a live string from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_string_len(s: *const mindex_string) -> usize {
    // SAFETY: NULL or a live string.
    unsafe { s.as_ref() }.map_or(0, |s| s.bytes.as_bytes().len())
}

/// Frees a string (NULL is fine).
///
/// # Safety
/// `s` is NULL or a string from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_string_free(s: *mut mindex_string) {
    if !s.is_null() {
        // SAFETY: the caller owns the string.
        drop(unsafe { Box::from_raw(s) });
    }
}

fn options(index_dir: Option<&str>) -> VaultOptions {
    VaultOptions {
        index_dir: index_dir.map(Into::into),
        ..VaultOptions::default()
    }
}

/// Opens the vault at `path` (a folder of notes). Nothing is written until an update.
/// `index_dir` (optional, NULL for `<vault>/.mindex`) is where the index lives.
///
/// # Safety
/// String arguments as described in the header's conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_open(
    path: *const u8,
    path_len: usize,
    index_dir: *const u8,
    index_dir_len: usize,
    out: *mut *mut mindex_vault,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let path = unsafe { req_str(path, path_len, "path") }?;
        let index = unsafe { opt_str(index_dir, index_dir_len, "index_dir") }?;
        let inner = Vault::open(path, options(index))?;
        *slot = Box::into_raw(Box::new(mindex_vault { inner }));
        Ok(())
    })
}

/// Creates a new vault at `path` from the bundled template (the folder must be missing or
/// empty), then opens it. `with_samples` also writes the made-up sample notes (people,
/// projects, an incident) that demos and tests search; a real vault starts without them.
///
/// # Safety
/// As `mindex_vault_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_create(
    path: *const u8,
    path_len: usize,
    with_samples: bool,
    out: *mut *mut mindex_vault,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let path = unsafe { req_str(path, path_len, "path") }?;
        let init = mindex::init::InitOptions {
            with_samples,
            ..Default::default()
        };
        mindex::init::init_vault(Path::new(path), &init)?;
        let inner = Vault::open(path, VaultOptions::default())?;
        *slot = Box::into_raw(Box::new(mindex_vault { inner }));
        Ok(())
    })
}

/// Frees a vault (NULL is fine). No call on it may be running.
///
/// # Safety
/// `vault` is NULL or a vault from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_free(vault: *mut mindex_vault) {
    if !vault.is_null() {
        // SAFETY: the caller owns the vault.
        drop(unsafe { Box::from_raw(vault) });
    }
}

/// Brings the index up to date (only changed notes are re-indexed). The report (JSON: notes,
/// chunks, changes, warnings, …) is written to `report` unless it is NULL.
///
/// # Safety
/// `vault` live; `report` NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_update(
    vault: *const mindex_vault,
    report: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let v = unsafe { handle(vault, "vault") }?;
        let r = v.inner.update(&mindex::NoProgress)?;
        unsafe { opt_json(report, &r) }
    })
}

/// What is indexed and what changed on disk since (JSON).
///
/// # Safety
/// `vault` live; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_status(
    vault: *const mindex_vault,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        *slot = json_string(&v.inner.status()?)?;
        Ok(())
    })
}

/// [`mindex_vault_status`], also reading every index file to verify its checksum (`mindex status
/// --verify`): slower, proportional to the index size.
///
/// # Safety
/// `vault` live; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_status_verify(
    vault: *const mindex_vault,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        *slot = json_string(
            &v.inner
                .status_with(&mindex::StatusOptions { verify: true })?,
        )?;
        Ok(())
    })
}

/// Loads an embedding model from `model_dir` (config.json, tokenizer.json, model.safetensors);
/// NULL for the default (`$MINDEX_MODEL_DIR`, else the per-user models folder).
///
/// # Safety
/// String arguments as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_embedder_load(
    model_dir: *const u8,
    model_dir_len: usize,
    out: *mut *mut mindex_embedder,
) -> *mut mindex_error {
    // SAFETY: forwarded from the caller; a NULL precision means the default.
    unsafe { mindex_embedder_load_with(model_dir, model_dir_len, std::ptr::null(), 0, out) }
}

/// Like `mindex_embedder_load` with an explicit precision: `"int8"` (8-bit dense layers, the
/// default where the CPU has a vector int8 kernel: AVX-512 VNNI, AVX-VNNI, AVX2, Arm's dot product) or `"f32"` (the reference). NULL precision: the
/// default (`$MINDEX_PRECISION`, else by CPU). An unknown precision is `InvalidArgument`.
///
/// # Safety
/// String arguments as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_embedder_load_with(
    model_dir: *const u8,
    model_dir_len: usize,
    precision: *const u8,
    precision_len: usize,
    out: *mut *mut mindex_embedder,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let dir = unsafe { opt_str(model_dir, model_dir_len, "model_dir") }?;
        let precision = unsafe { opt_str(precision, precision_len, "precision") }?;
        let dir = mindex::embed::model_dir(dir.map(Path::new));
        let inner = match precision {
            Some(p) => mindex::BertEmbedder::load_with(&dir, p.parse()?)?,
            None => mindex::BertEmbedder::load(&dir)?,
        };
        *slot = Box::into_raw(Box::new(mindex_embedder { inner }));
        Ok(())
    })
}

/// Frees a model (NULL is fine).
///
/// # Safety
/// `embedder` is NULL or a model from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_embedder_free(embedder: *mut mindex_embedder) {
    if !embedder.is_null() {
        // SAFETY: the caller owns the model.
        drop(unsafe { Box::from_raw(embedder) });
    }
}

/// Embeds every chunk that has no vector yet. The report (JSON) goes to `report` unless NULL.
///
/// # Safety
/// `vault` and `embedder` live; `report` NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_embed(
    vault: *const mindex_vault,
    embedder: *const mindex_embedder,
    report: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let v = unsafe { handle(vault, "vault") }?;
        let e = unsafe { handle(embedder, "embedder") }?;
        let r = v.inner.vectors().embed(&e.inner, &mindex::NoProgress)?;
        unsafe { opt_json(report, &r) }
    })
}

/// BM25 search: the best chunk of each matching note, at most `limit`.
///
/// # Safety
/// `vault` live; `query` as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_search(
    vault: *const mindex_vault,
    query: *const u8,
    query_len: usize,
    limit: usize,
    out: *mut *mut mindex_results,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let q = unsafe { req_str(query, query_len, "query") }?;
        let opts = mindex::SearchOptions {
            limit,
            all_chunks: false,
        };
        let hits = v.inner.search(q, &opts)?;
        *slot = Box::into_raw(Box::new(mindex_results { hits }));
        Ok(())
    })
}

/// Hybrid query: BM25 and (with `embedder`, when vectors exist) vector search, fused by
/// reciprocal rank fusion. `embedder` may be NULL: the lexical ranking is returned.
///
/// # Safety
/// `vault` live; `embedder` NULL or live; `query` as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_query(
    vault: *const mindex_vault,
    embedder: *const mindex_embedder,
    query: *const u8,
    query_len: usize,
    limit: usize,
    out: *mut *mut mindex_results,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let q = unsafe { req_str(query, query_len, "query") }?;
        // SAFETY: NULL or a live model.
        let e = unsafe { embedder.as_ref() }.map(|e| &e.inner as &dyn Embedder);
        let opts = mindex::QueryOptions {
            limit,
            ..Default::default()
        };
        let r = v.inner.query(e, &mindex::SubQuery::hybrid(q), &opts)?;
        let hits = r.hits.into_iter().map(|h| h.hit).collect();
        *slot = Box::into_raw(Box::new(mindex_results { hits }));
        Ok(())
    })
}

/// Number of hits (0 for NULL).
///
/// # Safety
/// `results` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_results_len(results: *const mindex_results) -> usize {
    // SAFETY: NULL or live results.
    unsafe { results.as_ref() }.map_or(0, |r| r.hits.len())
}

/// Copies hit `i` into `out`; false when `i` is out of range or an argument is NULL.
///
/// # Safety
/// `results` NULL or live; `out` NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_results_get(
    results: *const mindex_results,
    i: usize,
    out: *mut mindex_hit,
) -> bool {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: NULL or live results; NULL or writable out.
        let (Some(r), Some(out)) = (unsafe { results.as_ref() }, unsafe { out.as_mut() }) else {
            return false;
        };
        let Some(h) = r.hits.get(i) else {
            return false;
        };
        *out = mindex_hit {
            path: h.path.as_ptr(),
            path_len: h.path.len(),
            title: h.title.as_ptr(),
            title_len: h.title.len(),
            heading: h.heading.as_ptr(),
            heading_len: h.heading.len(),
            snippet: h.snippet.as_ptr(),
            snippet_len: h.snippet.len(),
            line_start: h.line_start,
            line_end: h.line_end,
            line: h.line,
            score: h.score,
            exact: h.exact,
        };
        true
    }))
    .unwrap_or(false)
}

/// The hits as one JSON document (`{"results": [...]}`, as the CLI and MCP name them).
///
/// # Safety
/// `results` live; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_results_json(
    results: *const mindex_results,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let r = unsafe { handle(results, "results") }?;
        *slot = json_string(&serde_json::json!({ "results": r.hits }))?;
        Ok(())
    })
}

/// Frees results (NULL is fine); every `mindex_hit` taken from them becomes invalid.
///
/// # Safety
/// `results` is NULL or results from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_results_free(results: *mut mindex_results) {
    if !results.is_null() {
        // SAFETY: the caller owns the results.
        drop(unsafe { Box::from_raw(results) });
    }
}

/// Reads a note (by path, path without `.md`, or unique name) as JSON: path, title, tags,
/// frontmatter, text, line range, warnings.
///
/// # Safety
/// `vault` live; `note` as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_get(
    vault: *const mindex_vault,
    note: *const u8,
    note_len: usize,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let spec = unsafe { req_str(note, note_len, "note") }?;
        *slot = json_string(&v.inner.get(spec, None, None)?)?;
        Ok(())
    })
}

/// The caller a memory call runs as: `caller` (a project name) or anonymous when NULL. The
/// engine's scoped view identifies it (its platforms).
///
/// # Safety
/// As `opt_str`.
unsafe fn caller_of(
    caller: *const u8,
    caller_len: usize,
) -> Result<mindex::Caller, Box<mindex_error>> {
    // SAFETY: forwarded from the caller.
    let name = unsafe { opt_str(caller, caller_len, "caller") }?;
    Ok(mindex::Caller::named_or_anonymous(name)?)
}

/// Records a memory as `caller` (a project name; NULL for anonymous). `input_json` is an
/// object with `title`, `body`, `confidence` and optionally `scope`, `projects`, `platforms`,
/// `verification`, `generality`, `links`, `supersedes`, `force`, `dry_run`. The outcome (JSON:
/// `recorded`, `path`, `refusal`, `message`, …) goes to `out`: a refusal is an outcome, not an
/// error; errors are I/O failures and bad arguments. With `embedder` (NULL: none) and vectors
/// for it, a memory that says what a visible one already says is refused too
/// (`refusal.by_meaning`).
///
/// # Safety
/// `vault` live; `embedder` NULL or live; strings as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_remember(
    vault: *const mindex_vault,
    caller: *const u8,
    caller_len: usize,
    input_json: *const u8,
    input_json_len: usize,
    embedder: *const mindex_embedder,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let who = unsafe { caller_of(caller, caller_len) }?;
        let value = unsafe { json_arg(input_json, input_json_len, "input_json") }?;
        let input = mindex::MemoryInput {
            via: Some(mindex::vault::Surface::C),
            ..mindex::MemoryInput::from_json(&value)
        };
        // SAFETY: NULL or a live model.
        let e = unsafe { embedder.as_ref() }.map(|e| &e.inner as &dyn Embedder);
        *slot = json_string(&v.inner.scoped(&who).remember(&input, e)?)?;
        Ok(())
    })
}

/// The memories that reach `caller` (NULL: anonymous), best first, at most `limit`; ordered by
/// `query` when given (NULL: none), using `embedder` when given and vectors exist. JSON:
/// `memories`, `visible`, `withheld`, `withheld_reasons` (with `explain`), `ranking`, ….
///
/// # Safety
/// `vault` live; `embedder` NULL or live; strings as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_recall(
    vault: *const mindex_vault,
    caller: *const u8,
    caller_len: usize,
    query: *const u8,
    query_len: usize,
    limit: usize,
    explain: bool,
    embedder: *const mindex_embedder,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let who = unsafe { caller_of(caller, caller_len) }?;
        let q = unsafe { opt_str(query, query_len, "query") }?;
        // SAFETY: NULL or a live model.
        let e = unsafe { embedder.as_ref() }.map(|e| &e.inner as &dyn Embedder);
        let opts = mindex::RecallOptions {
            query: q.map(str::to_string),
            limit,
            explain,
        };
        *slot = json_string(&v.inner.scoped(&who).recall(&opts, e)?)?;
        Ok(())
    })
}

/// A note's visible neighbourhood (JSON: path, label, links_out, links_out_hidden,
/// linked_from). `note` is a title, path or `vault://note/…` URI.
///
/// # Safety
/// `vault` live; `note` as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_expand(
    vault: *const mindex_vault,
    note: *const u8,
    note_len: usize,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let n = unsafe { req_str(note, note_len, "note") }?;
        *slot = json_string(&v.inner.expand(n)?)?;
        Ok(())
    })
}

/// Files a note about work done as `caller` (NULL: anonymous). `input_json` is an object with
/// `title`, `summary` and optionally `changes`, `decisions`, `learned`, `open`, `informed_by`
/// (string lists), `verification`, `folder`, `kind` (`note` or `decision`), `dry_run`. The
/// outcome (JSON: `recorded`, `path`, `route`, `refusal`, `message`) goes to `out`.
///
/// # Safety
/// `vault` live; strings as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_record_work(
    vault: *const mindex_vault,
    caller: *const u8,
    caller_len: usize,
    input_json: *const u8,
    input_json_len: usize,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let who = unsafe { caller_of(caller, caller_len) }?;
        let value = unsafe { json_arg(input_json, input_json_len, "input_json") }?;
        let input = mindex::WorkInput::from_json(&value);
        *slot = json_string(&v.inner.scoped(&who).record_work(&input)?)?;
        Ok(())
    })
}

/// The owner's view of what an agent session as `caller` (NULL: anonymous) sees of the vault,
/// as JSON: its warnings may name memories the caller cannot recall (the MCP `health` tool
/// serves the agent's own view, which counts them instead).
///
/// # Safety
/// `vault` live; strings as in the conventions; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_health(
    vault: *const mindex_vault,
    caller: *const u8,
    caller_len: usize,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        let who = unsafe { caller_of(caller, caller_len) }?;
        *slot = json_string(&v.inner.health(&who)?)?;
        Ok(())
    })
}

/// Orphan notes and broken wikilinks over the index, as JSON.
///
/// # Safety
/// `vault` live; `out` valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mindex_vault_audit(
    vault: *const mindex_vault,
    out: *mut *mut mindex_string,
) -> *mut mindex_error {
    boundary(|| {
        // SAFETY: forwarded from the caller.
        let slot = unsafe { out_slot(out, "out") }?;
        let v = unsafe { handle(vault, "vault") }?;
        *slot = json_string(&v.inner.graph_audit()?)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_engine_one_for_one() {
        // `ErrorCode::ALL` is checked complete by the engine's own test.
        assert_eq!(mindex_code::ALL.len(), mindex::ErrorCode::ALL.len());
        for &c in mindex::ErrorCode::ALL {
            assert_eq!(mindex_code::from(c) as u32, c as u32, "{c:?}");
        }
        for &m in mindex_code::ALL {
            assert!(mindex::ErrorCode::from_u32(m as u32).is_some(), "{m:?}");
        }
    }
}
