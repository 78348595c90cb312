"""The tool runtime: tools, their parameters, the registry, the circuit breaker, events and traces.

``ToolRegistry`` answers every call with a ``ToolResponse``: a ``Tool`` (or a
plain function wrapped as a ``FunctionTool``) runs with its parameters checked
against their JSON Schema, under a timeout, behind a ``CircuitBreaker``, and
each call is told to the listeners as a ``ToolCallEvent`` (``JsonlTraceWriter``
writes them as JSON lines, secrets masked). ``tool_schemas`` describes the
registered tools to a model provider (OpenAI, Anthropic, MCP). ``AccessControl``
holds the access policies a registry asks before each call (``AllowList``,
``DenyList``, ``PathsWithin``, ``ReadOnly``, ``RequireApproval`` ...), with the
caller's identity (``execute(..., caller=...)``, ``LOCAL_CALLER`` by default).

The registry, tools, breaker, events, trace writer and policies are core
names, declared at the top level (``from toolresponse import ToolRegistry``).
Declared here: ``load_registry`` (a ``MODULE:FACTORY`` reference to a registry,
as ``toolresponse serve`` and ``toolresponse mcp serve`` take it),
``tool_schemas`` and ``parameters_schema`` (the JSON Schema of a function's
parameters).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
