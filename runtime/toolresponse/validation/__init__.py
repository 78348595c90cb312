"""Deciding whether a value is a ToolResponse v1, and explaining why not: one response
(``validate``, ``validate_json``), strict I-JSON (``parse_ijson``), values made JSON
(``to_json_data``), and the bulk API (``expand``, ``check``, ``check_lines``, ``report``).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
