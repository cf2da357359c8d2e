//! `mindex serve`: the MCP server over Streamable HTTP, so one process serves a vault to a team.
//!
//! - One endpoint, `/mcp`. `POST` carries one JSON-RPC message: a request is answered with one
//!   `application/json` response; a notification or a response is answered `202 Accepted`.
//!   `GET` (a server-to-client event stream) is refused `405`: this server never sends requests
//!   of its own, since identity comes from the token. `DELETE` ends the session. `GET /healthz`
//!   answers `ok` without authentication, for load balancers.
//! - Sessions: `initialize` opens one and names it in the `Mcp-Session-Id` header; every later
//!   message carries it. A session belongs to the token that opened it: another token (or none)
//!   never reaches it. Idle sessions expire ([`ServeOptions::session_idle`]); at most
//!   [`ServeOptions::max_sessions`] live at once.
//! - Identity: `Authorization: Bearer <token>`, looked up in a tokens file the operator keeps
//!   outside the vault ([`Tokens`]); the token names the caller, so identity never comes from
//!   the client's say-so (no roots are asked for). The file is re-read when it changes:
//!   revoking a token takes effect within seconds, without a restart.
//! - DNS rebinding: the `Host` header must name the server ([`ServeOptions::allowed_hosts`]) and
//!   an `Origin` header, when a browser sends one, must be allowed explicitly.
//! - Limits: a body of at most [`MAX_MESSAGE_BYTES`] (`413` past it), one message per POST (no
//!   batches), a response wait of [`ServeOptions::request_timeout`]; every session shares one
//!   [`Backend`]: one vault, one model, a bounded worker pool (`server busy` errors when full).
//! - Plain HTTP only: TLS belongs to a reverse proxy in front (README, "Serving a team").
//! - HTTP/1.1 with keep-alive, a thread per connection from the moment it is accepted
//!   ([`ServeOptions::max_connections`]; `503` past it), so no client waits behind the open
//!   connections of others (`serve/http.rs`).
//! - Graceful shutdown: when the stop flag is set (SIGINT/SIGTERM through
//!   [`stop_on_signals`]), no new connection is taken, requests in progress finish and are
//!   answered, idle connections close, then the backend drains.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use mindex::Caller;
use mindex::FileStat;

mod http;

use crate::mcp::{Backend, MAX_MESSAGE_BYTES, McpOptions, McpServer, PROTOCOL_VERSIONS};

/// The MCP endpoint's path.
pub const ENDPOINT: &str = "/mcp";
/// Default address: loopback only. Serving other machines is a deliberate `--bind`.
pub const DEFAULT_BIND: &str = "127.0.0.1:8765";
/// Shortest token accepted in the tokens file (generated ones are 64 hex digits).
pub const MIN_TOKEN_CHARS: usize = 32;
/// How often the tokens file is checked for changes.
const TOKENS_RECHECK: Duration = Duration::from_secs(2);

/// Options of [`HttpServer`].
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on.
    pub bind: String,
    /// `Host` header values accepted besides the listening address and `localhost`,
    /// `127.0.0.1` and `[::1]` (the name a reverse proxy forwards, `host` or `host:port`).
    pub allowed_hosts: Vec<String>,
    /// `Origin` header values accepted (exactly, e.g. `https://team.example`); a request with
    /// any other `Origin` is refused `403`. Requests without `Origin` (agents, SDKs) pass.
    pub allowed_origins: Vec<String>,
    /// At most this many sessions live at once; past it the idlest expired session is dropped,
    /// else `initialize` gets `503`.
    pub max_sessions: usize,
    /// A session unused this long may be dropped (its client must initialize again).
    pub session_idle: Duration,
    /// How long a request waits for its answer (all but `reason`) before `504`.
    pub request_timeout: Duration,
    /// How long a `reason` call waits for its answer before `504`.
    pub reason_timeout: Duration,
    /// Connections served at once, each on a thread of its own (past it, `503`).
    pub max_connections: usize,
    /// Options of every session: `caller` and `fallback_caller` are replaced by the token's.
    pub mcp: McpOptions,
    /// Write one line per refused request (auth, host, origin) to stderr.
    pub log: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            bind: DEFAULT_BIND.to_string(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_sessions: 1_000,
            session_idle: Duration::from_secs(30 * 60),
            request_timeout: Duration::from_secs(60),
            reason_timeout: Duration::from_secs(15 * 60),
            max_connections: 512,
            mcp: McpOptions::default(),
            log: true,
        }
    }
}

