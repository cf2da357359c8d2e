//! The MCP server: newline-delimited JSON-RPC 2.0 over any line transport (the CLI runs it on
//! stdio as `mindex mcp`).
//!
//! - Requests are handled concurrently, each on its own thread; responses may come back in any
//!   order, matched by id.
//! - Identity: after `notifications/initialized` the server asks the client for `roots/list`;
//!   the first root names the caller's project. Tool calls and resource reads wait for the
//!   answer (at most [`McpOptions::identity_timeout`], then they proceed under the last known
//!   identity, anonymous when none), and after `notifications/roots/list_changed` they wait for
//!   the new roots: nothing is ever answered under a stale identity while a refresh is pending.
//! - Everything agents read goes through the exposure policy and is written to the audit log.
//! - Malformed JSON (-32700), non-object messages (-32600), unknown methods (-32601) and bad
//!   arguments (-32602) get JSON-RPC errors; messages are sanitised of local paths; the server
//!   keeps serving.

use std::fs;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::embed::{BertEmbedder, Embedder};
use crate::error::Error;
use crate::identity::Caller;
use crate::lexical::Hit;
use crate::memory::MemoryInput;
use crate::memory::text::{FmValue, parse_frontmatter, sanitize};
use crate::query::{SubQuery, SubQueryKind};
use crate::vault::{RecallOptions, Vault, WorkInput};

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Default wait for the client's roots before a call proceeds without them.
pub const IDENTITY_TIMEOUT: Duration = Duration::from_secs(2);
/// First id of requests the server sends (roots/list).
const SERVER_ID_BASE: i64 = 10_000;
/// Cap on the text of a search result.
const SEARCH_TEXT_CAP: usize = 6000;

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
    pub reason: crate::vault::ReasonOptions,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            identity_timeout: IDENTITY_TIMEOUT,
            use_vectors: true,
            reason: crate::vault::ReasonOptions::default(),
        }
    }
}

#[derive(Debug)]
struct Session {
    roots: Vec<String>,
    /// The id of the latest roots/list request sent.
    roots_request: Option<i64>,
    next_id: i64,
    identified: bool,
    /// A roots/list_changed arrived and its answer is pending.
    refreshing: bool,
    caller: Caller,
}

type Sink = Box<dyn Fn(&str) + Send + Sync>;

/// One MCP session over a vault. Feed it input lines with [`McpServer::handle_line`]; it
/// writes each outgoing message (one JSON object, no newline) to the sink.
pub struct McpServer {
    vault: Vault,
    opts: McpOptions,
    sink: Sink,
    session: Mutex<Session>,
    changed: Condvar,
    model: OnceLock<Option<Arc<BertEmbedder>>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("vault", &self.vault.root())
            .finish_non_exhaustive()
    }
}

/// A JSON-RPC error.
struct RpcError {
    code: i64,
    message: String,
}

fn invalid_params(message: impl Into<String>) -> RpcError {
    RpcError {
        code: -32602,
        message: message.into(),
    }
}

type RpcResult = Result<Value, RpcError>;

fn text_result(text: String, structured: Value) -> Value {
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
    })
}

fn tool_error(text: String) -> Value {
    json!({"content": [{"type": "text", "text": sanitize(&text)}], "isError": true})
}

fn arg_str<'a>(args: &'a Value, k: &str) -> Option<&'a str> {
    args.get(k).and_then(Value::as_str)
}

fn arg_usize(args: &Value, k: &str, default: usize) -> Result<usize, RpcError> {
    match args.get(k) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(|x| x.max(0.0) as usize)
            .ok_or_else(|| invalid_params(format!("`{k}` must be a number"))),
    }
}

fn req_str<'a>(args: &'a Value, k: &str) -> Result<&'a str, RpcError> {
    arg_str(args, k).ok_or_else(|| invalid_params(format!("`{k}` is required (a string)")))
}

