"""Property-based tests: whatever is thrown at the loader and the checks, only the documented
outcomes occur (a plan and a report, or one PlanLoadError); the fast schema predicate and
jsonschema always agree."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from harness._errors import PlanLoadError
from harness.checks import CHECKS, check_plan
from harness.checks._schema import is_valid_task
from harness.plan import load_plan
from harness.registry import Registry
from harness.schemas import load_schema

REGISTRY = Registry.from_data(["a", {"name": "b", "version": "1.2"}])
IDS = st.sampled_from(["a", "b", "c", "", "task_1"])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)

# Tasks that are mostly plan-shaped, with wrong types mixed in, so the checks get exercised.
task = st.fixed_dictionaries(
    {},
    optional={
        "id": IDS | json_values,
        "description": st.text(max_size=5) | json_values,
        "depends_on": st.lists(IDS, max_size=3) | json_values,
        "needs": st.lists(st.fixed_dictionaries({"name": IDS, "task": IDS}), max_size=2)
        | st.dictionaries(IDS, IDS, max_size=2)
        | json_values,
        "capabilities": st.lists(st.sampled_from(["a", "b@1.1", "b@1.3", "c", ""]), max_size=2)
        | json_values,
        "on_failure": st.sampled_from(["stop", "continue", "skip_dependents", "x"]) | json_values,
        "agent": st.fixed_dictionaries({}, optional={"name": st.text(max_size=3) | json_values})
        | json_values,
    },
)
plans = st.fixed_dictionaries(
    {"tasks": st.lists(task, max_size=6)},
    optional={"plan_id": st.text(max_size=4) | json_values, "goal": json_values},
)


def assert_documented(obj: Any) -> None:
    try:
        plan = load_plan(obj)
    except PlanLoadError as exc:
        assert exc.one_line() and "\n" not in exc.what
        return
    report = check_plan(plan, registry=REGISTRY)
    assert set(report.outcomes) == set(CHECKS)
    assert set(report.outcomes.values()) <= {"pass", "fail", "warn", "skip"}
    for v in report.violations:
        assert v.check in CHECKS and v.path.startswith("/") and v.message
    json.dumps(report.to_dict())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans)
def test_plan_shaped_json(doc: dict[str, Any]) -> None:
    """Plan-shaped JSON with wrong types anywhere: a report or one PlanLoadError."""
    assert_documented(json.dumps(doc))
    assert_documented(doc)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_arbitrary_json(value: Any) -> None:
    """Any JSON document at all."""
    assert_documented(json.dumps(value))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text(text: str) -> None:
    """Any text at all, including ones with braces, fences and Node:/Edge: fragments."""
    assert_documented(text)
    assert_documented("```json\n" + text + "\n```")
    assert_documented("Node:\n1: " + text + "\nEdge: (START,1) (1,END)")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes(data: bytes) -> None:
    """Any bytes at all."""
    assert_documented(data)


TASK_VALIDATOR = Draft202012Validator(
    {"$defs": load_schema("plan")["$defs"], "$ref": "#/$defs/task"}
)


@settings(max_examples=500, deadline=None)
@given(task | json_values)
def test_fast_schema_predicate_agrees_with_jsonschema(value: Any) -> None:
    """The linear-time task predicate gives jsonschema's verdict on every input."""
    assert is_valid_task(value) == TASK_VALIDATOR.is_valid(value)
