"""Each structural check with a plan that passes and one that fails."""

from __future__ import annotations

from typing import Any

import pytest

from harness import checks as checks_api
from harness.checks import CHECKS, Expectations, check_plan
from harness.plan import Plan
from harness.registry import Registry

REGISTRY = Registry.from_data(
    {
        "capabilities": [
            {"name": "email_read"},
            {"name": "payments", "version": "1.4"},
            {"name": "search"},
        ]
    }
)


def run(tasks: list[dict[str, Any]], **expect: Any) -> checks_api.CheckReport:
    return check_plan(
        Plan.from_dict({"tasks": tasks}), registry=REGISTRY, expect=Expectations(**expect)
    )


def failing(report: checks_api.CheckReport) -> set[str]:
    return {v.check for v in report.violations}


SOUND = [
    {"id": "a", "description": "read", "capabilities": ["email_read"]},
    {
        "id": "b",
        "description": "pay",
        "capabilities": ["payments@1.2"],
        "depends_on": ["a"],
        "needs": [{"name": "email", "task": "a"}],
    },
    {
        "id": "c",
        "description": "search",
        "capabilities": ["search"],
        "depends_on": ["b"],
        "needs": {"receipt": "b", "email": "a"},
    },
]


def test_sound_plan_passes_every_check() -> None:
    """A sound plan has no violations and every applicable check passes."""
    report = run(SOUND, min_tasks=2, max_tasks=5, required_capabilities=("payments",))
    assert report.violations == ()
    assert report.ok
    assert set(report.outcomes.values()) == {"pass", "skip"}
    assert report.outcomes["reaches_end"] == "skip"
    assert list(report.outcomes) == list(CHECKS)


def test_exports_are_sorted() -> None:
    """The checks package exports exactly its sorted __all__."""
    assert checks_api.__all__ == sorted(checks_api.__all__)


# (check id, tasks, expectations, text the message must contain); one comment per case.
FAILING_CASES = [
    # schema: on_failure outside the enum; the pointer names the field
    ("schema", [{"id": "a", "on_failure": "explode"}], {}, "'explode' is not one of"),
    # unique_ids: the second 'a' is reported, pointing at the first
    ("unique_ids", [{"id": "a"}, {"id": "a", "depends_on": ["a"]}], {}, "first by /tasks/0"),
    # deps_resolve: a typo gets the nearest id suggested
    (
        "deps_resolve",
        [{"id": "fetch"}, {"id": "b", "depends_on": ["fecth"]}],
        {},
        "did you mean 'fetch'",
    ),
    # self_dependency through depends_on
    ("self_dependency", [{"id": "a", "depends_on": ["a"]}], {}, "depends on itself"),
    # self_dependency through needs
    ("self_dependency", [{"id": "a", "needs": {"x": "a"}}], {}, "needs its own output"),
    # acyclic: the message names the cycle
    (
        "acyclic",
        [
            {"id": "a", "depends_on": ["c"]},
            {"id": "b", "depends_on": ["a"]},
            {"id": "c", "depends_on": ["b"]},
        ],
        {},
        "a -> c -> b -> a",
    ),
    # needs_resolve: the producer does not exist
    ("needs_resolve", [{"id": "a"}, {"id": "b", "needs": {"x": "zz"}}], {}, "'zz'"),
    # needs_earlier_output: producer exists but is not an ancestor
    (
        "needs_earlier_output",
        [{"id": "a"}, {"id": "b", "needs": {"x": "a"}}],
        {},
        "add 'a' to its depends_on",
    ),
    # needs_earlier_output: producer runs after the consumer
    (
        "needs_earlier_output",
        [{"id": "a", "needs": {"x": "b"}}, {"id": "b", "depends_on": ["a"]}],
        {},
        "does not run before it",
    ),
    # task_count_band: too few tasks
    ("task_count_band", [{"id": "a"}], {"min_tasks": 2}, "outside the expected band [2, inf]"),
    # task_count_band: too many tasks
    (
        "task_count_band",
        [{"id": "a"}, {"id": "b", "depends_on": ["a"]}],
        {"max_tasks": 1},
        "has 2 tasks",
    ),
    # known_capabilities: a near miss is suggested
    (
        "known_capabilities",
        [{"id": "a", "capabilities": ["emial_read"]}],
        {},
        "did you mean 'email_read'",
    ),
    # known_capabilities: same name, version the registry cannot serve
    (
        "known_capabilities",
        [{"id": "a", "capabilities": ["payments@1.5"]}],
        {},
        "registered as 1.4",
    ),
    # known_capabilities: another major version
    ("known_capabilities", [{"id": "a", "capabilities": ["payments@2.0"]}], {}, "does not serve"),
    # required_capabilities: nobody uses it
    (
        "required_capabilities",
        [{"id": "a", "capabilities": ["search"]}],
        {"required_capabilities": ("payments",)},
        "'payments'",
    ),
    # isolated_task: c is cut off from a -> b
    (
        "isolated_task",
        [{"id": "a"}, {"id": "b", "depends_on": ["a"]}, {"id": "c"}],
        {},
        "task 'c' neither depends on",
    ),
    # isolated_task: a flat plan gets one plan-level warning
    ("isolated_task", [{"description": "x"}, {"description": "y"}], {}, "no dependency graph"),
    # redundant_dependency: c -> a is implied by c -> b -> a
    (
        "redundant_dependency",
        [{"id": "a"}, {"id": "b", "depends_on": ["a"]}, {"id": "c", "depends_on": ["a", "b"]}],
        {},
        "also through 'b'",
    ),
]


