"""mindex: local search and memory over a markdown vault, for AI coding agents."""

from mindex._mindex import Vault, __version__

__all__ = ["Vault", "__version__"]
