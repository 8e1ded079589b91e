"""The fast parameter-schema predicate never says "valid" where jsonschema finds an error."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from harness.registry._fast_schema import fast_predicate

NAMES = ["a", "b", "c", "d"]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.sampled_from(["", "x", "fast", "2024-01-31", "2024-13-99", "1"]),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=2), st.dictionaries(st.just("k"), SCALARS))
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])


@st.composite
def property_schemas(draw: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if draw(st.booleans()):
        schema["type"] = draw(st.one_of(TYPES, st.lists(TYPES, min_size=1, max_size=2)))
    if draw(st.booleans()):
        schema["enum"] = draw(st.lists(SCALARS, min_size=1, max_size=3))
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if draw(st.integers(0, 3)) == 0:
            schema[key] = draw(st.integers(-3, 3))
    for key in ("minLength", "maxLength"):
        if draw(st.integers(0, 3)) == 0:
            schema[key] = draw(st.integers(0, 3))
    if draw(st.integers(0, 3)) == 0:
        schema["format"] = "date"
    if draw(st.booleans()):
        schema["description"] = "annotated"
    return schema


@st.composite
def object_schemas(draw: Any) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    return {
        "type": "object",
        "properties": {n: draw(property_schemas()) for n in names},
        "required": draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=2)),
        "additionalProperties": draw(st.booleans()),
    }


@settings(max_examples=400, deadline=None)
@given(object_schemas(), st.dictionaries(st.sampled_from([*NAMES, "e"]), VALUES, max_size=4))
def test_fast_valid_implies_jsonschema_valid(
    schema: dict[str, Any], arguments: dict[str, Any]
) -> None:
    checker = Draft202012Validator.FORMAT_CHECKER
    predicate = fast_predicate(schema, checker)
    assert predicate is not None  # every generated schema is in the fast subset
    if predicate(arguments):
        validator = Draft202012Validator(schema, format_checker=checker)
        assert list(validator.iter_errors(arguments)) == []


def test_schemas_outside_the_subset_get_no_predicate() -> None:
    """Nested objects, items, patterns: jsonschema every time."""
    checker = Draft202012Validator.FORMAT_CHECKER
    assert fast_predicate({"type": "object", "properties": {"a": {"items": {}}}}, checker) is None
    assert fast_predicate({"type": "object", "patternProperties": {"x": {}}}, checker) is None
    assert fast_predicate({"type": "array"}, checker) is None


def test_opaque_values_pass_property_checks() -> None:
    """A reference (an opaque type) passes the type check of the parameter it fills."""

    class Reference:
        pass

    checker = Draft202012Validator.FORMAT_CHECKER
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert fast_predicate(schema, checker, (Reference,))({"n": Reference()})  # type: ignore[misc]
    assert not fast_predicate(schema, checker)({"n": "x"})  # type: ignore[misc]