@pytest.mark.parametrize(("check", "tasks", "expect", "text"), FAILING_CASES)
def test_check_fails(
    check: str, tasks: list[dict[str, Any]], expect: dict[str, Any], text: str
) -> None:
    report = run(tasks, **expect)
    hits = [v for v in report.violations if v.check == check]
    assert hits, f"{check} did not fire: {report.violations}"
    assert any(text in v.message for v in hits), [v.message for v in hits]
    assert all(v.severity == CHECKS[check] for v in hits)
    assert all(v.path.startswith("/") for v in hits)
    assert report.outcomes[check] == ("fail" if CHECKS[check] == "error" else "warn")
    assert report.ok == (CHECKS[check] == "warning")


def test_violation_paths_point_into_the_plan() -> None:
    """JSON pointers name the exact element that is wrong."""
    report = run([{"id": "a"}, {"id": "b", "depends_on": ["a", "zz"]}])
    (violation,) = [v for v in report.violations if v.check == "deps_resolve"]
    assert violation.path == "/tasks/1/depends_on/1"
    assert violation.task == "b"


def test_needs_imply_deps_relaxes_the_rule() -> None:
    """With needs = imply_deps, a need without a depends_on edge is fine (the gem's rule)."""
    tasks = [{"id": "a"}, {"id": "b", "needs": {"x": "a"}}]
    assert "needs_earlier_output" in failing(run(tasks))
    relaxed = run(tasks, needs="imply_deps")
    assert relaxed.ok and "isolated_task" not in failing(relaxed)


def test_needs_imply_deps_still_catches_cycles() -> None:
    """Needs that point forward against depends_on make a cycle under imply_deps."""
    tasks = [{"id": "a", "needs": {"x": "b"}}, {"id": "b", "depends_on": ["a"]}]
    assert "acyclic" in failing(run(tasks, needs="imply_deps"))


def test_transitive_ancestor_satisfies_needs() -> None:
    """A producer reached through a chain of depends_on is an earlier output."""
    tasks = [{"id": f"t{i}", "depends_on": [f"t{i - 1}"] if i else []} for i in range(50)]
    tasks[49]["needs"] = {"seed": "t0"}
    assert run(tasks).ok


def test_without_registry_capability_checks_are_skipped() -> None:
    """Without a registry, capability checks are 'skip', never a silent pass."""
    report = check_plan(Plan.from_dict({"tasks": [{"id": "a", "capabilities": ["anything"]}]}))
    assert report.outcomes["known_capabilities"] == "skip"
    assert report.outcomes["task_count_band"] == "skip"


def test_long_chain_has_no_recursion_error() -> None:
    """A 20,000-task chain with a cycle back to the start is reported, not a RecursionError."""
    n = 20_000
    tasks = [{"id": f"t{i}", "depends_on": [f"t{i - 1}"] if i else [f"t{n - 1}"]} for i in range(n)]
    report = run(tasks)
    (cycle,) = [v for v in report.violations if v.check == "acyclic"]
    assert cycle.message.count("->") == n


def test_violation_to_dict_is_the_json_contract() -> None:
    """A violation serialises to exactly check, severity, task, path, message."""
    report = run([{"id": "a", "depends_on": ["a"]}])
    assert set(report.violations[0].to_dict()) == {"check", "severity", "task", "path", "message"}


class TestWorkflowMarkers:
    """WorfBench's START/END markers survive loading and are checked."""

    def test_task_that_never_reaches_end(self) -> None:
        """A task whose result no path to END uses is a reaches_end warning."""
        from harness.plan import load_plan

        plan = load_plan("Node:\n1: a\n2: b\n3: c\nEdge: (START,1) (1,2) (1,3) (2,END)")
        report = check_plan(plan)
        hits = [v for v in report.violations if v.check == "reaches_end"]
        assert [v.task for v in hits] == ["3"]
        assert report.ok  # a warning

    def test_all_reach_end(self) -> None:
        """A workflow whose every task leads to END passes reaches_end."""
        from harness.plan import load_plan

        plan = load_plan("Node:\n1: a\n2: b\nEdge: (START,1) (START,2) (1,END) (2,END)")
        assert check_plan(plan).outcomes["reaches_end"] == "pass"

    def test_edge_into_undeclared_node(self) -> None:
        """An edge into a node never declared under Node: is a deps_resolve error."""
        from harness.plan import load_plan

        plan = load_plan("Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,7) (2,END)")
        report = check_plan(plan)
        (hit,) = [v for v in report.violations if v.check == "deps_resolve"]
        assert "(2,7)" in hit.message and hit.path == "/workflow/undeclared_edges/0"

    def test_plans_without_markers_skip_the_check(self) -> None:
        """Canonical plans have no END marker: reaches_end is skipped, not passed."""
        assert run(SOUND).outcomes["reaches_end"] == "skip"
