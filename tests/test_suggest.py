"""One "did you mean" for the whole package: the same pick and the same wording everywhere."""

from __future__ import annotations

import pytest

from toolresponse._suggest import did_you_mean, nearest, suggestions

CODES = ("NOT_FOUND", "ACCESS_DENIED", "PERMISSION_DENIED", "TIMEOUT", "RATE_LIMIT")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("not-found", "NOT_FOUND"),  # the same letters and digits
        ("NOT_FOUD", "NOT_FOUND"),  # one slip
        ("TIEMOUT", "TIMEOUT"),  # a swap is one slip
        ("rate limit", "RATE_LIMIT"),
        ("SOMETHING_ELSE", None),
    ],
)
def test_nearest_picks_the_code_meant(value: str, expected: str | None) -> None:
    """The nearest option by letters, then slips, then spelling; None when nothing is close."""
    assert expected == nearest(value, CODES)


def test_preferred_options_win_a_tie() -> None:
    """Two options one slip away: the preferred one is named."""
    assert ("cat", "car") == (
        nearest("cax", ("car", "cat"), ("cat",)),
        nearest("cax", ("car", "cat"), ("car",)),
    )


def test_suggestions_put_the_nearest_first_and_stop_at_the_limit() -> None:
    """Several close names, nearest first, at most ``limit``."""
    assert ["search", "research"] == suggestions("serch", ["add", "search", "research"], limit=2)
    assert [] == suggestions("zzz", ["add", "search"])


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ([], ""),
        (["a"], "did you mean 'a'?"),
        (["a", "b"], "did you mean 'a' or 'b'?"),
        (["a", "b", "c"], "did you mean 'a', 'b' or 'c'?"),
    ],
)
def test_the_wording_is_one(options: list[str], expected: str) -> None:
    """One phrase, options joined with commas and a final "or"."""
    assert expected == did_you_mean(options)
