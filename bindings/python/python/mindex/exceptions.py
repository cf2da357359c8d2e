"""Exceptions raised by mindex.

Every class subclasses :class:`MindexError` and the builtin that fits, so ``except
FileNotFoundError`` or ``except ValueError`` keep working. ``code`` is the engine's stable
numeric error code (the same numbers as the C ABI's ``mindex_code`` and the CLI's ``--json``
errors).
"""

from __future__ import annotations


class MindexError(Exception):
    """Base class of every mindex error."""

    code: int = 0

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class PanicError(MindexError, RuntimeError):
    """A bug in mindex was caught at the boundary (please report it)."""

    code = 1


class InvalidArgumentError(MindexError, ValueError):
    """An argument was invalid (bad path, bad glob, bad name, invalid UTF-8)."""

    code = 4


class VaultNotFoundError(MindexError, FileNotFoundError):
    """The vault folder does not exist or is not a folder."""

    code = 10


class NoteNotFoundError(MindexError, FileNotFoundError):
    """The note does not exist (or is not visible)."""

    code = 11


class IndexMissingError(MindexError, RuntimeError):
    """No index yet: call ``update()`` first."""

    code = 12


class CorruptIndexError(MindexError, RuntimeError):
    """The index on disk is corrupt or from another version: ``update()`` rebuilds it."""

    code = 13


class BusyError(MindexError, BlockingIOError):
    """Another process holds the index writer."""

    code = 14


class MindexIOError(MindexError, OSError):
    """An I/O error (the message names the file)."""

    code = 20


class ModelMissingError(MindexError, FileNotFoundError):
    """The embedding model is not installed (run scripts/setup-model.sh)."""

    code = 30


class ModelError(MindexError, RuntimeError):
    """The model could not be loaded or run."""

    code = 31


class VectorsMissingError(MindexError, RuntimeError):
    """No vectors for this model yet: call ``embed()`` first."""

    code = 32


_BY_CODE: dict[int, type[MindexError]] = {
    1: PanicError,
    2: InvalidArgumentError,
    3: InvalidArgumentError,
    4: InvalidArgumentError,
    10: VaultNotFoundError,
    11: NoteNotFoundError,
    12: IndexMissingError,
    13: CorruptIndexError,
    14: BusyError,
    20: MindexIOError,
    21: MindexError,
    30: ModelMissingError,
    31: ModelError,
    32: VectorsMissingError,
}


def from_code(code: int, message: str) -> MindexError:
    """The exception for an engine error code (used by the extension module)."""
    return _BY_CODE.get(code, MindexError)(message, code)
