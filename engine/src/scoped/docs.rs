//! The words a model learns each agent tool from, in one place: what the tool is for, when to
//! use it rather than its neighbour, what a good argument looks like, and what every enum value
//! means. The MCP server's tool list (`mindex-agent`) and the CLI's `--help` for the matching
//! commands both read these constants, so the two surfaces never teach different things; a
//! surface may add its own specifics (a flag that reads stdin, an exit status) after them.
//!
//! Models read every tool description on every session, so each tool's text stays short
//! (a few hundred to about 1,200 characters; `remember`, whose words shape every memory, more).
//! The limits and defaults quoted here are the engine's constants; the tests below fail when one
//! changes and its words do not.

/// `search`: one plain-language query, keywords and meaning ranked together.
pub mod search {
    /// Hits `search` returns when no limit is given.
    pub const DEFAULT_LIMIT: usize = 5;
    /// What the tool is for.
    pub const TOOL: &str = "Find notes in the user's vault by topic: one plain-language query, \
ranked by keywords and meaning together (BM25, plus vectors once the vault is embedded). Use it \
first, before answering anything about past decisions, prior work, people or the reasons behind \
something: it is fast and calls no model. Each hit gives the note's path and line, its title, a \
relevance from 0 to 1 saying how strongly it matches (near 1: the note holds your words or says \
what you ask; under 0.5: a weak match, the vault may not cover it; \"exact match\" when the note holds the \
identifier or ticket id you typed) and a snippet; read the note itself with `get`. Use `query` \
instead to give the exact words and the meaning separately (an error code plus the symptom it \
causes). Memories are not searched here: they come from `recall`. Notes the vault keeps from \
agents are never searched, so no results means nothing you may read matches. \
Example: {\"query\": \"why did we move sessions to Postgres\"}.";
    /// `query`.
    pub const QUERY: &str = "What you are looking for, in plain words or a short question. \
Names, identifiers and ticket ids (`PROJ-123`, `parse_frontmatter`) put the notes holding them \
exactly first; \"quoted phrases\" match as written. Example: \"retry policy for the payments \
webhook\".";
    /// `limit`.
    pub const LIMIT: &str = "How many notes to return, best first (default 5). Raise it when the \
first hits are near misses; each hit costs a few hundred characters of context.";
}

/// `query`: typed sub-queries, fused.
pub mod query {
    /// Hits `query` returns when no limit is given.
    pub const DEFAULT_LIMIT: usize = 10;
    /// What the tool is for.
    pub const TOOL: &str = "Search with sub-queries you write yourself, each ranked on its own \
and then fused into one ranking: `lex` sub-queries match words (names, identifiers, error \
messages, \"quoted phrases\"), `vec` sub-queries match meaning (a sentence describing what the \
note says, found even when it uses other words). Use it rather than `search` when the exact \
words and the idea differ, or to try several phrasings at once; for one plain question `search` \
does the same with less to write. Hits read as in `search` (path, line, relevance 0-1, snippet); \
read a note with `get`. Until the vault is embedded, `vec` sub-queries add nothing and the \
ranking is by words only. Example: {\"searches\": [{\"type\": \"lex\", \"query\": \
\"ECONNRESET pgbouncer\"}, {\"type\": \"vec\", \"query\": \"database connections dropped under \
load\"}], \"limit\": 5}.";
    /// `searches`.
    pub const SEARCHES: &str = "The sub-queries, at least one, each {type, query}; several of \
one type are allowed, and a note several of them rank well rises. Give this or `query`.";
    /// `searches[].type`.
    pub const SEARCH_TYPE: &str = "`lex`: ranks by words (BM25): write the terms a matching note \
contains: names, identifiers, error text, \"quoted phrases\". `vec`: ranks by meaning (embedding \
similarity): write a full sentence saying what the note would say.";
    /// `searches[].query`.
    pub const SEARCH_TEXT: &str = "The text of this sub-query (not empty).";
    /// `query`.
    pub const QUERY: &str = "Shorthand for one `lex` and one `vec` sub-query with the same text \
(what `search` runs); ignored when `searches` is given.";
    /// `limit`.
    pub const LIMIT: &str = "How many notes to return, best first (default 10).";
}

