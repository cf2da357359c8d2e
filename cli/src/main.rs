//! `mindex`: the reference command-line interface over the mindex engine.
//!
//! Every command is a thin shell around one engine call: parse arguments, call, print (human text
//! by default, one JSON document with `--json`).

mod hook;
mod output;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use mindex::scoped::docs;
use mindex::{SearchOptions, Vault, VaultOptions};

/// Local search and memory over a markdown vault, for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "mindex", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// The vault folder. Default: $MINDEX_VAULT, else the nearest folder upwards holding a
    /// vault-manifest.json.
    #[arg(long, global = true, env = "MINDEX_VAULT", value_name = "DIR")]
    vault: Option<PathBuf>,

    /// Where the index lives. Default: <vault>/.mindex
    #[arg(long, global = true, env = "MINDEX_INDEX_DIR", value_name = "DIR")]
    index: Option<PathBuf>,

    /// Print one JSON document on stdout instead of human text.
    #[arg(long, global = true)]
    json: bool,

    /// No progress bar.
    #[arg(long, short, global = true)]
    quiet: bool,

    /// The project asking (memory commands; for `mcp`, every call, and the client is not asked
    /// for roots). Default: the `.mindex-project` (or `.om-project`) file at the root of the
    /// current git repository, else that repository's folder name (for `mcp`: the client's
    /// roots, else that repository).
    #[arg(long, global = true, env = "MINDEX_CALLER", value_name = "NAME")]
    caller: Option<String>,

    /// How the embedding model computes (commands that embed): `int8` (default where the CPU has
    /// a vector int8 kernel: AVX-512 VNNI, AVX-VNNI, AVX2 or Arm's dot product; vectors within
    /// cosine 0.995) or `f32` (the reference).
    #[arg(long, global = true, env = "MINDEX_PRECISION", value_name = "int8|f32")]
    precision: Option<mindex::Precision>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a new, empty vault from the bundled template, or migrate an existing one (--merge).
    Init {
        /// Where to create it (default: the current folder).
        dir: Option<PathBuf>,
        /// Migrate a non-empty folder (e.g. an obsidian-mind vault): add the missing template
        /// files, rewrite the agent configs it recognises to call mindex (originals kept as
        /// `<file>.pre-mindex`), keep everything else, and print what changed and why.
        #[arg(long)]
        merge: bool,
        /// Also write made-up sample notes (people, projects, an incident) to try mindex on;
        /// never in a real vault.
        #[arg(long)]
        with_samples: bool,
        /// With --merge, also migrate the agents' user-level MCP servers (Claude Code's
        /// ~/.claude.json, Codex's ~/.codex/config.toml, Gemini's ~/.gemini/settings.json):
        /// obsidian-mind's `om` and qmd servers become `mindex mcp --vault <vault>`, each file
        /// backed up as <file>.pre-mindex. Without it they are only named, with the command
        /// that migrates each.
        #[arg(long, requires = "merge")]
        user_configs: bool,
    },
    /// Bring the index up to date with the notes on disk (only changed notes are re-indexed).
    Update {
        /// Also read and hash the files whose size and mtime look unchanged (catches edits that
        /// kept both); unchanged notes are still not re-indexed.
        #[arg(long)]
        verify: bool,
        /// Rebuild the whole index from the vault (recovery from a damaged index; readable
        /// vectors are kept).
        #[arg(long, conflicts_with = "verify")]
        rebuild: bool,
    },
    /// Full-text (BM25) search: the best chunk of each matching note.
    Search {
        /// The query: words, "quoted phrases", field:term, +required, -excluded.
        #[arg(value_parser = non_blank)]
        query: String,
        /// Maximum number of hits.
        #[arg(long, short = 'n', default_value_t = 10, value_parser = at_least_one)]
        limit: usize,
        /// Return every matching chunk of the best notes, not just the best one per note.
        #[arg(long)]
        all_chunks: bool,
    },
    /// Print a note, or part of it: PATH, PATH:LINE, or a note name.
    Get {
        /// Vault-relative path (`.md` optional), a note name, optionally `:LINE` to start there.
        spec: String,
        /// Print at most this many lines.
        #[arg(long, short = 'l')]
        lines: Option<usize>,
    },
    /// Print every note matching comma-separated globs or names (`work/**/*.md, Home`).
    MultiGet {
        /// Globs (`*` stays within a folder, `**` crosses folders) or note paths, comma-separated.
        pattern: String,
        /// Skip notes larger than this many bytes.
        #[arg(long)]
        max_bytes: Option<u64>,
    },
    /// Embed every chunk that has no vector yet (run after `update`; unchanged chunks are reused).
    Embed {
        /// Model folder (config.json, tokenizer.json, model.safetensors). Default: $MINDEX_MODEL_DIR,
        /// else the per-user models folder (scripts/setup-model.sh installs all-MiniLM-L6-v2 there).
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
        /// Build an approximate-neighbour graph (HNSW) from this many vectors on; below, vector
        /// search scans every vector exactly.
        #[arg(long, default_value_t = mindex::vault::DEFAULT_HNSW_THRESHOLD)]
        hnsw_threshold: usize,
    },
    /// Vector-only search: notes whose chunks are closest in meaning to the query.
    Vsearch {
        /// The query, in plain words.
        #[arg(value_parser = non_blank)]
        query: String,
        /// Maximum number of hits.
        #[arg(long, short = 'n', default_value_t = 10, value_parser = at_least_one)]
        limit: usize,
        /// Model folder (see `embed`).
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
    },
    /// Hybrid search: lexical and vector sub-queries fused by reciprocal rank fusion.
    Query {
        /// The query; used for one lexical and one vector sub-query. May be omitted when
        /// --lex/--vec are given.
        #[arg(value_parser = non_blank)]
        query: Option<String>,
        /// An extra lexical (BM25) sub-query; repeatable.
        #[arg(long, value_name = "TEXT")]
        lex: Vec<String>,
        /// An extra vector sub-query; repeatable.
        #[arg(long, value_name = "TEXT")]
        vec: Vec<String>,
        /// Maximum number of hits.
        #[arg(long, short = 'n', default_value_t = 10, value_parser = at_least_one)]
        limit: usize,
        /// The RRF constant k.
        #[arg(long, default_value_t = 60.0)]
        rrf_k: f32,
        /// Weight of the vector sub-queries against the lexical ones (1.0 = equal).
        #[arg(long, default_value_t = mindex::query::DEFAULT_VEC_WEIGHT)]
        vec_weight: f32,
        /// Show each hit's rank and score in every sub-query and after fusion.
        #[arg(long)]
        explain: bool,
        /// Model folder (see `embed`).
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
        /// Rerank the fused candidates with this cross-encoder model folder (BERT sequence
        /// classification, e.g. ms-marco-MiniLM-L-6-v2 with config.json, tokenizer.json,
        /// model.safetensors).
        #[arg(long, env = "MINDEX_RERANK_DIR", value_name = "DIR")]
        rerank: Option<PathBuf>,
        /// Fused candidates the reranker reads.
        #[arg(long, default_value_t = 30)]
        rerank_candidates: usize,
    },
    /// What is indexed, what the last update did, and what changed on disk since.
    #[command(long_about = docs::status::TOOL)]
    Status {
        /// Also read every index file and verify its checksum (slower: proportional to the
        /// index size). By default only missing or empty index files are looked for.
        #[arg(long)]
        verify: bool,
    },
    /// Record a lesson as a scoped memory (refused when it duplicates one or breaks the rules;
    /// exit status 3 then).
    #[command(long_about = cli_words(docs::remember::TOOL, "A refusal writes nothing and exits with status 3."))]
    Remember {
        #[arg(long, help = docs::remember::TITLE)]
        title: String,
        #[arg(long, help = format!("{} `-` reads it from stdin.", docs::remember::BODY))]
        body: String,
        #[arg(long, value_parser = ["general", "platform", "project"], help = docs::remember::SCOPE)]
        scope: Option<String>,
        #[arg(long, value_delimiter = ',', help = format!("{} Comma-separated.", docs::remember::PROJECTS))]
        projects: Vec<String>,
        #[arg(long, value_delimiter = ',', help = format!("{} Comma-separated.", docs::remember::PLATFORMS))]
        platforms: Vec<String>,
        #[arg(long, value_parser = ["verified", "inferred", "unverified"], help = docs::remember::CONFIDENCE)]
        confidence: String,
        #[arg(long, help = docs::remember::VERIFICATION)]
        verification: Option<String>,
        #[arg(long, help = docs::remember::GENERALITY)]
        generality: Option<String>,
        #[arg(long = "link", help = format!("{} Repeatable.", docs::remember::LINKS))]
        links: Vec<String>,
        #[arg(long, help = format!("{} Repeatable.", docs::remember::SUPERSEDES))]
        supersedes: Vec<String>,
        #[arg(long, help = docs::remember::FORCE)]
        force: bool,
        #[arg(long, help = docs::remember::DRY_RUN)]
        dry_run: bool,
        /// Model folder (see `embed`); used when vectors exist, to refuse a memory that says
        /// what a visible one already says.
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
    },
    /// The memories that reach the caller, best first (ordered by QUERY when given).
    #[command(long_about = cli_words(docs::recall::TOOL, "`query` is the QUERY argument."))]
    Recall {
        #[arg(help = docs::recall::QUERY)]
        query: Option<String>,
        #[arg(long, short = 'n', default_value_t = mindex::memory::DEFAULT_RECALL_LIMIT, value_parser = at_least_one, help = docs::recall::LIMIT)]
        limit: usize,
        #[arg(long, help = docs::recall::EXPLAIN)]
        explain: bool,
        /// Model folder (see `embed`); used when vectors exist.
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
    },
    /// File a note about work done (or a decision record) in the vault.
    #[command(long_about = cli_words(docs::record_work::TOOL, "`kind: decision` is --decision-record here. A refusal writes nothing and exits with status 3."))]
    RecordWork {
        #[arg(long, help = docs::record_work::TITLE)]
        title: String,
        #[arg(long, help = format!("{} `-` reads it from stdin.", docs::record_work::SUMMARY))]
        summary: String,
        #[arg(long = "change", help = format!("{} Repeatable.", docs::record_work::CHANGES))]
        changes: Vec<String>,
        #[arg(long = "decision", help = format!("{} Repeatable.", docs::record_work::DECISIONS))]
        decisions: Vec<String>,
        #[arg(long = "learned", help = format!("{} Repeatable.", docs::record_work::LEARNED))]
        learned: Vec<String>,
        #[arg(long = "open", help = format!("{} Repeatable.", docs::record_work::OPEN))]
        open: Vec<String>,
        #[arg(long = "informed-by", help = format!("{} Repeatable.", docs::record_work::INFORMED_BY))]
        informed_by: Vec<String>,
        #[arg(long, help = docs::record_work::VERIFICATION)]
        verification: Option<String>,
        #[arg(long, help = docs::record_work::FOLDER)]
        folder: Option<String>,
        #[arg(long, help = format!("File it as kind `decision` (without this flag, `note`). {}", docs::record_work::KIND))]
        decision_record: bool,
        #[arg(long, help = docs::record_work::DRY_RUN)]
        dry_run: bool,
    },
    /// A note's neighbourhood: the visible notes it links to and that link to it.
    Expand {
        /// A note title, label, path or vault:// URI.
        note: String,
    },
    /// Vault hygiene over the index: orphan notes and broken wikilinks.
    Audit,
    /// Answer a question with a read-only agent session over the exposed vault (spawns the agent
    /// CLI: $MINDEX_REASON_BIN, else the manifest's `reason.command`, else `claude`). Exit 3 when
    /// no answer came back.
    #[command(long_about = cli_words(docs::reason::TOOL, "The session is the agent CLI: $MINDEX_REASON_BIN, else the manifest's `reason.command`, else `claude`. Exit status 3 when no answer came back."))]
    Reason {
        #[arg(help = docs::reason::QUESTION)]
        question: String,
        /// Seconds before the session is killed (default: the manifest's `reason.timeout_s`, else 300).
        #[arg(long)]
        timeout_s: Option<u64>,
        /// Never load the embedding model for the seed search (lexical only).
        #[arg(long)]
        no_vectors: bool,
    },
    /// What an agent session sees (the owner's view): caller, memory store, exposed roots, index; with warnings.
    #[command(long_about = cli_words(docs::health::TOOL, "The session is the project --caller names, else the current repository's."))]
    Health,
    /// Keep the index current while notes change: filesystem events drive debounced incremental
    /// updates (every editor's save pattern is handled; missed events are caught by a periodic
    /// reconciliation); when the vault has vectors, new and changed chunks are embedded in the
    /// background after each update. Runs until interrupted; prints each update and embedding
    /// round (`--json`: one JSON line each).
    Watch {
        /// Quiet milliseconds that close a batch of events.
        #[arg(long, default_value_t = 40)]
        debounce_ms: u64,
        /// Seconds between full reconciliations.
        #[arg(long, default_value_t = 60)]
        reconcile_s: u64,
        /// Model folder (see `embed`); used when the vault has vectors for it.
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
        /// Never embed (by default, when the vault has vectors, new and changed chunks are
        /// embedded in the background after each update).
        #[arg(long)]
        no_vectors: bool,
    },
    /// Serve the vault to an agent as an MCP server on stdio (newline-delimited JSON-RPC).
    Mcp {
        /// Also keep the index current while notes change (as `mindex watch` does).
        #[arg(long)]
        watch: bool,
        /// Milliseconds a tool call waits for the client's roots (the caller's identity).
        #[arg(long, default_value_t = 2000)]
        identity_timeout_ms: u64,
        /// Never load the embedding model (lexical search only).
        #[arg(long)]
        no_vectors: bool,
    },
    /// Serve the vault to a team: MCP over Streamable HTTP at /mcp. Every client sends
    /// `Authorization: Bearer <token>`; the tokens file (outside the vault) maps each token to
    /// a caller. Plain HTTP: put a TLS reverse proxy in front to serve other machines.
    /// SIGINT/SIGTERM stop it gracefully.
    Serve {
        /// Address to listen on (loopback by default).
        #[arg(long, default_value = mindex_agent::serve::DEFAULT_BIND, value_name = "ADDR")]
        bind: String,
        /// Tokens file: one `CALLER TOKEN` per line, mode 600, outside the vault. Default:
        /// ~/.config/mindex/serve-tokens.
        #[arg(long, env = "MINDEX_SERVE_TOKENS", value_name = "FILE")]
        tokens: Option<PathBuf>,
        /// Make a new token for CALLER (a project name), append it to the tokens file, print it
        /// and exit.
        #[arg(long, value_name = "CALLER")]
        add_token: Option<String>,
        /// Also accept this Host header (the name a reverse proxy forwards); repeatable.
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_hosts: Vec<String>,
        /// Accept requests carrying this Origin header (browsers); repeatable. Others get 403.
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allow_origins: Vec<String>,
        /// Most sessions open at once.
        #[arg(long, default_value_t = 1000)]
        max_sessions: usize,
        /// Seconds a request (other than `reason`) may take before it is answered 504.
        #[arg(long, default_value_t = 60)]
        request_timeout_s: u64,
        /// Also keep the index current while notes change (as `mindex watch` does).
        #[arg(long)]
        watch: bool,
        /// Never load the embedding model (lexical search only).
        #[arg(long)]
        no_vectors: bool,
    },
    /// Lifecycle hook for Claude Code, Codex and Gemini CLI: reads the agent's JSON payload on
    /// stdin and prints the envelope the agent takes. Events: session-start, user-prompt,
    /// post-tool, pre-compact, stop (each agent's own event names work too). Always exits 0.
    Hook {
        /// The event.
        event: String,
    },
    /// Quality harness: index a BEIR-format collection in a temporary vault and report nDCG@10,
    /// MRR@10 and recall@100 per mode.
    Eval {
        /// corpus.jsonl (`{"_id","title","text"}` per line).
        #[arg(long, value_name = "FILE")]
        corpus: PathBuf,
        /// queries.jsonl (`{"_id","text"}` per line).
        #[arg(long, value_name = "FILE")]
        queries: PathBuf,
        /// qrels.tsv (`query-id corpus-id score`, with a header).
        #[arg(long, value_name = "FILE")]
        qrels: PathBuf,
        /// Which retrieval to measure; `all` runs the three (vector and hybrid need the model).
        #[arg(long, value_enum, default_value = "all")]
        mode: EvalModeArg,
        /// Model folder (see `embed`).
        #[arg(long, value_name = "DIR")]
        model: Option<PathBuf>,
        /// Keep the generated vault in this folder instead of a temporary one; a later run with the
        /// same folder reuses its index and vectors.
        #[arg(long, value_name = "DIR")]
        keep: Option<PathBuf>,
        /// Hybrid mode: how the lexical and vector rankings are fused.
        #[arg(long, value_enum, default_value_t = FusionArg::Rrf)]
        fusion: FusionArg,
        /// Hybrid mode: the RRF constant k.
        #[arg(long, default_value_t = 60.0)]
        rrf_k: f32,
        /// Hybrid mode: weight of the lexical list.
        #[arg(long, default_value_t = 1.0)]
        lex_weight: f32,
        /// Hybrid mode: weight of the vector list.
        #[arg(long, default_value_t = mindex::query::DEFAULT_VEC_WEIGHT)]
        vec_weight: f32,
        /// Also score a ranking computed elsewhere (a TREC run file, `qid Q0 docid rank score
        /// tag`; e.g. benches/bm25_reference.py's) with the same metric code, as the `run` row.
        #[arg(long, value_name = "FILE")]
        run: Option<PathBuf>,
    },
}

