"""Validating ToolResponse logs on Dask, and the per-partition function for any engine.

The extra ``toolresponse[dask]`` is imported only when a Dask function is used.

- ``validate_paths(paths)`` / ``validate_bag(lines)``: a ``Validation`` whose ``records`` is a bag
  of the bulk API's ``Record``\\ s in input order (up to 10,000 a task) and ``summary`` a lazy
  ``Summary``; ``Validation.to_dataframe()`` gives one row per violation.
- ``check_on(client, sources, options)``: every batch of the bulk API, in input order, computed on a
  cluster (``toolresponse validate --scheduler``); ``connect(address)`` gives a client. Every wait
  lasts at most ``timeout_s``: past it, a ``ClusterTimeout``.
- ``check_partition(lines, name=..., first_line=...)``: JSON lines in, records out, lazily (Spark's
  ``mapPartitions``, Ray's ``map_batches``, a Beam ``DoFn``); needs no Dask.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
