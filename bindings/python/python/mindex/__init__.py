"""mindex: local search and memory over a markdown vault, for AI coding agents.

>>> import mindex
>>> vault = mindex.Vault("my-vault")          # doctest: +SKIP
>>> vault.update()                            # doctest: +SKIP
>>> [h.path for h in vault.search("rollback", limit=3)]   # doctest: +SKIP
"""

from mindex._mindex import Embedder, Hit, Memory, Vault, __version__
from mindex.exceptions import (
    BusyError,
    CorruptIndexError,
    IndexMissingError,
    InvalidArgumentError,
    MindexError,
    MindexIOError,
    ModelError,
    ModelMissingError,
    NoteNotFoundError,
    PanicError,
    VaultNotFoundError,
    VectorsMissingError,
)

__all__ = [
    "BusyError",
    "CorruptIndexError",
    "Embedder",
    "Hit",
    "IndexMissingError",
    "InvalidArgumentError",
    "Memory",
    "MindexError",
    "MindexIOError",
    "ModelError",
    "ModelMissingError",
    "NoteNotFoundError",
    "PanicError",
    "Vault",
    "VaultNotFoundError",
    "VectorsMissingError",
    "__version__",
]