/// `--fusion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FusionArg {
    /// Weighted reciprocal rank fusion (the default).
    Rrf,
    /// Min-max normalised scores, weighted sum.
    Minmax,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EvalModeArg {
    Bm25,
    Vector,
    Hybrid,
    All,
}

/// A progress bar on stderr when it is a terminal.
struct Bar {
    bar: std::sync::Mutex<Option<ProgressBar>>,
    enabled: bool,
    /// `--quiet`: not even the estimate of a long run.
    quiet: bool,
}

impl mindex::Progress for Bar {
    fn start(&self, phase: &str, total: u64) {
        if !self.enabled || total < 100 {
            return;
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len}  {per_sec}  ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_message(phase.to_string());
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }
    fn advance(&self, n: u64) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            b.inc(n);
        }
    }
    fn finish(&self) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
    }
    fn estimate(&self, e: &mindex::vault::EmbedEstimate) {
        if self.quiet {
            return;
        }
        let line = output::estimate_line(e);
        match self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }
}

fn vault_root(cli: &Cli) -> anyhow::Result<PathBuf> {
    if let Some(v) = &cli.vault {
        return Ok(v.clone());
    }
    let cwd = std::env::current_dir()?;
    mindex::vault::find_vault_root(&cwd).ok_or_else(|| {
        anyhow::anyhow!(
            "no vault found: pass --vault DIR, set MINDEX_VAULT, or run inside a vault (a folder with {} or .obsidian/ in it or above)",
            mindex::vault::MANIFEST_FILE
        )
    })
}

