//! Every stage a note's text goes through when it is indexed or served (privacy verdict,
//! parsing, chunking, the analyzer, block segmentation, snippet cleaning) costs near-linear time
//! in the note's size, for every markdown shape: four times the input must cost well under
//! sixteen times the work (what a quadratic stage would cost).
//!
//! Work is measured as the thread's CPU time, the least of several runs, so another process on
//! the machine does not count; the assertion is on a ratio between two sizes, never on a time.

use crate::chunk::{ChunkOptions, chunk_note};
use crate::note::parse_note;

/// One pass over every stage, on `text` as a note at `path`.
fn every_stage(text: &str) -> usize {
    let mut n = usize::from(crate::markdown::text_withheld(text));
    let parsed = parse_note("shape.md", text);
    n += parsed.note.tags.len() + parsed.note.links.len() + parsed.note.headings.len();
    n += chunk_note(&parsed.note, &ChunkOptions::default()).len();
    n += crate::lexical::analyze(&parsed.note.body, false).len();
    n += crate::lexical::analyze(&parsed.note.body, true).len();
    let lines = crate::markdown::blocks::body_lines(text);
    n += crate::markdown::blocks::segment(&lines).marks.len();
    n += crate::lexical::clean_markdown(&parsed.note.body).len();
    n
}

#[cfg(unix)]
fn thread_cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer for a clock every Unix has.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

#[cfg(not(unix))]
fn thread_cpu_ns() -> u128 {
    use std::sync::LazyLock;
    static START: LazyLock<std::time::Instant> = LazyLock::new(std::time::Instant::now);
    START.elapsed().as_nanos()
}

/// The least CPU time of `runs` passes over every stage.
fn cost(text: &str, runs: usize) -> u128 {
    (0..runs)
        .map(|_| {
            let t = thread_cpu_ns();
            std::hint::black_box(every_stage(std::hint::black_box(text)));
            thread_cpu_ns() - t
        })
        .min()
        .unwrap_or(0)
        .max(1)
}

/// A note of `n` units of one shape.
fn shaped(shape: &str, n: usize) -> String {
    let mut s = String::new();
    match shape {
        "tags" => (0..n).for_each(|i| s.push_str(&format!("#tag{i} "))),
        "repeated tags" => (0..n).for_each(|i| s.push_str(&format!("#t{} ", i % 7))),
        "nested tags" => (0..n).for_each(|i| s.push_str(&format!("#a/b{i}/c "))),
        "links" => (0..n).for_each(|i| s.push_str(&format!("[[Note {i}#Part|shown {i}]] "))),
        "embeds" => (0..n).for_each(|i| s.push_str(&format!("![[img{i}.png]]\n"))),
        "unclosed links" => (0..n).for_each(|i| s.push_str(&format!("[[Note {i} "))),
        "headings" => (0..n).for_each(|i| s.push_str(&format!("## Heading {i}\ntext {i}\n"))),
        "headings only" => (0..n).for_each(|i| s.push_str(&format!("# H{i}\n"))),
        "lists" => {
            (0..n).for_each(|i| s.push_str(&format!("{}- item {i} [[L{i}]]\n", "  ".repeat(i % 6))))
        }
        "tasks" => (0..n).for_each(|i| s.push_str(&format!("- [ ] task {i}\n"))),
        "tables" => {
            s.push_str("| a | b | c |\n|---|---|---|\n");
            (0..n).for_each(|i| s.push_str(&format!("| {i} | x{i} | [[T{i}]] |\n")));
        }
        "fences" => (0..n).for_each(|i| s.push_str(&format!("```\ncode {i}\n```\ntext {i}\n"))),
        "unclosed fence" => {
            s.push_str("```rust\n");
            (0..n).for_each(|i| s.push_str(&format!("let x{i} = {i}; // #notatag [[no]]\n")));
        }
        "quotes" => (0..n).for_each(|i| s.push_str(&format!("> > quoted {i} ^id{i}\n"))),
        "one long line" => (0..n).for_each(|i| s.push_str(&format!("word{i} "))),
        "one long identifier" => (0..n).for_each(|i| s.push_str(&format!("aB{i}_c."))),
        "block ids" => (0..n).for_each(|i| s.push_str(&format!("para {i} ^b{i}\n\n"))),
        "blank lines" => (0..n).for_each(|_| s.push_str("\n\n\n")),
        "frontmatter list" => {
            s.push_str("---\ntags:\n");
            (0..n).for_each(|i| s.push_str(&format!("  - t{i}\n")));
            s.push_str("---\nbody\n");
        }
        "frontmatter keys" => {
            s.push_str("---\n");
            (0..n).for_each(|i| s.push_str(&format!("key{i}: value {i}\n")));
            s.push_str("---\nbody\n");
        }
        "unclosed frontmatter" => {
            s.push_str("---\n");
            (0..n).for_each(|i| s.push_str(&format!("key{i}: value {i}\n")));
        }
        "dots then rules" => {
            s.push_str("---\ntitle: x\n...\n");
            (0..n).for_each(|i| s.push_str(&format!("line {i}\n")));
        }
        other => unreachable!("{other}"),
    }
    s
}

const SHAPES: &[&str] = &[
    "tags",
    "repeated tags",
    "nested tags",
    "links",
    "embeds",
    "unclosed links",
    "headings",
    "headings only",
    "lists",
    "tasks",
    "tables",
    "fences",
    "unclosed fence",
    "quotes",
    "one long line",
    "one long identifier",
    "block ids",
    "blank lines",
    "frontmatter list",
    "frontmatter keys",
    "unclosed frontmatter",
    "dots then rules",
];

#[test]
fn four_times_the_note_costs_well_under_sixteen_times_the_work_for_every_shape() {
    // Units per note: the small note is some tens of KiB, the large one four times that.
    const N: usize = 6_000;
    let mut worst = (String::new(), 0.0f64);
    for shape in SHAPES {
        // At least 100 KB, so the small note's cost is well above the clock's noise.
        let mut n = N;
        while shaped(shape, n).len() < 100_000 {
            n *= 2;
        }
        let (small, large) = (shaped(shape, n), shaped(shape, 4 * n));
        // Warm up (lazy regexes, analyzers), then the least of several runs of each size.
        every_stage(&small);
        let mut ratio = f64::MAX;
        // A second attempt absorbs a pause that struck one size's every run.
        for _ in 0..2 {
            ratio = ratio.min(cost(&large, 3) as f64 / cost(&small, 5) as f64);
            if ratio < 8.0 {
                break;
            }
        }
        eprintln!(
            "{shape}: {} → {} bytes: ×{ratio:.1}",
            small.len(),
            large.len()
        );
        if ratio > worst.1 {
            worst = (shape.to_string(), ratio);
        }
        assert!(
            ratio < 8.0,
            "{shape}: 4× the input cost {ratio:.1}× the work (quadratic is 16×)"
        );
    }
    eprintln!("worst: {} ×{:.1}", worst.0, worst.1);
}