/// The default tokens file: `$XDG_CONFIG_HOME/mindex/serve-tokens`, else
/// `~/.config/mindex/serve-tokens` ([`mindex::home::config_dir`]).
pub fn default_tokens_path() -> Option<PathBuf> {
    Some(mindex::home::config_dir()?.join("serve-tokens"))
}

/// The bearer tokens of `mindex serve`, each naming a caller: a text file, one `CALLER TOKEN`
/// pair per line, `#` comments and blank lines ignored. The file must lie outside the vault
/// and (on Unix) be readable by its owner only.
#[derive(Debug)]
pub struct Tokens {
    path: PathBuf,
    entries: Vec<(String, Caller)>,
    /// The file's stat when it was read (size, times, inode): any edit changes it.
    stat: Option<FileStat>,
}

impl Tokens {
    /// Reads and checks the tokens file for a server of the vault at `vault_root`.
    pub fn load(path: &Path, vault_root: &Path) -> Result<Tokens, String> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "no tokens file at {shown}: create a token with `mindex serve --add-token CALLER` \
                     (or name another file with --tokens)"
                )
            } else {
                format!("cannot read the tokens file {shown}: {e}")
            }
        })?;
        if inside_vault(path, vault_root) {
            return Err(inside_vault_refusal(path));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(format!(
                    "the tokens file {shown} can be read by other users (mode {mode:o}); run `chmod 600 {shown}`"
                ));
            }
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the tokens file {shown}: {e}"))?;
        let mut entries: Vec<(String, Caller)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = || format!("{shown}, line {}", n + 1);
            let mut parts = line.split_whitespace();
            let (Some(name), Some(token), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("{}: expected `CALLER TOKEN`", at()));
            };
            let mut caller = Caller::named(name).map_err(|e| format!("{}: {e}", at()))?;
            caller.identified_by = mindex::IdentifiedBy::Token;
            if token.chars().count() < MIN_TOKEN_CHARS
                || !token
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._~+/=".contains(c))
            {
                return Err(format!(
                    "{}: the token must be at least {MIN_TOKEN_CHARS} characters of letters, digits \
                     and -._~+/= (use `mindex serve --add-token {name}` to make one)",
                    at()
                ));
            }
            if entries.iter().any(|(t, _)| t == token) {
                return Err(format!("{}: this token is listed twice", at()));
            }
            entries.push((token.to_string(), caller));
        }
        if entries.is_empty() {
            return Err(format!(
                "the tokens file {shown} lists no token: add one with `mindex serve --add-token CALLER`"
            ));
        }
        Ok(Tokens {
            path: path.to_path_buf(),
            entries,
            stat: Some(FileStat::of(&meta)),
        })
    }

    /// How many tokens the file lists.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the file lists no token (never true of a loaded file).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The caller a presented token names. Every entry is compared in full (time independent of
    /// where a guess first differs).
    pub fn caller_for(&self, presented: &str) -> Option<&Caller> {
        let mut found = None;
        for (token, caller) in &self.entries {
            if constant_time_eq(token.as_bytes(), presented.as_bytes()) {
                found = Some(caller);
            }
        }
        found
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `n` random bytes from the operating system, as lowercase hex.
fn random_hex(n: usize) -> std::io::Result<String> {
    let mut bytes = vec![0u8; n];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether the tokens file at `path` lies inside the vault at `vault_root`: both resolved
/// through symlinks, a file that does not exist yet (nor perhaps its folders) by its nearest
/// existing folder, the rest of the path read lexically. A vault that cannot be resolved holds
/// nothing.
fn inside_vault(path: &Path, vault_root: &Path) -> bool {
    let Ok(vault) = vault_root.canonicalize() else {
        return false;
    };
    resolved(path).is_some_and(|file| file.starts_with(&vault))
}

/// `path` made absolute and resolved as the system would open it: component by component,
/// every symlink followed (a dangling one to where it points, where the file would be
/// created), `..` taken from where the path really is; what does not exist yet is appended as
/// written. `None` past 40 links (a loop).
fn resolved(path: &Path) -> Option<PathBuf> {
    resolve_links(&std::path::absolute(path).ok()?, 0)
}

fn resolve_links(path: &Path, depth: usize) -> Option<PathBuf> {
    use std::path::Component;
    if depth > 40 {
        return None;
    }
    let mut real = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => real.push(part.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                real.pop();
            }
            Component::Normal(name) => {
                real.push(name);
                if std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()) {
                    let target = std::fs::read_link(&real).ok()?;
                    let from = real.parent().map(Path::to_path_buf).unwrap_or_default();
                    real = resolve_links(&from.join(target), depth + 1)?;
                }
            }
        }
    }
    Some(real)
}

