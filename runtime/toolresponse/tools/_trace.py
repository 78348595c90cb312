"""The one secret masker (``mask_secrets``), and a JSONL trace writer that uses it.

What is masked (secret-named members; key formats and named values inside strings) is listed in
docs/observability.md. The patterns follow each provider's published token format; most strings
stop at one pre-filter of every pattern's literals.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import re
import string
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any, Final, Literal

import orjson

from .._errors import JsonValueError
from .._suggest import safe_text
from ..validation import to_json_data
from ..validation._jsondata import MAX_VALUE_DEPTH
from ._events import ToolCallEvent

MASK = "***"

# Names ending in a secret suffix (``access_token``, ``client_secret``) need no entry.
_SECRET_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "auth",
        "authorization",
        "proxy_authorization",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "token",
        "secret",
        "secret_key",
        "private_key",
        "cookie",
        "set_cookie",
        "credentials",
        "credential",
    }
)
_SECRET_SUFFIXES = (
    "_password",
    "_passwd",
    "_passphrase",
    "_secret",
    "_token",
    "_api_key",
    "_apikey",
    "_private_key",
    "_secret_key",
    "_access_key",
    "_credentials",
)

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NAME_SEPARATORS = re.compile(r"[-.\s]+")


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a member named ``name`` holds a secret: in snake case (``clientSecret``, ``db.password``,
    ``--auth``), a secret name or one ending in a secret word; ``max_tokens`` and ``secretary`` are not."""
    key = _NAME_SEPARATORS.sub("_", _CAMEL_BOUNDARY.sub("_", name)).lower().lstrip("_")
    return key in _SECRET_NAMES or key.endswith(_SECRET_SUFFIXES)


_CREDENTIAL_SIGNS = re.compile(r"[0-9._~+/=-]|.[A-Z]")


def _looks_like_credential(word: str) -> bool:
    return len(word) >= 20 or bool(_CREDENTIAL_SIGNS.search(word))


def _scheme_credential(match: re.Match[str]) -> str:
    """``Bearer <token>`` and the like, masked when the word after the scheme looks like a credential,
    so that prose such as "Basic arithmetic" or "Bearer of good news" is kept."""
    scheme, credential = match.group(1), match.group(2)
    if scheme.lower() == "basic":
        masked = bool(_CREDENTIAL_SIGNS.search(credential))
    else:
        masked = _looks_like_credential(credential)
    return f"{scheme} {MASK}" if masked else match.group(0)


_Replacement = str | Callable[[re.Match[str]], str]

# Each key format with the lower-case literals one of which any match contains: the pattern runs
# only on text that holds one of them, so a string pays a few substring searches, not a regex each.
_KEY_FORMATS: tuple[tuple[tuple[str, ...], re.Pattern[str], _Replacement], ...] = (
    (
        ("-----begin",),
        re.compile(
            r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)"
            r".*?(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        r"\1" + MASK + r"\2",
    ),
    (
        ("bearer", "basic", "token"),
        re.compile(r"\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=][A-Za-z0-9._~+/=-]{7,})", re.IGNORECASE),
        _scheme_credential,
    ),
    (("eyj",), re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+"), "eyJ" + MASK),
    (("sk-", "pk-", "rk-"), re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}"), r"\1-" + MASK),
    (("_live_", "_test_"), re.compile(r"\b((?:sk|pk|rk)_(?:live|test)_)[A-Za-z0-9]{8,}"), r"\1" + MASK),
    (("whsec_",), re.compile(r"\b(whsec_)[A-Za-z0-9]{16,}"), r"\1" + MASK),
    (
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}"),
        r"\1" + MASK,
    ),
    (("glpat-",), re.compile(r"\b(glpat-)[A-Za-z0-9_-]{20,}"), r"\1" + MASK),
    (("hf_",), re.compile(r"\b(hf_)[A-Za-z0-9]{20,}"), r"\1" + MASK),
    (("npm_",), re.compile(r"\b(npm_)[A-Za-z0-9]{30,}"), r"\1" + MASK),
    (("pypi-",), re.compile(r"\b(pypi-)AgE[A-Za-z0-9_-]{20,}"), r"\1" + MASK),
    (("xox", "xapp-"), re.compile(r"\b(xox[abeprs]-|xapp-)[A-Za-z0-9-]{8,}"), r"\1" + MASK),
    (("akia", "asia"), re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"), r"\1" + MASK),
    (("aiza",), re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), "AIza" + MASK),
    (("://",), re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), r"\1" + MASK + "@"),
    (  # a presigned URL's signature (S3's X-Amz-Signature, Azure's and GCS's sig, Signature)
        ("signature=", "sig="),
        re.compile(r"([?&](?:x-amz-signature|x-goog-signature|signature|sig)=)[^&#\s\"']+", re.IGNORECASE),
        r"\1" + MASK,
    ),
)