/// `get`: one note, paged.
pub mod get {
    /// What the tool is for.
    pub const TOOL: &str = "Read one note you know, by path or title: usually one that `search`, \
`query`, `expand` or `recall` named. For a single note prefer it to `multi_get`: it pages \
through long notes. One call returns at most 32 KiB of whole lines; a longer note ends with a \
line naming the `from_line` to pass for the next page. A note that does not exist and one this \
session may not read get the same answer. Example: {\"path\": \"brain/Key Decisions.md\"}, or \
{\"path\": \"Key Decisions\", \"from_line\": 120, \"max_lines\": 40} for the lines a hit \
pointed at.";
    /// `path`.
    pub const PATH: &str = "The note: its vault-relative path (`.md` optional), its title or \
file name, or a `vault://note/...` URI. A name several notes share is answered with the \
candidates; pass the path then.";
    /// `from_line`.
    pub const FROM_LINE: &str = "First line to return, 1-based (default 1); to continue a long \
note, pass the line the previous page named.";
    /// `max_lines`.
    pub const MAX_LINES: &str = "Most lines to return (default: as many as fit in one 32 KiB \
page).";
}

/// `multi_get`: several notes by pattern.
pub mod multi_get {
    /// What the tool is for.
    pub const TOOL: &str = "Read several notes in one call, named by comma-separated globs and \
note names: every note of a folder, or a handful of known titles. For one note use `get`. One \
answer holds at most 200 notes and 64 KiB of text, each note at most one 32 KiB page; notes \
past the total or over `max_bytes` are listed as skipped, to read with `get`. \
Example: {\"pattern\": \"work/active/*.md, brain/Key Decisions\"}.";
    /// `pattern`.
    pub const PATTERN: &str = "Comma-separated globs and names. In a glob `*` stays within one \
folder and `**` crosses folders; an entry without a wildcard is a note name or path, as `get` \
takes it. Example: \"projects/atlas/**/*.md, Home\".";
    /// `max_bytes`.
    pub const MAX_BYTES: &str = "List notes larger than this many bytes as skipped instead of \
reading them; keeps big notes out of a wide pattern.";
}

/// `expand`: a note's links.
pub mod expand {
    /// What the tool is for.
    pub const TOOL: &str = "Lists the notes a given note links to and the notes that link to it. \
Once a relevant note is in hand, follow its links with this to reach the decision behind it, its \
project or the people involved; it is cheaper and surer than another search with new words. Links \
to notes you may not read are counted, never named. Example: {\"note\": \"Payments Migration\"}.";
    /// `note`.
    pub const NOTE: &str = "The note to start from: title, vault-relative path or \
`vault://note/...` URI, as `get` takes it.";
}

/// `status`: the index.
pub mod status {
    /// What the tool is for.
    pub const TOOL: &str = "The index: how many notes and chunks it holds and how many have \
vectors, what the last update did, and which notes changed on disk since (those may not be \
found yet). Use it when a note you just wrote or edited does not turn up in `search`; use \
`health` when whole kinds of answers are missing. No arguments.";
}

/// `health`: what this session sees.
pub mod health {
    /// What the tool is for.
    pub const TOOL: &str = "What this session sees of the vault: the project it is identified as \
and that project's platforms, where memories live and how many there are, which folders agents may \
read, whether the index and vectors are there, and a warning for each thing that degrades answers. \
Call it when `search` or `recall` comes back without something you expected: an anonymous session, \
the wrong project name, a renamed memory folder and a missing index all produce the same empty \
answer, and this report shows which one it is. No arguments.";
}