fn inside_vault_refusal(path: &Path) -> String {
    format!(
        "the tokens file {} is inside the vault: anyone who can read the vault (or an agent \
         reading its files) could read the tokens. Keep it outside, e.g. the default {}",
        path.display(),
        default_tokens_path()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "~/.config/mindex/serve-tokens".into())
    )
}

/// Makes a new token for `caller`, appends it to the tokens file at `path` (created, with its
/// folder, readable by its owner only) and returns it. A `path` inside the vault at
/// `vault_root` (when the vault is known) is refused before anything is created or written:
/// `serve` would refuse that file anyway, and the secret would already sit in the vault.
pub fn add_token(path: &Path, caller: &str, vault_root: Option<&Path>) -> Result<String, String> {
    if let Some(vault) = vault_root
        && inside_vault(path, vault)
    {
        return Err(inside_vault_refusal(path));
    }
    let caller = Caller::named(caller).map_err(|e| e.to_string())?;
    let name = caller.project.unwrap_or_default();
    let token = random_hex(32).map_err(|e| format!("cannot read random bytes: {e}"))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut file = opts
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    use std::io::Write;
    let line = format!("{name} {token}\n");
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(token)
}

/// Sets a flag on SIGINT and SIGTERM (and returns it), for [`HttpServer::run`]'s graceful stop.
#[cfg(unix)]
pub fn stop_on_signals() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    extern "C" fn on_signal(_: libc::c_int) {
        // An atomic store is async-signal-safe.
        STOP.store(true, Ordering::SeqCst);
    }
    let handler = on_signal as extern "C" fn(libc::c_int);
    // SAFETY: installs a handler that only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
    &STOP
}

/// Sets a flag on Ctrl-C where signals are not available: never (the process is killed).
#[cfg(not(unix))]
pub fn stop_on_signals() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    &STOP
}

type Waiters = Arc<Mutex<HashMap<String, mpsc::SyncSender<String>>>>;

/// A request's bearer token, found in the tokens file, and the caller it names.
struct Bearer {
    token: String,
    caller: Caller,
}

struct HttpSession {
    server: Arc<McpServer>,
    /// The token that opened it: only that token reaches it.
    token: String,
    /// The caller (project) that token named when the session opened.
    owner: String,
    waiters: Waiters,
    last_used: Mutex<Instant>,
}

/// What [`HttpServer::run`] did, for the operator's last line.
#[derive(Debug, Clone, Default)]
pub struct ServeStats {
    /// HTTP requests answered.
    pub requests: u64,
    /// Requests refused before reaching MCP (auth, host, origin, limits).
    pub refused: u64,
    /// Sessions opened.
    pub sessions: u64,
}

/// The Streamable HTTP server: see the module documentation.
pub struct HttpServer {
    listener: std::net::TcpListener,
    backend: Arc<Backend>,
    opts: ServeOptions,
    tokens: RwLock<Tokens>,
    tokens_checked: Mutex<Instant>,
    sessions: RwLock<HashMap<String, Arc<HttpSession>>>,
    addr: SocketAddr,
    requests: AtomicU64,
    refused: AtomicU64,
    opened: AtomicU64,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// An HTTP answer before it is written.
struct Reply {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
}

impl Reply {
    fn json(status: u16, body: String) -> Reply {
        Reply {
            status,
            body,
            headers: vec![("Content-Type", "application/json".into())],
        }
    }