# A secret name followed by its value. The name is found first (where a word starts, holding a
# stem every secret name has, perhaps a two-word phrase such as "API key"); only a name that is a
# secret has its separator and value read, and the search goes on after that value, so that the
# work stays linear in the text's length whatever it holds.
_NAME_STEMS = ("key", "token", "secret", "pass", "pwd", "auth", "cookie", "credential")
_NAME_SOURCE = (
    r"(?<![\w.\-\\])(?:(?:api|access|refresh|auth|secret|private|client|session|bearer) )?"
    r"[a-z0-9_.\-]{0,40}?(?:" + "|".join(_NAME_STEMS) + r")[\w.\-]{0,40}(?![\w.\-])"
)
_NAME_LOWER = re.compile(_NAME_SOURCE)
"""For ASCII text, searched lower-cased (a case-blind search is several times slower)."""
_NAME_ANY_CASE = re.compile(_NAME_SOURCE, re.IGNORECASE)
_VALUE = re.compile(
    r"(?:\\?[\"'])?(?P<sep>\s*[:=]\s*|\s+(?:(?:is|was)\s+)?)"
    r"(?P<scheme>(?:bearer|basic|token|digest)\s+)?"
    r"(?P<value>\\\"(?:(?!\\\")[^\n])*(?:\\\"|\Z)"
    r"|\"(?:[^\"\\]|\\.)*(?:\"|\Z)"
    r"|'(?:[^'\\]|\\.)*(?:'|\Z)"
    r"|[^\s\"'&,;<>{}\[\]()\\]+)",
    re.IGNORECASE,
)
_NOT_A_VALUE = frozenset({"null", "true", "false", "none", '""', "''", '\\"\\"'})


def _is_secret_word(text: str, start: int, end: int) -> bool:
    word = text[start:end]
    if is_secret_name(word):
        return True
    # ``key`` names a secret as an option (``--key VALUE``) or in a query (``?key=VALUE``).
    return word.lower() == "--key" or (word.lower() == "key" and start > 0 and text[start - 1] in "?&")


def _masked_value(found: re.Match[str], option: bool) -> str | None:
    """What the value ``found`` after a secret name (an ``option``: ``--api-key VALUE``) becomes,
    or None when it is not that name's value."""
    value = found["value"]
    quote = value[:2] if value.startswith("\\") else value[:1] if value[:1] in "\"'" else ""
    if not quote and (value.startswith("-") or is_secret_name(value.rstrip(":="))):
        return None  # another option or name (``passwd --api-key KEY``): the search goes on from it
    prose = not quote and not option and ":" not in found["sep"] and "=" not in found["sep"]
    if prose and (len(value) < 6 or not _looks_like_credential(value)):
        return None  # prose such as "password reset" or "token limit"
    closed = quote if len(value) >= 2 * len(quote) + 1 and value.endswith(quote) else ""
    return quote + MASK + closed if quote else MASK


def _mask_named(text: str, lower: str) -> str:
    names, searched = (_NAME_LOWER, lower) if text.isascii() else (_NAME_ANY_CASE, text)
    pieces: list[str] = []
    done = position = 0
    while (name := names.search(searched, position)) is not None:
        position = name.end()
        if not _is_secret_word(text, name.start(), position):
            continue
        found = _VALUE.match(text, position)
        if found is None:
            continue
        if found["value"].lower() in _NOT_A_VALUE or MASK in found["value"]:
            position = found.end()
            continue
        masked = _masked_value(found, option=text.startswith("-", name.start()))
        if masked is None:
            continue
        pieces.append(text[done : found.start("value")])
        pieces.append(masked)
        done = position = found.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


