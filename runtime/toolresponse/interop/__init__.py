"""ToolResponse as the hub: other frameworks' tool results converted in and out.

One private module per dialect, a pair ``to_<dialect>`` / ``from_<dialect>`` written once and used
by every face; a record not valid in its own dialect raises ``DialectError``. No framework library
is imported unless a function that needs one is called. ``dialect(name)`` gives a dialect's row.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