    /// A JSON-RPC error at HTTP status `status` (the SDKs surface its message).
    fn error(status: u16, code: i64, message: impl Into<String>, id: Option<&Value>) -> Reply {
        let id = id.cloned().unwrap_or(Value::Null);
        Reply::json(
            status,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
                .to_string(),
        )
    }

    fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.to_string(),
            headers: vec![("Content-Type", "text/plain; charset=utf-8".into())],
        }
    }

    fn with(mut self, name: &'static str, value: String) -> Reply {
        self.headers.push((name, value));
        self
    }
}

impl HttpServer {
    /// Binds the listening socket. `tokens` names the callers; its file is added to the
    /// secrets a `reason` session must never read ([`mindex::ReasonOptions::secrets`]).
    pub fn bind(
        backend: Arc<Backend>,
        tokens: Tokens,
        mut opts: ServeOptions,
    ) -> Result<HttpServer, String> {
        opts.mcp.reason.secrets.push(tokens.path.clone());
        let listener = std::net::TcpListener::bind(opts.bind.as_str())
            .map_err(|e| format!("cannot listen on {}: {e}", opts.bind))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot listen on {}: {e}", opts.bind))?;
        Ok(HttpServer {
            listener,
            backend,
            opts,
            tokens: RwLock::new(tokens),
            tokens_checked: Mutex::new(Instant::now()),
            sessions: RwLock::new(HashMap::new()),
            addr,
            requests: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            opened: AtomicU64::new(0),
        })
    }

    /// The address listened on (with the port the OS chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `stop` is set, then stops gracefully: no new connection is taken,
    /// requests being handled finish and are answered, idle connections close.
    pub fn run(&self, stop: &AtomicBool) -> ServeStats {
        http::serve(
            &self.listener,
            stop,
            self.opts.max_connections.max(1),
            MAX_MESSAGE_BYTES,
            &|request| self.answer(request),
            &|| to_response(too_large()),
        );
        self.backend.wait_idle();
        self.sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        ServeStats {
            requests: self.requests.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            sessions: self.opened.load(Ordering::Relaxed),
        }
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    fn answer(&self, request: http::Request) -> http::Response {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let reply = self.reply(&request);
        if reply.status >= 400 && reply.status != 404 && reply.status != 504 {
            self.refused.fetch_add(1, Ordering::Relaxed);
            if self.opts.log && matches!(reply.status, 401 | 403 | 421) {
                let from = request
                    .remote
                    .map(|a| a.to_string())
                    .unwrap_or_else(|| "?".into());
                eprintln!(
                    "mindex serve: refused {} {} from {from}: {}",
                    clip_url(&request.method),
                    clip_url(&request.url),
                    first_line(&reply.body)
                );
            }
        }
        to_response(reply)
    }

    fn reply(&self, request: &http::Request) -> Reply {
        let path = request.url.split('?').next().unwrap_or("");
        let method = request.method.as_str();
        if path == "/healthz" && method == "GET" {
            return Reply::text(200, "ok\n");
        }
        if let Some(refusal) = self.check_host_and_origin(request) {
            return refusal;
        }
        if path != ENDPOINT {
            return Reply::text(404, &format!("not found: the MCP endpoint is {ENDPOINT}\n"));
        }
        let Some(bearer) = self.authenticate(request) else {
            return Reply::error(
                401,
                -32001,
                "unauthorized: send `Authorization: Bearer <token>` with a token from the server's \
                 tokens file (`mindex serve --add-token CALLER` makes one)",
                None,
            )
            .with("WWW-Authenticate", "Bearer realm=\"mindex\"".into());
        };
        match method {
            "POST" => self.post(request, bearer),
            "DELETE" => match self.session_of(request, &bearer) {
                Ok(id) => {
                    self.sessions
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&id);
                    Reply::text(200, "session ended\n")
                }
                Err(reply) => reply,
            },
            "GET" => Reply::text(
                405,
                "this server sends no event stream: every answer comes back on its POST\n",
            )
            .with("Allow", "POST, DELETE".into()),
            _ => Reply::text(405, "method not allowed\n").with("Allow", "POST, DELETE".into()),
        }
    }

