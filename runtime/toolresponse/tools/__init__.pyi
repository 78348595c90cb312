from ._load import load_registry as load_registry
from ._params import parameters_schema as parameters_schema
from ._provider_schemas import tool_schemas as tool_schemas

__all__: list[str]
