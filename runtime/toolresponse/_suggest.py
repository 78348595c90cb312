"""What the package says to a person: "did you mean", text safe for a terminal, a setting's number.

Each is the one way the package does it, for every layer.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypeGuard

_NOT_WORD = re.compile(r"[^0-9a-z]+")
_CLOSE = 0.6


def _word_key(text: str) -> str:
    return _NOT_WORD.sub("", text.lower())


def _edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


@lru_cache(maxsize=4096)
def _nearest(value: str, options: tuple[str, ...], preferred: frozenset[str]) -> str | None:
    key = _word_key(value)
    same = [option for option in options if _word_key(option) == key]
    if len(same) == 1:
        return same[0]
    folded = value.lower()
    distances = {option: _edit_distance(folded, option.lower()) for option in options}
    best = min(distances.values(), default=0)
    if 0 < best <= max(1, len(value) // 4):
        closest = [option for option in options if distances[option] == best]
        favoured = [option for option in closest if option in preferred] or closest
        if len(favoured) == 1:
            return favoured[0]
        ranked = difflib.get_close_matches(folded, [option.lower() for option in favoured], n=1, cutoff=0)
        return next(option for option in favoured if option.lower() == ranked[0])
    close = _closest_spellings(value, options, 1)
    return close[0] if close else None


def _closest_spellings(value: str, options: Iterable[str], limit: int) -> list[str]:
    by_folded = {option.lower(): option for option in options}
    close = difflib.get_close_matches(value.lower(), list(by_folded), n=limit, cutoff=_CLOSE)
    return [by_folded[match] for match in close]


def nearest(value: str, options: Iterable[str], preferred: Iterable[str] = ()) -> str | None:
    """The option ``value`` most likely meant, or None: the same letters and digits (``not-found``
    for ``NOT_FOUND``) win; then the fewest typing slips (a swap counts as one), ties going to
    ``preferred`` options; then the closest spelling by ``difflib``."""
    return _nearest(value, tuple(options), frozenset(preferred))


def suggestions(value: str, options: Iterable[str], *, limit: int = 3) -> list[str]:
    """Up to ``limit`` options ``value`` may have meant: ``nearest`` first, then the closest spellings."""
    listed = tuple(options)
    first = _nearest(value, listed, frozenset())
    if first is None:
        return []
    close = _closest_spellings(value, listed, limit)
    return [first, *(option for option in close if option != first)][:limit]


def did_you_mean(options: Sequence[str], *, quote: Callable[[str], str] = repr) -> str:
    """``did you mean X?`` (``X or Y`` for two or more), each option quoted by ``quote``; "" for none."""
    if not options:
        return ""
    shown = [quote(option) for option in options]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    return f"did you mean {listed}?"


_UNSAFE = re.compile(r"[\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: C0 and C1 controls, bidi controls, lone surrogates
    and the backslash itself (so that an escape cannot be faked) as ``\\xNN`` or ``\\uNNNN``."""
    return _UNSAFE.sub(_escape, text)


def safe_text(value: object, text: Callable[[object], str] = repr) -> str:
    """``text(value)`` (its repr by default), or ``<TypeName>`` when that raises: for messages and
    traces, which never fail on what they describe."""
    try:
        return text(value)
    except Exception:
        return f"<{type(value).__name__}>"


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a finite int or float, not a bool (``True`` is no timeout); the caller
    adds its bound."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def checked_count(value: object, name: str) -> int:
    """The setting ``name``'s ``value``, an int >= 1; else ``TypeError`` or ``ValueError`` saying so."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, not {value}")
    return value


def checked_seconds(value: object, name: str, *, negative: bool = False) -> float:
    """The setting ``name``'s ``value``, a finite number of seconds, >= 0 unless ``negative``; else
    ``TypeError`` or ``ValueError`` saying so."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not math.isfinite(value) or (value < 0 and not negative):
        bound = "" if negative else " >= 0"
        raise ValueError(f"{name} must be a finite number of seconds{bound}, not {value!r}")
    return value


def shortened(text: str, limit: int) -> str:
    """``text`` as valid Unicode (lone surrogates replaced), at most ``limit`` characters, its end
    replaced by "…" when cut."""
    if not text.isascii():
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"