    /// `Host` must name this server; `Origin`, when present, must be allowed.
    fn check_host_and_origin(&self, request: &http::Request) -> Option<Reply> {
        let host = header(request, "Host").unwrap_or("");
        if !self.host_allowed(host) {
            return Some(Reply::text(
                421,
                &format!(
                    "misdirected request: Host {:?} is not this server's name; allow it with --allow-host\n",
                    clip_url(host)
                ),
            ));
        }
        if let Some(origin) = header(request, "Origin")
            && !self.opts.allowed_origins.iter().any(|o| o == origin)
        {
            return Some(Reply::text(
                403,
                &format!(
                    "forbidden: Origin {:?} is not allowed; allow it with --allow-origin\n",
                    clip_url(origin)
                ),
            ));
        }
        None
    }

    fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        if host.is_empty() {
            return false;
        }
        let port = self.addr.port().to_string();
        let (name, given_port) = match host.rsplit_once(':') {
            // `[::1]:8765`, `localhost:8765`; a bare IPv6 literal is bracketed.
            Some((n, p)) if !n.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => {
                (n.to_string(), Some(p.to_string()))
            }
            _ => (host.clone(), None),
        };
        if self
            .opts
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&host) || h.eq_ignore_ascii_case(&name))
        {
            return true;
        }
        if given_port.as_deref().is_some_and(|p| p != port) {
            return false;
        }
        let ip = self.addr.ip();
        let own = if ip.is_ipv6() {
            format!("[{ip}]")
        } else {
            ip.to_string()
        };
        matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]") || name == own
    }

    /// The request's bearer token and the caller it names, when the tokens file lists it.
    fn authenticate(&self, request: &http::Request) -> Option<Bearer> {
        let value = header(request, "Authorization")?;
        let (scheme, token) = value.trim().split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        self.reload_tokens_if_changed();
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        let token = token.trim();
        tokens.caller_for(token).cloned().map(|caller| Bearer {
            token: token.to_string(),
            caller,
        })
    }

    /// Re-reads the tokens file when it changed (checked every few seconds). Sessions whose
    /// token is gone, or now names another caller, end. A changed file that does not load
    /// (removed, emptied, malformed, readable by others) refuses every token until it loads
    /// again, and says so on stderr: a revocation never fails open.
    fn reload_tokens_if_changed(&self) {
        {
            let mut checked = self
                .tokens_checked
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if checked.elapsed() < TOKENS_RECHECK {
                return;
            }
            *checked = Instant::now();
        }
        let (path, before) = {
            let t = self.tokens.read().unwrap_or_else(|e| e.into_inner());
            (t.path.clone(), t.stat)
        };
        let now = std::fs::metadata(&path).ok().map(|m| FileStat::of(&m));
        if now == before {
            return;
        }
        let fresh = match Tokens::load(&path, self.backend.vault().root()) {
            Ok(fresh) => {
                if self.opts.log {
                    eprintln!("mindex serve: re-read the tokens file {}", path.display());
                }
                fresh
            }
            Err(e) => {
                eprintln!(
                    "mindex serve: refusing every token until the tokens file loads again: {e}"
                );
                Tokens {
                    path: path.clone(),
                    entries: Vec::new(),
                    stat: now,
                }
            }
        };
        self.sessions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, s| {
                fresh.caller_for(&s.token).and_then(|c| c.project.as_ref()) == Some(&s.owner)
            });
        *self.tokens.write().unwrap_or_else(|e| e.into_inner()) = fresh;
    }

    /// The request's session id, checked against the caller that owns it.
    fn session_of(&self, request: &http::Request, bearer: &Bearer) -> Result<String, Reply> {
        let Some(id) = header(request, "Mcp-Session-Id") else {
            return Err(Reply::error(
                400,
                -32600,
                "bad request: no Mcp-Session-Id header; send `initialize` first",
                None,
            ));
        };
        let sessions = self.sessions.read().unwrap_or_else(|e| e.into_inner());
        match sessions.get(id) {
            Some(s) if s.token == bearer.token => Ok(id.to_string()),
            // Another token's session is as unknown as an expired one.
            _ => Err(Reply::error(
                404,
                -32600,
                "session not found (expired or ended): initialize again",
                None,
            )),
        }
    }

    fn post(&self, request: &http::Request, bearer: Bearer) -> Reply {
        if let Some(ct) = header(request, "Content-Type")
            && !ct.to_ascii_lowercase().starts_with("application/json")
        {
            return Reply::error(
                415,
                -32600,
                format!(
                    "unsupported content type {:?}: send application/json",
                    clip_url(ct)
                ),
                None,
            );
        }
        if let Some(accept) = header(request, "Accept") {
            let a = accept.to_ascii_lowercase();
            if !(a.contains("application/json") || a.contains("*/*")) {
                return Reply::error(
                    406,
                    -32600,
                    "not acceptable: this server answers with application/json; include it in Accept",
                    None,
                );
            }
        }
        // The HTTP layer refused a body over the limit unread.
        let body = &request.body;
        if body.len() > MAX_MESSAGE_BYTES {
            return too_large();
        }
        let message: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return Reply::error(400, -32700, format!("parse error: {e}"), None),
        };
        if message.is_array() {
            return Reply::error(
                400,
                -32600,
                "invalid request: batches are not supported; send one message per POST",
                None,
            );
        }
        let Some(obj) = message.as_object() else {
            return Reply::error(400, -32600, "invalid request: not a JSON object", None);
        };
        let id = obj.get("id").filter(|v| !v.is_null()).cloned();
        let method = obj.get("method").and_then(Value::as_str).unwrap_or("");
        let line = String::from_utf8_lossy(body).replace(['\n', '\r'], " ");
        if method == "initialize" && id.is_some() {
            return self.initialize(&line, id.as_ref(), bearer);
        }
        if let Some(v) = header(request, "MCP-Protocol-Version")
            && !PROTOCOL_VERSIONS.contains(&v)
        {
            return Reply::error(
                400,
                -32600,
                format!(
                    "unsupported MCP-Protocol-Version {:?}; this server speaks {}",
                    clip_url(v),
                    PROTOCOL_VERSIONS.join(", ")
                ),
                id.as_ref(),
            );
        }
        let session_id = match self.session_of(request, &bearer) {
            Ok(s) => s,
            Err(mut reply) => {
                // Keep the request's id so the client can match the error.
                if let Some(id) = &id
                    && let Ok(mut v) = serde_json::from_str::<Value>(&reply.body)
                {
                    v["id"] = id.clone();
                    reply.body = v.to_string();
                }
                return reply;
            }
        };
        let Some(session) = self
            .sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&session_id)
            .cloned()
        else {
            return Reply::error(
                404,
                -32600,
                "session not found: initialize again",
                id.as_ref(),
            );
        };
        *session.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let Some(id) = id.filter(|_| !method.is_empty()) else {
            // A notification or a response: accepted, nothing comes back on this POST.
            session.server.handle_line(&line);
            return Reply::text(202, "");
        };
        let timeout = if method == "tools/call"
            && obj
                .get("params")
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                == Some("reason")
        {
            self.opts.reason_timeout
        } else {
            self.opts.request_timeout
        };
        self.call(&session, &line, &id, timeout)
    }

    /// Opens a session for the bearer's caller and answers its `initialize`.
    fn initialize(&self, line: &str, id: Option<&Value>, bearer: Bearer) -> Reply {
        let Bearer { token, caller } = bearer;
        let Some(owner) = caller.project.clone() else {
            return Reply::error(500, -32603, "the token names no caller", id);
        };
        let Ok(session_id) = random_hex(16) else {
            return Reply::error(
                500,
                -32603,
                "cannot make a session id (no random source)",
                id,
            );
        };
        {
            let mut sessions = self.sessions.write().unwrap_or_else(|e| e.into_inner());
            if sessions.len() >= self.opts.max_sessions {
                let idle = self.opts.session_idle;
                sessions.retain(|_, s| {
                    s.last_used
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .elapsed()
                        < idle
                });
            }
            if sessions.len() >= self.opts.max_sessions {
                return Reply::error(
                    503,
                    -32000,
                    format!(
                        "server busy: {} sessions open (the limit); retry later",
                        sessions.len()
                    ),
                    id,
                );
            }
            let waiters: Waiters = Arc::new(Mutex::new(HashMap::new()));
            let sink_waiters = waiters.clone();
            let mut mcp = self.opts.mcp.clone();
            mcp.caller = Some(caller);
            mcp.fallback_caller = None;
            let server = McpServer::on_backend(self.backend.clone(), mcp, move |out: &str| {
                deliver(&sink_waiters, out);
            });
            sessions.insert(
                session_id.clone(),
                Arc::new(HttpSession {
                    server,
                    token,
                    owner,
                    waiters,
                    last_used: Mutex::new(Instant::now()),
                }),
            );
        }
        self.opened.fetch_add(1, Ordering::Relaxed);
        let session = self
            .sessions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&session_id)
            .cloned();
        let Some(session) = session else {
            return Reply::error(503, -32000, "the session ended before it started", id);
        };
        let id = id.cloned().unwrap_or(Value::Null);
        let reply = self.call(&session, line, &id, self.opts.request_timeout);
        if reply.status == 200 && !reply.body.contains("\"error\"") {
            reply.with("Mcp-Session-Id", session_id)
        } else {
            self.sessions
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&session_id);
            reply
        }
    }

    /// Runs one request on `session` and waits (at most `timeout`) for its answer.
    fn call(&self, session: &HttpSession, line: &str, id: &Value, timeout: Duration) -> Reply {
        let key = id.to_string();
        let (tx, rx) = mpsc::sync_channel(1);
        {
            let mut w = session.waiters.lock().unwrap_or_else(|e| e.into_inner());
            if w.contains_key(&key) {
                return Reply::error(
                    409,
                    -32600,
                    format!(
                        "invalid request: request id {} is already in progress",
                        clip_url(&key)
                    ),
                    Some(id),
                );
            }
            w.insert(key.clone(), tx);
        }
        session.server.handle_line(line);
        match rx.recv_timeout(timeout) {
            Ok(answer) => Reply::json(200, answer),
            Err(_) => {
                session
                    .waiters
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&key);
                Reply::error(
                    504,
                    -32603,
                    format!(
                        "timed out: no answer within {} s (the request may still complete)",
                        timeout.as_secs()
                    ),
                    Some(id),
                )
            }
        }
    }
}