/// `recall`: the memories that reach the caller.
pub mod recall {
    /// What the tool is for.
    pub const TOOL: &str = "The memories (durable lessons written with `remember` in earlier \
sessions) that reach this session's project: `project` memories naming it, `platform` memories \
sharing one of its platforms, and `general` ones. Call it when a task starts, before deciding \
something an earlier session may already have decided, and always before `remember`, so an \
existing lesson is corrected rather than repeated. A `query` orders them by relevance and never \
drops any. Each entry shows its confidence, reach and date, and which project wrote it when that \
is not this one; superseded memories come after the live ones, naming what corrects them; when a \
lesson was promoted into a vault note, that note's text is shown and wins. Notes are not here: \
`search` them. Example: {\"query\": \"flaky integration tests on CI\"}.";
    /// `query`.
    pub const QUERY: &str = "Optional: what you are about to work on, in plain words. Memories \
are ordered by relevance to it (words and meaning), then every other memory that reaches you \
follows; none is dropped. Without it, the most specific come first (those naming this project, \
then `platform`, then `general`), newest first within each.";
    /// `limit`.
    pub const LIMIT: &str = "Most memories to return (default 20).";
    /// `explain`.
    pub const EXPLAIN: &str = "Also say why each memory reaches you, and count those withheld from \
this session with the reasons (scoped to another project, or corrected by a memory you cannot \
see). Turn it on when a lesson you expect does not appear: the counts show whether it is scoped \
away or was never written.";
}

/// `remember`: write a memory.
pub mod remember {
    /// What the tool is for.
    pub const TOOL: &str = "Save a durable lesson as a memory: knowledge about a tool, library, \
platform, codebase or way of working that stays correct after this task is over and that a later \
session would act on. Worth keeping: a limit or requirement you ran into, a trap that cost time, \
the real cause behind a failure, a practice that proved itself. Not memories: a log of what you \
did, progress or status, plans, a summary of the conversation, facts the next commit will change \
(those go in `record_work`), pasted output or transcripts. Ask whether a session starting cold on \
unrelated work would be glad to be told it. Call `recall` first: if a memory already says it, \
stop; if one is wrong or reaches too far, write the correction and name the old one in \
`supersedes`. Pick `confidence` and `scope` honestly (each value is explained on its field): they \
decide who is told and how far they trust it. Nothing is written, and the answer says why, for: a \
near-duplicate of a memory reaching the same sessions, in the same words or (once the vault is \
embedded) the same meaning in other words (then use `supersedes`, or `force` if it is really a \
different lesson), a body under 40 characters, a body that reads as a chat transcript, a \
memory that would reach nobody, a session running inside the vault itself. The engine narrows a \
scope, never widens it, and records a flagged `verified` claim as `inferred`. Example: {\"title\": \
\"pgbouncer transaction mode breaks prepared statements\", \"body\": \"Behind pgbouncer in \
transaction mode, server-side prepared statements fail with 'prepared statement does not exist' \
because consecutive queries may run on different server connections. Disable them in the driver or \
use session mode.\", \"confidence\": \"verified\", \"verification\": \"Reproduced against staging; \
the error stopped with prepare disabled.\", \"scope\": \"platform\", \"platforms\": \
[\"postgres\"]}.";
    /// `title`.
    pub const TITLE: &str = "One line (at most 200 characters) stating the lesson itself, so a \
later session can tell from the title alone whether it applies. Good: \"pgbouncer transaction mode \
breaks prepared statements\"; poor: \"DB notes\", \"fixed the bug\". It names the file too, so it \
needs letters or digits.";
    /// `body`.
    pub const BODY: &str = "The lesson spelled out: the fact, the cause behind it, and what a \
reader should do differently because of it, readable by someone who never saw this session; at \
least 40 characters, usually a short paragraph. Write the conclusion in your own words: four or \
more lines starting like chat turns (`User:`, `Assistant:`) are refused as a transcript. Anchor \
counts that drift with a date (\"as of 2026-05-01\"). Wikilinks to notes that do not exist become \
plain text. Over 8,000 characters draws a warning to split it; over 32 KiB is refused.";
    /// `confidence`.
    pub const CONFIDENCE: &str = "How the claim is known (required); a reader trusts it \
accordingly, so pick the lowest that is honest. `verified`: confirmed first-hand in this work, by \
a run, a test, the source code or the official documentation; put the check in `verification`. \
`inferred`: concluded from what you observed, but not confirmed directly. `unverified`: taken from \
someone else, a second-hand source or an assumption. The engine checks the body: a claim that \
something always / never / every time happens is flagged `generalised` (one observation is not a \
pattern), a count that drifts (stars, downloads, users) without a date is flagged `volatile`, and \
a flagged `verified` memory is recorded as `inferred`, with `claimed_confidence: verified` kept \
beside it.";
    /// `verification`.
    pub const VERIFICATION: &str = "How the claim was checked, concretely enough to repeat: the \
command run and what it printed, the file and function read, the documentation page. Expected \
with `verified` (a warning without it); shown under \"How this is known\".";
    /// `scope`.
    pub const SCOPE: &str = "Who the memory reaches (default `project`). `project`: only the \
projects in `projects`, or, with none named, the project this session is identified as (refused \
for an anonymous session); for anything about one codebase: its layout, conventions, deploys, \
quirks. `platform`: every project whose vault note lists one of `platforms` (such as ios, \
postgres, rust); for how a language, framework, library, service or toolchain behaves. `general`: \
every session, anonymous ones included; only for what holds whatever the stack, such as a way of \
working, reviewing or debugging; say why in `generality`. Prefer `platform` to `general` whenever \
the lesson depends on a technology: a session on another stack would be misled by it. The engine \
narrows, never widens: `general` with `projects` named is recorded as `project` (with \
`claimed_scope: general`), and `platform` with no `platforms` is refused.";
    /// `generality`.
    pub const GENERALITY: &str = "With scope `general`: why the lesson holds for every project, \
whatever its language or platform (a warning without it). If you cannot say, the scope is \
`platform` or `project`.";
    /// `projects`.
    pub const PROJECTS: &str = "Projects the memory reaches, as simple names (letters, digits, \
`.`, `_`, `-`), e.g. [\"atlas\", \"billing-api\"]; several may be named, and the memory reaches \
each. With scope `project` and none named, this session's project. Naming any turns a `general` \
memory into a `project` one.";
    /// `platforms`.
    pub const PLATFORMS: &str = "Platforms the memory reaches with scope `platform`, as simple \
names as project notes list them in `platforms:`, e.g. [\"postgres\"] or [\"android\", \
\"kotlin\"].";
    /// `links`.
    pub const LINKS: &str = "Vault notes to list under \"Related\", by title or path. A name that \
finds no note you may read is left out, and the answer says so.";
    /// `supersedes`.
    pub const SUPERSEDES: &str = "The titles, exactly as written (case does not matter), of \
memories this one replaces because they are wrong. The old ones stay on disk, marked superseded \
and pointing here, and `recall` lists them after current memories; titles that match nothing are \
reported back. The same fixes a memory that reaches too far: record it again with the narrower \
scope and supersede the first, which is then withheld from every session that cannot see its \
correction.";
    /// `force`.
    pub const FORCE: &str = "Write even though a near-duplicate exists (default false). Only for \
a really different lesson; when the new one corrects the old, use `supersedes`.";
    /// `dry_run`.
    pub const DRY_RUN: &str = "Check the memory and show the note that would be written, with its \
warnings, without writing it (default false).";
}

