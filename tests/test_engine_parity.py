"""The fast engine (jsonschema-rs) gives jsonschema's verdict: on every conformance fixture and on
100,000 generated responses, valid ones and mutations of them; and a response's projection (the
key of the explanation cache) gets the same verdict and violations as the response."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolresponse import ErrorCode, ToolStatus, validate
from toolresponse.validation._engine import engine, root_projection

TESTS_DIR = Path(__file__).resolve().parent
FIXTURE_DIR = Path(os.environ.get("TOOLRESPONSE_CONFORMANCE_DIR") or TESTS_DIR / "conformance" / "v1")
GENERATED_INSTANCES = 100_000
BATCH = 100

CODES = [code.value for code in ErrorCode]
STATUSES = [status.value for status in ToolStatus]


def fixture_cases() -> list[tuple[str, Any, bool, tuple[str, str] | None]]:
    """(id, data, valid, expected error) of every test of every fixture file."""
    cases = []
    for path in sorted(FIXTURE_DIR.glob("*.json")):
        for group in json.loads(path.read_text("utf-8")):
            for test in group["tests"]:
                error = test.get("error")
                expected = None if error is None else (error["pointer"], error["keyword"])
                cases.append((f"{path.name}::{test['description']}", test["data"], test["valid"], expected))
    return cases


CASES = fixture_cases()
IDS = [case[0] for case in CASES]


def test_the_fixtures_are_there() -> None:
    """The conformance fixtures hold at least 100 tests."""
    assert len(CASES) >= 100


@pytest.mark.parametrize(("name", "data", "valid", "error"), CASES, ids=IDS)
def test_both_engines_give_the_fixture_verdict(name: str, data: Any, valid: bool, error: Any) -> None:
    """jsonschema-rs and jsonschema both give each fixture its verdict."""
    assert (valid, valid) == (engine("fast").is_valid(data), engine("reference").is_valid(data))


@pytest.mark.parametrize(("name", "data", "valid", "error"), CASES, ids=IDS)
def test_both_engines_report_the_same_violations(name: str, data: Any, valid: bool, error: Any) -> None:
    """The two engines report the same violations, and among them the fixture's pointer and keyword."""
    fast = validate(data, engine="fast").errors
    reference = validate(data, engine="reference").errors
    assert sorted(fast, key=repr) == sorted(reference, key=repr)
    if error is not None:
        assert error in {(violation.pointer, violation.keyword) for violation in fast}


@pytest.mark.parametrize(("name", "data", "valid", "error"), CASES, ids=IDS)
def test_a_projection_gets_the_same_verdict_and_violations(
    name: str, data: Any, valid: bool, error: Any
) -> None:
    """A fixture's projection has its verdict and, when invalid, its violations."""
    projected = root_projection().project(data)
    assert valid == engine("fast").is_valid(projected)
    if not valid:
        assert validate(data).errors == validate(projected).errors


# Generated responses: hypothesis draws a batch of seeds; each seed builds one response with the
# hand-written generators below (a valid response, then up to three mutations). Drawing seeds keeps
# generation cheap (a composite strategy per member costs milliseconds per response), and every
# failure names the seed that rebuilds its response.

_WORDS = ["", "x", "ok", "caf\u00e9", "\U0001f600", "NOT_FOUND", "error", "a b", "line\nbreak", "x-y"]
_NUMBERS: list[Any] = [
    0,
    1,
    -1,
    0.0,
    -0.0,
    0.5,
    -0.5,
    100.0,
    1.5,
    1e308,
    -1e308,
    2**63,
    2**64,
    2**70,
    -(2**70),
]
_NEAR_STATUSES: list[Any] = ["Success", "SUCCESS", "ok", "", "sucess", "errors", "failed", None, 1, True]
_NEAR_CODES: list[Any] = ["not_found", "NOT_FOUD", "NotFound", "", "FILE_NOT_FOUND", 404, None, ["NOT_FOUND"]]
_ODD_NUMBERS: list[Any] = [-1, -0.5, -(2**70), True, False, "5", None, 1.5, [], {}]
_NAMES = ["error", "errors", "stauts", "x-vendor", "X-Vendor", "x-", "", "result", "extra", "status "]


