//! The MCP server: newline-delimited JSON-RPC 2.0 over any line transport (the CLI runs it on
//! stdio as `mindex mcp`, through [`McpServer::serve`]).
//!
//! - Requests run on a fixed pool of [`MCP_WORKERS`] threads behind a queue of [`MCP_QUEUE`];
//!   `reason` calls have their own lane ([`REASON_WORKERS`] thread, [`REASON_QUEUE`] waiting) so a
//!   slow one never starves the rest, and so do the tools that write (`remember`, `record_work`:
//!   [`WRITE_WORKERS`] threads), which take turns on the vault's one index writer: reads never
//!   queue behind a worker that is waiting for that lock. A request that finds its queue full
//!   is answered at once with [`BUSY`] ("server busy: N requests queued, retry"). Responses may
//!   come back in any order, matched by id.
//! - Limits a real agent never reaches: a message is at most [`MAX_MESSAGE_BYTES`] (a longer
//!   line is skipped and answered -32600), a query [`MAX_QUERY_CHARS`], a path, name, URI or
//!   pattern [`MAX_PATH_CHARS`], a result limit [`MAX_LIMIT`]; a read serves at most
//!   [`MAX_READ_BYTES`](mindex::scoped::MAX_READ_BYTES) of a note (then a truncation marker) and `multi_get` at most
//!   [`MAX_MULTI_GET_BYTES`](mindex::scoped::MAX_MULTI_GET_BYTES) in all.
//! - Identity: a caller named by the operator ([`McpOptions::caller`], `mindex mcp --caller`)
//!   serves every call. Otherwise, after `notifications/initialized` the server asks a client
//!   that declared the `roots` capability for `roots/list`; the first `file://` root names the
//!   caller's project. Tool calls and resource reads wait for the answer (at most
//!   [`McpOptions::identity_timeout`] after the request went out). A client without roots, a
//!   failed or empty answer, or no answer in time: the caller is the server's working repository
//!   ([`McpOptions::fallback_caller`]), else anonymous. After `notifications/roots/list_changed`
//!   calls wait for the new roots: when that refresh is not answered in time they are refused
//!   with [`IDENTITY_UNKNOWN`], never run under the previous identity.
//! - Everything agents read goes through the exposure policy, notes are read once from one open
//!   file ([`mindex::Scoped`]), and every tool, read and listing is written to the
//!   audit log under the real caller.
//! - Malformed JSON (-32700), non-object or oversized messages (-32600), unknown methods
//!   (-32601), unknown tools and non-object `arguments` (-32602) get JSON-RPC errors; a bad
//!   argument to a known tool (missing, mistyped, too long) is a tool result with `isError`, in
//!   words the model can act on; messages are stripped of absolute
//!   paths; the server keeps serving.

mod pool;
mod tools;
mod wire;

use std::io::BufRead;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use mindex::BertEmbedder;
use mindex::Caller;
use mindex::Vault;
use mindex::scoped::{clip, scrub_paths};

pub use pool::Ticket;
use pool::{Lane, Refused};
pub use tools::tools;
use wire::{
    INVALID_PARAMS, RpcError, RpcResult, arg_str, check_len, check_lengths, invalid_params,
    tool_error,
};
pub use wire::{Line, read_line_capped};

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Default wait for the client's roots before a call proceeds without them.
pub const IDENTITY_TIMEOUT: Duration = Duration::from_secs(2);
/// First id of requests the server sends (roots/list).
const SERVER_ID_BASE: i64 = 10_000;
/// Cap on the text of a search result.
const SEARCH_TEXT_CAP: usize = 6000;

/// Worker threads serving requests (all but `reason`). Most requests take milliseconds; the
/// pool bounds threads, not throughput.
pub const MCP_WORKERS: usize = 4;
/// Requests that may wait for a worker. One more is refused with [`BUSY`]: a burst costs a
/// bounded queue, never a thread per request.
pub const MCP_QUEUE: usize = 256;
/// Worker threads of the `reason` lane: a `reason` call runs an agent session for minutes.
pub const REASON_WORKERS: usize = 1;
/// `reason` calls that may wait for the reason lane.
pub const REASON_QUEUE: usize = 2;
/// Worker threads of the write lane (`remember`, `record_work`): writes take turns on the one
/// index writer, and whichever holds it commits every note queued meanwhile (`Vault::index_now`),
/// so more workers mean more notes per commit, not more commits. Measured under 50 clients
/// (benches/README.md, "`mindex serve`"): 2 workers, one commit per write, `remember` p50 2.2 s;
/// 8 workers, 114 ms.
pub const WRITE_WORKERS: usize = 8;
/// Tools that write the vault: they run on the write lane.
const WRITE_TOOLS: &[&str] = &["remember", "record_work"];
/// JSON-RPC error code of a request refused because its queue is full ("server busy: N
/// requests queued, retry").
pub const BUSY: i64 = -32000;
/// JSON-RPC error code of a call refused because the client announced new roots and did not
/// answer `roots/list` in time: the caller's identity is unknown.
pub const IDENTITY_UNKNOWN: i64 = -32001;
/// Largest JSON-RPC message (one line) the server reads: 4 MiB. A longer line is not buffered;
/// it is skipped to its newline and answered with -32600 naming this limit.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Longest `query` (search, query, recall, each typed sub-query) in characters.
pub const MAX_QUERY_CHARS: usize = 2_000;
/// Longest `reason` question in characters.
pub const MAX_QUESTION_CHARS: usize = 8_000;
/// Longest path, note name, URI or `multi_get` pattern in characters.
pub const MAX_PATH_CHARS: usize = 4_096;
/// Largest `limit` of search, query and recall: a larger one is served as this.
pub const MAX_LIMIT: usize = 200;
/// What reaches the calling session once per connection: the vault's prohibitions (the form
/// that measurably holds) and how to use the tools.
pub const INSTRUCTIONS: &str = "This server gives you the user's personal knowledge vault: notes, \
decisions, incidents, people context and durable lessons (memories) from earlier sessions.\n\
- Call `search` (or `query`) before answering questions about past decisions, prior art, or the \
reasons behind things: the vault is the record. Call `recall` for lessons scoped to this repository.\n\
- Notes are also resources (vault://note/<path>); read one directly when its title already answers \
the question, and use `expand` to follow a known note's links instead of searching again.\n\
- Cite note paths. Preserve \"as of YYYY-MM-DD\" and (TBC)/(inferred) qualifiers: never promote an \
inferred fact to a stated one, and flag old volatile claims.\n\
- Record durable lessons with `remember` and finished work with `record_work`; never write \
transcripts.\n\
- PROHIBITED: never put agent-session artifacts into anything that lands in a repository: no \
claude.ai session URLs, no `Claude-Session:` trailers, no local absolute paths, in commits, PR or \
issue bodies, review comments or files. `Co-Authored-By:` trailers are fine.";

/// Options of an [`McpServer`].
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// How long a tool call waits for the client's roots.
    pub identity_timeout: Duration,
    /// Use the default embedding model for `search`/`query`/`recall` when vectors exist.
    pub use_vectors: bool,
    /// How the `reason` tool runs its agent session.
    pub reason: mindex::ReasonOptions,
    /// The caller named by whoever runs the server (`mindex mcp --caller`): every call runs as
    /// it, and the client is never asked for roots.
    pub caller: Option<Caller>,
    /// The caller when the client's roots name nobody (not declared, failed, empty, or not
    /// answered in time): `mindex mcp` sets the repository it runs in
    /// ([`Caller::from_working_repository`]). `None`: anonymous.
    pub fallback_caller: Option<Caller>,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            identity_timeout: IDENTITY_TIMEOUT,
            use_vectors: true,
            reason: mindex::ReasonOptions::default(),
            caller: None,
            fallback_caller: None,
        }
    }
}

#[derive(Debug)]
struct Session {
    roots: Vec<String>,
    /// The id of the latest roots/list request sent.
    roots_request: Option<i64>,
    /// When the latest roots/list request went out (calls wait until this plus the timeout).
    roots_sent: Option<Instant>,
    /// When the first call started waiting without any roots/list request sent.
    first_wait: Option<Instant>,
    next_id: i64,
    identified: bool,
    /// A roots/list_changed arrived and its answer is pending.
    refreshing: bool,
    /// Whether the client declared the `roots` capability (`None` before `initialize`, or
    /// when its `initialize` carried no capabilities object: then roots are asked for).
    client_roots: Option<bool>,
    caller: Caller,
}

type Sink = Box<dyn Fn(&str) + Send + Sync>;

