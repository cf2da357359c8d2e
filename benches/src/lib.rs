//! Synthetic vaults for benchmarks: realistic Obsidian-style notes, deterministic from a seed.
//!
//! A generated vault has the template's folder layout, YAML frontmatter (date, description, tags,
//! sometimes aliases), an H1 title, several H2/H3 sections of Zipf-distributed words, wikilinks to
//! other notes (some with headings or aliases, some embeds), inline tags, task lists, code blocks,
//! and about 1% long notes (20-60 KB).

use std::fs;
use std::path::{Path, PathBuf};

/// A small, fast, deterministic PRNG (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const COMMON: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "that",
    "with",
    "on",
    "as",
    "it",
    "be",
    "we",
    "this",
    "by",
    "from",
    "at",
    "are",
    "or",
    "an",
    "not",
    "was",
    "but",
    "will",
    "can",
    "all",
    "when",
    "which",
    "after",
    "before",
    "service",
    "deploy",
    "database",
    "latency",
    "migration",
    "team",
    "review",
    "incident",
    "customer",
    "release",
    "error",
    "request",
    "queue",
    "cache",
    "index",
    "search",
    "memory",
    "budget",
    "roadmap",
    "decision",
    "design",
    "api",
    "client",
    "server",
    "test",
    "build",
    "pipeline",
    "metric",
    "alert",
    "owner",
    "plan",
    "risk",
    "rollback",
    "schema",
    "backfill",
    "timeout",
    "retry",
    "config",
    "feature",
    "flag",
    "payment",
    "ledger",
    "checkout",
];

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ne", "ru", "ta", "shi", "vo", "pe", "za", "qu", "dri", "fen", "gal", "hor",
    "ix", "jun", "kor", "lum", "mor", "nox", "pra", "sel", "tor", "ul", "ven", "wex", "yor",
];

/// A vocabulary: common words first (frequent), then made-up words (the long tail).
fn vocabulary(rng: &mut Rng, size: usize) -> Vec<String> {
    let mut words: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
    let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
    while words.len() < size {
        let n = 2 + rng.below(4);
        let w: String = (0..n)
            .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
            .collect();
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    words
}

/// Zipf-like pick: index `floor(n^u)`-ish, skewed to the front.
fn zipf(rng: &mut Rng, n: usize) -> usize {
    let x = (n as f64).powf(rng.unit()) - 1.0;
    (x as usize).min(n - 1)
}

const FOLDERS: &[&str] = &[
    "work/active",
    "work/archive",
    "work/incidents",
    "work/1-1",
    "brain",
    "org/people",
    "org/teams",
    "reference",
    "thinking",
    "perf/brag",
];

/// The generated vault's notes, for picking edit targets and queries.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Vault-relative paths of every note.
    pub notes: Vec<String>,
    /// Words of the vocabulary (common first).
    pub vocabulary: Vec<String>,
    /// Total bytes written.
    pub bytes: u64,
}

/// Writes a vault of `n` notes under `root` (which should be empty).
pub fn generate_vault(root: &Path, n: usize, seed: u64) -> std::io::Result<Generated> {
    let mut rng = Rng::new(seed);
    let vocab = vocabulary(&mut rng, 20_000);
    fs::create_dir_all(root)?;
    fs::write(
        root.join("vault-manifest.json"),
        "{\"template\": \"mindex-bench\"}\n",
    )?;
    let titles: Vec<String> = (0..n)
        .map(|i| {
            let words = 2 + rng.below(3);
            let mut t: Vec<String> = (0..words)
                .map(|_| {
                    let w = &vocab[COMMON.len() + zipf(&mut rng, vocab.len() - COMMON.len())];
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect())
                        .unwrap_or_default()
                })
                .collect();
            t.push(format!("{i}"));
            t.join(" ")
        })
        .collect();
    let mut paths = Vec::with_capacity(n);
    let mut bytes = 0u64;
    for (i, title) in titles.iter().enumerate() {
        let folder = FOLDERS[rng.below(FOLDERS.len())];
        let rel = format!("{folder}/{title}.md");
        let text = note_text(&mut rng, &vocab, &titles, i);
        let path: PathBuf = root.join(&rel);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p)?;
        }
        bytes += text.len() as u64;
        fs::write(&path, text)?;
        paths.push(rel);
    }
    Ok(Generated {
        notes: paths,
        vocabulary: vocab,
        bytes,
    })
}

fn sentence(rng: &mut Rng, vocab: &[String], titles: &[String], out: &mut String) {
    let len = 6 + rng.below(14);
    for k in 0..len {
        if k > 0 {
            out.push(' ');
        }
        let r = rng.below(100);
        if r < 2 && !titles.is_empty() {
            let t = &titles[rng.below(titles.len())];
            match rng.below(4) {
                0 => out.push_str(&format!("[[{t}#Context]]")),
                1 => out.push_str(&format!("[[{t}|that note]]")),
                _ => out.push_str(&format!("[[{t}]]")),
            }
        } else if r < 3 {
            out.push_str(&format!("#topic-{}", rng.below(200)));
        } else if r < 45 {
            out.push_str(&vocab[rng.below(COMMON.len())]);
        } else {
            out.push_str(&vocab[zipf(rng, vocab.len())]);
        }
    }
    out.push('.');
}