def _scalar(rng: random.Random) -> Any:
    kind = rng.randrange(5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice(_NUMBERS)
    if kind == 3:
        return rng.randint(-(10**6), 10**6)
    return rng.choice(_WORDS)


def _json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth >= 3 or kind < 0.5:
        return _scalar(rng)
    if kind < 0.75:
        return [_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(_WORDS + _NAMES): _json(rng, depth + 1) for _ in range(rng.randrange(4))}


def _valid(rng: random.Random) -> dict[str, Any]:
    status = rng.choice(STATUSES)
    words = [word for word in _WORDS if word] if status == "error" else _WORDS
    response: dict[str, Any] = {"status": status, "text": rng.choice(words)}
    if rng.random() < 0.5:
        response["data"] = {rng.choice(_WORDS): _json(rng) for _ in range(rng.randrange(3))}
    if status == "error":
        info: dict[str, Any] = {"code": rng.choice(CODES), "message": rng.choice(words)}
        if rng.random() < 0.3:
            info["details"] = {"path": rng.choice(_WORDS), "nested": _json(rng)}
        if rng.random() < 0.3:
            info["retryable"] = rng.random() < 0.5
        if rng.random() < 0.3:
            info["retry_after_ms"] = rng.choice([0, 1, 1500, 100.0, 2**64])
        response["error_info"] = info
    elif rng.random() < 0.2:
        response["error_info"] = None
    if rng.random() < 0.5:
        response["stats"] = None if rng.random() < 0.2 else {"time_ms": rng.choice([0, 0.41, 12, 1e6, -0.0])}
        if response["stats"] is not None and rng.random() < 0.3:
            response["stats"]["tokens"] = _json(rng)
    if rng.random() < 0.5:
        context: dict[str, Any] = {"tool_name": rng.choice([word for word in _WORDS if word])}
        if rng.random() < 0.5:
            context["params_input"] = _json(rng)
        if rng.random() < 0.5:
            context["call_id"] = rng.choice(_WORDS)
        response["context"] = None if rng.random() < 0.2 else context
    if rng.random() < 0.2:
        response["x-" + rng.choice(_WORDS)] = _json(rng)
    return response


def _mutate(response: dict[str, Any], rng: random.Random) -> Any:
    kind = rng.randrange(12)
    members = [name for name in ("error_info", "stats", "context") if isinstance(response.get(name), dict)]
    inner: dict[str, Any] = response[rng.choice(members)] if members else response
    if kind == 0:
        response.pop(rng.choice(list(response) or ["status"]), None)
    elif kind == 1:
        response["status"] = rng.choice(_NEAR_STATUSES + STATUSES)
    elif kind == 2:
        response.setdefault("error_info", {"code": "NOT_FOUND", "message": "m"})
        if isinstance(response["error_info"], dict):
            response["error_info"]["code"] = rng.choice(_NEAR_CODES + CODES)
    elif kind == 3:
        response["text"] = rng.choice(["", None, 5, ["x"]])
    elif kind == 4:
        target = rng.choice(["time_ms", "retry_after_ms", "retryable", "tool_name", "call_id", "message"])
        inner[target] = rng.choice(_ODD_NUMBERS + _WORDS)
    elif kind == 5:
        response[rng.choice(_NAMES)] = _json(rng)
    elif kind == 6:
        inner[rng.choice(_NAMES)] = _json(rng)
    elif kind == 7:
        response["error_info"] = rng.choice([None, {}, "oops", [], {"code": "TIMEOUT"}])
    elif kind == 8:
        response["status"] = "error" if response.get("status") != "error" else "success"
    elif kind == 9:
        response[rng.choice(["data", "stats", "context", "error_info"])] = _json(rng)
    elif kind == 10:
        if inner:
            inner.pop(rng.choice(list(inner)))
    else:
        return rng.choice([[response], "result: 5", 5, None, True, [], {}])
    return response


def generated(seed: int) -> Any:
    """The response seed ``seed`` builds: valid, or valid then mutated one to three times."""
    rng = random.Random(seed)
    response: Any = _valid(rng)
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        if not isinstance(response, dict):
            break
        response = _mutate(response, rng)
    return response


def test_generated_responses_are_mixed() -> None:
    """The generator gives both verdicts in good measure (so parity is tested both ways)."""
    verdicts = [engine("reference").is_valid(generated(seed)) for seed in range(2000)]
    assert 0.3 < sum(verdicts) / len(verdicts) < 0.7


def test_fast_engine_matches_the_reference_on_100_000_generated_responses() -> None:
    """On 100,000 generated responses (1,000 hypothesis examples of 100), jsonschema-rs gives
    jsonschema's verdict, and each projection gets its response's verdict."""
    checked: list[int] = []
    fast = engine("fast").is_valid
    reference = engine("reference").is_valid
    project = root_projection().project

    @settings(
        max_examples=GENERATED_INSTANCES // BATCH,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=BATCH, max_size=BATCH))
    def check(seeds: list[int]) -> None:
        for seed in seeds:
            response = generated(seed)
            verdict = reference(response)
            assert (seed, verdict) == (seed, fast(response))
            projected = project(response)
            assert (seed, verdict) == (seed, fast(projected))
        checked.append(len(seeds))

    check()
    assert sum(checked) >= GENERATED_INSTANCES


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=10, max_size=10))
def test_a_projection_gets_the_same_violations(seeds: list[int]) -> None:
    """Generated invalid responses and their projections get the same violations, in the same order."""
    project = root_projection().project
    for seed in seeds:
        response = generated(seed)
        if not engine("fast").is_valid(response):
            assert (seed, validate(response).errors) == (seed, validate(project(response)).errors)