/// What every session of one server process shares: the vault, the embedding model (loaded
/// once, on first use) and the bounded worker lanes. `mindex mcp` has one session; `mindex
/// serve` one per HTTP client, all on one backend, so a hundred clients cost one model and
/// [`MCP_WORKERS`] threads, not a hundred of each.
pub struct Backend {
    vault: Vault,
    model: mindex::vault::SharedModel,
    /// Every request but `reason`.
    general: Arc<Lane>,
    /// `reason` calls.
    reasoning: Arc<Lane>,
    /// The tools that write ([`WRITE_TOOLS`]).
    writing: Arc<Lane>,
}

impl Backend {
    /// A backend serving `vault`.
    pub fn new(vault: Vault) -> Arc<Backend> {
        Arc::new(Backend {
            vault,
            model: mindex::vault::SharedModel::new(None),
            general: Lane::new("worker", MCP_WORKERS, MCP_QUEUE),
            reasoning: Lane::new("reason", REASON_WORKERS, REASON_QUEUE),
            writing: Lane::new("write", WRITE_WORKERS, MCP_QUEUE),
        })
    }

    /// The vault served.
    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    /// Blocks until no request of any session is queued or running.
    pub fn wait_idle(&self) {
        self.general.wait_idle();
        self.reasoning.wait_idle();
        self.writing.wait_idle();
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        self.general.shutdown();
        self.reasoning.shutdown();
        self.writing.shutdown();
    }
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("vault", &self.vault.root())
            .finish_non_exhaustive()
    }
}

/// One MCP session over a vault. Feed it input lines with [`McpServer::handle_line`] (or a whole
/// transport with [`McpServer::serve`]); it writes each outgoing message (one JSON object, no
/// newline) to the sink.
pub struct McpServer {
    backend: Arc<Backend>,
    opts: McpOptions,
    sink: Sink,
    session: Mutex<Session>,
    changed: Condvar,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("vault", &self.backend.vault.root())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server for `vault`, writing outgoing messages to `sink`.
    pub fn new(
        vault: Vault,
        opts: McpOptions,
        sink: impl Fn(&str) + Send + Sync + 'static,
    ) -> Arc<McpServer> {
        McpServer::on_backend(Backend::new(vault), opts, sink)
    }

    /// A session on a shared [`Backend`] (one per HTTP client of `mindex serve`).
    pub fn on_backend(
        backend: Arc<Backend>,
        opts: McpOptions,
        sink: impl Fn(&str) + Send + Sync + 'static,
    ) -> Arc<McpServer> {
        let first = opts
            .caller
            .clone()
            .or_else(|| opts.fallback_caller.clone())
            .unwrap_or_else(Caller::anonymous);
        Arc::new(McpServer {
            backend,
            opts,
            sink: Box::new(sink),
            session: Mutex::new(Session {
                roots: Vec::new(),
                roots_request: None,
                roots_sent: None,
                first_wait: None,
                next_id: SERVER_ID_BASE,
                identified: false,
                refreshing: false,
                client_roots: None,
                caller: first,
            }),
            changed: Condvar::new(),
        })
    }

    fn vault(&self) -> &Vault {
        &self.backend.vault
    }

    fn send(&self, v: &Value) {
        (self.sink)(&v.to_string());
    }

