//! `mindex-vaultgen DIR [--notes N] [--seed S]`: writes a synthetic vault for benchmarks.

use anyhow::{Context, bail};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut notes = 10_000usize;
    let mut seed = 42u64;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--notes" => {
                notes = args
                    .next()
                    .context("--notes needs a number")?
                    .parse()
                    .context("--notes")?
            }
            "--seed" => {
                seed = args
                    .next()
                    .context("--seed needs a number")?
                    .parse()
                    .context("--seed")?
            }
            "-h" | "--help" => {
                println!("usage: mindex-vaultgen DIR [--notes N] [--seed S]");
                return Ok(());
            }
            _ if dir.is_none() => dir = Some(std::path::PathBuf::from(a)),
            other => bail!("unexpected argument {other:?}"),
        }
    }
    let dir = dir.context("usage: mindex-vaultgen DIR [--notes N] [--seed S]")?;
    if dir.exists() && std::fs::read_dir(&dir)?.next().is_some() {
        bail!("{} is not empty", dir.display());
    }
    let g = mindex_benches::generate_vault(&dir, notes, seed)?;
    println!(
        "wrote {} notes ({:.1} MiB) to {}",
        g.notes.len(),
        g.bytes as f64 / 1048576.0,
        dir.display()
    );
    Ok(())
}
