"""Validating ToolResponse logs on Dask, and the per-partition function for any engine.

The optional extra ``toolresponse[dask]`` (dask, distributed, fsspec and
zstandard) is imported only when a Dask function is used;
``check_partition`` needs none of it.

- ``validate_paths(paths)`` / ``validate_bag(lines)``: a ``Validation``, whose
  ``records`` is a Dask bag of the bulk API's ``Record``\\ s (every invalid
  response and unreadable input, in input order, the same records as one
  process gives, up to ``TASK_RECORDS`` a task) and ``summary`` a lazy
  ``Summary`` (every response counted; ``unlisted``: the records a task left
  out); ``Validation.to_dataframe()`` gives one row per violation. The validator
  is compiled once per worker process and partition tasks reuse it.
- ``check_on(client, sources, options)``: the batches of the bulk API, in input
  order, computed on a cluster (what ``toolresponse validate --scheduler`` runs),
  every record, no task holding more than ``TASK_RECORDS``;
  ``connect(address)`` gives a client, ``connect("local")`` a local cluster. Every
  wait on the cluster lasts at most ``timeout_s`` (``TIMEOUT_S``, 30 s, by default):
  a scheduler without workers, or whose workers finish nothing, is a ``ClusterTimeout``.
- ``check_partition(lines, name=..., first_line=...)``: JSON lines in, records
  out, lazily: what Spark's ``mapPartitions``, Ray's ``map_batches`` or a
  Beam ``DoFn`` calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from ._cluster import BLOCK_BYTES as BLOCK_BYTES
    from ._cluster import COLUMNS as COLUMNS
    from ._cluster import TIMEOUT_S as TIMEOUT_S
    from ._cluster import ClusterTimeout as ClusterTimeout
    from ._cluster import DaskUnavailable as DaskUnavailable
    from ._cluster import Validation as Validation
    from ._cluster import check_on as check_on
    from ._cluster import connect as connect
    from ._cluster import validate_bag as validate_bag
    from ._cluster import validate_paths as validate_paths
    from ._partition import PIECE_LINES as PIECE_LINES
    from ._partition import TASK_RECORDS as TASK_RECORDS
    from ._partition import Summary as Summary
    from ._partition import check_partition as check_partition

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._cluster": (
        "BLOCK_BYTES",
        "COLUMNS",
        "TIMEOUT_S",
        "ClusterTimeout",
        "DaskUnavailable",
        "Validation",
        "check_on",
        "connect",
        "validate_bag",
        "validate_paths",
    ),
    "._partition": (
        "PIECE_LINES",
        "TASK_RECORDS",
        "Summary",
        "check_partition",
    ),
}

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__, submod_attrs={m[1:]: n for m, n in _EXPORTS.items()}
)
