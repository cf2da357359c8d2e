//! A minimal MCP client over a `mindex mcp` process's pipes, shared by the process tests
//! (`#[path = "support/mcp_client.rs"] mod mcp_client;`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};

use serde_json::{Value, json};

/// A `mindex mcp --no-vectors` server, initialised with `repo` as its only root.
pub struct Client {
    child: Child,
    /// `None` once [`Client::close`] closed it.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: i64,
}

impl Client {
    pub fn start(vault: &Path, repo: &Path) -> Client {
        Client::start_with(vault, repo, &[])
    }

    /// As [`Client::start`], with extra `mcp` arguments.
    pub fn start_with(vault: &Path, repo: &Path, extra: &[&str]) -> Client {
        let mut c = Client::start_unidentified(vault, extra);
        let roots = c.recv();
        assert_eq!(roots["method"], "roots/list");
        c.send(json!({"jsonrpc": "2.0", "id": roots["id"],
            "result": {"roots": [{"uri": format!("file://{}", repo.display())}]}}));
        c
    }

    /// As [`Client::start`], but the server uses the installed embedding model when the vault
    /// has vectors (no `--no-vectors`).
    pub fn start_with_vectors(vault: &Path, repo: &Path) -> Client {
        let mut c = Client::spawn(vault, &[], false);
        let roots = c.recv();
        assert_eq!(roots["method"], "roots/list");
        c.send(json!({"jsonrpc": "2.0", "id": roots["id"],
            "result": {"roots": [{"uri": format!("file://{}", repo.display())}]}}));
        c
    }

    /// A server initialised (`initialize`, `notifications/initialized`) whose `roots/list`
    /// request is left unanswered and unread: the next message is that request.
    pub fn start_unidentified(vault: &Path, extra: &[&str]) -> Client {
        Client::spawn(vault, extra, true)
    }

    fn spawn(vault: &Path, extra: &[&str], no_vectors: bool) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
            .arg("mcp")
            .args(no_vectors.then_some("--no-vectors"))
            .args(extra)
            .arg("--vault")
            .arg(vault)
            .env_remove("MINDEX_VAULT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut c = Client {
            child,
            stdin: Some(stdin),
            stdout,
            next: 1,
        };
        c.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                       "clientInfo": {"name": "mindex-tests", "version": "1"}}}));
        c.recv();
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    pub fn send(&mut self, v: Value) {
        self.send_raw(format!("{v}\n").as_bytes());
    }

    /// Writes bytes as they are (a line needs its own `\n`).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes every line from a second thread while reading, and returns the first `answers`
    /// messages that carry an id (responses and server requests), in arrival order. (Writing
    /// everything before reading would deadlock once both pipes are full.)
    pub fn burst(&mut self, lines: &[String], answers: usize) -> Vec<Value> {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        let stdout = &mut self.stdout;
        std::thread::scope(|s| {
            s.spawn(move || {
                let mut w = std::io::BufWriter::new(stdin);
                for l in lines {
                    // The server may be gone; the reader reports what came back.
                    if writeln!(w, "{l}").is_err() {
                        return;
                    }
                }
                let _ = w.flush();
            });
            let mut out = Vec::with_capacity(answers);
            let mut line = String::new();
            while out.len() < answers {
                line.clear();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let v: Value = serde_json::from_str(&line).unwrap();
                if v.get("id").is_some_and(|id| !id.is_null()) {
                    out.push(v);
                }
            }
            out
        })
    }

    /// Closes the server's stdin and waits for it to exit.
    pub fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }

    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).unwrap() > 0,
            "server closed"
        );
        serde_json::from_str(&line).unwrap()
    }

    /// Sends a request; returns the whole response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.recv();
            if m["id"] == json!(id) {
                return m;
            }
        }
    }

    /// Calls a tool that must not fail at the protocol level; returns (text, structured
    /// content, isError).
    pub fn call(&mut self, name: &str, args: Value) -> (String, Value, bool) {
        let m = self.request("tools/call", json!({"name": name, "arguments": args}));
        assert!(m.get("error").is_none(), "{name}: {m}");
        let r = &m["result"];
        let text = r["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (
            text,
            r["structuredContent"].clone(),
            r["isError"] == json!(true),
        )
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