fn note_text(rng: &mut Rng, vocab: &[String], titles: &[String], i: usize) -> String {
    let mut s = String::new();
    let day = 1 + rng.below(28);
    let month = 1 + rng.below(12);
    s.push_str(&format!(
        "---\ndate: 2026-{month:02}-{day:02}\ndescription: "
    ));
    sentence(rng, vocab, &[], &mut s);
    s.push_str(&format!(
        "\ntags: [{}, topic-{}]\n",
        ["work-note", "brain", "person", "reference", "thinking"][rng.below(5)],
        rng.below(200)
    ));
    if rng.below(5) == 0 {
        s.push_str(&format!(
            "aliases: [{} alias]\n",
            vocab[COMMON.len() + rng.below(500)]
        ));
    }
    s.push_str("status: active\n---\n");
    s.push_str(&format!("# {}\n\n", titles[i]));
    let long = rng.below(100) == 0;
    let sections = if long {
        30 + rng.below(40)
    } else {
        2 + rng.below(5)
    };
    for sec in 0..sections {
        let level = if sec > 0 && rng.below(3) == 0 {
            "###"
        } else {
            "##"
        };
        s.push_str(&format!(
            "{level} {} {}\n\n",
            vocab[rng.below(COMMON.len())],
            vocab[zipf(rng, vocab.len())]
        ));
        let paras = 1 + rng.below(3);
        for _ in 0..paras {
            let sentences = 2 + rng.below(5);
            for _ in 0..sentences {
                sentence(rng, vocab, titles, &mut s);
                s.push(' ');
            }
            s.push_str("\n\n");
        }
        match rng.below(8) {
            0 => s.push_str("- [ ] follow up with the owner\n- [x] draft the plan\n\n"),
            1 => s.push_str("```bash\n# not a heading\nmake deploy ENV=staging\n```\n\n"),
            _ => {}
        }
    }
    s
}

/// Writes `n` agent memories under `<root>/memories/YYYY/MM/` in the format the engine writes
/// (about 70% project-scoped over `projects` projects, 20% platform, 10% general), with bodies
/// drawn from `vocab`. Returns the titles.
pub fn generate_memories(
    root: &Path,
    n: usize,
    projects: usize,
    vocab: &[String],
    seed: u64,
) -> std::io::Result<Vec<String>> {
    let mut rng = Rng::new(seed);
    let platforms = ["ios", "android", "web", "linux"];
    let mut titles = Vec::with_capacity(n);
    for i in 0..n {
        let month = 1 + i % 12;
        let day = 1 + rng.below(28);
        let words: Vec<&str> = (0..4 + rng.below(4))
            .map(|_| vocab[zipf(&mut rng, vocab.len())].as_str())
            .collect();
        let title = format!("{} lesson {i}", words.join(" "));
        let mut body = String::new();
        for _ in 0..2 + rng.below(3) {
            sentence(&mut rng, vocab, &[], &mut body);
            body.push(' ');
        }
        let (scope, projs, plats) = match rng.below(10) {
            0 => ("general", String::new(), String::new()),
            1 | 2 => (
                "platform",
                String::new(),
                format!(
                    "platforms: [\"{}\"]\n",
                    platforms[rng.below(platforms.len())]
                ),
            ),
            _ => {
                let k = 1 + rng.below(2);
                let ps: Vec<String> = (0..k)
                    .map(|_| format!("\"proj{}\"", rng.below(projects)))
                    .collect();
                ("project", ps.join(", "), String::new())
            }
        };
        let text = format!(
            "---\ndate: 2026-{month:02}-{day:02}\ndescription: \"{}\"\ntags: [memory]\nsource: mcp-capture\norigin: \"proj0\"\nsession: \"2026-{month:02}-{day:02}T10:00:00.000Z\"\nscope: {scope}\nprojects: [{projs}]\n{plats}confidence: inferred\n---\n\n# {title}\n\n{}\n",
            body.chars().take(120).collect::<String>().replace('"', ""),
            body.trim()
        );
        let dir = root.join(format!("memories/2026/{month:02}"));
        fs::create_dir_all(&dir)?;
        fs::write(
            dir.join(format!("2026-{month:02}-{day:02} {title}.md")),
            text,
        )?;
        titles.push(title);
    }
    Ok(titles)
}

/// The release `mindex` binary the whole-process benches run: `$MINDEX_BIN`, else the one built
/// next to the running bench (`target/release/mindex`).
pub fn mindex_bin() -> std::io::Result<PathBuf> {
    if let Some(p) = std::env::var_os("MINDEX_BIN") {
        return Ok(p.into());
    }
    // target/release/deps/<bench>-<hash> → target/release/mindex
    let exe = std::env::current_exe()?;
    let candidate = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("mindex"));
    match candidate {
        Some(c) if c.exists() => Ok(c),
        c => Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "release mindex binary not found at {}: run `cargo build --release -p mindex-cli` first or set MINDEX_BIN",
                c.map_or_else(|| "target/release".to_string(), |p| p.display().to_string())
            ),
        )),
    }
}

/// A count from the environment (`MINDEX_BENCH_NOTES` …), else `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Percentile of a sorted slice (nearest rank).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_parses() {
        let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (a, b) = (da.path(), db.path());
        let ga = generate_vault(a, 50, 7).unwrap();
        let gb = generate_vault(b, 50, 7).unwrap();
        assert_eq!(ga.notes, gb.notes);
        for p in &ga.notes {
            let ta = fs::read_to_string(a.join(p)).unwrap();
            assert_eq!(ta, fs::read_to_string(b.join(p)).unwrap());
            let parsed = mindex::parse_note(p, &ta);
            assert!(parsed.warnings.is_empty(), "{p}: {:?}", parsed.warnings);
            assert!(!parsed.note.headings.is_empty());
        }
    }

    #[test]
    fn percentiles() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), 2.0);
        assert_eq!(percentile(&v, 100.0), 4.0);
    }
}
