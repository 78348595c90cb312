"""Validating ToolResponse logs on Dask, and the per-partition function for any engine.

The optional extra ``toolresponse[dask]`` (dask, distributed, fsspec and
zstandard) is imported only when a Dask function is used;
``check_partition`` needs none of it.

- ``validate_paths(paths)`` / ``validate_bag(lines)``: a ``Validation``, whose
  ``records`` is a Dask bag of the bulk API's ``Record``\\ s (every invalid
  response and unreadable input, in input order, the same records as one
  process gives, up to 10,000 a task) and ``summary`` a lazy
  ``Summary`` (every response counted; ``unlisted``: the records a task left
  out); ``Validation.to_dataframe()`` gives one row per violation. The validator
  is compiled once per worker process and partition tasks reuse it.
- ``check_on(client, sources, options)``: the batches of the bulk API, in input
  order, computed on a cluster (what ``toolresponse validate --scheduler`` runs),
  every record, no task holding more than 10,000 records;
  ``connect(address)`` gives a client, ``connect("local")`` a local cluster. Every
  wait on the cluster lasts at most ``timeout_s`` (30 s by default):
  a scheduler without workers, or whose workers finish nothing, is a ``ClusterTimeout``.
- ``check_partition(lines, name=..., first_line=...)``: JSON lines in, records
  out, lazily: what Spark's ``mapPartitions``, Ray's ``map_batches`` or a
  Beam ``DoFn`` calls.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
