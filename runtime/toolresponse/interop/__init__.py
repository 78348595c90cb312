"""ToolResponse as the hub: other frameworks' tool results converted in and out.

One private module per dialect, each a pair ``to_<dialect>(response, ...)`` /
``from_<dialect>(record)`` written once and used by every face (CLI, agent, MCP server and
client); a record that is not valid in its own dialect raises ``DialectError`` (each violation
with its JSON pointer). No framework library is imported unless a function that needs one is
called. ``dialect(name)`` (``DIALECTS``) gives a ``Dialect``: its ``to``, ``from_`` and record
``shape``; ``convert`` is ``toolresponse convert``; ``DialectJudge`` judges logs in the bulk API;
``model_text`` is the text a model reads; ``DENIED`` and ``INTERRUPTED`` are outcomes other
frameworks name that ToolResponse carries as a code.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