_ALL_STEMS = tuple(stem for stems, _, _ in _KEY_FORMATS for stem in stems) + _NAME_STEMS
"""Every literal above: most strings hold none of them, and stop here."""


def _mask_any(text: str) -> str:
    lower = text.lower()
    if not any(stem in lower for stem in _ALL_STEMS):
        return text
    for stems, pattern, replacement in _KEY_FORMATS:
        if any(stem in lower for stem in stems):
            text = pattern.sub(replacement, text)
            lower = text.lower()
    if any(stem in lower for stem in _NAME_STEMS):
        text = _mask_named(text, lower)
    return text


_mask_short = functools.lru_cache(maxsize=2048)(_mask_any)
"""Short strings repeat from record to record (event names, statuses, tool names): remembered."""


def _mask_text(text: str) -> str:
    return _mask_short(text) if len(text) <= 64 else _mask_any(text)


_URL_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")


def _percent_encoded(char: str) -> str:
    escapes = "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    return f"(?:{re.escape(char)}|{'[+]|' if char == ' ' else ''}(?i:{escapes}))"


@functools.lru_cache(maxsize=256)
def _written_forms(word: str) -> str:
    """A pattern for ``word`` as written, percent-encoded (any of its characters, in either hex
    case, a space also as ``+``), JSON-escaped, or as its repr writes it (one quote kind escaped)."""
    encoded = "".join(re.escape(char) if char in _URL_UNRESERVED else _percent_encoded(char) for char in word)
    escaped = {json.dumps(word)[1:-1], json.dumps(word, ensure_ascii=False)[1:-1], repr(word)[1:-1]}
    return "|".join([encoded, *map(re.escape, sorted(escaped - {word}, key=len, reverse=True))])


def mask_secrets(value: Any, known: Iterable[str] = ()) -> Any:
    """A copy of ``value`` with secrets masked (docs/observability.md); other values as they are.

    ``known``: secrets to mask wherever a string holds one as a whole word, as written, escaped or
    percent-encoded (``secret_values``). A container that contains itself is cut where it repeats,
    as ``"<cycle>"``.
    """
    words = sorted({word for word in known if word}, key=len, reverse=True)
    if not words:
        return _masked(value, _mask_text, True, 0, set())
    forms = "|".join(map(_written_forms, words))
    found = re.compile(r"(?:(?<![A-Za-z0-9])|(?<=%[0-9A-Fa-f]{2}))(?:" + forms + r")(?![A-Za-z0-9])")
    return _masked(value, lambda text: _mask_text(found.sub(MASK, text)), True, 0, set())


def masked_json_text(value: Any, *, mask: bool = True) -> str:
    """``value`` as compact JSON text (what ``to_json_data`` cannot convert, as its repr), masked
    unless not ``mask``: once it is JSON, so that a dataclass's members and a repr are masked too."""
    try:
        data = to_json_data(value)
    except JsonValueError:
        data = _lenient(value)
    return orjson.dumps(mask_params(data) if mask else data).decode("utf-8")


def secret_values(params: Any) -> set[str]:
    """The values held under secret-named members of JSON ``params`` (at any depth), as text: each
    string as it is, each number as JSON writes it."""
    found: set[str] = set()

    def collect(value: Any, secret: bool, depth: int) -> None:
        if depth > MAX_VALUE_DEPTH:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                collect(item, secret or (isinstance(key, str) and is_secret_name(key)), depth + 1)
        elif isinstance(value, list):
            for item in value:
                collect(item, secret, depth + 1)
        elif secret and isinstance(value, str):
            found.add(value)
        elif secret and isinstance(value, int | float) and not isinstance(value, bool):
            found.add(orjson.dumps(value).decode("utf-8"))

    collect(params, False, 0)
    return found


def mask_params(value: Any) -> Any:
    """``mask_secrets`` for JSON data (a call's recorded parameters), copying nothing when nothing
    in it is a secret, the common case: ``value`` itself then, else a masked copy."""
    if type(value) is dict:  # the common case: to its members at once, a call fewer
        return _masked_members(value, _mask_text, False, 0, _NO_CYCLES)
    return _masked(value, _mask_text, False, 0, _NO_CYCLES)