/// Hands an outgoing message of a session to the POST waiting for it (matched by id). Messages
/// no POST waits for (server notifications) are dropped: this transport opens no event stream.
fn deliver(waiters: &Waiters, out: &str) {
    let Ok(v) = serde_json::from_str::<Value>(out) else {
        return;
    };
    if v.get("method").is_some() {
        return;
    }
    let Some(id) = v.get("id") else {
        return;
    };
    let key = id.to_string();
    let tx = waiters
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&key);
    if let Some(tx) = tx {
        let _ = tx.try_send(out.to_string());
    }
}

fn too_large() -> Reply {
    Reply::error(
        413,
        -32600,
        format!("the message is over the {MAX_MESSAGE_BYTES}-byte (4 MiB) limit"),
        None,
    )
}

fn header<'a>(request: &'a http::Request, name: &str) -> Option<&'a str> {
    request.header(name)
}

fn to_response(reply: Reply) -> http::Response {
    http::Response {
        status: reply.status,
        headers: reply.headers,
        body: reply.body,
    }
}

/// At most 200 characters of something a client sent, for messages and logs.
fn clip_url(s: &str) -> String {
    let mut out: String = s.chars().take(200).filter(|c| !c.is_control()).collect();
    if s.chars().count() > 200 {
        out.push('…');
    }
    out
}