/// `record_work`: file a note about work done.
pub mod record_work {
    /// What the tool is for.
    pub const TOOL: &str = "File a note in the vault about work done in this session: what changed \
and why, the decisions, the surprises, what is left open. Use it when a piece of work ends, or \
with `kind: decision` for a choice worth its own record. It is the project's history; `remember` \
is for the one reusable lesson inside it (record both when both apply). Its reader arrives weeks \
later knowing nothing of this session and unable to see the diff, so give every field that \
applies. Filed in `folder` when given (inside a folder agents may read), else in this project's \
folder of the vault, else the inbox; an existing note is never changed, and a note over 256 KiB is \
refused. Example: {\"title\": \"Move the session store to Postgres\", \"summary\": \"Sessions now \
live in Postgres instead of the single Redis node, so a restart no longer logs everyone out.\", \
\"changes\": [\"session.rs: store behind a trait; Postgres implementation\"], \"decisions\": \
[\"Postgres over Redis Sentinel: one less system to run\"], \"open\": [\"Drop the Redis keys after \
a week\"]}.";
    /// `title`.
    pub const TITLE: &str = "Short and specific: what was done. Good: \"Retry webhook deliveries \
with backoff\"; poor: \"changes\". It names the file.";
    /// `summary`.
    pub const SUMMARY: &str = "A short paragraph: what was done and the reason for it, so a reader \
can tell from it alone whether the note concerns them.";
    /// `changes`.
    pub const CHANGES: &str = "Each item one file, module or setting you changed, with what and \
why, e.g. \"webhook.rs: retries back off exponentially, at most 5 tries\".";
    /// `decisions`.
    pub const DECISIONS: &str = "Each choice you made and its reason, naming the options you \
turned down; later readers look here first when they question the design.";
    /// `learned`.
    pub const LEARNED: &str = "What you did not expect: behaviour that surprised you, a dead end, \
a cause that took long to find. A lesson that holds beyond this work belongs in `remember` as \
well.";
    /// `open`.
    pub const OPEN: &str = "Work left undone or postponed, and limits you know of, so no reader \
takes them as finished.";
    /// `informed_by`.
    pub const INFORMED_BY: &str = "Titles of the vault notes you relied on; each becomes a link \
under \"Related\" (a title with no note yet stays plain text).";
    /// `verification`.
    pub const VERIFICATION: &str = "The evidence it works: which tests or commands ran and what \
they showed, what was checked by hand; name anything that failed or went unchecked.";
    /// `folder`.
    pub const FOLDER: &str = "Where to file it, relative to the vault (e.g. \
\"projects/atlas/notes\"), inside a folder agents may read. Left out, the note goes to this \
project's folder, or the inbox when the project has none.";
    /// `kind`.
    pub const KIND: &str = "`note` (default): a dated record of work, its file name starting with \
the date. `decision`: a decision record, named by its title alone and filed with the project's \
decisions; for a choice others should follow or may revisit.";
    /// `dry_run`.
    pub const DRY_RUN: &str = "Show where the note would go and how it starts, writing nothing \
(default false).";
}

