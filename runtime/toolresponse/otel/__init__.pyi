from ._conventions import SEMCONV_VERSION as SEMCONV_VERSION
from ._instrumentor import ToolResponseInstrumentor as ToolResponseInstrumentor
from ._mcp import mcp_request as mcp_request

__all__: list[str]
