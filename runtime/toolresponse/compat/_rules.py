"""The classes a schema change falls into, and the rules that put it there: the one table the
classifier and the docs (``docs/versioning.md``) read, so that no rule is applied undocumented.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class ChangeClass(StrEnum):
    """Who a schema change breaks, most severe first."""

    BREAKING_PRODUCERS = "breaking-producers"
    """The accepted set shrinks: documents producers write today may be rejected."""
    BREAKING_CONSUMERS = "breaking-consumers"
    """The accepted set grows: consumers relying on the old set meet documents they cannot handle."""
    BEHAVIOUR = "behaviour"
    """The accepted set is the same, but what a conforming party does changes."""
    COMPATIBLE = "compatible"
    """Neither the accepted set nor any behaviour changes (descriptions, titles, examples ...)."""


class Rule(NamedTuple):
    """One kind of change: its class and a summary of what it means."""

    change_class: ChangeClass
    summary: str


_P = ChangeClass.BREAKING_PRODUCERS
_C = ChangeClass.BREAKING_CONSUMERS
_B = ChangeClass.BEHAVIOUR
_OK = ChangeClass.COMPATIBLE

RULES: dict[str, Rule] = {
    # The accepted set shrinks.
    "schema-removed": Rule(_P, "a schema document was removed; references to it break"),
    "id-changed": Rule(_P, "a schema's $id changed; references to the old $id break"),
    "dialect-changed": Rule(_P, "a schema's $schema (dialect) changed"),
    "definition-removed": Rule(_P, "a $defs entry was removed; references to it break"),
    "type-narrowed": Rule(_P, "a JSON type is no longer accepted"),
    "enum-value-removed": Rule(_P, "a value of a closed set (an error code, a status) was removed"),
    "enum-introduced": Rule(_P, "a value that was free is now limited to a closed set"),
    "const-changed": Rule(_P, "the one accepted value changed"),
    "required-added": Rule(_P, "a member is now required"),
    "property-removed": Rule(_P, "a member of a closed object is no longer accepted"),
    "property-constrained": Rule(_P, "a member that was free now has a schema"),
    "additional-properties-closed": Rule(_P, "an object no longer accepts members it does not name"),
    "constraint-tightened": Rule(_P, "a bound, length, pattern or format accepts fewer values"),
    "subschema-rejects-all": Rule(_P, "a subschema now rejects every value"),
    "condition-changed": Rule(
        _P, "an if-condition changed; which branch applies moves both ways, so it is treated as shrinking"
    ),
    "unknown-keyword-changed": Rule(
        _P, "a keyword the classifier does not know changed; it cannot tell the direction"
    ),
    # The accepted set grows.
    "enum-value-added": Rule(
        _C, "a value was added to a closed set; consumers that switch over every value break"
    ),
    "enum-lifted": Rule(_C, "a closed set of values was lifted"),
    "type-widened": Rule(_C, "a JSON type is now accepted"),
    "required-removed": Rule(_C, "a member is no longer required; consumers may meet it absent"),
    "property-added": Rule(_C, "a closed object accepts a new member that old validators reject"),
    "additional-properties-opened": Rule(_C, "a closed object now accepts members it does not name"),
    "constraint-relaxed": Rule(_C, "a bound, length, pattern or format accepts more values"),
    "subschema-accepts-more": Rule(_C, "a subschema that rejected every value now accepts some"),
    # Same set, other behaviour.
    "code-category-changed": Rule(_B, "an error code's category changed"),
    "code-retryable-changed": Rule(_B, "an error code's default retryability changed"),
    "code-http-status-changed": Rule(_B, "an error code's HTTP status in the HTTP binding changed"),
    "code-metadata-changed": Rule(_B, "other metadata of an error code changed"),
    "code-metadata-removed": Rule(_B, "an error code lost its category, retryability and HTTP status"),
    "default-changed": Rule(_B, "a default (what an absent member means) was added, changed or removed"),
    "annotation-changed": Rule(
        _B,
        "a vendor annotation (x-..., of a schema or of an error code) that tools may act on changed"
        " or was removed",
    ),
    # Nothing that parties rely on changes.
    "description-changed": Rule(_OK, "a description changed"),
    "title-changed": Rule(_OK, "a title changed"),
    "comment-changed": Rule(_OK, "a $comment changed"),
    "examples-changed": Rule(_OK, "examples changed"),
    "annotation-added": Rule(
        _OK, "a new vendor annotation (x-..., of a schema or of an error code) or deprecation note"
    ),
    "code-metadata-added": Rule(_OK, "metadata for a new error code (the code itself is classified apart)"),
    "enum-reordered": Rule(_OK, "the values of a closed set were reordered"),
    "definition-added": Rule(_OK, "a new $defs entry"),
    "schema-added": Rule(_OK, "a new schema document that no existing one referenced"),
    "ref-retargeted": Rule(_OK, "a $ref points elsewhere, to a schema that accepts the same values"),
}