/// `reason`: a read-only agent session over the vault.
pub mod reason {
    /// What the tool is for.
    pub const TOOL: &str = "For questions whose answer is a judgement drawn from many notes, not a \
fact found in one: does a plan agree with earlier decisions, which of two notes that disagree is \
current, what the incidents of a service have in common. It starts a separate, read-only agent \
session over the notes this session may read, seeded with search results, so it takes minutes and \
costs a model call, where `search` answers in about a second. Try `search`, `get` and `recall` \
first; turn to it when they surface the notes and the answer still has to be worked out. It \
answers in full (the answer is also recorded in the vault) or says why it did not (timed out, \
ended early), never with part of an answer. Example: {\"question\": \"We are about to cache \
sessions in Redis again. Does that contradict a decision recorded since the Postgres migration, \
and why was Redis dropped?\"}.";
    /// `question`.
    pub const QUESTION: &str = "A complete question with its background: the session that answers \
knows nothing of this conversation. Include the plan or claim to be judged and what hangs on the \
answer; a topic alone comes back as an overview instead of an answer.";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{
        BODY_WARN_CHARS, Confidence, DEFAULT_RECALL_LIMIT, MAX_MEMORY_BODY_BYTES, MAX_TITLE_CHARS,
        MIN_BODY_CHARS, Scope,
    };
    use crate::scoped::{AGENT_PAGE_BYTES, MAX_MULTI_GET_BYTES, MAX_MULTI_GET_NOTES};
    use crate::vault::MAX_WORK_NOTE_BYTES;

    fn kib(bytes: usize) -> String {
        format!("{} KiB", bytes / 1024)
    }

