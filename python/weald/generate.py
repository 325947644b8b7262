"""Graph generators: ``weald.generate.rmat`` and ``weald.generate.uniform``.

Both return a static :class:`weald.Graph` (backend ``csr``), drop self loops and merge
duplicate edges; the same seed gives the same graph at any thread count.
"""

from ._weald import rmat, uniform

__all__ = ["rmat", "uniform"]
