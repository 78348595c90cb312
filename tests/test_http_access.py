"""Access control on the HTTP binding: Host and Origin allow-lists, the bearer token, and the
refusal to serve a non-loopback address without one; each on a real server on loopback."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from toolresponse import AccessControl, ArgumentRule, DenyList, ReadOnly, ToolRegistry, validate
from toolresponse._errors import ConformanceTokenError
from toolresponse.cli import main as cli_main
from toolresponse.http import (
    ANONYMOUS_CALLER,
    BEARER_CALLER,
    AccessRules,
    create_app,
    run_conformance,
    serve_in_background,
)
from toolresponse.http._access import TOKEN_ENV, TokenError, is_loopback, load_token

DEMO = "toolresponse.demo.calculator:build_registry"
TOKEN = "k7Qx-3vR_9mZt2LpWq8nYb4HcJ6sF0aE"
"""A bearer token for the tests (32 characters of the token alphabet)."""
CALCULATE = {"expression": "2 + 3"}


class CountingRegistry:
    """The demo calculator, counting the calls that reach it."""

    def __init__(self) -> None:
        from toolresponse.demo.calculator import build_registry

        self.inner = build_registry()
        self.calls = 0

    def list_tools(self) -> Any:
        return self.inner.list_tools()

    async def aexecute(self, name: str, params: Any, *, call_id: str | None = None) -> Any:
        self.calls += 1
        return await self.inner.aexecute(name, params, call_id=call_id)


def refusal_of(answer: httpx.Response) -> tuple[int, str, str]:
    """The status, code and ``details.reason`` of a refusal, after checking it is a ToolResponse."""
    assert "application/json" == answer.headers["content-type"]
    body = answer.json()
    assert () == validate(body).errors
    return answer.status_code, body["error_info"]["code"], body["error_info"]["details"]["reason"]


@pytest.fixture
def open_server() -> Iterator[tuple[str, CountingRegistry]]:
    """A server with the default rules (loopback, no token)."""
    registry = CountingRegistry()
    with serve_in_background(create_app(registry)) as url:
        yield url, registry


@pytest.fixture
def token_server() -> Iterator[tuple[str, CountingRegistry]]:
    """A server that requires ``TOKEN``."""
    registry = CountingRegistry()
    with serve_in_background(create_app(registry, access=AccessRules.of(token=TOKEN))) as url:
        yield url, registry


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        pytest.param({"Host": "evil.example"}, "host", id="foreign Host (DNS rebinding)"),
        pytest.param({"Host": "evil.example:8000"}, "host", id="foreign Host with a port"),
        pytest.param({"Host": "127.0.0.1.evil.example"}, "host", id="a name that starts like loopback"),
        pytest.param({"Host": "[::1]evil.example"}, "host", id="a bracketed loopback with more after it"),
        pytest.param({"Host": "localhost:evil"}, "host", id="loopback with a port that is no number"),
        pytest.param({"Origin": "http://evil.example"}, "origin", id="foreign Origin"),
        pytest.param(
            {"Origin": "http://localhost.evil.example:3000"}, "origin", id="an origin like loopback"
        ),
        pytest.param({"Origin": "null"}, "origin", id="Origin null (a sandboxed page)"),
        pytest.param({"Origin": "http://[::1]evil.example"}, "origin", id="an origin like [::1]"),
    ],
)
def test_a_foreign_host_or_origin_is_refused_on_loopback(
    open_server: tuple[str, CountingRegistry], headers: dict[str, str], reason: str
) -> None:
    """A request naming a foreign Host, or sent by a page of a foreign Origin, is 403 ACCESS_DENIED
    (a ToolResponse, details.reason naming the rule) and runs nothing."""
    url, registry = open_server
    answer = httpx.post(f"{url}/tools/calculator/invoke", json=CALCULATE, headers=headers, timeout=10)
    assert (403, "ACCESS_DENIED", reason) == refusal_of(answer)
    assert 0 == registry.calls


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no Origin (not a browser)"),
        pytest.param({"Host": "localhost:1234"}, id="Host localhost"),
        pytest.param({"Host": "[::1]:1234"}, id="Host [::1]"),
        pytest.param({"Host": "LOCALHOST."}, id="Host in capitals with a trailing dot"),
        pytest.param({"Origin": "http://localhost:3000"}, id="a loopback origin"),
        pytest.param({"Origin": "https://127.0.0.1"}, id="a loopback origin over https"),
    ],
)
def test_loopback_names_and_origins_are_served(
    open_server: tuple[str, CountingRegistry], headers: dict[str, str]
) -> None:
    """By default, loopback Host names and loopback origins (any port), and requests without Origin,
    are served."""
    url, registry = open_server
    answer = httpx.post(f"{url}/tools/calculator/invoke", json=CALCULATE, headers=headers, timeout=10)
    assert (200, 5) == (answer.status_code, answer.json()["data"]["result"])
    assert 1 == registry.calls


def test_allowed_hosts_and_origins_are_served() -> None:
    """Names given to --allow-host and origins given to --allow-origin are served; others still are not."""
    rules = AccessRules.of(hosts=["Tools.Example"], origins=["https://app.example/"])
    with serve_in_background(create_app(CountingRegistry(), access=rules)) as url:
        allowed = httpx.get(
            f"{url}/tools",
            headers={"Host": "tools.example:8000", "Origin": "https://app.example"},
            timeout=10,
        )
        other = httpx.get(f"{url}/tools", headers={"Origin": "https://other.example"}, timeout=10)
    assert 200 == allowed.status_code
    assert (403, "ACCESS_DENIED", "origin") == refusal_of(other)


def test_any_host_and_origin_with_a_star() -> None:
    """'*' accepts any Host, or any Origin."""
    rules = AccessRules.of(hosts=["*"], origins=["*"])
    with serve_in_background(create_app(CountingRegistry(), access=rules)) as url:
        answer = httpx.get(f"{url}/tools", headers={"Host": "a.example", "Origin": "null"}, timeout=10)
    assert 200 == answer.status_code


@pytest.mark.parametrize(
    ("authorization", "reason", "challenge"),
    [
        pytest.param(None, "missing_token", 'Bearer realm="toolresponse"', id="no token"),
        pytest.param(f"Basic {TOKEN}", "missing_token", 'Bearer realm="toolresponse"', id="another scheme"),
        pytest.param("Bearer", "missing_token", 'Bearer realm="toolresponse"', id="the scheme alone"),
        pytest.param(
            "Bearer " + TOKEN[:-1] + "x",
            "invalid_token",
            'Bearer realm="toolresponse", error="invalid_token"',
            id="a wrong token",
        ),
        pytest.param(
            "Bearer " + TOKEN + "x",
            "invalid_token",
            'Bearer realm="toolresponse", error="invalid_token"',
            id="the token and more",
        ),
    ],
)
def test_no_token_or_a_wrong_token_is_refused(
    token_server: tuple[str, CountingRegistry], authorization: str | None, reason: str, challenge: str
) -> None:
    """Without the server's token every request, the tool list included, is 401 ACCESS_DENIED with
    a Bearer challenge, and nothing runs."""
    url, registry = token_server
    headers = {} if authorization is None else {"Authorization": authorization}
    invoke = httpx.post(f"{url}/tools/calculator/invoke", json=CALCULATE, headers=headers, timeout=10)
    listing = httpx.get(f"{url}/tools", headers=headers, timeout=10)
    assert (401, "ACCESS_DENIED", reason) == refusal_of(invoke)
    assert (401, "ACCESS_DENIED", reason) == refusal_of(listing)
    assert challenge == invoke.headers["www-authenticate"]
    assert TOKEN not in invoke.text
    assert 0 == registry.calls


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_right_token_is_accepted(token_server: tuple[str, CountingRegistry], scheme: str) -> None:
    """The right token, under the scheme name in any case, is served."""
    url, registry = token_server
    headers = {"Authorization": f"{scheme} {TOKEN}"}
    answer = httpx.post(f"{url}/tools/calculator/invoke", json=CALCULATE, headers=headers, timeout=10)
    assert (200, 5) == (answer.status_code, answer.json()["data"]["result"])
    assert 1 == registry.calls


def test_host_and_origin_are_checked_before_the_token(token_server: tuple[str, CountingRegistry]) -> None:
    """A foreign Host is refused 403 even with the right token: a rebinding page never gets to try one."""
    url, _ = token_server
    headers = {"Authorization": f"Bearer {TOKEN}", "Host": "evil.example"}
    assert (403, "ACCESS_DENIED", "host") == refusal_of(
        httpx.get(f"{url}/tools", headers=headers, timeout=10)
    )


def test_the_token_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Neither a right nor a wrong token appears in any log record of the server."""
    caplog.set_level(logging.DEBUG)
    with serve_in_background(create_app(CountingRegistry(), access=AccessRules.of(token=TOKEN))) as url:
        httpx.get(f"{url}/tools", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
        httpx.get(f"{url}/tools", headers={"Authorization": f"Bearer {TOKEN}wrong"}, timeout=10)
        httpx.get(f"{url}/nowhere", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert [] == [record.getMessage() for record in caplog.records if TOKEN in record.getMessage()]
    assert "token=None" not in repr(AccessRules.of(token=TOKEN))
    assert TOKEN not in repr(AccessRules.of(token=TOKEN))


# -- the token's sources -------------------------------------------------------------------


def test_the_token_comes_from_the_file_first_then_the_environment(tmp_path: Path) -> None:
    """--token-file (its first line, white space around it dropped) wins over TOOLRESPONSE_TOKEN."""
    token_file = tmp_path / "token"
    token_file.write_text(f"  {TOKEN}\nsecond line\n", encoding="utf-8")
    other = "Z" * 20
    assert TOKEN == load_token(token_file, {TOKEN_ENV: other})
    assert other == load_token(None, {TOKEN_ENV: other})
    assert load_token(None, {}) is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ("\n", "is empty"),
        ("short", "under 16"),
        ("has a space in it somewhere", "a character a bearer token cannot have"),
        ("tökenwithumlautsandmore", "a character a bearer token cannot have"),
    ],
)
def test_a_bad_token_is_refused_with_the_reason(tmp_path: Path, content: str, message: str) -> None:
    """An empty, short or unsendable token is a TokenError naming its source and what is wrong."""
    token_file = tmp_path / "token"
    token_file.write_text(content, encoding="utf-8")
    with pytest.raises(TokenError, match=message) as raised:
        load_token(token_file, {})
    assert str(token_file) in str(raised.value)
    with pytest.raises(TokenError, match=TOKEN_ENV):
        load_token(None, {TOKEN_ENV: content})


