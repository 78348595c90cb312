from ._attach import McpTool as McpTool
from ._attach import aattach as aattach
from ._attach import attach as attach
from ._attach import connect as connect
from ._client import McpConnection as McpConnection
from ._server import http_app as http_app
from ._server import serve_http as serve_http
from ._server import serve_stdio as serve_stdio
from ._service import STDIO_CALLER as STDIO_CALLER
from ._service import McpToolService as McpToolService

__all__: list[str]