/// `vault://note/<rel>` with each segment percent-encoded.
pub fn note_uri(rel: &str) -> String {
    let enc: Vec<String> = rel
        .split('/')
        .map(|seg| {
            let mut o = String::new();
            for b in seg.bytes() {
                if b.is_ascii_alphanumeric() || b"-._~()'!*,;@&=+$".contains(&b) {
                    o.push(b as char);
                } else {
                    o.push_str(&format!("%{b:02X}"));
                }
            }
            o
        })
        .collect();
    format!("vault://note/{}", enc.join("/"))
}

impl McpServer {
    /// A server for `vault`, writing outgoing messages to `sink`.
    pub fn new(
        vault: Vault,
        opts: McpOptions,
        sink: impl Fn(&str) + Send + Sync + 'static,
    ) -> Arc<McpServer> {
        Arc::new(McpServer {
            vault,
            opts,
            sink: Box::new(sink),
            session: Mutex::new(Session {
                roots: Vec::new(),
                roots_request: None,
                next_id: SERVER_ID_BASE,
                identified: false,
                refreshing: false,
                caller: Caller::anonymous(),
            }),
            changed: Condvar::new(),
            model: OnceLock::new(),
        })
    }

    fn send(&self, v: &Value) {
        (self.sink)(&v.to_string());
    }

