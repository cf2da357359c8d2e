//! The JSON-RPC wire: errors, tool results, argument readers and limits, and the capped line
//! reader the stdio transport uses.

use std::io::BufRead;

use super::{MAX_LIMIT, MAX_PATH_CHARS, MAX_QUERY_CHARS, MAX_QUESTION_CHARS};
use serde_json::{Value, json};

/// A JSON-RPC error.
pub(super) struct RpcError {
    pub(super) code: i64,
    pub(super) message: String,
}

/// JSON-RPC's "invalid params" code.
pub(super) const INVALID_PARAMS: i64 = -32602;

pub(super) fn invalid_params(message: impl Into<String>) -> RpcError {
    RpcError {
        code: INVALID_PARAMS,
        message: message.into(),
    }
}

pub(super) type RpcResult = Result<Value, RpcError>;

pub(super) fn text_result(text: String, structured: Value) -> Value {
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
    })
}

/// A tool's failure as a result the model can read (its text is scrubbed of paths when sent).
pub(super) fn tool_error(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

pub(super) fn arg_str<'a>(args: &'a Value, k: &str) -> Option<&'a str> {
    args.get(k).and_then(Value::as_str)
}

/// A count argument, at most [`MAX_LIMIT`].
pub(super) fn arg_usize(args: &Value, k: &str, default: usize) -> Result<usize, RpcError> {
    match args.get(k) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(|x| (x.max(0.0) as usize).min(MAX_LIMIT))
            .ok_or_else(|| invalid_params(format!("`{k}` must be a number"))),
    }
}

/// Refuses a string argument longer than `max` characters, naming the argument and the limit.
pub(super) fn check_len(name: &str, value: &str, max: usize) -> Result<(), RpcError> {
    // Bytes bound characters from above: only a long string needs counting.
    if value.len() > max {
        let n = value.chars().count();
        if n > max {
            return Err(invalid_params(format!(
                "`{name}` is {n} characters, over the {max}-character limit"
            )));
        }
    }
    Ok(())
}

/// The length limits of a tool's string arguments ([`MAX_QUERY_CHARS`], [`MAX_PATH_CHARS`],
/// [`MAX_QUESTION_CHARS`]).
pub(super) fn check_lengths(tool: &str, args: &Value) -> Result<(), RpcError> {
    let limited: &[(&str, usize)] = match tool {
        "search" | "query" | "recall" => &[("query", MAX_QUERY_CHARS)],
        "reason" => &[("question", MAX_QUESTION_CHARS)],
        "get" => &[("path", MAX_PATH_CHARS)],
        "multi_get" => &[("pattern", MAX_PATH_CHARS)],
        "expand" => &[("note", MAX_PATH_CHARS)],
        _ => &[],
    };
    for (k, max) in limited {
        if let Some(v) = arg_str(args, k) {
            check_len(k, v, *max)?;
        }
    }
    if tool == "query"
        && let Some(items) = args.get("searches").and_then(Value::as_array)
    {
        for (i, it) in items.iter().enumerate() {
            if let Some(q) = it.get("query").and_then(Value::as_str) {
                check_len(&format!("searches[{i}].query"), q, MAX_QUERY_CHARS)?;
            }
        }
    }
    Ok(())
}

pub(super) fn req_str<'a>(args: &'a Value, k: &str) -> Result<&'a str, RpcError> {
    arg_str(args, k).ok_or_else(|| invalid_params(format!("`{k}` is required (a string)")))
}

/// What [`read_line_capped`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A whole line (without its newline) is in the buffer.
    Full,
    /// The line was longer than the cap: this many bytes were read and dropped, up to and
    /// including its newline (or the end of input). The buffer is empty.
    TooLong(usize),
    /// The input ended with nothing more to read.
    Eof,
}

/// Reads one `\n`-terminated line into `buf` (cleared first) keeping at most `cap` bytes in
/// memory: a longer line is consumed to its end and dropped ([`Line::TooLong`]). A last line
/// without a newline counts as a line. Interrupted reads are retried.
pub fn read_line_capped(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut seen = 0usize;
    let mut too_long = false;
    loop {
        let avail = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(if too_long {
                Line::TooLong(seen)
            } else if seen == 0 {
                Line::Eof
            } else {
                Line::Full
            });
        }
        let (take, ends) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        if !too_long {
            if buf.len() + take > cap {
                too_long = true;
                buf.clear();
                buf.shrink_to(cap.min(64 * 1024));
            } else {
                buf.extend_from_slice(&avail[..take]);
            }
        }
        seen = seen.saturating_add(take);
        input.consume(if ends { take + 1 } else { take });
        if ends {
            return Ok(if too_long {
                Line::TooLong(seen)
            } else {
                Line::Full
            });
        }
    }
}
