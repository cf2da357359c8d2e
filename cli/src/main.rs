//! `mindex`: the reference command-line interface over the mindex engine.
//!
//! Every command is a thin shell around one engine call: parse arguments, call, print (human text
//! by default, one JSON document with `--json`).

mod output;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
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

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a new vault from the bundled template.
    Init {
        /// Where to create it (default: the current folder).
        dir: Option<PathBuf>,
        /// Allow a non-empty folder: add only the template files that are missing.
        #[arg(long)]
        merge: bool,
    },
    /// Bring the index up to date with the notes on disk (only changed notes are re-indexed).
    Update,
    /// Full-text (BM25) search: the best chunk of each matching note.
    Search {
        /// The query: words, "quoted phrases", field:term, +required, -excluded.
        query: String,
        /// Maximum number of hits.
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
        /// Return every matching chunk, not just the best one per note.
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
    /// What is indexed, what the last update did, and what changed on disk since.
    Status,
}

/// A progress bar on stderr when it is a terminal.
struct Bar {
    bar: std::sync::Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl mindex::Progress for Bar {
    fn start(&self, phase: &str, total: u64) {
        if !self.enabled || total < 100 {
            return;
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:>10} [{bar:40}] {pos}/{len} notes  {per_sec}  ETA {eta}",
            )
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
}

fn vault_root(cli: &Cli) -> anyhow::Result<PathBuf> {
    if let Some(v) = &cli.vault {
        return Ok(v.clone());
    }
    let cwd = std::env::current_dir()?;
    mindex::find_vault_root(&cwd).ok_or_else(|| {
        anyhow::anyhow!(
            "no vault found: pass --vault DIR, set MINDEX_VAULT, or run inside a vault (a folder with {} in it or above)",
            mindex::MANIFEST_FILE
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

fn run(cli: &Cli) -> anyhow::Result<()> {
    let out = output::Out::new(cli.json);
    match &cli.command {
        Command::Init { dir, merge } => {
            let dir = match dir {
                Some(d) => d.clone(),
                None => std::env::current_dir()?,
            };
            let report = mindex::init_vault(&dir, *merge)?;
            out.init(&report)
        }
        Command::Update => {
            let vault = open(cli)?;
            let bar = Bar {
                bar: std::sync::Mutex::new(None),
                enabled: !cli.quiet && std::io::stderr().is_terminal(),
            };
            let report = vault.update(&bar)?;
            out.update(&report)
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
            out.search(query, &hits)
        }
        Command::Get { spec, lines } => {
            let vault = open(cli)?;
            let (path, line) = mindex::parse_get_spec(spec);
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
            out.multi_get(&items)
        }
        Command::Status => {
            let vault = open(cli)?;
            let status = vault.status()?;
            out.status(&status)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            output::error(cli.json, &e);
            ExitCode::FAILURE
        }
    }
}
