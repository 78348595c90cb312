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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._anthropic import ANTHROPIC_SHAPE as ANTHROPIC_SHAPE
    from ._anthropic import from_anthropic as from_anthropic
    from ._anthropic import to_anthropic as to_anthropic
    from ._autogen import AUTOGEN_SHAPE as AUTOGEN_SHAPE
    from ._autogen import from_autogen as from_autogen
    from ._autogen import to_autogen as to_autogen
    from ._bedrock import BEDROCK_SHAPE as BEDROCK_SHAPE
    from ._bedrock import from_bedrock as from_bedrock
    from ._bedrock import to_bedrock as to_bedrock
    from ._convert import ConvertReport as ConvertReport
    from ._convert import convert as convert
    from ._dialects import DIALECTS as DIALECTS
    from ._dialects import Dialect as Dialect
    from ._dialects import dialect as dialect
    from ._dialects import from_toolresponse as from_toolresponse
    from ._dialects import to_toolresponse as to_toolresponse
    from ._gemini import GEMINI_INTERACTIONS_SHAPE as GEMINI_INTERACTIONS_SHAPE
    from ._gemini import GEMINI_SHAPE as GEMINI_SHAPE
    from ._gemini import from_gemini as from_gemini
    from ._gemini import from_gemini_interactions as from_gemini_interactions
    from ._gemini import to_gemini as to_gemini
    from ._gemini import to_gemini_interactions as to_gemini_interactions
    from ._helloagents import HELLOAGENTS_SHAPE as HELLOAGENTS_SHAPE
    from ._helloagents import from_helloagents as from_helloagents
    from ._helloagents import to_helloagents as to_helloagents
    from ._langchain import LANGCHAIN_DICT_SHAPE as LANGCHAIN_DICT_SHAPE
    from ._langchain import LANGCHAIN_SHAPE as LANGCHAIN_SHAPE
    from ._langchain import as_langchain_tools as as_langchain_tools
    from ._langchain import from_langchain as from_langchain
    from ._langchain import from_langchain_dict as from_langchain_dict
    from ._langchain import to_langchain as to_langchain
    from ._langchain import to_langchain_dict as to_langchain_dict
    from ._langchain import to_langchain_message as to_langchain_message
    from ._llamaindex import LLAMAINDEX_SHAPE as LLAMAINDEX_SHAPE
    from ._llamaindex import from_llamaindex as from_llamaindex
    from ._llamaindex import to_llamaindex as to_llamaindex
    from ._logs import DialectJudge as DialectJudge
    from ._logs import judge_of as judge_of
    from ._logs import record_violations as record_violations
    from ._logs import validate_dialect as validate_dialect
    from ._openai import OPENAI_CHAT_SHAPE as OPENAI_CHAT_SHAPE
    from ._openai import OPENAI_RESPONSES_SHAPE as OPENAI_RESPONSES_SHAPE
    from ._openai import from_openai_chat as from_openai_chat
    from ._openai import from_openai_responses as from_openai_responses
    from ._openai import to_openai_chat as to_openai_chat
    from ._openai import to_openai_responses as to_openai_responses
    from ._openai_agents import as_openai_agents_tools as as_openai_agents_tools
    from ._outcomes import DENIED as DENIED
    from ._outcomes import INTERRUPTED as INTERRUPTED
    from ._outcomes import Outcome as Outcome
    from ._pydantic_ai import PYDANTIC_AI_SHAPE as PYDANTIC_AI_SHAPE
    from ._pydantic_ai import as_pydantic_ai_tools as as_pydantic_ai_tools
    from ._pydantic_ai import from_pydantic_ai as from_pydantic_ai
    from ._pydantic_ai import outcome_for as outcome_for
    from ._pydantic_ai import to_pydantic_ai as to_pydantic_ai
    from ._shape import Shape as Shape
    from ._text import model_text as model_text
    from ._vercel import VERCEL_SHAPE as VERCEL_SHAPE
    from ._vercel import from_vercel as from_vercel
    from ._vercel import to_vercel as to_vercel

# module -> the public names it defines; each imported on first use.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "._mcp": (
        "CONTENT_MEMBER",
        "MCP_META_KEY",
        "MCP_RESULT_SHAPE",
        "PARTIAL_MARKER",
        "STRUCTURED_MEMBER",
        "TOOL_FAILURE_KEY",
        "TOOL_FAILURE_SHAPE",
        "from_mcp",
        "from_mcp_error",
        "to_mcp",
        "wire_from_mcp",
    ),
    "._dialects": ("DIALECTS", "Dialect", "dialect", "from_toolresponse", "to_toolresponse"),
    "._text": ("INFERENCE_TABLE", "infer_code", "model_text"),
    "._shape": ("Shape",),
    "._openai": (
        "OPENAI_CHAT_SHAPE",
        "OPENAI_RESPONSES_SHAPE",
        "from_openai_chat",
        "from_openai_responses",
        "to_openai_chat",
        "to_openai_responses",
    ),
    "._anthropic": ("ANTHROPIC_SHAPE", "from_anthropic", "to_anthropic"),
    "._langchain": (
        "LANGCHAIN_DICT_SHAPE",
        "LANGCHAIN_SHAPE",
        "as_langchain_tools",
        "from_langchain",
        "from_langchain_dict",
        "to_langchain",
        "to_langchain_dict",
        "to_langchain_message",
    ),
    "._bedrock": ("BEDROCK_SHAPE", "from_bedrock", "to_bedrock"),
    "._gemini": (
        "GEMINI_INTERACTIONS_SHAPE",
        "GEMINI_SHAPE",
        "from_gemini",
        "from_gemini_interactions",
        "to_gemini",
        "to_gemini_interactions",
    ),
    "._vercel": ("VERCEL_SHAPE", "from_vercel", "to_vercel"),
    "._outcomes": ("DENIED", "INTERRUPTED", "Outcome"),
    "._helloagents": ("HELLOAGENTS_SHAPE", "from_helloagents", "to_helloagents"),
    "._pydantic_ai": (
        "PYDANTIC_AI_SHAPE",
        "as_pydantic_ai_tools",
        "from_pydantic_ai",
        "outcome_for",
        "to_pydantic_ai",
    ),
    "._llamaindex": ("LLAMAINDEX_SHAPE", "from_llamaindex", "to_llamaindex"),
    "._autogen": ("AUTOGEN_SHAPE", "from_autogen", "to_autogen"),
    "._openai_agents": ("as_openai_agents_tools",),
    "._logs": ("DialectJudge", "judge_of", "record_violations", "validate_dialect"),
    "._convert": ("ConvertReport", "convert"),
}

__getattr__, __dir__, _names = lazy_exports(__name__, _EXPORTS)
__all__ = list(_names)
