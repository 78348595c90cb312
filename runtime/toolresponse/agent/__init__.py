r"""The agent: a chat model calling ToolRegistry tools, with each response's status deciding what next.

``Agent(registry, model).run(task)`` (or ``await ... .arun(task)``) returns an
``AgentResult``: the answer, how the run ended (``answered``, ``max_steps``,
``model_error``), every step and every ToolResponse with its data.

``OpenAIChatModel`` works with any OpenAI-compatible server through the
official ``openai`` client, the optional extra ``toolresponse[agent]``;
importing this package does not import ``openai``.

A custom ``ChatModel`` answers with a ``ModelReply`` (its ``ToolCall``\ s and
``TokenUsage``); ``RetryPolicy`` says how often a retryable failure is tried again.
``summarise`` / ``render_text`` / ``render_html`` are ``toolresponse report``: the
per-tool summary of agent traces. The exceptions (``AgentError``, ``ModelError``)
are declared at the top level with the rest of the tree.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
