from ._agent import Agent as Agent
from ._agent import AgentResult as AgentResult
from ._agent import RunOutcome as RunOutcome
from ._models import ChatModel as ChatModel
from ._models import ModelReply as ModelReply
from ._models import OpenAIChatModel as OpenAIChatModel
from ._models import TokenUsage as TokenUsage
from ._models import ToolCall as ToolCall
from ._report import render_html as render_html
from ._report import render_text as render_text
from ._report import summarise as summarise
from ._retry import RetryPolicy as RetryPolicy

__all__: list[str]
