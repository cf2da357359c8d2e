"""`mindex mcp` driven by the official MCP Python SDK (PyPI package `mcp`) over stdio:
initialize (with roots), list and call every tool, read a resource, get a prompt.

Needs MINDEX_BIN (the release `mindex` binary); scripts/mcp-test.sh sets it up.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError as McpError

BIN = os.environ.get("MINDEX_BIN", "mindex")
TOOLS = {"search", "query", "get", "multi_get", "expand", "recall", "remember", "record_work", "health", "status", "reason"}


@pytest.fixture()
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    subprocess.run([BIN, "init", "--with-samples", str(v)], check=True, capture_output=True)
    subprocess.run([BIN, "update", "--vault", str(v), "-q"], check=True, capture_output=True)
    return v


def run(coro):
    return asyncio.run(coro)


async def session_do(vault: Path, root: Path | None, body, stderr_path: Path, env: dict | None = None,
                     cwd: Path | None = None, with_roots: bool = True, args: list | None = None):
    """Starts `mindex mcp` (in `cwd`, default: beside the stderr file), answers roots/list with
    `root` (no roots capability at all without `with_roots`), runs `body(session)`."""

    async def roots(_ctx):
        if root is None:
            return types.ListRootsResult(roots=[])
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri())])

    # The server runs outside any repository: with no roots, nothing identifies the caller.
    params = StdioServerParameters(command=BIN, args=["mcp", "--vault", str(vault), "--no-vectors", *(args or [])],
                                   env=env, cwd=str(cwd or stderr_path.parent))
    with open(stderr_path, "w") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            callback = roots if with_roots else None
            async with ClientSession(read, write, list_roots_callback=callback) as s:
                init = await s.initialize()
                return await body(s, init)


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def test_every_tool_resource_and_prompt(vault: Path, tmp_path: Path) -> None:
    repo = tmp_path / "atlas"
    repo.mkdir()
    errlog = tmp_path / "stderr.txt"

    async def body(s: ClientSession, init):
        out = {}
        assert init.server_info.name == "mindex"
        for phrase in ["personal knowledge vault", "claude.ai session URLs", "Claude-Session:",
                       "Co-Authored-By:", "promote an inferred fact", "search", "expand"]:
            assert phrase in init.instructions, phrase
        tools = (await s.list_tools()).tools
        assert {t.name for t in tools} == TOOLS
        for t in tools:
            assert t.annotations is not None and t.annotations.title, t.name
            assert t.input_schema["type"] == "object"
        ro = {t.name: t.annotations.read_only_hint for t in tools}
        assert ro["search"] and ro["recall"] and not ro["remember"] and not ro["record_work"]

        r = await s.call_tool("search", {"query": "connection pool exhausted", "limit": 3})
        assert not r.is_error and "brain/Gotchas.md" in text_of(r)
        assert r.structured_content["results"][0]["path"] == "brain/Gotchas.md"
        r = await s.call_tool("query", {"searches": [{"type": "lex", "query": "idempotency key"},
                                                     {"type": "vec", "query": "safe retries"}], "limit": 2})
        assert not r.is_error and "brain/Patterns.md" in text_of(r)
        r = await s.call_tool("get", {"path": "Patterns"})
        assert not r.is_error and "Idempotency keys" in text_of(r)
        r = await s.call_tool("get", {"path": "Home"})  # outside the exposed roots
        assert r.is_error
        r = await s.call_tool("multi_get", {"pattern": "brain/*.md"})
        assert not r.is_error and "==> brain/Patterns.md <==" in text_of(r)
        r = await s.call_tool("expand", {"note": "Key Decisions"})
        assert not r.is_error and "Payments Migration" in text_of(r)
        r = await s.call_tool("remember", {
            "title": "MCP clients pass roots for identity",
            "body": "The server reads the caller's project from the first MCP root, never from tool arguments.",
            "confidence": "verified", "verification": "this test", "projects": ["atlas"]})
        assert not r.is_error and text_of(r).startswith("Recorded: memories/"), text_of(r)
        r = await s.call_tool("recall", {"query": "identity roots", "explain": True})
        assert "MCP clients pass roots for identity" in text_of(r)
        assert r.structured_content["caller"] == "atlas"
        r = await s.call_tool("record_work", {"title": "Drive the server from the SDK",
                                              "summary": "Added the SDK test.", "folder": "brain"})
        assert not r.is_error and text_of(r).startswith("Recorded: brain/")
        r = await s.call_tool("health", {})
        assert "Caller: atlas" in text_of(r)
        r = await s.call_tool("status", {})
        assert r.structured_content["indexed"] is True
        r = await s.call_tool("reason", {"question": "Why did payments move to the new ledger?"})
        assert not r.is_error, text_of(r)
        assert text_of(r).startswith("Postgres gives multi-row transactions"), text_of(r)
        assert "Reasoned over the vault in 3 turn(s)" in text_of(r)
        assert r.structured_content["record"].startswith("thinking/reasoning/")

        with pytest.raises(McpError) as e:
            await s.call_tool("no_such_tool", {})
        assert e.value.error.code == -32602
        # A missing argument is a tool error the model can read and correct.
        r = await s.call_tool("get", {})
        assert r.is_error and "`path`" in text_of(r), text_of(r)

        res = (await s.list_resources()).resources
        uris = [str(x.uri) for x in res]
        assert all(u.startswith("vault://note/") for u in uris)
        assert not any("memories/" in u or "Home.md" in u for u in uris)
        spaced = next(u for u in uris if "%20" in u)
        read = await s.read_resource(spaced)
        assert str(read.contents[0].uri) == spaced and read.contents[0].text
        with pytest.raises(McpError):
            await s.read_resource("vault://note/Home.md")

        prompts = (await s.list_prompts()).prompts
        assert {p.name for p in prompts} == {"recall_topic", "prior_art"}
        p = await s.get_prompt("prior_art", {"question": "should we shard the ledger?"})
        assert "should we shard the ledger?" in p.messages[0].content.text
        out["ok"] = True
        return out

    # A stand-in for the agent CLI `reason` spawns: answers in the CLI's JSON result shape.
    agent = tmp_path / "agent.sh"
    agent.write_text("#!/bin/sh\necho '{\"is_error\":false,\"result\":\"Postgres gives multi-row transactions.\","
                     "\"num_turns\":3,\"total_cost_usd\":0.01,\"modelUsage\":{\"stand-in\":{}}}'\n")
    agent.chmod(0o755)
    env = {"MINDEX_REASON_BIN": str(agent)}
    assert run(session_do(vault, repo, body, errlog, env))["ok"]
    assert errlog.read_text() == "", "the server writes nothing to stderr"
    log = (vault / ".mindex" / "audit.jsonl").read_text().splitlines()
    actions = {json.loads(l)["action"] for l in log}
    assert {"search", "get", "expand", "recall", "remember", "record_work", "reason", "resource_read",
            "resource_denied"} <= actions


def test_anonymous_client_sees_general_memories_only(vault: Path, tmp_path: Path) -> None:
    subprocess.run([BIN, "remember", "--vault", str(vault), "--caller", "atlas", "--title", "Atlas only lesson",
                    "--body", "This lesson is scoped to the atlas project and nobody else should see it.",
                    "--confidence", "inferred"], check=True, capture_output=True)

    async def body(s: ClientSession, _init):
        r = await s.call_tool("recall", {})
        return text_of(r)

    text = run(session_do(vault, None, body, tmp_path / "e.txt"))
    assert "Atlas only lesson" not in text
    assert "no identity" in text or "No memories" in text

    async def body2(s: ClientSession, _init):
        r = await s.call_tool("remember", {"title": "Anonymous project lesson",
            "body": "A project-scoped lesson from a session with no roots reaches nobody at all.",
            "confidence": "inferred"})
        return text_of(r)

    text = run(session_do(vault, None, body2, tmp_path / "e2.txt"))
    assert "reach nobody" in text


def test_vault_itself_cannot_remember(vault: Path, tmp_path: Path) -> None:
    async def body(s: ClientSession, _init):
        r = await s.call_tool("remember", {"title": "From inside", "confidence": "inferred",
            "body": "A session running inside the vault must not write memories through the server."})
        return text_of(r)

    text = run(session_do(vault, vault, body, tmp_path / "e.txt"))
    assert "inside the vault itself" in text
    assert not (vault / "memories").exists()


def test_a_client_without_roots_is_the_servers_repository(vault: Path, tmp_path: Path) -> None:
    """Issue 17 finding 4: a client that declares no roots is never asked for them; the caller is
    the repository the server runs in, and `--caller` names it outright."""
    repo = tmp_path / "Atlas"
    (repo / ".git").mkdir(parents=True)

    async def body(s: ClientSession, _init):
        h = await s.call_tool("health", {})
        r = await s.call_tool("remember", {"title": "Atlas lesson without roots",
            "body": "A session whose client gives no roots still writes as the repository it runs in.",
            "confidence": "inferred"})
        return h, text_of(r)

    h, text = run(session_do(vault, None, body, tmp_path / "e.txt", cwd=repo, with_roots=False))
    assert h.structured_content["caller"]["project"] == "atlas", h.structured_content
    assert h.structured_content["caller"]["identified_by"] == "working_repository"
    assert "Caller: atlas (from the working repository" in text_of(h)
    assert "reach nobody" not in text, text

    async def body2(s: ClientSession, _init):
        return await s.call_tool("health", {})

    h = run(session_do(vault, repo, body2, tmp_path / "e2.txt", args=["--caller", "beacon"]))
    assert h.structured_content["caller"]["project"] == "beacon"
    assert h.structured_content["caller"]["identified_by"] == "given"


def test_a_migrated_obsidian_mind_vault_serves_the_sdk_client(tmp_path: Path) -> None:
    """Issue 17: the recorded obsidian-mind vault, after `init --merge`, works through the MCP
    server its migrated .mcp.json names: search finds the user's incident, recall serves the user's
    memory, record_work without a folder files where the agent can find it again, and health
    names the folders the user's own manifest keeps from agents."""
    import shutil

    data = Path(__file__).resolve().parent.parent / "data" / "obsidian-mind-vault"
    vault = tmp_path / "vault"
    shutil.copytree(data, vault)
    subprocess.run([BIN, "init", "--merge", str(vault)], check=True, capture_output=True)
    subprocess.run([BIN, "update", "--vault", str(vault), "-q"], check=True, capture_output=True)
    server = json.loads((vault / ".mcp.json").read_text())["mcpServers"]["mindex"]
    assert server["args"] == ["mcp"] and "qmd" not in json.dumps(
        json.loads((vault / ".mcp.json").read_text()))
    repo = tmp_path / "identity-api"
    (repo / ".git").mkdir(parents=True)

    async def body(s: ClientSession, _init):
        found = await s.call_tool("search", {"query": "how did we fix the outage"})
        recall = await s.call_tool("recall", {"query": "redis eviction"})
        filed = await s.call_tool("record_work", {"title": "Rollback drill for the session store",
            "summary": "Ran the rollback drill Dana asked for: reads flipped back to Redis in 40 s."})
        again = await s.call_tool("search", {"query": "rollback drill session store"})
        health = await s.call_tool("health", {})
        return found, recall, filed, again, health

    params_cmd = server["command"]
    assert Path(params_cmd).name == "mindex"
    found, recall, filed, again, health = run(session_do(vault, repo, body, tmp_path / "e.txt"))
    first = found.structured_content["results"][0]["path"]
    assert first == "work/incidents/2026-09-02 Login outage.md", found.structured_content
    assert "Redis eviction needs a ttl policy" in text_of(recall)
    assert not filed.is_error, text_of(filed)
    path = filed.structured_content["path"]
    assert path.startswith("inbox/") and path.endswith(" Rollback drill for the session store.md"), path
    assert any(r["path"] == path for r in again.structured_content["results"]), again.structured_content
    # The user's manifest does not expose work/meetings/: health says so without naming it.
    warnings = " ".join(health.structured_content["warnings"])
    assert "outside the folders agents may read" in warnings, warnings
    assert "meetings" not in warnings
