"""The agent: a chat model calling ToolRegistry tools, each response's status deciding what next.

``Agent(registry, model).run(task)`` returns an ``AgentResult``. ``OpenAIChatModel`` speaks to any
OpenAI-compatible server (the extra ``toolresponse[agent]``); a custom ``ChatModel`` answers with
a ``ModelReply``. ``summarise`` and ``render_text``/``render_html`` are ``toolresponse report``.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
