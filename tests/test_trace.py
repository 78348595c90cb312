"""mask_secrets and the JSONL trace writer, alone and as a registry listener."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from toolresponse import JsonlTraceWriter, ToolRegistry, mask_secrets
from toolresponse.testing import FakeClock


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "API-Key",
        "apikey",
        "x-api-key",
        "Authorization",
        "password",
        "db_password",
        "token",
        "access_token",
        "refresh_token",
        "github_token",
        "secret",
        "client_secret",
        "Cookie",
        "private_key",
    ],
)
def test_secret_member_names_are_masked(name: str) -> None:
    """The value of a member whose name says it is a secret is replaced."""
    assert {name: "***", "city": "Paris"} == mask_secrets({name: "s3cr3t-value", "city": "Paris"})


@pytest.mark.parametrize(
    "name", ["prompt_tokens", "completion_tokens", "max_tokens", "tokens", "keyboard", "secretary_count"]
)
def test_counts_and_ordinary_names_are_kept(name: str) -> None:
    """Token counts and names that merely contain a word are not secrets."""
    assert {name: 12} == mask_secrets({name: 12})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-proj-AbCdEf0123456789xyz here", "key sk-*** here"),
        ("sk-ant-api03-AbCdEf0123456789", "sk-***"),
        ("Authorization: Bearer eyJabc.def123", "Authorization: Bearer ***"),
        ("bearer abcdef1234567890", "bearer ***"),
        ("Basic dXNlcjpwYXNzd29yZA==", "Basic ***"),
        ("use ghp_0123456789abcdefABCDEF0123", "use ghp_***"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIA***"),
        ("xoxb-1234567890-abcdef", "xoxb-***"),
        ("jwt eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl", "jwt eyJ***"),
        ("https://alice:hunter2@example.com/db", "https://alice:***@example.com/db"),
        ("GET /v1?api_key=abc123&q=paris", "GET /v1?api_key=***&q=paris"),
        ("password: hunter2", "password: ***"),
    ],
)
def test_secrets_inside_strings_are_masked(text: str, expected: str) -> None:
    """API keys, bearer tokens, URL passwords and secret parameters are masked inside any string."""
    assert expected == mask_secrets(text)


@pytest.mark.parametrize(
    "text",
    [
        "Basic arithmetic: 2 + 2 = 4",
        "Bearer of good news",
        "The task was completed with 512 tokens.",
        "ask-me-anything is not a key",
        "see https://example.com/docs",
    ],
)
def test_prose_is_kept(text: str) -> None:
    """Ordinary text is not mistaken for a secret."""
    assert text == mask_secrets(text)


@pytest.mark.parametrize(
    "name",
    [
        "accessToken",
        "clientSecret",
        "secretKey",
        "authToken",
        "privateKey",
        "APIKey",
        "xApiKey",
        "db.password",
    ],
)
def test_camel_case_and_dotted_secret_names_are_masked(name: str) -> None:
    """A secret name is recognised in camelCase and dotted spellings too."""
    assert {name: "***"} == mask_secrets({name: "value-1"})


@pytest.mark.parametrize("name", ["promptTokens", "maxTokens", "secretaryCount", "keyboardLayout"])
def test_camel_case_counts_and_ordinary_names_are_kept(name: str) -> None:
    """Splitting camelCase does not turn counts or ordinary names into secrets."""
    assert {name: 3} == mask_secrets({name: 3})


# One row per family of secret inside a string: (family, text, masked text).
SECRETS_IN_TEXT = [
    ("json text", '{"api_key": "hunter2", "user": "ann"}', '{"api_key": "***", "user": "ann"}'),
    ("json text camelCase", '{"accessToken":"abc","n":1}', '{"accessToken":"***","n":1}'),
    ("json text cut short", '{"password": "hunt', '{"password": "***'),
    ("json text inside json text", '{"a": "{\\"token\\": \\"abc\\"}"}', '{"a": "{\\"token\\": \\"***\\"}"}'),
    ("python assignment", "API_KEY = 'x'", "API_KEY = '***'"),
    ("shell assignment", "export GITHUB_TOKEN=abc123", "export GITHUB_TOKEN=***"),
    ("yaml", "clientSecret: xyz", "clientSecret: ***"),
    ("prose", "password hunter2", "password ***"),
    ("prose with is", "my API key is abcd1234efgh", "my API key is ***"),
    ("stripe live", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "sk_live_***"),
    ("stripe test", "use sk_test_" + "51H8xYzAbCdEfGh now", "use sk_test_*** now"),
    ("stripe restricted", "rk_live_" + "abcdefgh12345678", "rk_live_***"),
    ("hugging face", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345", "hf_***"),
    ("gitlab", "glpat-" + "xY12-abcdefghijklmnop", "glpat-***"),
    ("npm", "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_***"),
    (
        "pem private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----",
    ),
    (
        "pem private key cut short",
        "k=-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn",
        "k=-----BEGIN OPENSSH PRIVATE KEY-----***",
    ),
    ("bearer in lower case only", "Bearer abcdefghijklmnopqrstuvwxyz", "Bearer ***"),
    ("authorization header", "Authorization: Bearer abcdefghijklmno", "Authorization: Bearer ***"),
]


@pytest.mark.parametrize(
    ("text", "expected"), [row[1:] for row in SECRETS_IN_TEXT], ids=[row[0] for row in SECRETS_IN_TEXT]
)
def test_each_family_of_secret_in_text_is_masked(text: str, expected: str) -> None:
    """Named values (JSON, assignments, prose) and well-known key formats are masked inside strings."""
    assert expected == mask_secrets(text)


@pytest.mark.parametrize(
    "text",
    [
        "password reset link sent",
        "token limit exceeded",
        '{"password": null, "token_count": 3}',
        "monkey: banana",
        "the hf_ prefix names a Hugging Face token",
        "skip sk_live_ when testing",
    ],
)
def test_names_without_credentials_are_kept(text: str) -> None:
    """A secret word with no credential after it, or a bare key prefix, is not masked."""
    assert text == mask_secrets(text)


def test_masking_is_deep_and_copies() -> None:
    """Nested objects and arrays are masked in a copy; the input is not changed."""
    record = {
        "params": {"headers": {"Authorization": "Bearer abc123def456"}, "items": ["sk-AbCdEf0123456789"]}
    }
    masked = mask_secrets(record)
    assert {"params": {"headers": {"Authorization": "***"}, "items": ["sk-***"]}} == masked
    assert "Bearer abc123def456" == record["params"]["headers"]["Authorization"]  # type: ignore[index]


QUOTED = 'it\'s "s3cr3t"'
"""A known secret that holds both quote kinds: its repr escapes one of them."""
SPACED = "p@ss w/rd+s3cr3t\u00e9"
"""A known secret that percent-encoding changes: a space, reserved characters, a non-ASCII letter."""


def _lower_hex(text: str) -> str:
    return re.sub("%[0-9A-F]{2}", lambda escape: escape[0].lower(), text)


@pytest.mark.parametrize(
    ("secret", "text"),
    [
        (QUOTED, f"rejected {QUOTED}"),
        (QUOTED, f"rejected {QUOTED!r}"),
        (QUOTED, f"rejected {[QUOTED]}"),
        (QUOTED, "rejected " + json.dumps(QUOTED)),
        (SPACED, f"rejected {SPACED!r}"),
        (SPACED, "GET https://api.example/v1?q=" + quote(SPACED, safe="") + "&page=2"),
        (SPACED, "GET https://api.example/v1?q=" + quote_plus(SPACED) + "&page=2"),
        (SPACED, "GET https://api.example/v1/" + quote(SPACED) + "?page=2"),
        (SPACED, "GET https://api.example/v1?q=" + _lower_hex(quote(SPACED, safe="")) + "&page=2"),
        (SPACED, "GET https://api.example/v1?q=hello%20" + quote(SPACED, safe="") + "&page=2"),
    ],
)
def test_a_known_secret_is_masked_as_written_escaped_or_percent_encoded(secret: str, text: str) -> None:
    """A known secret is found as written, JSON-escaped, in a repr (which escapes one quote kind)
    and percent-encoded (either hex case, a space as + or %20); the text around it is kept."""
    masked = mask_secrets(text, [secret])
    assert "s3cr3t" not in masked
    assert masked.startswith(("rejected ", "GET https://api.example/v1"))
    assert masked.endswith(("***", "***'", '***"', "***']", "&page=2", "?page=2"))


def test_a_known_secret_is_matched_as_a_whole_word_and_literally() -> None:
    """A known secret is masked as a whole word only, percent-encoded too (``42`` is not taken out
    of ``1420`` nor of ``%2042x``), and each of its characters stands for itself (``.`` too)."""
    assert "ids 1420 and q=%2042x but ***" == mask_secrets("ids 1420 and q=%2042x but 42", ["42"])
    assert "*** axb" == mask_secrets("a.b axb", ["a.b"])


def lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines()]


def test_writer_writes_masked_jsonl_to_a_stream() -> None:
    """Each record is one compact, masked JSON line."""
    stream = io.StringIO()
    writer = JsonlTraceWriter(stream)
    writer.write({"event": "model", "api_key": "sk-AbCdEf0123456789", "n": 1})
    writer.write({"event": "model", "text": "used sk-AbCdEf0123456789"})
    assert [{"event": "model", "api_key": "***", "n": 1}, {"event": "model", "text": "used sk-***"}] == lines(
        stream.getvalue()
    )
    writer.close()
    assert not stream.closed


def test_writer_owns_a_path(tmp_path: Path) -> None:
    """Given a path, the writer appends to the file and closes it; writing after close is refused."""
    path = tmp_path / "trace.jsonl"
    path.write_text('{"earlier": true}\n', encoding="utf-8")
    with JsonlTraceWriter(path) as writer:
        writer.write({"later": True})
    assert [{"earlier": True}, {"later": True}] == lines(path.read_text("utf-8"))
    assert writer.closed
    with pytest.raises(ValueError, match="closed"):
        writer.write({})
    writer.close()


def test_writer_mode_w_truncates(tmp_path: Path) -> None:
    """mode="w" starts the file afresh."""
    path = tmp_path / "trace.jsonl"
    path.write_text('{"earlier": true}\n', encoding="utf-8")
    with JsonlTraceWriter(path, mode="w") as writer:
        writer.write({"only": 1})
    assert [{"only": 1}] == lines(path.read_text("utf-8"))


def test_values_that_are_not_json_are_written_as_text() -> None:
    """A trace never fails: NaN, bytes, big integers and unknown objects become text."""
    stream = io.StringIO()
    cycle: list[Any] = []
    cycle.append(cycle)
    with JsonlTraceWriter(stream) as writer:
        writer.write({"nan": float("nan"), "raw": b"\x00", "big": 2**70, "cycle": cycle, "set": {1}})
    assert [{"nan": "nan", "raw": "b'\\x00'", "big": str(2**70), "cycle": ["<cycle>"], "set": [1]}] == lines(
        stream.getvalue()
    )


def test_writer_is_a_registry_listener() -> None:
    """As a listener, the writer records status, code, time_ms and breaker state of every call."""
    stream = io.StringIO()
    clock = FakeClock()
    registry = ToolRegistry(clock=clock)
    registry.register(lambda token: "ok", name="login")
    registry.add_listener(JsonlTraceWriter(stream))
    registry.execute("login", {"token": "t"}, call_id="c1")
    registry.execute("logn", {}, call_id="Bearer abcdef1234567890")
    assert [
        {
            "event": "tool_call",
            "tool": "login",
            "call_id": "c1",
            "status": "success",
            "code": None,
            "retryable": None,
            "time_ms": 0.0,
            "breaker_state": None,
        },
        {
            "event": "tool_call",
            "tool": "logn",
            "call_id": "Bearer ***",
            "status": "error",
            "code": "NOT_FOUND",
            "retryable": False,
            "time_ms": 0.0,
            "breaker_state": None,
        },
    ] == lines(stream.getvalue())


def test_threads_share_a_writer() -> None:
    """Concurrent writes give whole lines, none lost."""
    stream = io.StringIO()
    writer = JsonlTraceWriter(stream)

    def write_many(thread: int) -> None:
        for index in range(200):
            writer.write({"thread": thread, "index": index})

    threads = [threading.Thread(target=write_many, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = lines(stream.getvalue())
    assert 800 == len(records)
    assert {(t, i) for t in range(4) for i in range(200)} == {(r["thread"], r["index"]) for r in records}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("server --api-key letmein", "server --api-key ***"),
        ("server --token abcdefgh --port 8", "server --token *** --port 8"),
        ("server --password pw", "server --password ***"),
        ("node index.js --apiKey 'two words'", "node index.js --apiKey '***'"),
        ("server -secret x", "server -secret ***"),
        ("curl --auth hunter2secret https://x", "curl --auth *** https://x"),
        ("mysql --pwd hunter2secret", "mysql --pwd ***"),
        ("curl --auth=hunter2secret", "curl --auth=***"),
    ],
)
def test_the_value_of_a_secret_option_of_a_command_line_is_masked(text: str, expected: str) -> None:
    """After an option named as a secret, the next word is the secret, whatever it looks like
    (in prose, "password reset" is kept)."""
    assert expected == mask_secrets(text)


@pytest.mark.parametrize("text", ["server --max-tokens 512", "server --token-limit 5", "server --key-file k"])
def test_options_that_are_not_secrets_keep_their_values(text: str) -> None:
    assert text == mask_secrets(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "https://b.s3.amazonaws.com/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=9f8e7d6c5b&X-Amz-Date=1",
            "https://b.s3.amazonaws.com/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=***&X-Amz-Date=1",
        ),
        (
            "https://a.blob.core.windows.net/c/f?sv=2020-08-04&sig=abcDEF%2B123",
            "https://a.blob.core.windows.net/c/f?sv=2020-08-04&sig=***",
        ),
        (
            "https://storage.googleapis.com/b/o?X-Goog-Signature=0a1b2c#top",
            "https://storage.googleapis.com/b/o?X-Goog-Signature=***#top",
        ),
        ("the signature= line and design=5 stay", "the signature= line and design=5 stay"),
    ],
)
def test_a_presigned_urls_signature_is_masked(text: str, expected: str) -> None:
    """A presigned URL grants access to whoever holds it: its signature is the secret."""
    assert expected == mask_secrets(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/etc/passwd --api-key hunter2secret", "/etc/passwd --api-key ***"),
        (
            "mcp-server --insecure-no-token --api-key hunter2secret",
            "mcp-server --insecure-no-token --api-key ***",
        ),
        ("password: token: hunter2secret", "password: token: ***"),
        ("server --key abc123 --port 8", "server --key *** --port 8"),
        ("https://maps.example/api?key=abc123def&q=x", "https://maps.example/api?key=***&q=x"),
    ],
)
def test_a_secret_name_followed_by_another_takes_not_it_as_its_value(text: str, expected: str) -> None:
    """A secret-named word followed by an option or another secret name: the value masked is the
    one after the last name, not the option; ``--key`` and a query's ``key=`` name secrets too."""
    assert expected == mask_secrets(text)


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __str__(self) -> str:
        raise RuntimeError("no str")


