"""A fast "certainly valid" predicate for the parameter schemas tool definitions usually have.

jsonschema is the judge of ``arguments_valid``, but its validator costs tens of microseconds
per call, which on a plan of 100,000 tasks is more than all the other checks together. Most tool
schemas are one flat object: ``properties`` whose values have a ``type``, an ``enum``, bounds
or a ``format``, plus ``required`` and ``additionalProperties``. For such a schema this module
builds a predicate that answers True only when jsonschema would find no error; any other
answer (False) sends the arguments to jsonschema for the exact messages. A schema using any
other keyword gets no predicate (jsonschema every time). A property-based test holds the
predicate to jsonschema's verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["fast_predicate"]

Predicate = Callable[[Mapping[str, Any]], bool]

_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "deprecated", "$comment"})
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "$schema"})
_VALUE_KEYS = frozenset(
    {
        "type",
        "enum",
        "const",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
    }
)
_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def fast_predicate(
    schema: Mapping[str, Any], format_checker: Any, opaque: tuple[type, ...] = ()
) -> Predicate | None:
    """The predicate for a flat object schema, or None when the schema is not one.

    Args:
        schema: the parameter schema.
        format_checker: the validator's format checker (``format`` is checked as it checks it).
        opaque: types of argument values that pass any property check (the plan model's
            references: what a reference holds is ``dataflow_types``'s question).
    """
    if not _known(schema, _OBJECT_KEYS) or schema.get("type", "object") != "object":
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if (
        not isinstance(properties, dict)
        or not isinstance(required, list)
        or extra
        not in (
            True,
            False,
        )
    ):
        return None
    exact: dict[str, type] = {}  # properties whose only rule is a JSON type with one Python type
    checks: dict[str, Callable[[Any], bool]] = {}
    for name, sub in properties.items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        simple = _EXACT.get(kind) if isinstance(kind, str) else None
        if simple is not None and _known(sub, frozenset({"type"})):
            exact[name] = simple
            continue
        check = _value_check(sub, format_checker)
        if check is None:
            return None
        checks[name] = check
    closed = extra is False
    names = tuple(required)
    skip = frozenset(opaque)
    # per property: a Python type (the value's class must be it) or a check function
    rules: dict[str, Any] = {**checks, **exact}

    def predicate(arguments: Mapping[str, Any]) -> bool:
        for name in names:
            if name not in arguments:
                return False
        for name, value in arguments.items():
            rule = rules.get(name)
            if rule is None:
                if closed:
                    return False
                continue
            kind = value.__class__
            if kind is rule or kind in skip:
                continue
            if rule.__class__ is type or not rule(value):
                return False
        return True

    return predicate


_EXACT: dict[Any, type] = {"string": str, "boolean": bool, "array": list, "object": dict}


def _known(schema: Any, allowed: frozenset[str]) -> bool:
    return isinstance(schema, dict) and all(
        k in allowed or k in _ANNOTATIONS or k.startswith("x-") for k in schema
    )


def _value_check(sub: Any, format_checker: Any) -> Callable[[Any], bool] | None:
    if sub is True or sub == {}:
        return lambda v: True
    if not _known(sub, _VALUE_KEYS):
        return None
    numeric = _numeric(sub)
    if numeric is not None:
        return numeric
    tests: list[Callable[[Any], bool]] = []
    kind = sub.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or any(k not in _TYPES for k in kinds):
            return None
        type_tests = [_TYPES[k] for k in kinds]
        tests.append(lambda v: any(t(v) for t in type_tests))
    for key in ("enum", "const"):
        if key in sub:
            choices = sub[key] if key == "enum" else [sub[key]]
            if not isinstance(choices, list) or not all(_scalar(c) for c in choices):
                return None
            if all(isinstance(c, str) for c in choices):  # text choices: a set lookup
                texts = frozenset(choices)
                tests.append(_one_of_texts(texts))
            else:
                tests.append(_one_of(tuple(choices)))
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key not in sub:
            continue
        bound = sub[key]
        if not _TYPES["number"](bound):
            return None
        tests.append(_bounded(key, bound))
    for key in ("minLength", "maxLength"):
        if key in sub:
            length = sub[key]
            if not isinstance(length, int) or isinstance(length, bool):
                return None
            tests.append(_length(key == "minLength", length))
    if "format" in sub:
        fmt = sub["format"]
        if not isinstance(fmt, str):
            return None
        tests.append(_formatted(format_checker, fmt))
    if len(tests) == 1:
        return tests[0]

    def every(value: Any) -> bool:
        for test in tests:  # noqa: SIM110 - a loop, not all(generator): this runs per argument
            if not test(value):
                return False
        return True

    return every


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _numeric(sub: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """One closure for the common ``{"type": "integer" | "number", "minimum": ..., ...}``."""
    kind = sub.get("type")
    if kind not in ("integer", "number") or not set(sub) - {"type"} <= {
        *_BOUNDS,
        *_ANNOTATIONS,
    }:
        return None
    bounds = [sub.get(k) for k in _BOUNDS]
    if not all(b is None or _TYPES["number"](b) for b in bounds):
        return None
    low, high, above, below = bounds
    integer = kind == "integer"

    def check(v: Any) -> bool:
        cls = v.__class__
        if cls is not int and (cls is not float or (integer and not v.is_integer())):
            return False
        return (
            (low is None or v >= low)
            and (high is None or v <= high)
            and (above is None or v > above)
            and (below is None or v < below)
        )

    return check


def _one_of_texts(texts: frozenset[str]) -> Callable[[Any], bool]:
    return lambda v: v.__class__ is str and v in texts


def _one_of(choices: tuple[Any, ...]) -> Callable[[Any], bool]:
    return lambda v: _scalar(v) and any(_same(v, c) for c in choices)


def _bounded(key: str, bound: float) -> Callable[[Any], bool]:
    number = _TYPES["number"]
    return lambda v: not number(v) or _within(v, key, bound)


def _length(at_least: bool, n: int) -> Callable[[Any], bool]:
    if at_least:
        return lambda v: not isinstance(v, str) or len(v) >= n
    return lambda v: not isinstance(v, str) or len(v) <= n


def _formatted(checker: Any, fmt: str) -> Callable[[Any], bool]:
    return lambda v: bool(checker.conforms(v, fmt))


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _same(value: Any, choice: Any) -> bool:
    """jsonschema's equality for scalars: True is not 1, 1 is 1.0."""
    return isinstance(value, bool) == isinstance(choice, bool) and value == choice


def _within(value: float, key: str, bound: float) -> bool:
    if key == "minimum":
        return value >= bound
    if key == "maximum":
        return value <= bound
    if key == "exclusiveMinimum":
        return value > bound
    return value < bound