_SCALARS = frozenset({bool, int, float})
_NO_CYCLES: Final[set[int]] = set()
"""Never written: JSON data (``copy`` off) holds no cycles."""


def _masked(value: Any, mask_text: Callable[[str], str], copy: bool, depth: int, active: set[int]) -> Any:
    """``value`` masked: with ``copy``, any JSON-like value into a new one; without, JSON data
    (dicts and lists) changed copy-on-write, so that what holds no secret is ``value`` itself."""
    kind = type(value)
    if kind is str:
        return mask_text(value)
    if kind is not dict and kind is not list:
        if copy and isinstance(value, str):
            return mask_text(value)
        if not copy or not isinstance(value, Mapping | list | tuple):
            return value
    if not copy:
        return value if depth > MAX_VALUE_DEPTH else _masked_members(value, mask_text, copy, depth, active)
    if id(value) in active:
        return "<cycle>"
    if depth > MAX_VALUE_DEPTH:
        return "<too deep>"
    active.add(id(value))
    result = _masked_members(value, mask_text, copy, depth, active)
    active.discard(id(value))
    return result


def _masked_members(
    value: Any, mask_text: Callable[[str], str], copy: bool, depth: int, active: set[int]
) -> Any:
    mapping = type(value) is dict or (type(value) is not list and isinstance(value, Mapping))
    new: Callable[[Any], Any] = dict if mapping else list
    result = new(value) if copy else value
    for key, item in value.items() if mapping else enumerate(value):
        if mapping and isinstance(key, str) and is_secret_name(key) and item is not None and item != "":
            masked: Any = MASK
        elif item is None or type(item) in _SCALARS:
            continue
        else:
            masked = _masked(item, mask_text, copy, depth + 1, active)
        if masked is not item:
            if result is value:
                result = new(value)
            result[key] = masked
    return result


def _lenient(value: Any, depth: int = 0, seen: frozenset[int] = frozenset()) -> Any:
    """JSON for a trace whatever ``value`` is: what ``to_json_data`` cannot convert becomes its repr."""
    if value is None or isinstance(value, bool | str):
        return value.encode("utf-8", "replace").decode("utf-8") if isinstance(value, str) else value
    if isinstance(value, int):
        return int(value) if -(2**63) <= value <= 2**64 - 1 else str(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(value)
    if id(value) in seen:
        return "<cycle>"
    if depth > MAX_VALUE_DEPTH:
        return "<too deep>"
    inner = seen | {id(value)}
    if isinstance(value, Mapping):
        return {
            _lenient(safe_text(key, str)): _lenient(item, depth + 1, inner) for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_lenient(item, depth + 1, inner) for item in value]
    try:
        return to_json_data(value)
    except JsonValueError:
        return safe_text(value)


class JsonlTraceWriter(contextlib.AbstractContextManager["JsonlTraceWriter"]):
    """Writes masked JSON objects, one per line, each flushed, to a path (appended to unless
    ``mode="w"``) or a text stream; a registry listener for ``ToolCallEvent``s. What is not JSON is
    written as its repr."""

    def __init__(
        self,
        target: str | os.PathLike[str] | IO[str],
        *,
        mode: Literal["a", "w"] = "a",
        mask: bool = True,
    ) -> None:
        self._lock = threading.Lock()
        self._mask = mask
        self._owned = isinstance(target, str | os.PathLike)
        if isinstance(target, str | os.PathLike):
            target = open(target, mode, encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._stream = target
        self._closed = False

    def write(self, record: Mapping[str, Any]) -> None:
        """Write one record as a line of JSON, secrets masked; raises ``ValueError`` once closed."""
        line = masked_json_text(record, mask=self._mask) + "\n"
        with self._lock:
            if self._closed:
                raise ValueError("the trace writer is closed")
            self._stream.write(line)
            self._stream.flush()

    def __call__(self, event: ToolCallEvent) -> None:
        """Write a tool-call event (the registry listener interface)."""
        self.write(event.to_dict())

    def close(self) -> None:
        """Flush, and close the file if this writer opened it. Closing twice is harmless."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._owned:
                self._stream.close()
            else:
                self._stream.flush()

    @property
    def closed(self) -> bool:
        return self._closed

    def __exit__(self, *_: object) -> None:
        self.close()
