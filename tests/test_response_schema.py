"""``ToolResponse`` decides validity with the schema engine: over generated valid and mutated
responses, ``from_dict`` and the constructor accept exactly what ``validate`` accepts, and refuse
the rest with the very violations ``validate`` reports."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_parity import generated

from toolresponse import ResponseValidationError, ToolResponse, validate
from toolresponse._errors import JsonValueError
from toolresponse.validation._jsondata import is_json_data

MEMBERS = ("status", "text", "data", "error_info", "stats", "context")


def _constructed(obj: dict[str, Any]) -> ToolResponse:
    """The response the constructor builds from the members of the wire object ``obj`` (which has
    ``status`` and ``text``: the constructor's required arguments)."""
    members = {name: obj[name] for name in MEMBERS if name in obj}
    extensions = {name: value for name, value in obj.items() if name not in MEMBERS}
    return ToolResponse(**members, extensions=extensions)


def _verdict(build: Any, obj: Any) -> tuple[bool, Any]:
    try:
        return True, build(obj).to_dict()
    except JsonValueError as error:
        return False, ("not JSON", error.pointer)
    except ResponseValidationError as error:
        return False, error.errors


@settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=20, max_size=20))
def test_from_dict_and_the_constructor_accept_exactly_what_validate_accepts(seeds: list[int]) -> None:
    """For JSON data the runtime can write (integers within 64 bits, the documented bound of
    ``to_json_data``), ``from_dict`` and the constructor accept a response exactly when ``validate``
    does; a refusal carries ``validate``'s own violations; an accepted one reads back unchanged."""
    for seed in seeds:
        obj = generated(seed)
        result = validate(obj)
        writable = is_json_data(obj)
        accepted, answer = _verdict(ToolResponse.from_dict, obj)
        if not writable:
            assert (seed, False) == (seed, accepted and result.valid)
            continue
        assert (seed, result.valid) == (seed, accepted)
        if result.valid:
            assert (seed, answer) == (seed, ToolResponse.from_dict(answer).to_dict())
        else:
            assert (seed, result.errors) == (seed, answer)
        if isinstance(obj, dict) and "status" in obj and "text" in obj:
            # The constructor takes a member passed as None as absent (it documents so): its
            # verdict is validate's on the object without such members. The members come in the
            # constructor's order, so the violations within a rank may come in another order.
            optional = ("data", "error_info", "stats", "context")
            absent = {name: value for name, value in obj.items() if value is not None or name not in optional}
            expected = validate(absent)
            built, built_answer = _verdict(_constructed, obj)
            assert (seed, expected.valid) == (seed, built)
            if not expected.valid:
                assert (seed, sorted(expected.errors, key=repr)) == (seed, sorted(built_answer, key=repr))


def test_the_generator_gives_both_verdicts() -> None:
    """The property is tested both ways: the generated responses are valid and invalid in good measure."""
    verdicts = [validate(generated(seed)).valid for seed in range(1000)]
    assert 0.3 < sum(verdicts) / len(verdicts) < 0.7