def test_a_value_whose_repr_raises_is_written_by_its_type_name() -> None:
    """A trace never fails on what it is given: a value (or key) whose repr and str raise is
    written as ``<TypeName>``."""
    stream = io.StringIO()
    JsonlTraceWriter(stream, mask=False).write({"value": _Unprintable(), "items": [_Unprintable()]})
    assert {"value": "<_Unprintable>", "items": ["<_Unprintable>"]} == json.loads(stream.getvalue())


def test_masked_json_text_of_a_value_whose_repr_raises_is_its_type_name() -> None:
    """The agent trace's and OpenTelemetry's JSON text never fails on what it describes either."""
    from toolresponse.tools._trace import masked_json_text

    assert '{"value":"<_Unprintable>"}' == masked_json_text({"value": _Unprintable()})
    assert '"<_Unprintable>"' == masked_json_text(_Unprintable())


def test_masked_json_text_is_json_whatever_the_value_as_the_trace_writer_writes_it() -> None:
    """OpenTelemetry's and the agent trace's JSON text is the trace writer's line: a value that is
    not JSON (NaN, a tuple key, an integer past 64 bits) is written as its repr, never as text a
    JSON reader rejects."""
    from toolresponse.tools._trace import masked_json_text

    value: Any = {"ratio": float("nan"), "big": 2**70, (1, 2): "pair", "token": "abc"}
    text = masked_json_text(value)
    assert {"ratio": "nan", "big": str(2**70), "(1, 2)": "pair", "token": "***"} == json.loads(text)
    stream = io.StringIO()
    JsonlTraceWriter(stream).write(value)
    assert text + "\n" == stream.getvalue()


