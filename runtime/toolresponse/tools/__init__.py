"""The tool runtime: tools, their parameters, the registry, the circuit breaker, events and traces.

Its core names are declared at the top level (``from toolresponse import ToolRegistry``); declared
here: ``load_registry`` (a ``MODULE:FACTORY`` reference, as ``serve`` takes it), ``tool_schemas``
and ``parameters_schema``.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