    fn respond(&self, id: Value, r: RpcResult) {
        match r {
            Ok(mut result) => {
                // Error texts of tools may quote engine errors: strip local paths from them.
                if result["isError"] == json!(true)
                    && let Some(items) = result["content"].as_array_mut()
                {
                    for it in items {
                        if let Some(t) = it["text"].as_str() {
                            it["text"] = json!(self.scrub(t));
                        }
                    }
                }
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
            Err(e) => self.send(&json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": e.code, "message": self.scrub(&e.message)}})),
        }
    }

    /// `message` without absolute paths: the vault's own path becomes `<vault>`, any other
    /// absolute path (`/a/b…`, a drive or UNC path, a home folder) `<path>`.
    fn scrub(&self, message: &str) -> String {
        scrub_paths(message, self.vault().root())
    }

    /// Answers a message that was over [`MAX_MESSAGE_BYTES`] (`bytes` long, or longer) and was
    /// skipped unread.
    pub fn reject_oversized(&self, bytes: usize) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
            "message": format!("invalid request: the message is at least {bytes} bytes, over the \
            {MAX_MESSAGE_BYTES}-byte (4 MiB) message limit; it was skipped")}}),
        );
    }

    /// Serves a line transport until it ends: each line (at most [`MAX_MESSAGE_BYTES`], never
    /// buffered beyond that) goes to [`McpServer::handle_line`]; a longer line is skipped and
    /// answered -32600, a line that is not UTF-8 -32700. At the end, waits for the requests in
    /// flight. A read error ends the loop like the end of input does.
    pub fn serve(self: &Arc<Self>, mut input: impl BufRead) {
        let mut buf = Vec::new();
        loop {
            match read_line_capped(&mut input, &mut buf, MAX_MESSAGE_BYTES) {
                Ok(Line::Eof) | Err(_) => break,
                Ok(Line::TooLong(bytes)) => self.reject_oversized(bytes),
                Ok(Line::Full) => match std::str::from_utf8(&buf) {
                    Ok(line) => {
                        self.handle_line(line);
                    }
                    Err(e) => self.send(&json!({"jsonrpc": "2.0", "id": null,
                        "error": {"code": -32700, "message": format!("parse error: the message is not UTF-8 ({e})")}})),
                },
            }
        }
        self.wait_idle();
    }

    /// Blocks until no request is queued or running (on the backend, which may serve other
    /// sessions too).
    pub fn wait_idle(&self) {
        self.backend.wait_idle();
    }

    /// Handles one input line. A request is queued on the worker pool and its [`Ticket`]
    /// returned (so a transport or test can wait for it); a request refused because its queue
    /// is full is answered at once with [`BUSY`] and gives `None`, as do notifications,
    /// responses and malformed lines (answered at once).
    pub fn handle_line(self: &Arc<Self>, line: &str) -> Option<Ticket> {
        if line.len() > MAX_MESSAGE_BYTES {
            self.reject_oversized(line.len());
            return None;
        }
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let msg: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                self.send(&json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("parse error: {e}")}}));
                return None;
            }
        };
        let Some(obj) = msg.as_object() else {
            self.send(&json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32600, "message": "invalid request: not a JSON object"}}));
            return None;
        };
        let id = obj.get("id").filter(|v| !v.is_null()).cloned();
        let method = obj
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            (None, Some(id)) => {
                self.on_response(&id, obj.get("result"));
                None
            }
            (None, None) => None,
            (Some(m), None) => {
                self.on_notification(&m);
                None
            }
            (Some(m), Some(id)) => {
                if m == "initialize" {
                    // Before the request goes to a worker: a client that sends `initialized`
                    // without waiting for the answer must not be asked for roots it never
                    // declared.
                    self.note_capabilities(&params);
                }
                let tool = (m == "tools/call")
                    .then(|| params.get("name").and_then(Value::as_str))
                    .flatten();
                let is_reason = tool == Some("reason");
                let lane = match tool {
                    Some("reason") => &self.backend.reasoning,
                    Some(t) if WRITE_TOOLS.contains(&t) => &self.backend.writing,
                    _ => &self.backend.general,
                };
                let me = self.clone();
                let answer_id = id.clone();
                let job = move || {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        me.on_request(&m, &params)
                    }))
                    .unwrap_or_else(|_| {
                        Err(RpcError {
                            code: -32603,
                            message: format!("internal error while handling {m}"),
                        })
                    });
                    me.respond(answer_id, r);
                };
                match lane.submit(job) {
                    Ok(ticket) => Some(ticket),
                    Err(refused) => {
                        let message = match refused {
                            Refused::Full { queued, running } if is_reason => format!(
                                "server busy: {running} reason call(s) running and {queued} queued; retry later"
                            ),
                            Refused::Full { queued, .. } => {
                                format!("server busy: {queued} requests queued, retry")
                            }
                            Refused::NoWorker => {
                                "server busy: no worker thread could be started, retry".to_string()
                            }
                        };
                        self.respond(
                            id,
                            Err(RpcError {
                                code: BUSY,
                                message,
                            }),
                        );
                        None
                    }
                }
            }
        }
    }

    fn request_roots(&self) {
        let id = {
            let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            s.next_id += 1;
            s.roots_request = Some(s.next_id);
            s.roots_sent = Some(Instant::now());
            s.next_id
        };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}));
    }

    /// Records whether the client's `initialize` declares the `roots` capability.
    fn note_capabilities(&self, params: &Value) {
        if let Some(caps) = params.get("capabilities").and_then(Value::as_object) {
            let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            s.client_roots = Some(caps.contains_key("roots"));
        }
    }

    /// Whether the client is asked for roots at all: not when the operator named the caller,
    /// nor when the client declared no `roots` capability.
    fn asks_roots(&self) -> bool {
        let s = self.session.lock().unwrap_or_else(|e| e.into_inner());
        self.opts.caller.is_none() && s.client_roots != Some(false)
    }

    /// Settles the identity without asking the client (the session's caller stays the one the
    /// server started with: the operator's, the working repository's, or anonymous).
    fn identified_without_roots(&self) {
        {
            let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            s.identified = true;
            s.refreshing = false;
        }
        self.changed.notify_all();
    }

    fn on_notification(&self, method: &str) {
        if matches!(
            method,
            "notifications/initialized" | "notifications/roots/list_changed"
        ) && !self.asks_roots()
        {
            return self.identified_without_roots();
        }
        match method {
            "notifications/initialized" => self.request_roots(),
            "notifications/roots/list_changed" => {
                {
                    let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
                    if s.identified {
                        s.refreshing = true;
                    }
                }
                self.request_roots();
            }
            _ => {}
        }
    }

    fn on_response(&self, id: &Value, result: Option<&Value>) {
        let before;
        let after;
        {
            let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            if id.as_i64().is_none() || s.roots_request != id.as_i64() {
                return;
            }
            let roots: Vec<String> = result
                .and_then(|r| r.get("roots"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.get("uri").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            before = s.caller.project.clone();
            let from_roots = Caller::from_roots(&roots, self.vault().root());
            // Roots that name nobody (none, no `file://` one, an error) leave the fallback.
            let named = from_roots.project.is_some() || from_roots.is_vault;
            let caller = match (named, &self.opts.fallback_caller) {
                (false, Some(fallback)) => fallback.clone(),
                _ => from_roots,
            };
            let caller = self.vault().identify(caller);
            after = caller.project.clone();
            s.roots = roots;
            s.caller = caller;
            s.identified = true;
            s.refreshing = false;
        }
        self.changed.notify_all();
        if after.is_some() && after != before {
            self.send(&json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}));
        }
    }

    /// Waits (bounded) until the caller's identity is known and no refresh is pending.
    ///
    /// The wait ends [`McpOptions::identity_timeout`] after the roots/list request went out (or
    /// after the first call started waiting, when none went out yet), so later calls do not wait
    /// again. Never identified by then: the caller is anonymous. A refresh still pending: the
    /// call is refused ([`IDENTITY_UNKNOWN`]), never run under the previous identity.
    fn caller(&self) -> Result<Caller, RpcError> {
        if let Some(c) = &self.opts.caller {
            return Ok(c.clone());
        }
        let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let start = match (s.roots_sent, s.first_wait) {
            (Some(t), _) | (None, Some(t)) => t,
            (None, None) => *s.first_wait.insert(Instant::now()),
        };
        let deadline = start + self.opts.identity_timeout;
        while !s.identified || s.refreshing {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            s = self
                .changed
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if s.refreshing {
            return Err(RpcError {
                code: IDENTITY_UNKNOWN,
                message: format!(
                    "identity unknown: the client announced new roots (notifications/roots/list_changed) \
                     but has not answered roots/list within {} ms; the call was not run under the \
                     previous identity. Answer roots/list, then retry.",
                    self.opts.identity_timeout.as_millis()
                ),
            });
        }
        Ok(s.caller.clone())
    }

    /// The default model, when vectors exist for it and it is installed.
    fn embedder(&self) -> Option<Arc<BertEmbedder>> {
        if !self.opts.use_vectors {
            return None;
        }
        self.backend.model.for_vectors(self.vault())
    }

    fn on_request(&self, method: &str, params: &Value) -> RpcResult {
        match method {
            "initialize" => {
                let asked = params.get("protocolVersion").and_then(Value::as_str);
                let version = asked
                    .filter(|v| PROTOCOL_VERSIONS.contains(v))
                    .unwrap_or(PROTOCOL_VERSIONS[0]);
                Ok(json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {}, "resources": {"listChanged": true}, "prompts": {}},
                    "serverInfo": {"name": "mindex", "version": mindex::VERSION},
                    "instructions": INSTRUCTIONS,
                }))
            }
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tools()})),
            "tools/call" => {
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid_params("`name` is required"))?;
                let args = params.get("arguments").cloned().unwrap_or(json!({}));
                if !args.is_object() {
                    return Err(invalid_params("`arguments` must be an object"));
                }
                if !tools().iter().any(|t| t["name"] == name) {
                    return Err(invalid_params(format!("unknown tool {}", clip(name))));
                }
                let answer = check_lengths(name, &args).and_then(|()| {
                    let caller = self.caller()?;
                    self.call_tool(name, &args, &caller)
                });
                match answer {
                    // A bad argument to a known tool is the model's to correct: a tool result
                    // marked as an error, which it reads, not a protocol error, which clients
                    // often swallow.
                    Err(e) if e.code == INVALID_PARAMS => Ok(tool_error(e.message)),
                    other => other,
                }
            }
            "resources/list" => {
                let caller = self.caller()?;
                let resources = self.vault().scoped(&caller).resources();
                Ok(json!({ "resources": resources }))
            }
            "resources/read" => {
                let uri = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid_params("`uri` is required"))?;
                check_len("uri", uri, MAX_PATH_CHARS)?;
                let caller = self.caller()?;
                match self.vault().scoped(&caller).read_uri(uri) {
                    // The URI is kept intact (not sanitised away): it names a vault note, not a
                    // local path.
                    Err(_) => Err(RpcError {
                        code: -32602,
                        message: format!("no such resource: {}", clip(uri)),
                    }),
                    Ok((canonical, n)) => Ok(json!({"contents": [{"uri": canonical,
                        "mimeType": "text/markdown", "text": n.note.text}]})),
                }
            }
            "resources/templates/list" => Ok(json!({"resourceTemplates": [{
                "uriTemplate": "vault://note/{path}",
                "name": "Vault note",
                "description": "A note inside the exposed roots, by vault-relative path.",
                "mimeType": "text/markdown",
            }]})),
            "prompts/list" => Ok(json!({"prompts": [
                {"name": "recall_topic", "description": "What the vault knows about a topic, with citations.",
                 "arguments": [{"name": "topic", "description": "The topic", "required": true}]},
                {"name": "prior_art", "description": "Prior decisions bearing on a question.",
                 "arguments": [{"name": "question", "description": "The question", "required": true}]},
            ]})),
            "prompts/get" => {
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                let args = params.get("arguments").cloned().unwrap_or(json!({}));
                let (description, text) = match name {
                    "prior_art" => {
                        let q = arg_str(&args, "question")
                            .ok_or_else(|| invalid_params("`question` is required"))?;
                        check_len("question", q, MAX_QUERY_CHARS)?;
                        (
                            "Prior decisions bearing on a question",
                            format!(
                                "Search the vault for prior decisions and prior art bearing on \"{q}\". Use `search` first, then `recall` for lessons scoped to this repository. Cite note paths, and say plainly when nothing was found."
                            ),
                        )
                    }
                    "recall_topic" => {
                        let t = arg_str(&args, "topic")
                            .ok_or_else(|| invalid_params("`topic` is required"))?;
                        check_len("topic", t, MAX_QUERY_CHARS)?;
                        (
                            "What the vault knows about a topic",
                            format!(
                                "Search the vault for what is known about \"{t}\", then `expand` the most relevant note to follow its links. Summarise with citations (note paths), preserving (TBC)/(inferred) qualifiers and \"as of\" dates."
                            ),
                        )
                    }
                    other => return Err(invalid_params(format!("no prompt {}", clip(other)))),
                };
                Ok(json!({"description": description,
                    "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}))
            }
            other => Err(RpcError {
                code: -32601,
                message: format!("no method {}", clip(other)),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mindex::resolve::note_uri;
    use mindex::scoped::{AGENT_PAGE_BYTES, MAX_MULTI_GET_BYTES, MAX_READ_BYTES, TRUNCATED_MARKER};
    use std::sync::mpsc;

    fn server(timeout_ms: u64) -> (tempfile::TempDir, Arc<McpServer>, mpsc::Receiver<Value>) {
        server_with(timeout_ms, mindex::VaultOptions::default(), |_| {})
    }

    /// A server whose options `edit` sets (given the folder holding the vault, `atlas` and
    /// `beacon`).
    fn server_opts(
        edit: impl FnOnce(&std::path::Path, &mut McpOptions),
    ) -> (tempfile::TempDir, Arc<McpServer>, mpsc::Receiver<Value>) {
        let (d, s, _rx) = server(3000);
        let mut opts = s.opts.clone();
        edit(d.path(), &mut opts);
        let vault = Vault::open(d.path().join("vault"), mindex::VaultOptions::default()).unwrap();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let s = McpServer::new(vault, opts, move |line: &str| {
            let _ = tx.lock().unwrap().send(serde_json::from_str(line).unwrap());
        });
        (d, s, rx)
    }

    fn initialize(s: &Arc<McpServer>, rx: &mpsc::Receiver<Value>, capabilities: Value) {
        call(
            s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": capabilities}}),
        );
        assert_eq!(next(rx)["id"], 1);
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// A client that sends `initialized` before the `initialize` answer arrives (the whole
    /// handshake piped at once) is still not asked for roots it did not declare.
    #[test]
    fn a_pipelined_handshake_without_roots_is_not_asked_for_them() {
        let (_d, s, rx) = server(3000);
        let pending = s.handle_line(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
            .to_string(),
        );
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        if let Some(h) = pending {
            h.wait();
        }
        let first = next(&rx);
        assert_eq!(
            first["id"], 1,
            "the initialize answer, not a roots/list: {first}"
        );
        assert_eq!(health_caller(&s, &rx, 2), None);
        assert!(rx.try_recv().is_err(), "no roots/list was sent");
    }

    /// Issue 17 finding 4: a client that declares no roots is not asked and does not wait; the
    /// caller is the server's working repository; `--caller` wins over roots; roots that name
    /// nobody leave the working repository; health says which source decided.
    #[test]
    fn identity_without_roots_falls_back_to_the_working_repository() {
        let repo = |d: &std::path::Path| {
            let dir = d.join("atlas");
            std::fs::create_dir_all(dir.join(".git")).unwrap();
            mindex::Caller::from_working_repository(&dir.join("src/.."), &d.join("vault"))
        };
        // No roots capability: no roots/list, no wait, the working repository.
        let (_d, s, rx) = server_opts(|d, o| {
            o.identity_timeout = Duration::from_secs(30);
            o.fallback_caller = repo(d);
        });
        initialize(&s, &rx, json!({}));
        let t = Instant::now();
        let r = tool(&s, &rx, "health", json!({}));
        assert!(t.elapsed() < Duration::from_secs(10), "no wait for roots");
        let caller = &r["result"]["structuredContent"]["caller"];
        assert_eq!(caller["project"], "atlas", "{r}");
        assert_eq!(caller["identified_by"], "working_repository");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("Caller: atlas (from the working repository"),
            "{text}"
        );

        // Roots declared but naming nobody: the working repository again.
        let (_d, s, rx) = server_opts(|d, o| o.fallback_caller = repo(d));
        initialize(&s, &rx, json!({"roots": {}}));
        let req = next(&rx);
        assert_eq!(req["method"], "roots/list");
        s.handle_line(
            &json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": "no"}})
                .to_string(),
        );
        assert_eq!(health_caller(&s, &rx, 7).as_deref(), Some("atlas"));

        // Roots that name a project win over the working repository.
        let (d, s, rx) = server_opts(|d, o| o.fallback_caller = repo(d));
        initialize(&s, &rx, json!({"roots": {"listChanged": true}}));
        let req = next(&rx);
        s.handle_line(&roots_reply(&d, &req["id"], "beacon").to_string());
        assert_eq!(next(&rx)["method"], "notifications/resources/list_changed");
        let r = tool(&s, &rx, "health", json!({}));
        assert_eq!(
            r["result"]["structuredContent"]["caller"]["project"],
            "beacon"
        );
        assert_eq!(
            r["result"]["structuredContent"]["caller"]["identified_by"],
            "roots"
        );

        // The operator's --caller wins and roots are never asked for, even on list_changed.
        let (_d, s, rx) = server_opts(|d, o| {
            o.caller = Some(mindex::Caller::named("Zephyr").unwrap());
            o.fallback_caller = repo(d);
        });
        initialize(&s, &rx, json!({"roots": {"listChanged": true}}));
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
        let r = tool(&s, &rx, "health", json!({}));
        assert_eq!(
            r["id"], 1,
            "the next message is the answer, not a roots/list: {r}"
        );
        assert_eq!(
            r["result"]["structuredContent"]["caller"]["project"],
            "zephyr"
        );
        assert_eq!(
            r["result"]["structuredContent"]["caller"]["identified_by"],
            "given"
        );
    }

    /// Writes waiting for the index writer (held here by "another process") occupy only the
    /// write lane: a search sent after more of them than there are general workers is answered
    /// before any of them, and every write lands once the writer is free.
    #[cfg(unix)]
    #[test]
    fn searches_do_not_queue_behind_writes_waiting_for_the_writer() {
        use std::os::fd::AsRawFd;
        let (d, s, rx) = server_opts(|_, o| {
            o.caller = Some(Caller::named("atlas").unwrap());
        });
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(d.path().join("vault/.mindex/lexical/.tantivy-writer.lock"))
            .unwrap();
        // SAFETY: flock on a descriptor this test owns; the lock goes when `lock` is dropped.
        assert_eq!(
            unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
        let writes = (MCP_WORKERS + 1) as i64;
        let mut tickets = Vec::new();
        for id in 1..=writes {
            let words: Vec<String> = (0..10).map(|j| format!("q{id}z{j}")).collect();
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "remember", "arguments": {
                    "title": format!("Lane lesson {id}"), "confidence": "inferred",
                    "body": format!("Lesson {id} about lanes: {}.", words.join(" "))}}});
            tickets.push(s.handle_line(&msg.to_string()).expect("queued"));
        }
        std::thread::sleep(Duration::from_millis(200));
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 100, "method": "tools/call",
                   "params": {"name": "search", "arguments": {"query": "decisions"}}}),
        );
        let first = next(&rx);
        assert_eq!(first["id"], 100, "{first}");
        assert!(first.get("error").is_none(), "{first}");
        drop(lock);
        for t in tickets {
            t.wait();
        }
        let mut stored = 0;
        for _ in 0..writes {
            let m = next(&rx);
            assert!(m.get("error").is_none(), "{m}");
            assert_ne!(m["result"]["isError"], json!(true), "{m}");
            stored += 1;
        }
        assert_eq!(stored, writes);
        s.wait_idle();
    }

    /// A server over a fresh sample vault; `prep` edits the vault before the first update.
    fn server_with(
        timeout_ms: u64,
        vault_opts: mindex::VaultOptions,
        prep: impl FnOnce(&std::path::Path),
    ) -> (tempfile::TempDir, Arc<McpServer>, mpsc::Receiver<Value>) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        mindex::init::init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
        for name in ["atlas", "beacon"] {
            std::fs::create_dir_all(d.path().join(name)).unwrap();
        }
        // A folder the manifest does not expose, with a manual-like README.
        std::fs::create_dir_all(root.join("drafts")).unwrap();
        std::fs::write(root.join("drafts/README.md"), "# Drafts\n\nunexposed\n").unwrap();
        prep(&root);
        let vault = Vault::open(&root, vault_opts).unwrap();
        vault.update(&mindex::NoProgress).unwrap();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let s = McpServer::new(
            vault,
            McpOptions {
                identity_timeout: Duration::from_millis(timeout_ms),
                use_vectors: false,
                ..McpOptions::default()
            },
            move |line: &str| {
                let _ = tx.lock().unwrap().send(serde_json::from_str(line).unwrap());
            },
        );
        (d, s, rx)
    }

    /// Initialises the session with `name` (a folder beside the vault) as its only root.
    fn identify_as(
        d: &tempfile::TempDir,
        s: &Arc<McpServer>,
        rx: &mpsc::Receiver<Value>,
        name: &str,
    ) {
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let req = next(rx);
        assert_eq!(req["method"], "roots/list");
        s.handle_line(&roots_reply(d, &req["id"], name).to_string());
        // The identity change is announced.
        assert_eq!(next(rx)["method"], "notifications/resources/list_changed");
    }

    /// Calls a tool and returns the whole response.
    fn tool(s: &Arc<McpServer>, rx: &mpsc::Receiver<Value>, name: &str, args: Value) -> Value {
        call(
            s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": name, "arguments": args}}),
        );
        next(rx)
    }

    fn audit_lines(d: &tempfile::TempDir) -> Vec<Value> {
        std::fs::read_to_string(d.path().join("vault/.mindex/audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Worker threads the server's lanes have started: every request thread goes through them,
    /// so this is what a burst could grow (counted per server, so tests running beside it in the
    /// same process do not disturb it).
    fn threads_now(s: &McpServer) -> usize {
        s.backend.general.workers() + s.backend.reasoning.workers() + s.backend.writing.workers()
    }

    fn call(s: &Arc<McpServer>, v: Value) {
        if let Some(h) = s.handle_line(&v.to_string()) {
            h.wait();
        }
    }

    fn next(rx: &mpsc::Receiver<Value>) -> Value {
        rx.recv_timeout(Duration::from_secs(10)).expect("a message")
    }

    fn roots_reply(d: &tempfile::TempDir, id: &Value, name: &str) -> Value {
        let uri = format!("file://{}", d.path().join(name).display());
        json!({"jsonrpc": "2.0", "id": id, "result": {"roots": [{"uri": uri}]}})
    }

    fn health_caller(s: &Arc<McpServer>, rx: &mpsc::Receiver<Value>, id: i64) -> Option<String> {
        call(
            s,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "health", "arguments": {}}}),
        );
        let r = next(rx);
        assert_eq!(r["id"], id);
        r["result"]["structuredContent"]["caller"]["project"]
            .as_str()
            .map(str::to_string)
    }

    #[test]
    fn malformed_input_gets_errors_and_notifications_get_nothing() {
        let (_d, s, rx) = server(50);
        s.handle_line("");
        s.handle_line("   ");
        assert!(rx.try_recv().is_err(), "blank lines get no reply");
        s.handle_line("{not json");
        assert_eq!(next(&rx)["error"]["code"], -32700);
        s.handle_line("[1, 2]");
        assert_eq!(next(&rx)["error"]["code"], -32600);
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#);
        assert!(rx.try_recv().is_err());
        call(&s, json!({"jsonrpc": "2.0", "id": 0, "method": "nope"}));
        let r = next(&rx);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(0), json!(-32601))
        );
        call(&s, json!({"jsonrpc": "2.0", "id": "abc", "method": "ping"}));
        assert_eq!(next(&rx)["id"], "abc");
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "search", "arguments": "not an object"}}),
        );
        assert_eq!(next(&rx)["error"]["code"], -32602);
        // Still serving.
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
        );
        assert_eq!(next(&rx)["result"]["tools"].as_array().unwrap().len(), 11);
    }

    #[test]
    fn identity_from_roots_with_refresh() {
        let (d, s, rx) = server(3000);
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"}}),
        );
        let init = next(&rx);
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let req = next(&rx);
        assert_eq!(req["method"], "roots/list");
        let id = req["id"].clone();
        assert!(id.as_i64().unwrap() > 10_000);
        // A call made before the answer waits for it.
        let s2 = s.clone();
        let waiting = std::thread::spawn(move || {
            s2.handle_line(
                &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "health", "arguments": {}}})
                .to_string(),
            )
            .unwrap()
            .wait();
        });
        std::thread::sleep(Duration::from_millis(100));
        // An answer with another id is ignored.
        s.handle_line(&roots_reply(&d, &json!(99), "beacon").to_string());
        s.handle_line(&roots_reply(&d, &id, "atlas").to_string());
        waiting.join().unwrap();
        let mut got = [next(&rx), next(&rx)];
        got.sort_by_key(|m| m.get("id").is_some());
        assert_eq!(got[0]["method"], "notifications/resources/list_changed");
        assert_eq!(
            got[1]["result"]["structuredContent"]["caller"]["project"],
            "atlas"
        );
        // roots/list_changed: a call during the refresh is served as the new root, never the old.
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
        let req = next(&rx);
        assert_eq!(req["method"], "roots/list");
        let s2 = s.clone();
        let waiting = std::thread::spawn(move || health_caller_thread(&s2));
        std::thread::sleep(Duration::from_millis(100));
        s.handle_line(&roots_reply(&d, &req["id"], "beacon").to_string());
        waiting.join().unwrap();
        let mut got = [next(&rx), next(&rx)];
        got.sort_by_key(|m| m.get("id").is_some());
        assert_eq!(
            got[1]["result"]["structuredContent"]["caller"]["project"],
            "beacon"
        );
    }

    fn health_caller_thread(s: &Arc<McpServer>) {
        s.handle_line(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "health", "arguments": {}}})
            .to_string(),
        )
        .unwrap()
        .wait();
    }

    #[test]
    fn a_client_that_never_answers_leaves_the_caller_anonymous() {
        let (_d, s, rx) = server(100);
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(next(&rx)["method"], "roots/list");
        let t = Instant::now();
        assert_eq!(health_caller(&s, &rx, 5), None);
        assert!(t.elapsed() < Duration::from_secs(5), "the wait is bounded");
    }

    #[test]
    fn empty_roots_identify_an_anonymous_caller() {
        let (_d, s, rx) = server(3000);
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let id = next(&rx)["id"].clone();
        s.handle_line(
            &json!({"jsonrpc": "2.0", "id": id, "result": {"roots": "not an array"}}).to_string(),
        );
        let t = Instant::now();
        assert_eq!(health_caller(&s, &rx, 6), None);
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "identified: no wait"
        );
    }

    #[test]
    fn resources_stay_inside_the_policy() {
        let (_d, s, rx) = server(50);
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}),
        );
        let list = next(&rx);
        let uris: Vec<String> = list["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_string())
            .collect();
        assert!(uris.contains(&"vault://note/brain/Key%20Decisions.md".to_string()));
        assert!(
            !uris
                .iter()
                .any(|u| u.contains("Home.md") || u.contains("drafts/"))
        );
        for (uri, ok) in [
            ("vault://note/brain/Key%20Decisions.md", true),
            ("vault://note/brain/Key-Decisions.md", true),
            ("vault://note/Home.md", false),
            ("vault://note/brain/../Home.md", false),
            ("file:///etc/passwd", false),
            ("vault://other/x.md", false),
        ] {
            call(
                &s,
                json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}}),
            );
            let r = next(&rx);
            if ok {
                assert_eq!(
                    r["result"]["contents"][0]["uri"], "vault://note/brain/Key%20Decisions.md",
                    "{uri}"
                );
            } else {
                assert_eq!(r["error"]["code"], -32602, "{uri}");
                assert!(
                    r["error"]["message"].as_str().unwrap().contains(uri),
                    "the URI is kept"
                );
            }
        }
    }

    #[test]
    fn search_answers_read_as_relevance_with_clean_snippets() {
        let (_d, s, rx) = server(50);
        let r = tool(
            &s,
            &rx,
            "search",
            json!({"query": "connection pool", "limit": 5}),
        );
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("(relevance ") && text.contains(": bm25 "),
            "{text}"
        );
        assert!(!text.contains("score") && !text.contains('%'), "{text}");
        assert!(!text.contains("[[") && !text.contains("## "), "{text}");
        for h in r["result"]["structuredContent"]["results"]
            .as_array()
            .unwrap()
        {
            let score = h["score"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&score), "{h}");
        }
        // A ticket id: the note holding it first, said to be an exact match.
        let r = tool(&s, &rx, "search", json!({"query": "OPS-1432", "limit": 3}));
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.contains("2026-03-14 Checkout outage.md") && first.contains("exact match"),
            "{text}"
        );
    }

    #[test]
    fn search_withholds_what_is_out_of_scope() {
        let (_d, s, rx) = server(50);
        // Home.md mentions the projects, but it is not exposed.
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "", "limit": 3}}}),
        );
        assert!(
            next(&rx)["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("needs a query")
        );
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "vault home start", "limit": 0}}}),
        );
        let r = next(&rx);
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("(no result"), "{text}");
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "query", "arguments": {"searches": [{"type": "sql", "query": "x"}]}}}),
        );
        let m = next(&rx);
        assert_eq!(m["result"]["isError"], true, "{m}");
        // An unknown tool stays a protocol error.
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "drop_tables", "arguments": {}}}),
        );
        assert_eq!(next(&rx)["error"]["code"], -32602);
    }

    #[test]
    fn uris_encode_each_segment() {
        assert_eq!(
            note_uri("brain/Key Decisions.md"),
            "vault://note/brain/Key%20Decisions.md"
        );
        assert_eq!(note_uri("a/b#c?.md"), "vault://note/a/b%23c%3F.md");
    }

    // ----- issue 13: exposure on every path, no request exhausts the server -----

    #[test]
    fn a_request_burst_gets_a_bounded_pool_and_busy_errors_never_a_thread_each() {
        // The client never answers roots/list: every call holds its worker until the deadline.
        let (_d, s, rx) = server(1500);
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(next(&rx)["method"], "roots/list");
        let before = threads_now(&s);
        let n = 5_000;
        let mut peak = 0;
        for i in 0..n {
            s.handle_line(
                &json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "health", "arguments": {}}})
                .to_string(),
            );
            if i % 500 == 0 {
                peak = peak.max(threads_now(&s));
            }
        }
        peak = peak.max(threads_now(&s));
        let mut busy = 0;
        let mut served = 0;
        for _ in 0..n {
            let m = next(&rx);
            if m.get("error").is_some() {
                assert_eq!(m["error"]["code"], BUSY, "{m}");
                assert_eq!(
                    m["error"]["message"],
                    format!("server busy: {MCP_QUEUE} requests queued, retry")
                );
                busy += 1;
            } else {
                assert_eq!(
                    m["result"]["structuredContent"]["caller"]["project"],
                    json!(null)
                );
                served += 1;
            }
        }
        assert_eq!(busy + served, n);
        assert!(served >= MCP_QUEUE, "served {served}");
        assert!(served <= MCP_QUEUE + MCP_WORKERS, "served {served}");
        assert!(
            peak <= before + MCP_WORKERS + REASON_WORKERS && peak <= MCP_WORKERS,
            "worker threads grew from {before} to {peak}"
        );
        // After the deadline nobody waits: the server answers at once again.
        let t = Instant::now();
        assert_eq!(health_caller(&s, &rx, 9), None);
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn a_slow_reason_call_has_its_own_lane_and_never_starves_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let agent = d.path().join("slow-agent.sh");
        std::fs::write(&agent, "#!/bin/sh\nsleep 3\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let root = d.path().join("vault");
        mindex::init::init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
        let vault = Vault::open(&root, mindex::VaultOptions::default()).unwrap();
        vault.update(&mindex::NoProgress).unwrap();
        let (tx, rx) = mpsc::channel::<Value>();
        let tx = Mutex::new(tx);
        let s = McpServer::new(
            vault,
            McpOptions {
                identity_timeout: Duration::from_millis(50),
                use_vectors: false,
                reason: mindex::ReasonOptions {
                    command: Some(agent),
                    timeout: Some(Duration::from_secs(20)),
                    ..Default::default()
                },
                ..McpOptions::default()
            },
            move |line: &str| {
                let _ = tx.lock().unwrap().send(serde_json::from_str(line).unwrap());
            },
        );
        let reason = |id: i64| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "reason", "arguments": {"question": "why did we pick the ledger?"}}})
            .to_string()
        };
        let mut tickets = Vec::new();
        for id in 1..=(REASON_WORKERS + REASON_QUEUE) as i64 {
            tickets.push(s.handle_line(&reason(id)).expect("queued"));
            std::thread::sleep(Duration::from_millis(20));
        }
        // The reason lane is full: one more is refused at once.
        assert!(s.handle_line(&reason(99)).is_none());
        let m = next(&rx);
        assert_eq!(m["id"], 99);
        assert_eq!(m["error"]["code"], BUSY);
        assert!(
            m["error"]["message"].as_str().unwrap().contains("reason"),
            "{m}"
        );
        // Everything else is still served right away.
        let t = Instant::now();
        call(&s, json!({"jsonrpc": "2.0", "id": 100, "method": "ping"}));
        assert_eq!(next(&rx)["id"], 100);
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 101, "method": "tools/call",
                   "params": {"name": "search", "arguments": {"query": "decisions"}}}),
        );
        assert_eq!(next(&rx)["id"], 101);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        for t in tickets {
            t.wait();
        }
        s.wait_idle();
    }

    #[test]
    fn a_refresh_the_client_never_answers_refuses_calls_instead_of_using_the_old_identity() {
        let (d, s, rx) = server(300);
        identify_as(&d, &s, &rx, "atlas");
        assert_eq!(health_caller(&s, &rx, 1).as_deref(), Some("atlas"));
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
        assert_eq!(next(&rx)["method"], "roots/list");
        for (id, name, args) in [
            (2, "recall", json!({})),
            (3, "health", json!({})),
            (4, "search", json!({"query": "decisions"})),
        ] {
            call(
                &s,
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": name, "arguments": args}}),
            );
            let m = next(&rx);
            assert_eq!(m["id"], id);
            assert!(m.get("result").is_none(), "{name} ran: {m}");
            assert_eq!(m["error"]["code"], IDENTITY_UNKNOWN, "{m}");
            let msg = m["error"]["message"].as_str().unwrap();
            assert!(
                msg.starts_with("identity unknown") && msg.contains("roots/list"),
                "{msg}"
            );
        }
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                   "params": {"uri": "vault://note/brain/Gotchas.md"}}),
        );
        assert_eq!(next(&rx)["error"]["code"], IDENTITY_UNKNOWN);
        // Requests that do not depend on the caller still work.
        call(&s, json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}));
        assert!(next(&rx).get("result").is_some());
    }

    #[test]
    fn only_file_roots_identify_on_mcp() {
        let (_d, s, rx) = server(3000);
        s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let id = next(&rx)["id"].clone();
        s.handle_line(
            &json!({"jsonrpc": "2.0", "id": id, "result": {"roots": [
                {"uri": "https://github.com/acme/atlas"}, {"uri": "/srv/beacon"}]}})
            .to_string(),
        );
        assert_eq!(health_caller(&s, &rx, 2), None);
    }

    #[test]
    fn oversized_messages_and_arguments_get_clear_errors_and_the_server_keeps_serving() {
        let (_d, s, rx) = server(50);
        // handle_line refuses a line over the limit without parsing it.
        let huge = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
            "a".repeat(MAX_MESSAGE_BYTES)
        );
        assert!(s.handle_line(&huge).is_none());
        let m = next(&rx);
        assert_eq!(m["error"]["code"], -32600);
        assert!(
            m["error"]["message"]
                .as_str()
                .unwrap()
                .contains("4194304-byte"),
            "{m}"
        );
        // serve() never buffers past the limit: a 12 MiB line, invalid UTF-8, then a ping.
        let mut input = Vec::new();
        input.extend(std::iter::repeat_n(b'x', 12 * 1024 * 1024));
        input.push(b'\n');
        input.extend(b"\xff\xfe\n");
        input.extend(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        s.serve(std::io::BufReader::new(&input[..]));
        let m = next(&rx);
        assert_eq!(m["error"]["code"], -32600, "{m}");
        assert!(
            m["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("{} bytes", 12 * 1024 * 1024))
        );
        assert_eq!(next(&rx)["error"]["code"], -32700);
        assert_eq!(next(&rx)["id"], 7);
        // Query length: named argument and limit.
        let long = "deploy ".repeat(400);
        for (name, args, arg) in [
            ("search", json!({"query": long}), "`query`"),
            ("query", json!({"query": long}), "`query`"),
            (
                "query",
                json!({"searches": [{"type": "lex", "query": "ok"}, {"type": "vec", "query": long}]}),
                "`searches[1].query`",
            ),
            ("recall", json!({"query": long}), "`query`"),
            (
                "get",
                json!({"path": "x".repeat(MAX_PATH_CHARS + 1)}),
                "`path`",
            ),
            (
                "multi_get",
                json!({"pattern": "x".repeat(MAX_PATH_CHARS + 1)}),
                "`pattern`",
            ),
            (
                "expand",
                json!({"note": "x".repeat(MAX_PATH_CHARS + 1)}),
                "`note`",
            ),
            (
                "reason",
                json!({"question": "x".repeat(MAX_QUESTION_CHARS + 1)}),
                "`question`",
            ),
        ] {
            let m = tool(&s, &rx, name, args);
            // A tool result the model reads and corrects (issue 17 finding 8), not a protocol
            // error.
            assert_eq!(m["result"]["isError"], true, "{name}: {m}");
            let msg = m["result"]["content"][0]["text"].as_str().unwrap();
            assert!(
                msg.contains(arg) && msg.contains("-character limit"),
                "{name}: {msg}"
            );
        }
        let m = tool(
            &s,
            &rx,
            "search",
            json!({"query": "decisions", "limit": 1e300}),
        );
        assert!(m.get("result").is_some(), "{m}");
        // A query at the limit is served.
        let m = tool(
            &s,
            &rx,
            "search",
            json!({"query": "d".repeat(MAX_QUERY_CHARS)}),
        );
        assert!(m.get("result").is_some(), "{m}");
    }

    #[test]
    fn read_line_capped_keeps_at_most_the_cap() {
        let mut data = b"short\n".to_vec();
        data.extend(std::iter::repeat_n(b'y', 100_000));
        data.extend(b"\nlast");
        let mut r = std::io::BufReader::with_capacity(1000, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line_capped(&mut r, &mut buf, 10).unwrap(), Line::Full);
        assert_eq!(buf, b"short");
        assert_eq!(
            read_line_capped(&mut r, &mut buf, 10).unwrap(),
            Line::TooLong(100_000)
        );
        assert!(buf.is_empty() && buf.capacity() <= 64 * 1024);
        assert_eq!(read_line_capped(&mut r, &mut buf, 10).unwrap(), Line::Full);
        assert_eq!(buf, b"last");
        assert_eq!(read_line_capped(&mut r, &mut buf, 10).unwrap(), Line::Eof);
    }

    #[test]
    fn reads_serve_at_most_the_read_limit_and_say_so() {
        let big = format!(
            "# Big\n\n{}\n",
            "lorem ipsum dolor\n".repeat(3 * 1024 * 1024 / 18)
        );
        let (_d, s, rx) = server_with(50, mindex::VaultOptions::default(), |root| {
            std::fs::write(root.join("brain/Big.md"), &big).unwrap();
            for i in 0..3 {
                std::fs::write(root.join(format!("brain/Half{i}.md")), &big[..1_500_000]).unwrap();
            }
        });
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                   "params": {"uri": "vault://note/brain/Big.md"}}),
        );
        let m = next(&rx);
        let text = m["result"]["contents"][0]["text"].as_str().unwrap();
        assert!(text.len() < MAX_READ_BYTES + 300, "{}", text.len());
        assert!(text.contains(TRUNCATED_MARKER) && text.contains(&big.len().to_string()));
        // `get` serves a page of whole lines, says where to continue, and carries the text once.
        let m = tool(&s, &rx, "get", json!({"path": "brain/Big.md"}));
        let text = m["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.len() < AGENT_PAGE_BYTES + 300, "{}", text.len());
        let st = &m["result"]["structuredContent"];
        assert!(st.get("text").is_none(), "the text once: {st}");
        assert_eq!(st["truncated"], true);
        assert_eq!(st["bytes"], big.len());
        let next_line = st["next_from_line"].as_u64().unwrap();
        assert_eq!(next_line, st["line_end"].as_u64().unwrap() + 1);
        assert!(text.ends_with(&format!(
            "call get with from_line={next_line} for the rest]"
        )));
        // Once, not twice: the whole JSON answer is the page plus escaping and metadata.
        assert!(
            m.to_string().len() < AGENT_PAGE_BYTES + 4_000,
            "{}",
            m.to_string().len()
        );
        // The next page starts where the first stopped; the last page of the 1 MiB read says the
        // rest of the file is not served.
        let m = tool(
            &s,
            &rx,
            "get",
            json!({"path": "brain/Big.md", "from_line": next_line}),
        );
        assert_eq!(
            m["result"]["structuredContent"]["line_start"].as_u64(),
            Some(next_line)
        );
        let total = m["result"]["structuredContent"]["total_lines"]
            .as_u64()
            .unwrap();
        let m = tool(
            &s,
            &rx,
            "get",
            json!({"path": "brain/Big.md", "from_line": total - 5}),
        );
        let text = m["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(TRUNCATED_MARKER), "{text}");
        assert!(m["result"]["structuredContent"]["next_from_line"].is_null());
        // `multi_get`: one page per note, 64 KiB in all, the rest skipped to be read with get.
        let m = tool(&s, &rx, "multi_get", json!({"pattern": "brain/Half*.md"}));
        let items = m["result"]["structuredContent"]["items"]
            .as_array()
            .unwrap();
        assert_eq!(items.len(), 3);
        assert!(
            items.iter().all(|i| i.get("text").is_none()),
            "the text once"
        );
        let text = m["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.len() <= MAX_MULTI_GET_BYTES + 1000, "{}", text.len());
        assert!(text.contains("call get with from_line="), "{text}");
        assert!(items.iter().any(|i| i["status"] == "skipped"
            && i["reason"].as_str().unwrap().contains("multi_get limit")));
    }

    #[test]
    fn name_lookup_sees_only_visible_notes_and_hidden_equals_missing() {
        let (_d, s, rx) = server_with(50, mindex::VaultOptions::default(), |root| {
            std::fs::write(root.join("brain/Dup.md"), "# Dup\n\nvisible copy\n").unwrap();
            std::fs::write(root.join("drafts/Dup.md"), "# Dup\n\nHIDDENCOPY\n").unwrap();
            std::fs::write(
                root.join("brain/Sealed.md"),
                "---\nprivate: true\n---\nPRIVATECOPY\n",
            )
            .unwrap();
        });
        // An ambiguous name resolves among visible notes only.
        let m = tool(&s, &rx, "get", json!({"path": "Dup"}));
        assert_eq!(
            m["result"]["structuredContent"]["path"], "brain/Dup.md",
            "{m}"
        );
        let m = tool(&s, &rx, "multi_get", json!({"pattern": "Dup"}));
        assert!(
            !m.to_string().contains("drafts") && !m.to_string().contains("HIDDENCOPY"),
            "{m}"
        );
        assert_eq!(
            m["result"]["structuredContent"]["items"][0]["path"],
            "brain/Dup.md"
        );
        // Hidden (unexposed, private, memory) and missing get the same answer.
        let answer = |name: &str, spec: &str| -> String {
            let m = tool(
                &s,
                &rx,
                name,
                if name == "get" {
                    json!({"path": spec})
                } else {
                    json!({"pattern": spec})
                },
            );
            m["result"].to_string().replace(spec, "<spec>")
        };
        for tool_name in ["get", "multi_get"] {
            let missing = answer(tool_name, "Nowhere Note");
            for hidden in [
                "Home",
                "Home.md",
                "drafts/Dup.md",
                "Sealed",
                "brain/Sealed.md",
                "drafts/README",
            ] {
                assert_eq!(answer(tool_name, hidden), missing, "{tool_name} {hidden}");
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_swapped_while_the_server_reads_never_leaks() {
        let (d, s, rx) = server(50);
        let outside = d.path().join("outside.md");
        std::fs::write(&outside, "# Outside\n\nOUTSIDESECRET\n").unwrap();
        let brain = d.path().join("vault/brain");
        let link = brain.join("Swap.md");
        std::os::unix::fs::symlink(brain.join("Gotchas.md"), &link).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let mut served = 0;
        std::thread::scope(|sc| {
            sc.spawn(|| {
                let tmp = brain.join(".swap-tmp");
                let mut out = false;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::fs::remove_file(&tmp);
                    let target = if out {
                        outside.clone()
                    } else {
                        brain.join("Gotchas.md")
                    };
                    std::os::unix::fs::symlink(&target, &tmp).unwrap();
                    std::fs::rename(&tmp, &link).unwrap();
                    out = !out;
                }
            });
            for i in 0..3000 {
                let m = if i % 3 == 0 {
                    tool(&s, &rx, "get", json!({"path": "brain/Swap.md"}))
                } else if i % 3 == 1 {
                    tool(&s, &rx, "multi_get", json!({"pattern": "brain/Swap.md"}))
                } else {
                    call(
                        &s,
                        json!({"jsonrpc": "2.0", "id": i, "method": "resources/read",
                               "params": {"uri": "vault://note/brain/Swap.md"}}),
                    );
                    next(&rx)
                };
                assert!(
                    !m.to_string().contains("OUTSIDESECRET"),
                    "read {i} leaked: {m}"
                );
                if m.get("result").is_some()
                    && m["result"]["isError"] != json!(true)
                    && m.to_string().contains("Gotchas")
                {
                    served += 1;
                }
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        assert!(
            served > 0,
            "the inside target is served while it is in place"
        );
    }

    #[test]
    fn status_and_health_show_only_what_the_caller_may_see_and_no_absolute_path() {
        let d0 = tempfile::tempdir().unwrap();
        let outside = d0.path().join("elsewhere/target-secret.md");
        std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
        std::fs::write(&outside, "# x\n").unwrap();
        let outside2 = outside.clone();
        let (d, s, rx) = server_with(3000, mindex::VaultOptions::default(), move |root| {
            std::fs::write(
                root.join("brain/Private Salary Review.md"),
                "---\nprivate: true\n---\n# P\n",
            )
            .unwrap();
            std::fs::write(root.join("drafts/Unexposed Layoff Plan.md"), "# U\n").unwrap();
            std::fs::create_dir_all(root.join("memories/2026/01")).unwrap();
            std::fs::write(
                root.join("memories/2026/01/beacon-acquisition-codename-zephyr.md"),
                "---\nsource: mcp-capture\nscope: project\nprojects: [beacon]\n---\n# Beacon acquisition codename zephyr\n\nbody\n",
            ).unwrap();
            std::os::unix::fs::symlink(&outside2, root.join("brain/escape.md")).unwrap();
            std::fs::write(
                root.join("brain/Broken FM.md"),
                "---\ntitle: [unclosed\n---\n# B\n",
            )
            .unwrap();
        });
        identify_as(&d, &s, &rx, "atlas");
        // Pending changes of every kind.
        let root = d.path().join("vault");
        std::fs::write(root.join("drafts/Pending Secret Merger.md"), "# M\n").unwrap();
        std::fs::write(root.join("brain/Visible New.md"), "# V\n").unwrap();
        std::fs::remove_file(root.join("drafts/Unexposed Layoff Plan.md")).unwrap();
        let m = tool(&s, &rx, "status", json!({}));
        let all = m.to_string();
        for secret in [
            "Salary",
            "Layoff",
            "zephyr",
            "Zephyr",
            "target-secret",
            "elsewhere",
            "Merger",
            "escape.md",
        ] {
            assert!(!all.contains(secret), "status names {secret}: {all}");
        }
        let vault_path = d.path().to_string_lossy().to_string();
        assert!(
            !all.contains(&vault_path),
            "status holds an absolute path: {all}"
        );
        let st = &m["result"]["structuredContent"];
        assert!(st["not_shown"].as_u64().unwrap() >= 4, "{st}");
        // The text an agent reads is prose, not the JSON again (issue 17 finding 8).
        let text = m["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("Index: "), "{text}");
        assert!(
            text.contains("Pending: ") && text.contains("brain/Visible New.md"),
            "{text}"
        );
        assert!(!text.trim_start().starts_with('{'), "{text}");
        assert_eq!(st["pending"]["added"], json!(["brain/Visible New.md"]));
        assert!(
            st["last_update"]["changes"]["added"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p.as_str().unwrap().starts_with("brain/")
                    || p.as_str().unwrap().starts_with("reference/")
                    || p.as_str().unwrap().starts_with("work/")
                    || p.as_str().unwrap().starts_with("org/")
                    || p.as_str().unwrap().starts_with("perf/")
                    || p.as_str().unwrap().starts_with("thinking/")),
            "{st}"
        );
        let m = tool(&s, &rx, "health", json!({}));
        let all = m.to_string();
        assert!(
            !all.contains(&vault_path),
            "health holds an absolute path: {all}"
        );
        assert_eq!(
            m["result"]["structuredContent"]["caller"]["project"],
            "atlas"
        );
    }

    #[test]
    fn errors_never_carry_absolute_paths() {
        let (d, s, _rx) = server(50);
        let root = d.path().join("vault");
        for msg in [
            format!("cannot read {}/brain/x.md: denied", root.display()),
            "open /etc/shadow failed".to_string(),
            format!("at {}", d.path().join("outside/y.md").display()),
        ] {
            let out = s.scrub(&msg);
            assert!(
                !out.contains(&d.path().to_string_lossy().to_string())
                    && !out.contains("/etc/shadow"),
                "{out}"
            );
        }
        assert_eq!(
            s.scrub(&format!("cannot read {}/brain/x.md", root.display())),
            "cannot read <vault>/brain/x.md"
        );
        for keep in [
            "no such resource: vault://note/brain/../x.md",
            "brain/Key Decisions.md",
            "https://example.com/a/b",
        ] {
            assert_eq!(s.scrub(keep), keep);
        }
    }

    #[test]
    fn expand_never_parses_notes_over_the_size_limit_and_is_audited_with_the_caller() {
        let opts = mindex::VaultOptions {
            max_note_bytes: 4_000,
            ..mindex::VaultOptions::default()
        };
        let (d, s, rx) = server_with(3000, opts, |root| {
            let links = "[[Gotchas]] ".repeat(1_000);
            std::fs::write(
                root.join("brain/Huge Links.md"),
                format!("# Huge\n\n{links}\n"),
            )
            .unwrap();
            std::fs::write(
                root.join("brain/Small Links.md"),
                "# Small\n\n[[Gotchas]]\n",
            )
            .unwrap();
        });
        identify_as(&d, &s, &rx, "atlas");
        let m = tool(&s, &rx, "expand", json!({"note": "Gotchas"}));
        let from: Vec<String> = m["result"]["structuredContent"]["linked_from"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["path"].as_str().unwrap().to_string())
            .collect();
        assert!(
            from.contains(&"brain/Small Links.md".to_string()),
            "{from:?}"
        );
        assert!(
            !from.contains(&"brain/Huge Links.md".to_string()),
            "parsed an over-limit note: {from:?}"
        );
        let m = tool(&s, &rx, "expand", json!({"note": "Huge Links"}));
        assert_eq!(m["result"]["isError"], true, "{m}");
        assert!(
            m["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("4000-byte note limit"),
            "{m}"
        );
        // Every agent-facing call is audited with the real caller.
        tool(&s, &rx, "status", json!({}));
        tool(&s, &rx, "health", json!({}));
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"}),
        );
        next(&rx);
        let lines = audit_lines(&d);
        for action in ["expand", "status", "health", "resources_list"] {
            let l: Vec<&Value> = lines.iter().filter(|l| l["action"] == action).collect();
            assert!(!l.is_empty(), "{action} not audited");
            assert!(l.iter().all(|l| l["caller"] == "atlas"), "{action}: {l:?}");
        }
    }

    #[test]
    fn huge_uris_cannot_flush_the_audit_log() {
        let (d, s, rx) = server(50);
        tool(&s, &rx, "search", json!({"query": "first audited entry"}));
        let uri = format!("vault://note/{}", "a".repeat(MAX_PATH_CHARS - 20));
        for _ in 0..2 {
            call(
                &s,
                json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}}),
            );
            assert!(next(&rx).get("error").is_some());
        }
        let lines = audit_lines(&d);
        assert_eq!(
            lines[0]["query"], "first audited entry",
            "the query is logged once"
        );
        let denied: Vec<&Value> = lines
            .iter()
            .filter(|l| l["action"] == "resource_denied")
            .collect();
        assert_eq!(denied.len(), 2);
        for l in denied {
            assert!(l["uri"].as_str().unwrap().contains("[truncated:"), "{l}");
            assert!(l.to_string().len() < 1_000);
        }
        // Over the argument limit: refused before anything is read or logged at length.
        let uri = format!("vault://note/{}", "a".repeat(MAX_PATH_CHARS));
        call(
            &s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": uri}}),
        );
        let m = next(&rx);
        assert_eq!(m["error"]["code"], -32602);
        assert!(
            m["error"]["message"].as_str().unwrap().contains("`uri`"),
            "{m}"
        );
    }

    #[test]
    fn health_names_only_memories_the_caller_may_recall() {
        let (d, s, rx) = server_with(3000, mindex::VaultOptions::default(), |root| {
            std::fs::create_dir_all(root.join("memories/2026/01")).unwrap();
            std::fs::write(
                root.join("memories/2026/01/zephyr-acquisition-lesson.md"),
                "---\nsource: mcp-capture\nscope: project\nprojects: [zephyrcorp]\nconfidence: verified\npromoted: \"brain/Nowhere.md#^gone\"\n---\n# Zephyr acquisition lesson\n\nA lesson body long enough to be a memory of its own.\n",
            )
            .unwrap();
        });
        // The owner's view names the file and its project.
        let owner = s
            .vault()
            .health(&Caller::named("zephyrcorp").unwrap())
            .unwrap();
        let owner_text = format!("{:?}{:?}", owner.warnings, owner.notes);
        assert!(
            owner_text.contains("zephyr-acquisition-lesson"),
            "{owner_text}"
        );
        identify_as(&d, &s, &rx, "atlas");
        let m = tool(&s, &rx, "health", json!({}));
        let all = m.to_string();
        assert!(
            !all.contains("zephyr"),
            "health names another project's memory: {all}"
        );
        assert!(
            all.contains("1 memory file(s) this caller cannot recall"),
            "{all}"
        );
    }
}
