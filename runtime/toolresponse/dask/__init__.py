"""Validating ToolResponse logs on Dask (``validate_paths``, ``validate_bag``, ``check_on`` for
``toolresponse validate --scheduler``), and the per-partition function for any engine
(``check_partition``, no Dask needed). Dask is imported only when a Dask function is used.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
