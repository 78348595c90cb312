from ._access import ANONYMOUS_CALLER as ANONYMOUS_CALLER
from ._access import BEARER_CALLER as BEARER_CALLER
from ._access import AccessRules as AccessRules
from ._app import create_app as create_app
from ._app import http_status as http_status
from ._conformance import ConformanceReport as ConformanceReport
from ._conformance import run_conformance as run_conformance
from ._serve import ConnectionLimits as ConnectionLimits
from ._serve import serve as serve
from ._serve import serve_in_background as serve_in_background

__all__: list[str]
