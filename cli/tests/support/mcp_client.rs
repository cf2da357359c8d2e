//! A minimal MCP client over a `mindex mcp` process's pipes, shared by the process tests
//! (`#[path = "support/mcp_client.rs"] mod mcp_client;`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// A `mindex mcp --no-vectors` server, initialised with `repo` as its only root.
pub struct Client {
    child: Child,
    pub stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
}

impl Client {
    pub fn start(vault: &Path, repo: &Path) -> Client {
        Client::start_with(vault, repo, &[])
    }

    /// As [`Client::start`], with extra `mcp` arguments.
    pub fn start_with(vault: &Path, repo: &Path, extra: &[&str]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(["mcp", "--no-vectors"])
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
            stdin,
            stdout,
            next: 1,
        };
        c.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                       "clientInfo": {"name": "mindex-tests", "version": "1"}}}));
        c.recv();
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let roots = c.recv();
        assert_eq!(roots["method"], "roots/list");
        c.send(json!({"jsonrpc": "2.0", "id": roots["id"],
            "result": {"roots": [{"uri": format!("file://{}", repo.display())}]}}));
        c
    }

    pub fn send(&mut self, v: Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
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