fn open(cli: &Cli) -> anyhow::Result<Vault> {
    let root = vault_root(cli)?;
    let options = VaultOptions {
        index_dir: cli.index.clone(),
        ..VaultOptions::default()
    };
    Ok(Vault::open(root, options)?)
}

fn load_model(dir: Option<&std::path::Path>) -> mindex::Result<mindex::BertEmbedder> {
    mindex::BertEmbedder::load(&mindex::embed::model_dir(dir))
}

fn bar(cli: &Cli) -> Bar {
    Bar {
        bar: std::sync::Mutex::new(None),
        enabled: !cli.quiet && std::io::stderr().is_terminal(),
        quiet: cli.quiet,
    }
}

/// The caller's identity: `--caller`, else the current repository (the engine's scoped view
/// identifies it: its platforms).
fn caller(cli: &Cli, vault: &Vault) -> anyhow::Result<mindex::Caller> {
    let c = match &cli.caller {
        Some(name) => mindex::Caller::named(name)?,
        None => mindex::Caller::from_cwd(&std::env::current_dir()?, vault.root()),
    };
    Ok(c)
}

/// A count of at least 1 (`-n 0` would ask for nothing and print "no results").
/// A tool's description as every surface teaches it ([`docs`]), then what is particular to the
/// command line.
fn cli_words(shared: &str, cli: &str) -> String {
    format!(
        "{shared}\n\nOn the command line, fields are flags (`dry_run` is --dry-run) and \
         `record_work` is the record-work command. {cli}"
    )
}

fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A query with words in it (an empty one would print "no results" as if the vault had none).
fn non_blank(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        Err("the query is empty; give the words to search for".to_string())
    } else {
        Ok(s.to_string())
    }
}

/// Reads `-` as stdin.
fn text_arg(s: &str) -> anyhow::Result<String> {
    if s == "-" {
        let mut buf = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut buf)?;
        Ok(buf)
    } else {
        Ok(s.to_string())
    }
}

/// Runs the MCP server on stdin/stdout until stdin ends, then waits for requests in flight.
/// Keeps the index current while notes change, on a thread (`mcp --watch`, `serve --watch`): a
/// second handle on the same vault writes, the server reads and reloads on every commit. When
/// the watcher stops (the vault moved or was deleted) or meets a problem (a model that cannot
/// load), it says so on stderr, which MCP clients keep as the server's log.
fn watch_in_background(cli: &Cli, embed: bool) -> anyhow::Result<()> {
    let watched = open(cli)?;
    std::thread::spawn(move || {
        let stop = std::sync::atomic::AtomicBool::new(false);
        let load = || load_model(None).map(|m| Box::new(m) as Box<dyn mindex::Embedder>);
        let embedder: Option<mindex::watch::EmbedderLoader<'_>> =
            if embed { Some(&load) } else { None };
        let r = watched.watch_with(
            &mindex::watch::WatchOptions::default(),
            embedder,
            &stop,
            &mut |e| {
                if let mindex::watch::WatchEvent::Problem(p) = e {
                    eprintln!("warning: {p}");
                }
            },
        );
        if let Err(e) = r {
            eprintln!("warning: watching stopped: {e}");
        }
    });
    Ok(())
}