    /// `8000` as the texts write it: `8,000`.
    fn grouped(n: usize) -> String {
        let s = n.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    #[test]
    fn the_numbers_in_the_words_are_the_engines() {
        let checks: &[(&str, &str, String)] = &[
            (
                "search.LIMIT",
                search::LIMIT,
                format!("default {}", search::DEFAULT_LIMIT),
            ),
            (
                "query.LIMIT",
                query::LIMIT,
                format!("default {}", query::DEFAULT_LIMIT),
            ),
            (
                "recall.LIMIT",
                recall::LIMIT,
                format!("default {DEFAULT_RECALL_LIMIT}"),
            ),
            ("get.TOOL", get::TOOL, kib(AGENT_PAGE_BYTES)),
            ("get.MAX_LINES", get::MAX_LINES, kib(AGENT_PAGE_BYTES)),
            ("multi_get.TOOL", multi_get::TOOL, kib(MAX_MULTI_GET_BYTES)),
            ("multi_get.TOOL", multi_get::TOOL, kib(AGENT_PAGE_BYTES)),
            (
                "multi_get.TOOL",
                multi_get::TOOL,
                format!("{MAX_MULTI_GET_NOTES} notes"),
            ),
            (
                "remember.TITLE",
                remember::TITLE,
                format!("{MAX_TITLE_CHARS} characters"),
            ),
            (
                "remember.BODY",
                remember::BODY,
                format!("{MIN_BODY_CHARS} characters"),
            ),
            (
                "remember.TOOL",
                remember::TOOL,
                format!("{MIN_BODY_CHARS} characters"),
            ),
            (
                "remember.BODY",
                remember::BODY,
                format!("{} characters", grouped(BODY_WARN_CHARS)),
            ),
            ("remember.BODY", remember::BODY, kib(MAX_MEMORY_BODY_BYTES)),
            (
                "record_work.TOOL",
                record_work::TOOL,
                kib(MAX_WORK_NOTE_BYTES),
            ),
        ];
        for (name, text, want) in checks {
            assert!(
                text.contains(want.as_str()),
                "{name} should say {want:?}: {text}"
            );
        }
        assert_eq!(grouped(8000), "8,000");
    }

    #[test]
    fn every_scope_and_confidence_is_explained_on_its_field() {
        for s in [Scope::General, Scope::Platform, Scope::Project] {
            let named = format!("`{}`:", s.as_str());
            assert!(
                remember::SCOPE.contains(&named),
                "scope {named} unexplained"
            );
        }
        for c in [
            Confidence::Verified,
            Confidence::Inferred,
            Confidence::Unverified,
        ] {
            let named = format!("`{}`:", c.as_str());
            assert!(
                remember::CONFIDENCE.contains(&named),
                "confidence {named} unexplained"
            );
        }
        // What the engine does to a flagged claim, and the scope it prefers, are said.
        for want in ["`generalised`", "`volatile`", "recorded as `inferred`"] {
            assert!(remember::CONFIDENCE.contains(want), "{want}");
        }
        assert!(remember::SCOPE.contains("Prefer `platform` to `general`"));
        for want in ["`note`", "`decision`"] {
            assert!(record_work::KIND.contains(want), "{want}");
        }
        for want in ["`lex`:", "`vec`:"] {
            assert!(query::SEARCH_TYPE.contains(want), "{want}");
        }
    }

    #[test]
    fn each_tool_says_when_to_use_its_neighbour() {
        for (tool, text, neighbours) in [
            (
                "search",
                search::TOOL,
                &["`query`", "`recall`", "`get`"][..],
            ),
            ("query", query::TOOL, &["`search`"][..]),
            ("get", get::TOOL, &["`multi_get`"][..]),
            ("multi_get", multi_get::TOOL, &["`get`"][..]),
            ("recall", recall::TOOL, &["`remember`", "`search`"][..]),
            (
                "remember",
                remember::TOOL,
                &["`record_work`", "`recall`", "`supersedes`"][..],
            ),
            ("record_work", record_work::TOOL, &["`remember`"][..]),
            ("reason", reason::TOOL, &["`search`", "`recall`"][..]),
            ("status", status::TOOL, &["`health`"][..]),
            ("health", health::TOOL, &["`search`", "`recall`"][..]),
        ] {
            for n in neighbours {
                assert!(text.contains(n), "{tool} should name {n}");
            }
        }
    }

    #[test]
    fn tool_texts_stay_short_enough_to_read_every_session() {
        for (tool, text, most) in [
            ("search", search::TOOL, 1_200),
            ("query", query::TOOL, 1_200),
            ("get", get::TOOL, 1_200),
            ("multi_get", multi_get::TOOL, 1_200),
            ("expand", expand::TOOL, 1_200),
            ("status", status::TOOL, 1_200),
            ("health", health::TOOL, 1_200),
            ("recall", recall::TOOL, 1_200),
            ("record_work", record_work::TOOL, 1_400),
            ("reason", reason::TOOL, 1_200),
            ("remember", remember::TOOL, 2_400),
        ] {
            let n = text.chars().count();
            assert!((200..=most).contains(&n), "{tool}: {n} characters");
        }
    }
}