def test_a_value_converted_to_json_is_masked_as_json() -> None:
    """Masking comes after the conversion to JSON: a dataclass's secret-named member and a secret
    in the repr of a value that is not JSON are masked in a trace line and in the JSON text alike."""
    from toolresponse.tools._trace import masked_json_text

    @dataclasses.dataclass
    class Login:
        user: str
        password: str

    class Opaque:
        def __repr__(self) -> str:
            return "Opaque(Authorization: Bearer abcdefghijklmnop1234)"

    value = {"login": Login("ann", "hunter22"), "thing": Opaque()}
    expected = {"login": {"user": "ann", "password": "***"}, "thing": "Opaque(Authorization: Bearer ***)"}
    assert expected == json.loads(masked_json_text(value))
    stream = io.StringIO()
    JsonlTraceWriter(stream).write(value)
    assert expected == json.loads(stream.getvalue())


def test_a_member_name_that_is_not_valid_unicode_is_written_with_a_replacement() -> None:
    """A lone surrogate in a member name (``json.loads`` gives one for ``"\\ud800"``) is written as
    ``?``, as in a string value, not raised as an error that would stop the trace."""
    stream = io.StringIO()
    JsonlTraceWriter(stream).write({"\ud800": "x", "ok": "\ud800"})
    assert {"?": "x", "ok": "?"} == json.loads(stream.getvalue())