fn serve_mcp(vault: Vault, opts: mindex_agent::McpOptions) -> anyhow::Result<()> {
    use std::io::Write;
    let out = std::sync::Mutex::new(std::io::stdout());
    let server = mindex_agent::McpServer::new(vault, opts, move |line: &str| {
        let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
        // A closed stdout means the client is gone; nothing useful remains to do with the error.
        let _ = writeln!(o, "{line}").and_then(|()| o.flush());
    });
    // Lines are read with the engine's cap (MAX_MESSAGE_BYTES), never buffered whole.
    server.serve(std::io::stdin().lock());
    Ok(())
}

/// How `reason` runs: the agent CLI from `MINDEX_REASON_BIN` when set.
fn reason_options(timeout_s: Option<u64>) -> mindex::ReasonOptions {
    mindex::ReasonOptions {
        command: std::env::var_os("MINDEX_REASON_BIN")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        timeout: timeout_s.map(std::time::Duration::from_secs),
        ..mindex::ReasonOptions::default()
    }
}

/// Exit status of a refused write.
const EXIT_REFUSED: u8 = 3;
/// Exit status of a search or lookup that matched nothing (the output says so too).
const EXIT_NOTHING_MATCHED: u8 = 4;

/// Success, or [`EXIT_NOTHING_MATCHED`]: scripts can tell an empty answer from a found one.
fn matched(found: bool) -> ExitCode {
    if found {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOTHING_MATCHED)
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let out = output::Out::new(cli.json);
    match &cli.command {
        Command::Init {
            dir,
            merge,
            with_samples,
            user_configs,
        } => {
            let dir = match dir {
                Some(d) => d.clone(),
                None => std::env::current_dir()?,
            };
            let options = mindex::init::InitOptions {
                merge: *merge,
                with_samples: *with_samples,
                binary: std::env::current_exe()
                    .ok()
                    .and_then(|exe| mindex::init::agent_binary(&exe)),
                user_configs: *user_configs,
                home: None,
            };
            let report = mindex::init::init_vault(&dir, &options)?;
            out.init(&report)
        }
        Command::Update { verify, rebuild } => {
            let vault = open(cli)?;
            let report = if *rebuild {
                vault.rebuild(&bar(cli))?
            } else if *verify {
                vault.update_verified(&bar(cli))?
            } else {
                vault.update(&bar(cli))?
            };
            out.update(&report)
        }
        Command::Embed {
            model,
            hnsw_threshold,
        } => {
            let vault = Vault::open(
                vault_root(cli)?,
                VaultOptions {
                    index_dir: cli.index.clone(),
                    hnsw_threshold: *hnsw_threshold,
                    ..VaultOptions::default()
                },
            )?;
            let embedder = load_model(model.as_deref())?;
            let report = vault.vectors().embed(&embedder, &bar(cli))?;
            out.embed(&report)
        }
        Command::Vsearch {
            query,
            limit,
            model,
        } => {
            let vault = open(cli)?;
            let embedder = load_model(model.as_deref())?;
            let opts = SearchOptions {
                limit: *limit,
                all_chunks: false,
            };
            let hits = vault.vectors().search(&embedder, query, &opts)?;
            out.search(query, &hits, "cosine")?;
            return Ok(matched(!hits.is_empty()));
        }
        Command::Query {
            query,
            lex,
            vec,
            limit,
            rrf_k,
            vec_weight,
            explain,
            model,
            rerank,
            rerank_candidates,
        } => {
            let vault = open(cli)?;
            let subs = mindex::SubQuery::assemble(query.as_deref(), lex, vec, Some(*vec_weight));
            if subs.is_empty() {
                anyhow::bail!("give a QUERY, or at least one --lex or --vec sub-query");
            }
            let (embedder, notice) = if mindex::SubQuery::wants_model(&subs) {
                mindex::embed::load_for_query(model.as_deref())?
            } else {
                (None, None)
            };
            let opts = mindex::QueryOptions {
                limit: *limit,
                rrf_k: *rrf_k,
                explain: *explain,
                rerank_candidates: *rerank_candidates,
                ..Default::default()
            };
            let reranker = rerank
                .as_deref()
                .map(mindex::rerank::CrossEncoder::load)
                .transpose()?;
            let mut result = vault.query_reranked(
                embedder.as_ref().map(|e| e as &dyn mindex::Embedder),
                reranker
                    .as_ref()
                    .map(|r| r as &dyn mindex::rerank::Reranker),
                &subs,
                &opts,
            )?;
            if let Some(notice) = notice {
                // The model-missing notice replaces the generic "no model loaded" one.
                result.notices = vec![notice];
            }
            out.query(&subs, &result)?;
            return Ok(matched(!result.hits.is_empty()));
        }
        Command::Search {
            query,
            limit,
            all_chunks,
        } => {
            let vault = open(cli)?;
            let hits = vault.search(
                query,
                &SearchOptions {
                    limit: *limit,
                    all_chunks: *all_chunks,
                },
            )?;
            out.search(query, &hits, "bm25")?;
            return Ok(matched(!hits.is_empty()));
        }
        Command::Get { spec, lines } => {
            let vault = open(cli)?;
            let (path, line) = mindex::vault::parse_get_spec(spec);
            let note = match vault.get(path, line, *lines) {
                // A note literally named `x:12.md` still resolves.
                Err(mindex::Error::NoteNotFound { .. }) if line.is_some() => {
                    vault.get(spec, None, *lines)?
                }
                r => r?,
            };
            out.get(&note)
        }
        Command::MultiGet { pattern, max_bytes } => {
            let vault = open(cli)?;
            let items = vault.multi_get(pattern, *max_bytes)?;
            out.multi_get(pattern, &items)?;
            return Ok(matched(!items.is_empty()));
        }
        Command::Eval {
            corpus,
            queries,
            qrels,
            mode,
            model,
            keep,
            fusion,
            rrf_k,
            lex_weight,
            vec_weight,
            run,
        } => {
            use mindex::eval::EvalMode as M;
            let modes = match mode {
                EvalModeArg::Bm25 => vec![M::Bm25],
                EvalModeArg::Vector => vec![M::Vector],
                EvalModeArg::Hybrid => vec![M::Hybrid],
                EvalModeArg::All => vec![M::Bm25, M::Vector, M::Hybrid],
            };
            let embedder = if modes.iter().any(|m| *m != M::Bm25) {
                Some(load_model(model.as_deref())?)
            } else {
                None
            };
            let tmp;
            let work = match keep {
                Some(k) => k.clone(),
                None => {
                    tmp = tempfile::tempdir()?;
                    tmp.path().join("vault")
                }
            };
            let report = mindex::eval::evaluate(
                &mindex::eval::EvalFiles {
                    corpus,
                    queries,
                    qrels,
                },
                &modes,
                embedder.as_ref().map(|e| e as &dyn mindex::Embedder),
                &mindex::eval::EvalFusion {
                    method: match fusion {
                        FusionArg::Rrf => mindex::query::Fusion::Rrf,
                        FusionArg::Minmax => mindex::query::Fusion::MinMax,
                    },
                    rrf_k: *rrf_k,
                    lex_weight: *lex_weight,
                    vec_weight: *vec_weight,
                },
                &work,
                run.as_deref(),
                &bar(cli),
            )?;
            out.eval(&report)
        }
        Command::Status { verify } => {
            let vault = open(cli)?;
            let status = vault.status_with(&mindex::StatusOptions { verify: *verify })?;
            out.status(&status)
        }
        Command::Remember {
            title,
            body,
            scope,
            projects,
            platforms,
            confidence,
            verification,
            generality,
            links,
            supersedes,
            force,
            dry_run,
            model,
        } => {
            let vault = open(cli)?;
            let who = caller(cli, &vault)?;
            // With vectors and the model, a paraphrase of a visible memory is refused too.
            let embedder = if *force {
                None
            } else {
                vault.vectors().model(model.as_deref()).ok().flatten()
            };
            let input = mindex::MemoryInput {
                title: title.clone(),
                body: text_arg(body)?,
                confidence: confidence.clone(),
                verification: verification.clone(),
                scope: scope.clone(),
                generality: generality.clone(),
                projects: projects.clone(),
                platforms: platforms.clone(),
                links: links.clone(),
                supersedes: supersedes.clone(),
                force: *force,
                dry_run: *dry_run,
                shape_errors: Vec::new(),
                via: Some(mindex::vault::Surface::Cli),
            };
            let r = vault
                .scoped(&who)
                .remember(&input, embedder.as_ref().map(|m| m as &dyn mindex::Embedder))?;
            out.write_outcome(&r)?;
            if mindex::Outcome::refused(&r) {
                return Ok(ExitCode::from(EXIT_REFUSED));
            }
            Ok(())
        }
        Command::Recall {
            query,
            limit,
            explain,
            model,
        } => {
            let vault = open(cli)?;
            let who = caller(cli, &vault)?;
            // Vectors order the memories when both they and the model exist; otherwise BM25.
            let embedder = if query.is_some() {
                vault.vectors().model(model.as_deref()).ok().flatten()
            } else {
                None
            };
            let r = vault.scoped(&who).recall(
                &mindex::RecallOptions {
                    query: query.clone(),
                    limit: *limit,
                    explain: *explain,
                },
                embedder.as_ref().map(|e| e as &dyn mindex::Embedder),
            )?;
            out.recall(&r)
        }
        Command::RecordWork {
            title,
            summary,
            changes,
            decisions,
            learned,
            open: open_items,
            informed_by,
            verification,
            folder,
            decision_record,
            dry_run,
        } => {
            let vault = open(cli)?;
            let who = caller(cli, &vault)?;
            let input = mindex::WorkInput {
                title: title.clone(),
                summary: text_arg(summary)?,
                changes: changes.clone(),
                decisions: decisions.clone(),
                learned: learned.clone(),
                open: open_items.clone(),
                informed_by: informed_by.clone(),
                verification: verification.clone(),
                folder: folder.clone(),
                kind: if *decision_record {
                    mindex::WorkKind::Decision
                } else {
                    mindex::WorkKind::Note
                },
                dry_run: *dry_run,
            };
            let r = vault.scoped(&who).record_work(&input)?;
            out.write_outcome(&r)?;
            if mindex::Outcome::refused(&r) {
                return Ok(ExitCode::from(EXIT_REFUSED));
            }
            Ok(())
        }
        Command::Expand { note } => {
            let vault = open(cli)?;
            let e = vault.expand(note)?;
            out.expand(&e)
        }
        Command::Audit => {
            let vault = open(cli)?;
            let a = vault.graph_audit()?;
            out.audit(&a)
        }
        Command::Watch {
            debounce_ms,
            reconcile_s,
            model,
            no_vectors,
        } => {
            let vault = open(cli)?;
            let opts = mindex::watch::WatchOptions {
                debounce: std::time::Duration::from_millis(*debounce_ms),
                reconcile_every: std::time::Duration::from_secs((*reconcile_s).max(1)),
                ..mindex::watch::WatchOptions::default()
            };
            let stop = std::sync::atomic::AtomicBool::new(false);
            let json = cli.json;
            let model = model.clone();
            let load = move || {
                load_model(model.as_deref()).map(|m| Box::new(m) as Box<dyn mindex::Embedder>)
            };
            let embedder: Option<mindex::watch::EmbedderLoader<'_>> =
                if *no_vectors { None } else { Some(&load) };
            vault.watch_with(&opts, embedder, &stop, &mut |e| {
                output::watch_event(json, &e)
            })?;
            Ok(())
        }
        Command::Mcp {
            identity_timeout_ms,
            no_vectors,
            watch,
        } => {
            let vault = open(cli)?;
            if *watch {
                watch_in_background(cli, !*no_vectors)?;
            }
            // Who the caller is when the client's roots do not say: `--caller` /
            // `MINDEX_CALLER` always; else the repository the server runs in.
            let caller = cli
                .caller
                .as_deref()
                .map(mindex::Caller::named)
                .transpose()?;
            let fallback_caller =
                mindex::Caller::from_working_repository(&std::env::current_dir()?, vault.root());
            serve_mcp(
                vault,
                mindex_agent::McpOptions {
                    identity_timeout: std::time::Duration::from_millis(*identity_timeout_ms),
                    use_vectors: !*no_vectors,
                    reason: reason_options(None),
                    caller,
                    fallback_caller,
                },
            )
        }
        Command::Serve {
            bind,
            tokens,
            add_token,
            allow_hosts,
            allow_origins,
            max_sessions,
            request_timeout_s,
            watch,
            no_vectors,
        } => {
            let tokens_path = match tokens {
                Some(p) => p.clone(),
                None => mindex_agent::serve::default_tokens_path().ok_or_else(|| {
                    anyhow::anyhow!("no home folder to keep the tokens file in: name one with --tokens FILE")
                })?,
            };
            if let Some(name) = add_token {
                // The vault `serve` would serve (found as every command finds it), else the
                // vault the tokens file itself would lie in: a file inside it is refused before
                // anything is written.
                let vault = vault_root(cli).ok().or_else(|| {
                    let dir = tokens_path
                        .parent()
                        .filter(|d| !d.as_os_str().is_empty())
                        .unwrap_or(std::path::Path::new("."));
                    mindex::vault::find_vault_root(&std::path::absolute(dir).ok()?)
                });
                let token =
                    mindex_agent::serve::add_token(&tokens_path, name, vault.as_deref())
                        .map_err(anyhow::Error::msg)?;
                if cli.json {
                    println!(
                        "{}",
                        serde_json::json!({"caller": name.trim().to_lowercase(), "token": token,
                            "tokens_file": tokens_path})
                    );
                } else {
                    println!("{token}");
                    eprintln!(
                        "added a token for {} to {}; a client sends it as `Authorization: Bearer <token>`",
                        name.trim().to_lowercase(),
                        tokens_path.display()
                    );
                }
                return Ok(ExitCode::SUCCESS);
            }
            let vault = open(cli)?;
            let tokens = mindex_agent::serve::Tokens::load(&tokens_path, vault.root())
                .map_err(anyhow::Error::msg)?;
            if *watch {
                watch_in_background(cli, !*no_vectors)?;
            }
            let root = vault.root().to_path_buf();
            let count = tokens.len();
            let server = mindex_agent::serve::HttpServer::bind(
                mindex_agent::Backend::new(vault),
                tokens,
                mindex_agent::serve::ServeOptions {
                    bind: bind.clone(),
                    allowed_hosts: allow_hosts.clone(),
                    allowed_origins: allow_origins.clone(),
                    max_sessions: (*max_sessions).max(1),
                    request_timeout: std::time::Duration::from_secs((*request_timeout_s).max(1)),
                    mcp: mindex_agent::McpOptions {
                        use_vectors: !*no_vectors,
                        reason: reason_options(None),
                        ..mindex_agent::McpOptions::default()
                    },
                    ..mindex_agent::serve::ServeOptions::default()
                },
            )
            .map_err(anyhow::Error::msg)?;
            let addr = server.local_addr();
            let stop = mindex_agent::serve::stop_on_signals();
            eprintln!(
                "mindex serve: MCP (Streamable HTTP) at http://{addr}{} for {}; {count} token(s) from {}",
                mindex_agent::serve::ENDPOINT,
                root.display(),
                tokens_path.display()
            );
            if !addr.ip().is_loopback() {
                eprintln!(
                    "mindex serve: listening beyond this machine over plain HTTP: put a TLS reverse proxy in front (README, \"Serving a team\")"
                );
            }
            let stats = server.run(stop);
            eprintln!(
                "mindex serve: stopped after {} request(s) ({} refused), {} session(s)",
                stats.requests, stats.refused, stats.sessions
            );
            Ok(())
        }
        Command::Reason {
            question,
            timeout_s,
            no_vectors,
        } => {
            let vault = open(cli)?;
            let who = caller(cli, &vault)?;
            let model = if *no_vectors {
                None
            } else {
                vault.vectors().model(None).ok().flatten()
            };
            let r = vault.scoped(&who).reason(
                question,
                model.as_ref().map(|m| m as &dyn mindex::Embedder),
                &reason_options(*timeout_s),
            )?;
            out.write_outcome(&r)?;
            if !r.ok {
                return Ok(ExitCode::from(EXIT_REFUSED));
            }
            Ok(())
        }
        Command::Hook { event } => {
            Ok(hook::run(
                event,
                cli.vault.as_deref(),
                cli.index.as_deref(),
                cli.caller.as_deref(),
            ))
            .map(|_| ())
        }
        Command::Health => {
            let vault = open(cli)?;
            let who = caller(cli, &vault)?;
            let h = vault.health(&who)?;
            out.health(&h)
        }
    }
    .map(|()| ExitCode::SUCCESS)
}

