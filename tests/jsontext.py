"""Random JSON texts for the tests of duplicate names and positions: escaped names, colons and
escaped colons in strings, any spacing, objects that may repeat a name at any depth."""

from __future__ import annotations

import json
import random

_NAMES = ["a", "b", "a:", ":", "x/y", 'q"', "\u00e9", "status", ""]


def _escaped(name: str, rng: random.Random) -> str:
    """The JSON string literal of ``name``, with characters escaped at random."""
    out = []
    for char in name:
        choice = rng.random()
        if choice < 0.3:
            out.append(f"\\u{ord(char):04x}")
        elif char == "/" and choice < 0.6:
            out.append("\\/")
        else:
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


def random_json_text(rng: random.Random, depth: int = 0) -> str:
    """A random JSON text, with random spacing and escapes, whose objects may repeat a name."""
    space = rng.choice(["", " ", "\n  "])
    kind = rng.random()
    if depth > 3 or kind < 0.3:
        return rng.choice(["1", "-2.5e3", "true", "null", '"v:al"', '"\\u003a"', '"\\"::\\""'])
    if kind < 0.5:
        items = [random_json_text(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return "[" + ("," + space).join(items) + "]"
    names = [rng.choice(_NAMES) for _ in range(rng.randint(0, 4))]
    members = [f"{_escaped(name, rng)}{space}:{space}{random_json_text(rng, depth + 1)}" for name in names]
    return "{" + space + ("," + space).join(members) + "}"
