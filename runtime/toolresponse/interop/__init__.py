"""ToolResponse as the hub: other frameworks' tool results converted in and out.

One private module per dialect (MCP ``CallToolResult``, OpenAI tool messages,
Anthropic ``tool_result``, LangChain ``ToolMessage``, Bedrock ``toolResult``,
Gemini function responses, Vercel AI SDK tool parts, HelloAgents dicts, pydantic-ai
``ToolReturnPart``, LlamaIndex ``ToolOutput``, AutoGen ``FunctionExecutionResult``), each
a pair ``to_<dialect>(response, ...)`` / ``from_<dialect>(record)`` written
once and used by every face (CLI, agent, MCP server and client). A record that
is not valid in its own dialect raises ``DialectError`` (a
``ResponseValidationError`` naming the dialect, each violation with its JSON
pointer). The mappings are plain data in and out: no framework library is
imported unless a function that needs one is called.

``dialect(name)`` (``DIALECTS`` lists them) gives a ``Dialect``: its ``to`` and
``from_`` functions and its record ``shape``, the JSON Schema a record must meet;
``convert`` is ``toolresponse convert``. ``DialectJudge`` judges a log of
another dialect in the bulk API; ``model_text`` is the text a model reads for a
response; ``DENIED`` and ``INTERRUPTED`` are the two outcomes other frameworks
name that ToolResponse carries as a code.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