/// Keeps large freed blocks in the heap instead of returning them to the OS: model inference
/// allocates and frees tens of megabytes per batch, and re-faulting those pages cost ~10% of
/// embedding time (measured). glibc only; elsewhere the allocator's defaults stay.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        const M_TRIM_THRESHOLD: i32 = -1;
        const M_MMAP_THRESHOLD: i32 = -3;
        // SAFETY: mallopt only adjusts allocator tunables; called once, before other threads start.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
            mallopt(M_TRIM_THRESHOLD, 1 << 30);
        }
    }
}

fn main() -> ExitCode {
    tune_allocator();
    let cli = Cli::parse();
    if let Some(p) = cli.precision {
        // The engine reads the precision from the environment wherever it loads the model (the
        // MCP server and the hooks too), so the flag travels that way.
        // SAFETY: no other thread exists yet (nothing has been spawned before this point).
        unsafe { std::env::set_var("MINDEX_PRECISION", p.as_str()) };
    }
    if let Command::Hook { event } = &cli.command {
        return hook::run(
            event,
            cli.vault.as_deref(),
            cli.index.as_deref(),
            cli.caller.as_deref(),
        );
    }
    // A bug or a damaged index must end in a clear error, not a backtrace: the panic message is
    // kept (printed only with RUST_BACKTRACE set) and reported as an error.
    let debug = std::env::var_os("RUST_BACKTRACE").is_some();
    let panic_message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    {
        let slot = panic_message.clone();
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Ok(mut m) = slot.lock()
                && m.is_empty()
            {
                let what = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown".into());
                *m = match info.location() {
                    Some(l) => format!("{what}, in {}:{}", l.file(), l.line()),
                    None => what,
                };
            }
            if debug {
                default(info);
            }
        }));
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&cli))) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            output::error(cli.json, &e);
            ExitCode::FAILURE
        }
        Err(_) => {
            let what = panic_message.lock().map(|m| m.clone()).unwrap_or_default();
            let e = anyhow::anyhow!(
                "mindex stopped on an internal error ({what}). If the index was damaged, `mindex update --rebuild` rebuilds it from the vault; otherwise please report this."
            );
            output::error(cli.json, &e);
            ExitCode::FAILURE
        }
    }
}