fn first_line(s: &str) -> String {
    let s = serde_json::from_str::<Value>(s)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| s.to_string());
    clip_url(s.lines().next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_checked_and_name_their_callers() {
        let vault = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let path = outside.path().join("cfg").join("tokens");
        let alpha = add_token(&path, "Alpha", Some(vault.path())).unwrap();
        let beta = add_token(&path, "beta", None).unwrap();
        assert_eq!(alpha.len(), 64);
        assert_ne!(alpha, beta);
        let tokens = Tokens::load(&path, vault.path()).unwrap();
        assert_eq!(tokens.len(), 2);
        assert_eq!(
            tokens.caller_for(&alpha).unwrap().project.as_deref(),
            Some("alpha")
        );
        assert_eq!(
            tokens.caller_for(&beta).unwrap().project.as_deref(),
            Some("beta")
        );
        assert!(tokens.caller_for(&alpha[..63]).is_none());
        assert!(tokens.caller_for("").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let e = Tokens::load(&path, vault.path()).unwrap_err();
            assert!(e.contains("chmod 600"), "{e}");
        }
    }

    #[test]
    fn a_tokens_file_inside_the_vault_or_malformed_is_refused_by_line() {
        let vault = tempfile::tempdir().unwrap();
        let inside = vault.path().join("tokens");
        add_token(&inside, "alpha", None).unwrap();
        let e = Tokens::load(&inside, vault.path()).unwrap_err();
        assert!(e.contains("inside the vault"), "{e}");

        let outside = tempfile::tempdir().unwrap();
        let path = outside.path().join("tokens");
        let write = |text: &str| {
            std::fs::write(&path, text).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            }
        };
        write("# team\n\nalpha short\n");
        let e = Tokens::load(&path, vault.path()).unwrap_err();
        assert!(e.contains("line 3") && e.contains("at least 32"), "{e}");
        write("alpha\n");
        let e = Tokens::load(&path, vault.path()).unwrap_err();
        assert!(e.contains("line 1") && e.contains("CALLER TOKEN"), "{e}");
        let t = "x".repeat(40);
        write(&format!("a/b {t}\n"));
        let e = Tokens::load(&path, vault.path()).unwrap_err();
        assert!(e.contains("line 1") && e.contains("project name"), "{e}");
        write(&format!("alpha {t}\nbeta {t}\n"));
        let e = Tokens::load(&path, vault.path()).unwrap_err();
        assert!(e.contains("line 2") && e.contains("twice"), "{e}");
        write("# nothing\n");
        let e = Tokens::load(&path, vault.path()).unwrap_err();
        assert!(e.contains("no token"), "{e}");
        let e = Tokens::load(&outside.path().join("absent"), vault.path()).unwrap_err();
        assert!(e.contains("--add-token"), "{e}");
    }

    /// Issue 38 finding 8: `--add-token` refuses a tokens file inside the vault before writing
    /// anything, however the path reaches it (folders not created yet, `..`, a symlinked
    /// folder), and writes nothing there.
    #[test]
    fn add_token_refuses_a_tokens_file_inside_the_vault_before_writing() {
        let vault = tempfile::tempdir().unwrap();
        let v = vault.path();
        std::fs::create_dir_all(v.join("brain")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let mut paths = vec![
            v.join("serve-tokens"),
            v.join("brain/secrets/tokens"),
            v.join("new/deeper/../tokens"),
            outside
                .path()
                .join("gone/../../")
                .join(v.file_name().unwrap())
                .join("tokens"),
        ];
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(v.join("brain"), outside.path().join("link")).unwrap();
            paths.push(outside.path().join("link/tokens"));
            // A link after a folder that does not exist and `..`, and a dangling link (the
            // file would be created where it points).
            paths.push(outside.path().join("nonexist/../link/t2"));
            std::os::unix::fs::symlink(v.join("brain/tokens"), outside.path().join("dangling"))
                .unwrap();
            paths.push(outside.path().join("dangling"));
        }
        for path in &paths {
            let e = add_token(path, "alpha", Some(v)).unwrap_err();
            assert!(e.contains("inside the vault"), "{}: {e}", path.display());
        }
        let mut left: Vec<_> = std::fs::read_dir(v)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["brain"], "nothing written or created in the vault");
        assert_eq!(std::fs::read_dir(v.join("brain")).unwrap().count(), 0);
        // Outside the vault, and with no vault known, a token is made.
        let path = outside.path().join("cfg/tokens");
        add_token(&path, "alpha", Some(v)).unwrap();
        assert_eq!(Tokens::load(&path, v).unwrap().len(), 1);
    }

    #[test]
    fn answers_reach_the_post_that_waits_for_them() {
        let waiters: Waiters = Arc::new(Mutex::new(HashMap::new()));
        let (tx, rx) = mpsc::sync_channel(1);
        waiters.lock().unwrap().insert("\"a\"".into(), tx);
        deliver(&waiters, r#"{"jsonrpc":"2.0","method":"notifications/x"}"#);
        deliver(&waiters, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(rx.try_recv().is_err());
        deliver(
            &waiters,
            r#"{"jsonrpc":"2.0","id":"a","result":{"ok":true}}"#,
        );
        assert!(rx.try_recv().unwrap().contains("\"ok\":true"));
        assert!(waiters.lock().unwrap().is_empty());
    }
}
