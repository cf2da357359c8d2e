"""Type stubs for the mindex extension module."""

from os import PathLike
from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

class Hit:
    """One search hit: the best chunk of a matching note."""

    path: str
    title: str
    heading: str
    line_start: int
    line_end: int
    line: int
    score: float
    """BM25 for `search`, cosine for `vsearch`, relevance in [0, 1] for `query`."""
    exact: bool
    """The note holds every identifier the query names exactly (such notes rank first)."""
    snippet: str
    explain: Optional[dict[str, Any]]

class Memory:
    """A recalled memory."""

    path: str
    title: Optional[str]
    body: str
    scope: str
    projects: list[str]
    platforms: list[str]
    confidence: str
    origin: Optional[str]
    written_by: Optional[str]
    date: Optional[str]
    superseded_by: list[str]
    superseded_unseen: int
    flags: list[str]
    why: Optional[str]

class Embedder:
    """A sentence-embedding model, loaded once and shared."""

    def __init__(
        self,
        model_dir: Optional[str | PathLike[str]] = None,
        precision: Optional[str] = None,
    ) -> None: ...
    @property
    def model_id(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def precision(self) -> str: ...
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

class Vault:
    """A vault: a folder of markdown notes and its index. Thread-safe."""

    def __init__(
        self,
        path: str | PathLike[str],
        *,
        index_dir: Optional[str | PathLike[str]] = None,
        create: bool = False,
        with_samples: bool = False,
    ) -> None: ...
    @property
    def path(self) -> str: ...
    def update(self) -> dict[str, Any]: ...
    def embed(self, embedder: Optional[Embedder] = None) -> dict[str, Any]: ...
    def search(self, query: str, limit: int = 10) -> list[Hit]: ...
    def vsearch(
        self, query: str, limit: int = 10, embedder: Optional[Embedder] = None
    ) -> list[Hit]: ...
    def query(
        self,
        query: str,
        limit: int = 10,
        explain: bool = False,
        embedder: Optional[Embedder] = None,
    ) -> list[Hit]: ...
    def get(self, path: str) -> dict[str, Any]: ...
    def multi_get(self, patterns: str, max_bytes: Optional[int] = None) -> list[dict[str, Any]]: ...
    def status(self, *, verify: bool = False) -> dict[str, Any]: ...
    def remember(
        self,
        title: str,
        body: str,
        confidence: str,
        *,
        scope: Optional[str] = None,
        projects: Optional[Sequence[str]] = None,
        platforms: Optional[Sequence[str]] = None,
        verification: Optional[str] = None,
        generality: Optional[str] = None,
        links: Optional[Sequence[str]] = None,
        supersedes: Optional[Sequence[str]] = None,
        force: bool = False,
        dry_run: bool = False,
        project: Optional[str] = None,
    ) -> dict[str, Any]: ...
    def recall(
        self,
        query: Optional[str] = None,
        project: Optional[str] = None,
        limit: int = 20,
        explain: bool = False,
    ) -> list[Memory]: ...
    def record_work(
        self,
        title: str,
        summary: str,
        *,
        changes: Optional[Sequence[str]] = None,
        decisions: Optional[Sequence[str]] = None,
        learned: Optional[Sequence[str]] = None,
        open: Optional[Sequence[str]] = None,
        informed_by: Optional[Sequence[str]] = None,
        verification: Optional[str] = None,
        folder: Optional[str] = None,
        decision: bool = False,
        dry_run: bool = False,
        project: Optional[str] = None,
    ) -> dict[str, Any]: ...
    def expand(self, note: str) -> dict[str, Any]: ...
    def audit(self) -> dict[str, Any]: ...
    def health(self, project: Optional[str] = None) -> dict[str, Any]: ...

def _search_n_times(vault: Vault, query: str, limit: int, n: int) -> int: ...
def _set_package_site(site: str) -> None: ...
