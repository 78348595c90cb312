# Types of the C extension toolresponse.validation.native._jsonscan (_jsonscan.c).

from .jsonscan import Triage

def first_duplicate(data: bytes, max_depth: int, /) -> tuple[int, tuple[str | int, ...]] | None:
    """The byte offset and instance path of the first repeated member name of the well-formed
    JSON text ``data``, or None. ValueError when objects nest deeper than ``max_depth``."""

def path_at(data: bytes, end: int, max_depth: int, /) -> tuple[str | int, ...] | None:
    """The instance path of the member or item being read at byte ``end`` of ``data`` (well-formed
    up to there), or None when it lies deeper than ``max_depth``."""

def lines_with_duplicates(lines: list[bytes], max_depth: int, /) -> list[int]:
    """The indexes of the lines (each well-formed JSON text) in which some object repeats a member
    name; a line whose objects nest deeper than ``max_depth`` is not among them."""

def first_noncharacter(data: bytes, /) -> int | None:
    """The byte offset of the first noncharacter (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF) of the UTF-8
    text ``data``, raw or as an escape (the offset of its backslash), or None."""

def lines_with_noncharacters(lines: list[bytes], /) -> list[int]:
    """The indexes of the lines that hold a noncharacter, raw or escaped."""

triage: Triage
"""Each line decoded by ``loads``, scanned, and judged by ``verdict``: how many were accepted,
and an entry (index, kind, found) in line order for each line that needs a second look."""