    fn respond(&self, id: Value, r: RpcResult) {
        match r {
            Ok(result) => self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result})),
            Err(e) => self.send(&json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": e.code, "message": sanitize(&e.message)}})),
        }
    }

    /// Handles one input line. Requests run on their own thread, whose handle is returned (so a
    /// transport can wait for in-flight requests before it exits).
    pub fn handle_line(self: &Arc<Self>, line: &str) -> Option<JoinHandle<()>> {
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
                let me = self.clone();
                Some(std::thread::spawn(move || {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        me.on_request(&m, &params)
                    }))
                    .unwrap_or_else(|_| {
                        Err(RpcError {
                            code: -32603,
                            message: format!("internal error while handling {m}"),
                        })
                    });
                    me.respond(id, r);
                }))
            }
        }
    }

    fn request_roots(&self) {
        let id = {
            let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            s.next_id += 1;
            s.roots_request = Some(s.next_id);
            s.next_id
        };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}));
    }

    fn on_notification(&self, method: &str) {
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
            let caller = self
                .vault
                .identify(Caller::from_roots(&roots, self.vault.root()));
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
    fn caller(&self) -> Caller {
        let deadline = Instant::now() + self.opts.identity_timeout;
        let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
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
        s.caller.clone()
    }

    /// The default model, when vectors exist for it and it is installed.
    fn embedder(&self) -> Option<Arc<BertEmbedder>> {
        if !self.opts.use_vectors || self.vault.vector_status().is_none() {
            return None;
        }
        self.model
            .get_or_init(|| {
                BertEmbedder::load(&crate::embed::model_dir(None))
                    .ok()
                    .map(Arc::new)
            })
            .clone()
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
                    "serverInfo": {"name": "mindex", "version": crate::VERSION},
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
                    return Err(invalid_params(format!("unknown tool {name}")));
                }
                let caller = self.caller();
                self.call_tool(name, &args, &caller)
            }
            "resources/list" => {
                let _ = self.caller();
                Ok(json!({"resources": self.list_resources()}))
            }
            "resources/read" => {
                let caller = self.caller();
                let uri = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid_params("`uri` is required"))?;
                self.read_resource(uri, &caller)
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
                        (
                            "What the vault knows about a topic",
                            format!(
                                "Search the vault for what is known about \"{t}\", then `expand` the most relevant note to follow its links. Summarise with citations (note paths), preserving (TBC)/(inferred) qualifiers and \"as of\" dates."
                            ),
                        )
                    }
                    other => return Err(invalid_params(format!("no prompt {other}"))),
                };
                Ok(json!({"description": description,
                    "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}))
            }
            other => Err(RpcError {
                code: -32601,
                message: format!("no method {other}"),
            }),
        }
    }

    fn call_tool(&self, name: &str, args: &Value, caller: &Caller) -> RpcResult {
        let who = caller.project.as_deref();
        let log = self.vault.audit_log();
        match name {
            "search" | "query" => {
                let limit = arg_usize(args, "limit", if name == "search" { 5 } else { 10 })?;
                let subs: Vec<SubQuery> = if name == "search" {
                    let q = arg_str(args, "query").unwrap_or("").trim();
                    if q.is_empty() {
                        return Ok(text_result(
                            "(search needs a query)".into(),
                            json!({"results": []}),
                        ));
                    }
                    SubQuery::hybrid(q)
                } else {
                    typed_subqueries(args)?
                };
                let label = subs
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ");
                match self.scoped_search(&subs, limit) {
                    Ok((hits, withheld, total, notices)) => {
                        let text = render_hits(&hits, withheld, limit, &notices);
                        log.append(
                            name,
                            who,
                            json!({"query": label, "withheld": withheld,
                            "total": total, "bytes": text.len()}),
                        );
                        Ok(text_result(
                            text,
                            json!({"results": hits, "withheld": withheld,
                            "total": total, "notices": notices}),
                        ))
                    }
                    Err(e) => Ok(tool_error(format!("search failed: {e}"))),
                }
            }
            "get" => {
                let spec = req_str(args, "path")?;
                let from = args
                    .get("from_line")
                    .and_then(Value::as_u64)
                    .map(|x| x as usize);
                let max = args
                    .get("max_lines")
                    .and_then(Value::as_u64)
                    .map(|x| x as usize);
                let ex = self.vault.exposure();
                let found = self
                    .vault
                    .resolve(spec)
                    .ok()
                    .filter(|rel| ex.may_read(rel).is_ok());
                let Some(rel) = found else {
                    log.append("resource_denied", who, json!({"uri": spec, "tool": "get"}));
                    return Ok(tool_error(format!(
                        "No visible note matches \"{spec}\" (it may not exist, or lie outside the folders this vault exposes)."
                    )));
                };
                match self.vault.get(&rel, from, max) {
                    Ok(n) => {
                        log.append("get", who, json!({"path": rel}));
                        Ok(text_result(
                            n.text.clone(),
                            serde_json::to_value(&n).unwrap_or_default(),
                        ))
                    }
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "multi_get" => {
                let pattern = req_str(args, "pattern")?;
                let max_bytes = args.get("max_bytes").and_then(Value::as_u64);
                let ex = self.vault.exposure();
                match self.vault.multi_get(pattern, max_bytes) {
                    Ok(items) => {
                        let items: Vec<_> = items
                            .into_iter()
                            .filter(|i| {
                                let p = match i {
                                    crate::MultiGetItem::Ok(n) => &n.path,
                                    crate::MultiGetItem::Skipped { path, .. } => path,
                                };
                                ex.may_read(p).is_ok()
                            })
                            .collect();
                        let mut text = String::new();
                        for i in &items {
                            match i {
                                crate::MultiGetItem::Ok(n) => {
                                    text.push_str(&format!("==> {} <==\n{}\n\n", n.path, n.text));
                                }
                                crate::MultiGetItem::Skipped { path, reason } => {
                                    text.push_str(&format!("==> {path} <== skipped: {reason}\n\n"));
                                }
                            }
                        }
                        if items.is_empty() {
                            text.push_str("(no visible notes match)");
                        }
                        log.append(
                            "multi_get",
                            who,
                            json!({"pattern": pattern, "returned": items.len()}),
                        );
                        Ok(text_result(text, json!({"items": items})))
                    }
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "expand" => {
                let note = req_str(args, "note")?;
                match self.vault.expand(note) {
                    Ok(e) => Ok(text_result(
                        e.to_text(),
                        serde_json::to_value(&e).unwrap_or_default(),
                    )),
                    Err(e) => {
                        log.append("expand", who, json!({"note": note, "found": null}));
                        Ok(tool_error(match e {
                            Error::NoteNotFound { suggestions, .. } if !suggestions.is_empty() => {
                                format!(
                                    "No visible note matches \"{note}\". Did you mean: {}?",
                                    suggestions.join("; ")
                                )
                            }
                            Error::NoteNotFound { .. } => {
                                format!("No visible note matches \"{note}\".")
                            }
                            other => other.to_string(),
                        }))
                    }
                }
            }
            "recall" => {
                let opts = RecallOptions {
                    query: arg_str(args, "query")
                        .map(str::to_string)
                        .filter(|q| !q.trim().is_empty()),
                    limit: arg_usize(args, "limit", crate::memory::DEFAULT_RECALL_LIMIT)?,
                    explain: args.get("explain").and_then(Value::as_bool) == Some(true),
                };
                let model = if opts.query.is_some() {
                    self.embedder()
                } else {
                    None
                };
                match self
                    .vault
                    .recall(caller, &opts, model.as_deref().map(|m| m as &dyn Embedder))
                {
                    Ok(r) => Ok(text_result(
                        r.to_text(),
                        serde_json::to_value(&r).unwrap_or_default(),
                    )),
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "remember" => {
                let input = MemoryInput::from_json(args);
                match self.vault.remember(caller, &input) {
                    Ok(r) => Ok(text_result(
                        r.message.clone(),
                        serde_json::to_value(&r).unwrap_or_default(),
                    )),
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "record_work" => {
                let input = WorkInput::from_json(args);
                match self.vault.record_work(caller, &input) {
                    Ok(r) => Ok(text_result(
                        r.message.clone(),
                        serde_json::to_value(&r).unwrap_or_default(),
                    )),
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "reason" => {
                let question = arg_str(args, "question").unwrap_or("");
                let model = self.embedder();
                match self.vault.reason(
                    caller,
                    question,
                    model.as_deref().map(|m| m as &dyn Embedder),
                    &self.opts.reason,
                ) {
                    Ok(r) if r.ok => Ok(text_result(
                        r.text.clone(),
                        serde_json::to_value(&r).unwrap_or_default(),
                    )),
                    Ok(r) => Ok(json!({"content": [{"type": "text", "text": r.text}],
                        "structuredContent": serde_json::to_value(&r).unwrap_or_default(),
                        "isError": true})),
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "health" => match self.vault.health(caller) {
                Ok(h) => Ok(text_result(
                    h.to_text(),
                    serde_json::to_value(&h).unwrap_or_default(),
                )),
                Err(e) => Ok(tool_error(e.to_string())),
            },
            "status" => match self.vault.status() {
                Ok(s) => {
                    let v = serde_json::to_value(&s).unwrap_or_default();
                    Ok(text_result(
                        serde_json::to_string_pretty(&v).unwrap_or_default(),
                        v,
                    ))
                }
                Err(e) => Ok(tool_error(e.to_string())),
            },
            other => Err(invalid_params(format!("unknown tool {other}"))),
        }
    }

    /// Runs the sub-queries through [`Vault::scoped_query`] and returns (shown hits, withheld
    /// count, total, notices).
    fn scoped_search(
        &self,
        subs: &[SubQuery],
        limit: usize,
    ) -> crate::Result<(Vec<Hit>, usize, usize, Vec<String>)> {
        let model = if subs.iter().any(|s| s.kind == SubQueryKind::Vec) {
            self.embedder()
        } else {
            None
        };
        let r =
            self.vault
                .scoped_query(model.as_deref().map(|m| m as &dyn Embedder), subs, limit)?;
        // Without vectors the ranking is lexical; that is normal, not a notice worth repeating.
        Ok((r.hits, r.withheld, r.total, Vec::new()))
    }

    fn list_resources(&self) -> Vec<Value> {
        let ex = self.vault.exposure();
        ex.visible_files()
            .into_iter()
            .map(|f| {
                let description = fs::read(self.vault.root().join(&f.rel))
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b[..b.len().min(1200)]).into_owned())
                    .and_then(|head| match parse_frontmatter(&head).get("description") {
                        Some(FmValue::Scalar(d)) if !d.is_empty() => {
                            Some(d.chars().take(200).collect())
                        }
                        _ => None,
                    })
                    .unwrap_or_else(|| "Vault note".to_string());
                let name = if f.scope == f.label {
                    f.label.clone()
                } else {
                    format!("{}: {}", f.scope, f.label)
                };
                json!({"uri": note_uri(&f.rel), "name": name, "description": description,
                       "mimeType": "text/markdown"})
            })
            .collect()
    }

    fn read_resource(&self, uri: &str, caller: &Caller) -> RpcResult {
        let who = caller.project.as_deref();
        let log = self.vault.audit_log();
        let denied = || {
            log.append("resource_denied", who, json!({"uri": uri}));
            // The URI is kept intact (not sanitised away): it names a vault note, not a local path.
            RpcError {
                code: -32602,
                message: format!("no such resource: {uri}"),
            }
        };
        let Some(rest) = uri.strip_prefix("vault://note/") else {
            return Err(denied());
        };
        let rel = crate::identity::percent_decode(rest);
        let ex = self.vault.exposure();
        let resolved = if ex.may_read(&rel).is_ok() {
            Some(rel.clone())
        } else {
            self.deslug(&rel).filter(|r| ex.may_read(r).is_ok())
        };
        let Some(rel) = resolved else {
            return Err(denied());
        };
        let text = fs::read_to_string(self.vault.root().join(&rel)).map_err(|_| denied())?;
        let canonical = note_uri(&rel);
        if canonical == uri {
            log.append("resource_read", who, json!({"uri": canonical}));
        } else {
            log.append("resource_read", who, json!({"uri": canonical, "from": uri}));
        }
        Ok(json!({"contents": [{"uri": canonical, "mimeType": "text/markdown", "text": text}]}))
    }

    /// Walks the real tree one segment at a time, accepting an entry equal to the segment or
    /// equal to it with spaces turned into dashes; refuses an ambiguous or missing segment.
    fn deslug(&self, rel: &str) -> Option<String> {
        if rel
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
        {
            return None;
        }
        let mut dir = self.vault.root().to_path_buf();
        let mut out = Vec::new();
        for seg in rel.split('/') {
            let names: Vec<String> = fs::read_dir(&dir)
                .ok()?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n == seg || n.replace(' ', "-") == seg)
                .collect();
            let [one] = names.as_slice() else {
                return None;
            };
            dir.push(one);
            out.push(one.clone());
        }
        Some(out.join("/"))
    }
}

/// Typed sub-queries of the `query` tool: `searches: [{type: lex|vec, query}]`, or a plain
/// `query` string (a lexical and a vector sub-query).
fn typed_subqueries(args: &Value) -> Result<Vec<SubQuery>, RpcError> {
    if let Some(list) = args.get("searches") {
        let items = list
            .as_array()
            .ok_or_else(|| invalid_params("`searches` must be an array of {type, query}"))?;
        let mut subs = Vec::new();
        for (i, it) in items.iter().enumerate() {
            let text = it
                .get("query")
                .and_then(Value::as_str)
                .filter(|q| !q.trim().is_empty())
                .ok_or_else(|| {
                    invalid_params(format!("searches[{i}].query must be a non-empty string"))
                })?;
            match it.get("type").and_then(Value::as_str) {
                Some("lex") => subs.push(SubQuery::lex(text)),
                Some("vec") => subs.push(SubQuery::vec(text)),
                other => {
                    return Err(invalid_params(format!(
                        "searches[{i}].type must be \"lex\" or \"vec\", got {}",
                        other.map_or("nothing".to_string(), |o| format!("{o:?}"))
                    )));
                }
            }
        }
        if subs.is_empty() {
            return Err(invalid_params("`searches` is empty"));
        }
        return Ok(subs);
    }
    match arg_str(args, "query")
        .map(str::trim)
        .filter(|q| !q.is_empty())
    {
        Some(q) => Ok(SubQuery::hybrid(q)),
        None => Err(invalid_params(
            "give `searches` (typed sub-queries) or `query`",
        )),
    }
}

fn render_hits(hits: &[Hit], withheld: usize, limit: usize, notices: &[String]) -> String {
    let mut s = String::new();
    for n in notices {
        s.push_str(&format!("({n})\n\n"));
    }
    if hits.is_empty() || limit == 0 {
        if withheld > 0 {
            s.push_str(&format!(
                "(no results visible to this repo; {withheld} match(es) withheld as out of scope)"
            ));
        } else {
            s.push_str("(no results)");
        }
        return s;
    }
    let parts: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let snippet: String = h
                .snippet
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(700)
                .collect();
            let score = if h.score.is_finite() { h.score } else { 0.0 };
            format!(
                "[{}] {}:{}  (score {})\n    {}\n    {}",
                i + 1,
                h.path,
                h.line,
                format_score(score),
                h.title,
                snippet
            )
        })
        .collect();
    let body = parts.join("\n\n");
    s.push_str(&body.chars().take(SEARCH_TEXT_CAP).collect::<String>());
    if withheld > 0 {
        s.push_str(&format!(
            "\n\n({withheld} further match(es) withheld: outside this repo's scope)"
        ));
    }
    s
}

/// BM25 scores are unbounded and fused scores are small: show what is comparable.
fn format_score(x: f32) -> String {
    if x <= 1.0 {
        format!("{}%", (x * 100.0).round() as i64)
    } else {
        format!("{x:.2}")
    }
}

fn annotations(title: &str, read_only: bool) -> Value {
    json!({"title": title, "readOnlyHint": read_only, "destructiveHint": false,
           "idempotentHint": read_only, "openWorldHint": false})
}

/// The tool list with input schemas and annotations.
pub fn tools() -> Vec<Value> {
    let s = |d: &str| json!({"type": "string", "description": d});
    let list = |d: &str| json!({"type": "array", "items": {"type": "string"}, "description": d});
    vec![
        json!({"name": "search", "description": "Search the vault (hybrid BM25 + vectors when available). Returns the best chunk of each visible note with path, line and snippet.",
            "inputSchema": {"type": "object", "properties": {"query": s("What to look for, in plain words"),
                "limit": {"type": "number", "default": 5, "description": "Hits to return"}}, "required": ["query"]},
            "annotations": annotations("Search the vault", true)}),
        json!({"name": "query", "description": "Search with typed sub-queries: lexical (exact words, names, identifiers) and vector (meaning), fused by reciprocal rank fusion.",
            "inputSchema": {"type": "object", "properties": {
                "searches": {"type": "array", "items": {"type": "object", "properties": {
                    "type": {"type": "string", "enum": ["lex", "vec"]}, "query": {"type": "string"}},
                    "required": ["type", "query"]}, "description": "Typed sub-queries"},
                "query": s("Shorthand: one lex and one vec sub-query"),
                "limit": {"type": "number", "default": 10}}},
            "annotations": annotations("Query with typed sub-queries", true)}),
        json!({"name": "get", "description": "Read a visible note (path, path without .md, or unique title), optionally a line range.",
            "inputSchema": {"type": "object", "properties": {"path": s("Vault-relative path or note title"),
                "from_line": {"type": "number"}, "max_lines": {"type": "number"}}, "required": ["path"]},
            "annotations": annotations("Read a note", true)}),
        json!({"name": "multi_get", "description": "Read every visible note matching comma-separated globs or names.",
            "inputSchema": {"type": "object", "properties": {"pattern": s("e.g. 'brain/*.md, Key Decisions'"),
                "max_bytes": {"type": "number"}}, "required": ["pattern"]},
            "annotations": annotations("Read several notes", true)}),
        json!({"name": "expand", "description": "A note's neighbourhood: the visible notes it links to and that link to it.",
            "inputSchema": {"type": "object", "properties": {"note": s("Title, path or vault:// URI")}, "required": ["note"]},
            "annotations": annotations("Expand a note's links", true)}),
        json!({"name": "recall", "description": "Durable lessons (memories) scoped to this repository, best first; ordered by the query when given.",
            "inputSchema": {"type": "object", "properties": {"query": s("Optional: order by relevance to this"),
                "limit": {"type": "number", "default": 20}, "explain": {"type": "boolean", "default": false}}},
            "annotations": annotations("Recall memories", true)}),
        json!({"name": "remember", "description": "Record a durable lesson as a scoped memory. Refused when it nearly duplicates one, reaches nobody, or looks like a transcript.",
            "inputSchema": {"type": "object", "properties": {
                "title": s("One line naming the lesson"), "body": s("The lesson and why it holds (40+ chars)"),
                "confidence": {"type": "string", "enum": ["verified", "inferred", "unverified"]},
                "verification": s("How it was checked"),
                "scope": {"type": "string", "enum": ["general", "platform", "project"]},
                "generality": s("Why a general lesson holds everywhere"),
                "projects": list("Projects it reaches"), "platforms": list("Platforms it reaches"),
                "links": list("Notes to list under Related"), "supersedes": list("Exact titles of memories this corrects"),
                "force": {"type": "boolean", "default": false}, "dry_run": {"type": "boolean", "default": false}},
                "required": ["title", "body", "confidence"]},
            "annotations": annotations("Remember a lesson", false)}),
        json!({"name": "record_work", "description": "File a note about work done (or a decision record) in the vault.",
            "inputSchema": {"type": "object", "properties": {
                "title": s("Title"), "summary": s("What was done"),
                "changes": list("What changed"), "decisions": list("Decisions made"), "learned": list("What was learned"),
                "open": list("What is still open"), "informed_by": list("Notes that informed it"),
                "verification": s("How it was verified"), "folder": s("Folder inside an exposed root"),
                "kind": {"type": "string", "enum": ["note", "decision"], "default": "note"},
                "dry_run": {"type": "boolean", "default": false}},
                "required": ["title", "summary"]},
            "annotations": annotations("Record work done", false)}),
        json!({"name": "reason", "description": "Answer a question that needs reading across notes: runs a read-only agent session over the exposed vault (minutes, not seconds), seeded with search evidence. Refuses by name when it times out or ends early; never returns a partial answer.",
            "inputSchema": {"type": "object", "properties": {"question": s("The question, in full")}, "required": ["question"]},
            "annotations": {"title": "Reason over the vault", "readOnlyHint": false, "destructiveHint": false,
                "idempotentHint": false, "openWorldHint": true}}),
        json!({"name": "health", "description": "What this session sees of the vault: caller, memory store, exposed roots, index; warnings for anything that degrades retrieval.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": annotations("Vault health", true)}),
        json!({"name": "status", "description": "What is indexed, what the last update did, and what changed on disk since.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": annotations("Index status", true)}),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn server(timeout_ms: u64) -> (tempfile::TempDir, Arc<McpServer>, mpsc::Receiver<Value>) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        crate::init_vault(&root, false).unwrap();
        for name in ["atlas", "beacon"] {
            std::fs::create_dir_all(d.path().join(name)).unwrap();
        }
        let vault = Vault::open(&root, crate::VaultOptions::default()).unwrap();
        vault.update(&crate::NoProgress).unwrap();
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

    fn call(s: &Arc<McpServer>, v: Value) {
        if let Some(h) = s.handle_line(&v.to_string()) {
            h.join().unwrap();
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
            .join()
            .unwrap();
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
        .join()
        .unwrap();
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
                .any(|u| u.contains("Home.md") || u.contains("thinking/"))
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
}