def test_a_token_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TokenError, match="cannot read the token file"):
        load_token(tmp_path / "missing", {})


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_which_addresses_are_loopback(host: str, loopback: bool) -> None:
    assert loopback == is_loopback(host)


# -- toolresponse serve --------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.org"])
def test_a_non_loopback_bind_without_a_token_is_refused_at_start(
    host: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--host other than loopback without a token exits 2 before listening, saying how to give a
    token or to insist."""
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert 2 == cli_main(["serve", DEMO, "--host", host, "--port", "0"])
    err = capsys.readouterr().err
    assert f"--host {host}" in err
    assert "--token-file" in err
    assert "--insecure-no-token" in err


def test_a_bad_token_file_stops_serve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("short\n", encoding="utf-8")
    assert 2 == cli_main(["serve", DEMO, "--token-file", str(token_file), "--port", "0"])
    assert "under 16" in capsys.readouterr().err


def test_of_several_bad_limits_the_first_given_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    """Limits are checked as the command line gives them; the first bad one is the reason said."""
    bad = ["--max-connections", "0", "--keep-alive", "0", "--body-timeout", "0"]
    with pytest.raises(SystemExit) as usage:
        cli_main(["serve", DEMO, *bad, "--port", "0"])
    assert 2 == usage.value.code
    assert (
        "toolresponse serve: error: argument --max-connections: must be at least 1, not 0"
        == (capsys.readouterr().err.splitlines()[-1])
    )


def test_serve_with_a_token_file_requires_the_token(tmp_path: Path) -> None:
    """toolresponse serve --token-file: a real server that answers 401 without the token and 200 with it,
    and that does not print the token."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "toolresponse", "serve", DEMO, "--port", "0", "--token-file", str(token_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        without = httpx.get(f"{url}/tools", timeout=10)
        with_token = httpx.get(f"{url}/tools", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert (401, 200) == (without.status_code, with_token.status_code)
    assert "a bearer token required" in err
    assert TOKEN not in err


# -- the registry's policies, on behalf of the request's caller ------------------------------


def _no_powers(expression: str) -> str | None:
    return "no powers" if "**" in expression else None


def guarded_registry() -> ToolRegistry:
    """The calculator, which may not raise to a power, a ``secret`` tool anonymous callers may not
    use, and a ``wipe`` tool that writes, behind a read-only rule for everyone."""
    from toolresponse.demo.calculator import Calculator

    registry = ToolRegistry(
        access=AccessControl(
            DenyList("secret", callers=ANONYMOUS_CALLER),
            ReadOnly(),
            ArgumentRule("expression", _no_powers, tools="calculator"),
        )
    )
    registry.register(Calculator())

    @registry.tool
    def secret() -> str:
        """Tell the secret."""
        return "42"

    @registry.tool(writes=True)
    def wipe() -> str:
        """Wipe everything."""
        return "wiped"

    return registry


def _listed(url: str, **headers: str) -> list[str]:
    answer = httpx.get(f"{url}/tools", headers=headers, timeout=10)
    assert 200 == answer.status_code
    return [tool["name"] for tool in answer.json()["data"]["tools"]]


def _invoked(url: str, tool: str, body: Any, **headers: str) -> tuple[int, dict[str, Any]]:
    answer = httpx.post(f"{url}/tools/{tool}/invoke", json=body, headers=headers, timeout=10)
    payload = answer.json()
    assert () == validate(payload).errors
    return answer.status_code, payload


def _as_seen(answer: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """What a client reads of an answer (status and body), but its timing."""
    status, payload = answer
    del payload["stats"]["time_ms"]
    return status, payload


def test_policies_apply_to_an_anonymous_caller() -> None:
    """Without a token the caller is "anonymous": GET /tools leaves out what it may not call, a call
    of a hidden tool is 404 NOT_FOUND naming only the tools the caller may see, an argument rule
    refuses 403 PERMISSION_DENIED naming the caller, and an allowed tool runs."""
    with serve_in_background(create_app(guarded_registry())) as url:
        listed = _listed(url)
        hidden = _invoked(url, "secret", {})
        writing = _invoked(url, "wipe", {})
        refused = _invoked(url, "calculator", {"expression": "2 ** 8"})
        allowed = _invoked(url, "calculator", CALCULATE)
    assert ["calculator"] == listed
    for name, (status, payload) in (("secret", hidden), ("wipe", writing)):
        assert (404, "NOT_FOUND", f"No tool named '{name}'. Available tools: calculator.") == (
            status,
            payload["error_info"]["code"],
            payload["text"],
        )
    assert (403, "PERMISSION_DENIED", "arguments", ANONYMOUS_CALLER) == (
        refused[0],
        refused[1]["error_info"]["code"],
        refused[1]["error_info"]["details"]["policy"],
        refused[1]["error_info"]["details"]["caller"],
    )
    assert (200, 5) == (allowed[0], allowed[1]["data"]["result"])


@pytest.mark.parametrize("body", [{}, {"bogus": [1]}], ids=["valid", "invalid"])
def test_a_hidden_tool_answers_as_a_server_without_it(body: dict[str, Any]) -> None:
    """To an anonymous caller, a call of ``secret`` or ``wipe``, with valid arguments or not, gets the
    very status and body a server without those tools gives, timing aside: no schema, no refusal."""
    without = guarded_registry()
    without.unregister("secret")
    without.unregister("wipe")
    with (
        serve_in_background(create_app(guarded_registry())) as url,
        serve_in_background(create_app(without)) as without_url,
    ):
        for name in ("secret", "wipe"):
            assert _as_seen(_invoked(without_url, name, body)) == _as_seen(_invoked(url, name, body))


def test_an_unknown_name_is_answered_with_the_tools_the_caller_may_see() -> None:
    """A misspelt name is answered 404 NOT_FOUND naming and suggesting only the tools the caller may
    see: not ``secret`` to an anonymous caller, which the token's subject is offered."""
    rules = AccessRules.of(token=TOKEN)
    authorization = {"Authorization": f"Bearer {TOKEN}"}
    with (
        serve_in_background(create_app(guarded_registry())) as url,
        serve_in_background(create_app(guarded_registry(), access=rules)) as token_url,
    ):
        status, anonymous = _invoked(url, "secre", {})
        _, bearer = _invoked(token_url, "secre", {}, **authorization)
    details = anonymous["error_info"]["details"]
    assert (404, [], ["calculator"]) == (status, details["suggestions"], details["available"])
    assert "No tool named 'secre'. Available tools: calculator." == anonymous["text"]
    assert ["secret"] == bearer["error_info"]["details"]["suggestions"]


def test_a_request_with_the_token_is_the_bearer_caller() -> None:
    """With the token the caller is "bearer", which the anonymous deny-list does not concern."""
    rules = AccessRules.of(token=TOKEN)
    authorization = {"Authorization": f"Bearer {TOKEN}"}
    with serve_in_background(create_app(guarded_registry(), access=rules)) as url:
        listed = _listed(url, **authorization)
        status, payload = _invoked(url, "secret", {}, **authorization)
    assert BEARER_CALLER == rules.caller
    assert ["calculator", "secret"] == listed
    assert (200, "42") == (status, payload["text"])


# -- the conformance runner ----------------------------------------------------------------


def test_the_runner_passes_a_token_server_with_the_token(token_server: tuple[str, CountingRegistry]) -> None:
    """run_conformance(token=...) sends the token with every request: a server that requires it conforms."""
    url, _ = token_server
    report = run_conformance(url, max_examples=5, token=TOKEN)
    assert [] == [result.name for result in report.failures]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        pytest.param(
            None,
            "needs a bearer token (GET /tools answered 401 Unauthorized without one): give it with "
            f"--token-file FILE or the environment variable {TOKEN_ENV}",
            id="no token",
        ),
        pytest.param(
            "not-" + TOKEN,
            "refused the bearer token given (GET /tools answered 401 Unauthorized): check the token in "
            f"--token-file FILE or the environment variable {TOKEN_ENV}",
            id="a wrong token",
        ),
    ],
)
def test_the_cli_runner_without_the_token_says_so_in_one_line(
    token_server: tuple[str, CountingRegistry],
    token: str | None,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A server that answers the first request 401: exit 2, nothing checked, one line naming how to
    pass a token (and never the token given), instead of a failure per check."""
    url, registry = token_server
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    argv = ["conformance", url, "--max-examples", "3"]
    if token is not None:
        (tmp_path / "token").write_text(token, encoding="utf-8")
        argv += ["--token-file", str(tmp_path / "token")]
    assert 2 == cli_main(argv)
    out = capsys.readouterr()
    assert ("", [f"toolresponse conformance: {url} {expected}"]) == (out.out, out.err.splitlines())
    assert 0 == registry.calls


def test_the_runner_without_the_token_raises_a_token_error(
    token_server: tuple[str, CountingRegistry],
) -> None:
    """run_conformance on a server that wants a token it was not given: ConformanceTokenError."""
    url, _ = token_server
    with pytest.raises(ConformanceTokenError, match="needs a bearer token") as raised:
        run_conformance(url, max_examples=3)
    assert False is raised.value.token_given


def test_the_cli_runner_reads_the_token_from_the_environment(
    token_server: tuple[str, CountingRegistry],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """toolresponse conformance takes the token from TOOLRESPONSE_TOKEN, and never prints it."""
    url, _ = token_server
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    assert 0 == cli_main(["conformance", url, "--max-examples", "3"])
    out = capsys.readouterr()
    assert "with a bearer token" in out.out
    assert TOKEN not in out.out + out.err


def test_the_cli_runner_refuses_a_bad_token_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("", encoding="utf-8")
    assert 2 == cli_main(["conformance", "http://127.0.0.1:9", "--token-file", str(token_file)])
    assert "is empty" in capsys.readouterr().err
