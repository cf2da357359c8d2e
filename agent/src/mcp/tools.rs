//! The tools: their schemas and annotations, how each call runs through the caller's scoped
//! view, and how answers are rendered for a model.

use super::wire::{
    RpcError, RpcResult, arg_str, arg_usize, invalid_params, req_str, text_result, tool_error,
};
use super::{McpServer, SEARCH_TEXT_CAP};
use serde_json::{Value, json};

use mindex::Caller;
use mindex::Embedder;
use mindex::Error;
use mindex::Hit;
use mindex::scoped::{AGENT_PAGE_BYTES, MAX_MULTI_GET_NOTES, clip, not_visible};
use mindex::{MemoryInput, memory::DEFAULT_RECALL_LIMIT};
use mindex::{RecallOptions, WorkInput};
use mindex::{SubQuery, SubQueryKind};

impl McpServer {
    pub(super) fn call_tool(&self, name: &str, args: &Value, caller: &Caller) -> RpcResult {
        let view = self.vault().scoped(caller);
        match name {
            "search" | "query" => {
                let limit = arg_usize(
                    args,
                    "limit",
                    if name == "search" {
                        mindex::scoped::docs::search::DEFAULT_LIMIT
                    } else {
                        mindex::scoped::docs::query::DEFAULT_LIMIT
                    },
                )?;
                let found = if name == "search" {
                    let q = arg_str(args, "query").unwrap_or("").trim();
                    if q.is_empty() {
                        return Ok(text_result(
                            "(search needs a query)".into(),
                            json!({"results": []}),
                        ));
                    }
                    let model = self.embedder();
                    view.search(model.as_deref().map(|m| m as &dyn Embedder), q, limit)
                } else {
                    let subs = typed_subqueries(args)?;
                    let model = if SubQuery::wants_model(&subs) {
                        self.embedder()
                    } else {
                        None
                    };
                    view.query(model.as_deref().map(|m| m as &dyn Embedder), &subs, limit)
                };
                match found {
                    Ok(r) => {
                        // Without vectors the ranking is lexical; that is normal, not a notice
                        // worth repeating. Vectors that miss new chunks are worth knowing.
                        let notices: Vec<String> = r.notice().into_iter().collect();
                        let text = render_hits(&r.hits, limit, &notices);
                        // The hits alone: list ranks counted notes the caller cannot see.
                        let results: Vec<&Hit> = r.hits.iter().map(|h| &h.hit).collect();
                        Ok(text_result(
                            text,
                            json!({"results": results,
                            "total": r.total, "notices": notices}),
                        ))
                    }
                    Err(e) => Ok(tool_error(format!("search failed: {e}"))),
                }
            }
            "get" => {
                let spec = req_str(args, "path")?;
                let line = |k: &str| {
                    args.get(k)
                        .and_then(Value::as_u64)
                        .map(|x| usize::try_from(x).unwrap_or(usize::MAX))
                };
                match view.get(spec, line("from_line"), line("max_lines")) {
                    Ok(n) => {
                        let mut text = n.note.text.clone();
                        if let Some(next) = n.next_from_line {
                            text.push_str(&format!(
                                "\n\n[mindex: lines {}-{} of {} shown (one get serves {} KiB); call get with from_line={next} for the rest]",
                                n.note.line_start,
                                n.note.line_end,
                                n.note.total_lines,
                                AGENT_PAGE_BYTES / 1024
                            ));
                        }
                        // The text once: in the content, not again in the structured result.
                        Ok(text_result(text, without_text(serde_json::to_value(&n))))
                    }
                    Err(e) => Ok(tool_error(not_found_text(spec, e))),
                }
            }
            "multi_get" => {
                let pattern = req_str(args, "pattern")?;
                let max_bytes = args.get("max_bytes").and_then(Value::as_u64);
                match view.multi_get(pattern, max_bytes) {
                    Ok(m) => {
                        let mut text = String::new();
                        for i in &m.items {
                            text.push_str(&i.to_text(mindex::vault::Surface::Mcp));
                        }
                        for u in &m.unmatched {
                            text.push_str(&format!("({u})\n"));
                        }
                        if m.not_listed > 0 {
                            text.push_str(&format!(
                                "({} more matching note(s) not listed: over the {MAX_MULTI_GET_NOTES}-note limit of one multi_get; narrow the pattern)\n",
                                m.not_listed
                            ));
                        }
                        if m.items.is_empty() && m.unmatched.is_empty() {
                            text.push_str("(no visible notes match)");
                        }
                        let mut structured = serde_json::to_value(&m).unwrap_or_default();
                        if let Some(items) = structured["items"].as_array_mut() {
                            items.iter_mut().for_each(strip_text);
                        }
                        Ok(text_result(text, structured))
                    }
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "expand" => {
                let note = req_str(args, "note")?;
                match view.expand(note) {
                    Ok(e) => Ok(text_result(
                        e.to_text(),
                        serde_json::to_value(&e).unwrap_or_default(),
                    )),
                    Err(Error::NoteNotFound { suggestions, .. }) if !suggestions.is_empty() => {
                        Ok(tool_error(format!(
                            "No visible note matches \"{}\". Did you mean: {}?",
                            clip(note),
                            suggestions.join("; ")
                        )))
                    }
                    Err(e) => Ok(tool_error(not_found_text(note, e))),
                }
            }
            "recall" => {
                let opts = RecallOptions {
                    query: arg_str(args, "query")
                        .map(str::to_string)
                        .filter(|q| !q.trim().is_empty()),
                    limit: arg_usize(args, "limit", DEFAULT_RECALL_LIMIT)?,
                    explain: args.get("explain").and_then(Value::as_bool) == Some(true),
                };
                let model = if opts.query.is_some() {
                    self.embedder()
                } else {
                    None
                };
                match view.recall(&opts, model.as_deref().map(|m| m as &dyn Embedder)) {
                    Ok(r) => Ok(text_result(
                        r.to_text(),
                        serde_json::to_value(&r).unwrap_or_default(),
                    )),
                    Err(e) => Ok(tool_error(e.to_string())),
                }
            }
            "remember" => match view.remember(
                &MemoryInput {
                    via: Some(mindex::vault::Surface::Mcp),
                    ..MemoryInput::from_json(args)
                },
                self.embedder().as_deref().map(|m| m as &dyn Embedder),
            ) {
                Ok(r) => Ok(text_result(
                    r.message.clone(),
                    serde_json::to_value(&r).unwrap_or_default(),
                )),
                Err(e) => Ok(tool_error(e.to_string())),
            },
            "record_work" => match view.record_work(&WorkInput::from_json(args)) {
                Ok(r) => Ok(text_result(
                    r.message.clone(),
                    serde_json::to_value(&r).unwrap_or_default(),
                )),
                Err(e) => Ok(tool_error(e.to_string())),
            },
            "reason" => {
                let question = arg_str(args, "question").unwrap_or("");
                let model = self.embedder();
                match view.reason(
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
            "health" => match view.health() {
                Ok(h) => Ok(text_result(
                    h.to_text(),
                    serde_json::to_value(&h).unwrap_or_default(),
                )),
                Err(e) => Ok(tool_error(e.to_string())),
            },
            "status" => match view.status() {
                Ok(st) => Ok(text_result(
                    st.to_text(),
                    serde_json::to_value(&st).unwrap_or_default(),
                )),
                Err(e) => Ok(tool_error(e.to_string())),
            },
            other => Err(invalid_params(format!("unknown tool {other}"))),
        }
    }
}

/// A read that reached no visible note, in the one wording whether it is missing or hidden
/// ([`not_visible`]); any other failure as itself.
pub(super) fn not_found_text(spec: &str, e: Error) -> String {
    match e {
        Error::NoteNotFound { .. } => not_visible(spec),
        Error::InvalidArgument { detail, .. } => detail,
        other => other.to_string(),
    }
}

/// Typed sub-queries of the `query` tool: `searches: [{type: lex|vec, query}]`, or a plain
/// `query` string (a lexical and a vector sub-query).
pub(super) fn typed_subqueries(args: &Value) -> Result<Vec<SubQuery>, RpcError> {
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

/// What each retriever scored a hit: `bm25 6.3`, `cosine 0.32` (not ranks: those count notes
/// the caller may not see).
pub(super) fn stage_scores(h: &mindex::QueryHit) -> String {
    let Some(e) = &h.explain else {
        return String::new();
    };
    let mut parts: Vec<String> = Vec::new();
    for kind in [SubQueryKind::Lex, SubQueryKind::Vec] {
        let best = e
            .sources
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.score)
            .fold(None, |m: Option<f32>, x| Some(m.map_or(x, |m| m.max(x))));
        if let Some(x) = best.filter(|x| x.is_finite()) {
            parts.push(match kind {
                SubQueryKind::Lex => format!("bm25 {x:.1}"),
                _ => format!("cosine {x:.2}"),
            });
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    }
}

/// The answer to `search` and `query`. Hidden notes are never searched for an agent, so the
/// text never counts them; an empty answer says, the same way every time, what is never searched.
pub(super) fn render_hits(hits: &[mindex::QueryHit], limit: usize, notices: &[String]) -> String {
    let mut s = String::new();
    for n in notices {
        s.push_str(&format!("({n})\n\n"));
    }
    if hits.is_empty() || limit == 0 {
        s.push_str(NO_RESULTS);
        return s;
    }
    let parts: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, qh)| {
            let h = &qh.hit;
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
                "[{}] {}:{}  (relevance {:.2}{}{})\n    {}\n    {}",
                i + 1,
                h.path,
                h.line,
                score.clamp(0.0, 1.0),
                stage_scores(qh),
                if h.exact { "; exact match" } else { "" },
                h.title,
                snippet
            )
        })
        .collect();
    let body = parts.join("\n\n");
    s.push_str(&body.chars().take(SEARCH_TEXT_CAP).collect::<String>());
    s
}

/// What an empty `search` or `query` says, whatever the vault holds (a message that changed
/// with hidden matches would tell the agent that a hidden note holds its words).
const NO_RESULTS: &str = "(no results among the notes you can read; private notes and folders this vault does not expose to agents are never searched; memories come from `recall`)";

pub(super) fn annotations(title: &str, read_only: bool) -> Value {
    json!({"title": title, "readOnlyHint": read_only, "destructiveHint": false,
           "idempotentHint": read_only, "openWorldHint": false})
}

/// The tool list with input schemas and annotations, built once (every `tools/call` checks
/// the name it is given against it).
pub fn tools() -> &'static [Value] {
    static TOOLS: std::sync::LazyLock<Vec<Value>> = std::sync::LazyLock::new(tool_list);
    &TOOLS
}

fn tool_list() -> Vec<Value> {
    use mindex::scoped::docs::{
        expand, get, health, multi_get, query, reason, recall, record_work, remember, search,
        status,
    };
    let s = |d: &str| json!({"type": "string", "description": d});
    let list = |d: &str| json!({"type": "array", "items": {"type": "string"}, "description": d});
    let number = |d: &str| json!({"type": "number", "description": d});
    let flag = |d: &str| json!({"type": "boolean", "default": false, "description": d});
    vec![
        json!({"name": "search", "description": search::TOOL,
            "inputSchema": {"type": "object", "properties": {"query": s(search::QUERY),
                "limit": {"type": "number", "default": search::DEFAULT_LIMIT, "description": search::LIMIT}},
                "required": ["query"]},
            "annotations": annotations("Search the vault", true)}),
        json!({"name": "query", "description": query::TOOL,
            "inputSchema": {"type": "object", "properties": {
                "searches": {"type": "array", "items": {"type": "object", "properties": {
                    "type": {"type": "string", "enum": ["lex", "vec"], "description": query::SEARCH_TYPE},
                    "query": s(query::SEARCH_TEXT)},
                    "required": ["type", "query"]}, "description": query::SEARCHES},
                "query": s(query::QUERY),
                "limit": {"type": "number", "default": query::DEFAULT_LIMIT, "description": query::LIMIT}}},
            "annotations": annotations("Query with typed sub-queries", true)}),
        json!({"name": "get", "description": get::TOOL,
            "inputSchema": {"type": "object", "properties": {"path": s(get::PATH),
                "from_line": number(get::FROM_LINE), "max_lines": number(get::MAX_LINES)},
                "required": ["path"]},
            "annotations": annotations("Read a note", true)}),
        json!({"name": "multi_get", "description": multi_get::TOOL,
            "inputSchema": {"type": "object", "properties": {"pattern": s(multi_get::PATTERN),
                "max_bytes": number(multi_get::MAX_BYTES)}, "required": ["pattern"]},
            "annotations": annotations("Read several notes", true)}),
        json!({"name": "expand", "description": expand::TOOL,
            "inputSchema": {"type": "object", "properties": {"note": s(expand::NOTE)}, "required": ["note"]},
            "annotations": annotations("Expand a note's links", true)}),
        json!({"name": "recall", "description": recall::TOOL,
            "inputSchema": {"type": "object", "properties": {"query": s(recall::QUERY),
                "limit": {"type": "number", "default": DEFAULT_RECALL_LIMIT, "description": recall::LIMIT},
                "explain": flag(recall::EXPLAIN)}},
            "annotations": annotations("Recall memories", true)}),
        json!({"name": "remember", "description": remember::TOOL,
            "inputSchema": {"type": "object", "properties": {
                "title": s(remember::TITLE), "body": s(remember::BODY),
                "confidence": {"type": "string", "enum": ["verified", "inferred", "unverified"],
                    "description": remember::CONFIDENCE},
                "verification": s(remember::VERIFICATION),
                "scope": {"type": "string", "enum": ["general", "platform", "project"],
                    "default": "project", "description": remember::SCOPE},
                "generality": s(remember::GENERALITY),
                "projects": list(remember::PROJECTS), "platforms": list(remember::PLATFORMS),
                "links": list(remember::LINKS), "supersedes": list(remember::SUPERSEDES),
                "force": flag(remember::FORCE), "dry_run": flag(remember::DRY_RUN)},
                "required": ["title", "body", "confidence"]},
            "annotations": annotations("Remember a lesson", false)}),
        json!({"name": "record_work", "description": record_work::TOOL,
            "inputSchema": {"type": "object", "properties": {
                "title": s(record_work::TITLE), "summary": s(record_work::SUMMARY),
                "changes": list(record_work::CHANGES), "decisions": list(record_work::DECISIONS),
                "learned": list(record_work::LEARNED), "open": list(record_work::OPEN),
                "informed_by": list(record_work::INFORMED_BY),
                "verification": s(record_work::VERIFICATION), "folder": s(record_work::FOLDER),
                "kind": {"type": "string", "enum": ["note", "decision"], "default": "note",
                    "description": record_work::KIND},
                "dry_run": flag(record_work::DRY_RUN)},
                "required": ["title", "summary"]},
            "annotations": annotations("Record work done", false)}),
        json!({"name": "reason", "description": reason::TOOL,
            "inputSchema": {"type": "object", "properties": {"question": s(reason::QUESTION)}, "required": ["question"]},
            "annotations": {"title": "Reason over the vault", "readOnlyHint": false, "destructiveHint": false,
                "idempotentHint": false, "openWorldHint": true}}),
        json!({"name": "health", "description": health::TOOL,
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": annotations("Vault health", true)}),
        json!({"name": "status", "description": status::TOOL,
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": annotations("Index status", true)}),
    ]
}

/// A read's structured result without its `text`, which the content already carries.
fn without_text(v: serde_json::Result<Value>) -> Value {
    let mut v = v.unwrap_or_default();
    strip_text(&mut v);
    v
}

/// Removes a note's `text` from its structured form (the content carries it once).
fn strip_text(v: &mut Value) {
    if let Some(o) = v.as_object_mut() {
        o.remove("text");
    }
}

#[cfg(test)]
mod tests {
    use super::tools;
    use serde_json::Value;

    /// Every property of `schema` (and of the objects its arrays hold), with its path.
    fn properties<'a>(at: &str, schema: &'a Value, out: &mut Vec<(String, &'a Value)>) {
        let Some(props) = schema["properties"].as_object() else {
            return;
        };
        for (name, p) in props {
            let path = format!("{at}.{name}");
            properties(&path, &p["items"], out);
            out.push((path, p));
        }
    }

    #[test]
    fn every_field_of_every_tool_is_described_and_every_enum_value_explained() {
        let mut checked = 0;
        for t in tools() {
            let name = t["name"].as_str().unwrap();
            let about = t["description"].as_str().unwrap_or_default();
            assert!(
                about.len() >= 200,
                "{name}: a description of {} chars",
                about.len()
            );
            let mut props = Vec::new();
            properties(name, &t["inputSchema"], &mut props);
            for (path, p) in props {
                let d = p["description"].as_str().unwrap_or_default().trim();
                assert!(!d.is_empty(), "{path} has no description");
                for v in p["enum"].as_array().into_iter().flatten() {
                    let v = format!("`{}`", v.as_str().unwrap());
                    assert!(
                        d.contains(&v),
                        "{path}: the value {v} is not explained: {d}"
                    );
                }
                checked += 1;
            }
        }
        // search 2, query 5, get 3, multi_get 2, expand 1, recall 3, remember 12,
        // record_work 11, reason 1.
        assert_eq!(checked, 40);
        let names: Vec<&str> = tools().iter().filter_map(|t| t["name"].as_str()).collect();
        for want in [
            "search",
            "query",
            "get",
            "multi_get",
            "expand",
            "status",
            "health",
            "recall",
            "remember",
            "record_work",
            "reason",
        ] {
            assert!(names.contains(&want), "{want} missing");
        }
    }

    #[test]
    fn the_words_are_the_engines() {
        use mindex::scoped::docs::{record_work, remember};
        let tool = |n: &str| tools().iter().find(|t| t["name"] == n).unwrap();
        let r = tool("remember");
        assert_eq!(r["description"], remember::TOOL);
        assert_eq!(
            r["inputSchema"]["properties"]["scope"]["description"],
            remember::SCOPE
        );
        assert_eq!(
            r["inputSchema"]["properties"]["confidence"]["description"],
            remember::CONFIDENCE
        );
        assert_eq!(tool("record_work")["description"], record_work::TOOL);
    }
}
