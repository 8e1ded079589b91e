"""What each check reports, to the letter: task, JSON pointer and message a user reads.

These pin the boundaries (a plan exactly at its task band, a redundancy at exactly the exact-check
limit), every cycle of a plan with several, and the wording users act on. They were written
against the mutants that survived the older tests (``docs/testing.md``).
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.checks import CheckReport, Expectations, Violation, check_plan
from harness.plan import Plan, Task
from harness.registry import Registry

REGISTRY = Registry.from_data({"capabilities": [{"name": "search"}, {"name": "email"}]})


def check(
    tasks: list[dict[str, Any]], registry: Registry | None = None, **expect: Any
) -> CheckReport:
    return check_plan(
        Plan.from_dict({"tasks": tasks}), registry=registry, expect=Expectations(**expect)
    )


def found(report: CheckReport, name: str) -> list[tuple[str | None, str, str]]:
    """(task, path, message) of every violation of one check."""
    return [(v.task, v.path, v.message) for v in report.violations if v.check == name]


def t(tid: str, *deps: str, needs: dict[str, str] | None = None, **more: Any) -> dict[str, Any]:
    return {
        "id": tid,
        "description": f"do {tid}",
        "depends_on": list(deps),
        "needs": needs or {},
        **more,
    }


class TestCycles:
    def test_two_separate_cycles_are_both_reported(self) -> None:
        """Each independent cycle gets its own violation, named from its first task."""
        report = check([t("a", "b"), t("b", "a"), t("c", "d"), t("d", "c")])
        assert found(report, "acyclic") == [
            (
                "a",
                "/tasks/0/depends_on",
                "dependency cycle: a -> b -> a (each depends on the next); "
                "remove one of these edges",
            ),
            (
                "c",
                "/tasks/2/depends_on",
                "dependency cycle: c -> d -> c (each depends on the next); "
                "remove one of these edges",
            ),
        ]
        assert report.outcomes["acyclic"] == "fail"

    def test_a_task_behind_a_cycle_reports_the_cycle_once(self) -> None:
        """A task that only depends on a cycle is not itself a cycle; the cycle is named once."""
        report = check([t("e", "a"), t("a", "b"), t("b", "c"), t("c", "a")])
        assert found(report, "acyclic") == [
            (
                "a",
                "/tasks/1/depends_on",
                "dependency cycle: a -> b -> c -> a (each depends on the next); "
                "remove one of these edges",
            ),
        ]

    def test_three_cycles_after_a_shared_tail(self) -> None:
        """Cycles found after one already reported are still reported."""
        tasks = [
            t("x1", "x2"),
            t("x2", "x1"),
            t("y1", "y2"),
            t("y2", "y1"),
            t("z1", "z1b"),
            t("z1b", "z1"),
        ]
        assert [v.task for v in check(tasks).violations if v.check == "acyclic"] == [
            "x1",
            "y1",
            "z1",
        ]

    def test_imply_deps_makes_needs_edges_count_for_cycles(self) -> None:
        """Under imply_deps a needs edge closes a cycle that depends_on alone does not."""
        tasks = [t("a", needs={"r": "b"}), t("b", "a")]
        assert found(check(tasks), "acyclic") == []
        assert found(check(tasks, needs="imply_deps"), "acyclic") == [
            (
                "a",
                "/tasks/0/depends_on",
                "dependency cycle: a -> b -> a (each depends on the next); "
                "remove one of these edges",
            ),
        ]


class TestNeedsStrict:
    def test_unrelated_earlier_task_is_flagged(self) -> None:
        """Running earlier is not enough: the producer must be an ancestor."""
        report = check([t("a"), t("b"), t("c", "b", needs={"rows": "a"})])
        assert found(report, "needs_earlier_output") == [
            (
                "c",
                "/tasks/2/needs/0",
                "task 'c' needs 'rows' from 'a', which does not run before it; add 'a' to its "
                "depends_on (directly or through a dependency)",
            ),
        ]

    def test_ancestor_through_any_dependency_passes(self) -> None:
        """An ancestor reached through the first of several dependencies counts."""
        tasks = [
            t("a"),
            t("b", "a"),
            t("d"),
            t("q"),
            t("p", "q"),
            t("c", "b", "d", "p", needs={"x": "a", "y": "q"}),
        ]
        assert found(check(tasks), "needs_earlier_output") == []

    def test_producer_running_later_is_flagged(self) -> None:
        """A need on a task that runs after the consumer is named with both tasks."""
        report = check([t("c", needs={"out": "p"}), t("p", "c")])
        assert found(report, "needs_earlier_output") == [
            (
                "c",
                "/tasks/0/needs/0",
                "task 'c' needs 'out' from 'p', which does not run before it; add 'p' to its "
                "depends_on (directly or through a dependency)",
            ),
        ]

    def test_producer_on_a_cycle_is_flagged(self) -> None:
        """A producer that can never run (it sits on a cycle) cannot feed anyone."""
        report = check([t("a", "b"), t("b", "a"), t("c", needs={"v": "a"})])
        assert [
            (v.task, v.path) for v in report.violations if v.check == "needs_earlier_output"
        ] == [("c", "/tasks/2/needs/0")]

    def test_consumers_after_one_on_a_cycle_are_still_checked(self) -> None:
        """A consumer on a cycle is skipped (acyclic fails it); later consumers are checked."""
        tasks = [t("a", "b", needs={"v": "z"}), t("b", "a"), t("z"), t("c", needs={"w": "z"})]
        assert [
            (v.task, v.path) for v in check(tasks).violations if v.check == "needs_earlier_output"
        ] == [("c", "/tasks/3/needs/0")]

    def test_self_need_and_unknown_producer_in_one_task(self) -> None:
        """A task needing itself is reported, and its later needs are still checked."""
        report = check([t("a"), t("b", "a", needs={"own": "b", "x": "ghost", "y": "a"})])
        assert found(report, "self_dependency") == [
            ("b", "/tasks/1/needs/0", "task 'b' needs its own output ('own')")
        ]
        assert found(report, "needs_resolve") == [
            (
                "b",
                "/tasks/1/needs/1",
                "task 'b' needs 'x' from 'ghost', which is not a task of the plan",
            )
        ]
        assert found(report, "needs_earlier_output") == []

    def test_imply_deps_accepts_a_need_without_depends_on(self) -> None:
        """The gem's runtime rule: needs alone order the tasks."""
        assert check([t("a"), t("c", needs={"v": "a"})], needs="imply_deps").ok


class TestTaskCountBand:
    @pytest.mark.parametrize(
        ("n", "low", "high", "message"),
        [
            (3, 2, 3, None),  # exactly the maximum
            (2, 2, 3, None),  # exactly the minimum
            (4, 2, 3, "the plan has 4 tasks, outside the expected band [2, 3]"),
            (1, 2, 3, "the plan has 1 tasks, outside the expected band [2, 3]"),
            (1, 2, None, "the plan has 1 tasks, outside the expected band [2, inf]"),
            (4, None, 3, "the plan has 4 tasks, outside the expected band [0, 3]"),
        ],
    )
    def test_band_edges(
        self, n: int, low: int | None, high: int | None, message: str | None
    ) -> None:
        """The band includes both ends; outside it the message shows the band."""
        tasks = [t(f"t{i}", *([f"t{i - 1}"] if i else [])) for i in range(n)]
        report = check(tasks, min_tasks=low, max_tasks=high)
        expected = [] if message is None else [(None, "/tasks", message)]
        assert found(report, "task_count_band") == expected
        assert report.outcomes["task_count_band"] == ("pass" if message is None else "fail")

    def test_no_band_skips_the_check(self) -> None:
        assert check([t("a")]).outcomes["task_count_band"] == "skip"


class TestRedundantDependency:
    def test_the_dependency_it_goes_through_is_named(self) -> None:
        """The message names the dependency that already implies the direct edge."""
        report = check([t("a"), t("d"), t("b", "a"), t("c", "d", "a", "b")])
        assert found(report, "redundant_dependency") == [
            (
                "c",
                "/tasks/3/depends_on/1",
                "task 'c' depends on 'a' directly and also through 'b'; the direct edge can go",
            ),
        ]

    def test_reach_through_an_earlier_dependency_counts(self) -> None:
        """Several dependencies: an edge implied by the first one is found too."""
        tasks = [t("a"), t("b", "a"), t("d"), t("e", "d"), t("c", "b", "a", "e", "d")]
        assert [
            (v.task, v.path) for v in check(tasks).violations if v.check == "redundant_dependency"
        ] == [("c", "/tasks/4/depends_on/1"), ("c", "/tasks/4/depends_on/3")]

    def test_unresolved_dependency_beside_a_redundant_one(self) -> None:
        """An unknown id among the dependencies does not hide (or break) the redundancy."""
        report = check([t("a"), t("b", "a"), t("c", "ghost", "a", "b")])
        assert [v.check for v in report.violations] == ["deps_resolve", "redundant_dependency"]

    @pytest.mark.parametrize("seed", range(6))
    def test_dense_plans_match_the_transitive_reduction(self, seed: int) -> None:
        """Every edge the transitive reduction drops is reported once, through the first
        dependency (in depends_on order) that reaches it; no other edge is."""
        import random

        import networkx as nx

        rng = random.Random(seed)
        n = 60
        deps = [[f"t{j}" for j in range(i) if rng.random() < 0.3] for i in range(n)]
        for ds in deps:
            rng.shuffle(ds)
        report = check([t(f"t{i}", *deps[i]) for i in range(n)])
        graph = nx.DiGraph([(d, f"t{i}") for i in range(n) for d in deps[i]])
        graph.add_nodes_from(f"t{i}" for i in range(n))
        kept = set(nx.transitive_reduction(graph).edges)
        expected = []
        for i, ds in enumerate(deps):
            for j, d in enumerate(ds):
                if (d, f"t{i}") not in kept:
                    via = next(o for o in ds if o != d and nx.has_path(graph, d, o))
                    expected.append((f"t{i}", f"/tasks/{i}/depends_on/{j}", via))
        got = [
            (v.task, v.path, v.message.split("also through ")[1].split("'")[1])
            for v in report.violations
            if v.check == "redundant_dependency"
        ]
        assert got == expected
        assert len(expected) > 100

    def test_a_task_s_dependencies_are_read_once_however_many_are_redundant(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A dense plan reports one violation per redundant edge, each naming the key its
        entry was written under: the task's entries are read once, not once per edge (read
        per edge, a 1,000-task plan of 100,000 edges took 10 s instead of well under 1)."""
        from harness.checks import _structural

        calls: list[int] = []
        real = _structural.dependency_entries

        def counted(raw: Any) -> Any:
            calls.append(1)
            return real(raw)

        monkeypatch.setattr(_structural, "dependency_entries", counted)
        n = 40
        plan = Plan.from_dict(
            {
                "tasks": [
                    {"id": f"t{i}", "depends_on": [f"t{j}" for j in range(i)]} for i in range(n)
                ]
            }
        )
        report = check_plan(plan)
        redundant = [v for v in report.violations if v.check == "redundant_dependency"]
        assert len(redundant) == sum(max(0, i - 1) for i in range(n))
        assert redundant[0].path == "/tasks/2/depends_on/0"
        assert len(calls) <= n

    @staticmethod
    def _chain_with_shortcut(n: int, hops: int) -> Plan:
        """A chain t0 <- t1 <- ... with the last task also depending on a task ``hops`` back."""
        tasks = [Task(id="t0")]
        tasks += [Task(id=f"t{i}", depends_on=(f"t{i - 1}",)) for i in range(1, n - 1)]
        tasks.append(Task(id=f"t{n - 1}", depends_on=(f"t{n - 1 - hops}", f"t{n - 2}")))
        return Plan(tasks=tuple(tasks))

    def test_exact_check_up_to_the_limit(self) -> None:
        """At 20,000 tasks a shortcut three edges long is still found (exact check)."""
        report = check_plan(self._chain_with_shortcut(20_000, 3))
        assert found(report, "redundant_dependency") == [
            (
                "t19999",
                "/tasks/19999/depends_on/0",
                "task 't19999' depends on 't19996' directly and also through 't19998'; the "
                "direct edge can go",
            ),
        ]

    def test_over_the_limit_only_grandparents_are_found(self) -> None:
        """Past 20,000 tasks the check is the documented approximation: grandparent edges."""
        near = check_plan(self._chain_with_shortcut(20_001, 2))
        assert found(near, "redundant_dependency") == [
            (
                "t20000",
                "/tasks/20000/depends_on/0",
                "task 't20000' depends on 't19998' directly and also through 't19999'; the "
                "direct edge can go",
            ),
        ]
        far = check_plan(self._chain_with_shortcut(20_001, 3))
        assert found(far, "redundant_dependency") == []


class TestSuggestions:
    def test_at_most_fifty_suggestions_per_plan(self) -> None:
        """Unknown ids close to a real one get 'did you mean' fifty times, then plain text."""
        tasks = [t("fetch_rows")] + [t(f"use{i}", "fetch_row") for i in range(52)]
        messages = [m for _, _, m in found(check(tasks), "deps_resolve")]
        hint = (
            "task 'use0' depends on 'fetch_row', which is not a task of the plan; did you "
            "mean 'fetch_rows'?"
        )
        assert messages[0] == hint
        assert sum(m.endswith("did you mean 'fetch_rows'?") for m in messages) == 50
        assert messages[50] == (
            "task 'use50' depends on 'fetch_row', which is not a task of the plan"
        )

    def test_no_close_id_no_suggestion(self) -> None:
        report = check([t("a"), t("b", "zzzzzz")])
        assert found(report, "deps_resolve") == [
            (
                "b",
                "/tasks/1/depends_on/0",
                "task 'b' depends on 'zzzzzz', which is not a task of the plan",
            )
        ]


class TestIdsAndSchema:
    def test_duplicate_and_self_dependency_name_the_task(self) -> None:
        report = check([t("a"), t("a"), t("b", "b")])
        assert found(report, "unique_ids") == [
            (
                "a",
                "/tasks/1/id",
                "task id 'a' is used again (first by /tasks/0); give each task its own id",
            )
        ]
        assert found(report, "self_dependency") == [
            ("b", "/tasks/2/depends_on/0", "task 'b' depends on itself; remove 'b' from depends_on")
        ]

    def test_schema_is_checked_on_the_document_as_written(self) -> None:
        """A wrong type in the file is a schema error even though the model normalises it."""
        report = check([t("a"), {"id": "b", "description": 5, "depends_on": ["a"]}])
        assert found(report, "schema") == [
            ("b", "/tasks/1/description", "5 is not of type 'string' (at /tasks/1/description)")
        ]

    def test_a_plan_built_in_code_is_schema_checked_in_canonical_form(self) -> None:
        """A plan made with the Python API (no source document) passes the schema check."""
        plan = Plan(tasks=(Task(id="a", description="x"), Task(id="b", depends_on=("a",))))
        report = check_plan(plan)
        assert report.outcomes["schema"] == "pass"
        assert report.plan is plan and report.task_count == 2


class TestCapabilities:
    def test_outcomes_without_a_registry(self) -> None:
        outcomes = check([t("a", capabilities=["search"])]).outcomes
        assert (outcomes["known_capabilities"], outcomes["required_capabilities"]) == (
            "skip",
            "skip",
        )

    def test_outcomes_with_a_registry_and_no_requirement(self) -> None:
        report = check([t("a", capabilities=["search", "fax"])], registry=REGISTRY)
        assert (
            report.outcomes["known_capabilities"],
            report.outcomes["required_capabilities"],
        ) == ("fail", "skip")
        assert [(v.task, v.path) for v in report.violations if v.check == "known_capabilities"] == [
            ("a", "/tasks/0/capabilities/1")
        ]

    def test_missing_required_capability(self) -> None:
        report = check(
            [t("a", capabilities=["search"])], registry=REGISTRY, required_capabilities=("email",)
        )
        assert found(report, "required_capabilities") == [
            (None, "/tasks", "no task uses the required capability 'email'")
        ]


class TestIsolated:
    def test_tasks_linked_only_by_needs_are_not_isolated(self) -> None:
        report = check([t("a"), t("b", needs={"v": "a"}), t("c")])
        assert found(report, "isolated_task") == [
            (
                "c",
                "/tasks/2",
                "task 'c' neither depends on nor feeds any other task; connect it or drop it",
            )
        ]

    def test_a_self_need_does_not_link_a_task(self) -> None:
        report = check([t("a"), t("b", "a"), t("c", needs={"v": "c"})])
        assert [v.task for v in report.violations if v.check == "isolated_task"] == ["c"]

    def test_flat_plan_gets_one_plan_level_warning(self) -> None:
        report = check([t("a"), t("b"), t("c")])
        assert found(report, "isolated_task") == [
            (
                None,
                "/tasks",
                "none of the 3 tasks depends on another: the plan has no dependency graph (a flat "
                "list?); add depends_on where order matters",
            )
        ]
        assert report.ok and report.outcomes["isolated_task"] == "warn"


class TestWorkflow:
    @staticmethod
    def workflow(tasks: list[dict[str, Any]], workflow: dict[str, Any]) -> CheckReport:
        return check_plan(Plan.from_dict({"tasks": tasks, "workflow": workflow}))

    def test_tasks_that_never_reach_end(self) -> None:
        report = self.workflow([t("1"), t("2", "1"), t("3", "1")], {"end": ["2"]})
        assert found(report, "reaches_end") == [
            (
                "3",
                "/tasks/2",
                "task '3' never reaches END: no task on a path to END uses its result; add an edge "
                "from it or drop it",
            )
        ]
        assert report.outcomes["reaches_end"] == "warn"

    def test_undeclared_edge_is_a_deps_resolve_error(self) -> None:
        report = self.workflow(
            [t("1"), t("2", "1")], {"end": ["2"], "undeclared_edges": [["2", "9"]]}
        )
        assert found(report, "deps_resolve") == [
            (
                None,
                "/workflow/undeclared_edges/0",
                "edge (2,9) names node '9', which the workflow never declares; declare it under "
                "Node: or drop the edge",
            )
        ]

    def test_a_cyclic_workflow_skips_reaches_end(self) -> None:
        report = self.workflow([t("1", "2"), t("2", "1"), t("3", "2")], {"end": ["3"]})
        assert report.outcomes["reaches_end"] == "skip"
        assert found(report, "reaches_end") == []

    def test_a_workflow_without_end_skips_reaches_end(self) -> None:
        report = self.workflow([t("1"), t("2", "1")], {"undeclared_edges": []})
        assert report.outcomes["reaches_end"] == "skip"


def test_violation_records_are_complete() -> None:
    """Every violation carries its check's severity."""
    report = check([t("a", "a"), t("b")])
    assert report.violations[0] == Violation(
        "self_dependency",
        "error",
        "a",
        "/tasks/0/depends_on/0",
        "task 'a' depends on itself; remove 'a' from depends_on",
    )


class TestMoreCycleOrders:
    def test_a_task_after_a_reported_cycle_does_not_repeat_it(self) -> None:
        """A task behind an already reported cycle adds nothing; later cycles still count."""
        tasks = [t("a", "b"), t("b", "a"), t("e", "a"), t("c", "d"), t("d", "c")]
        assert [v.task for v in check(tasks).violations if v.check == "acyclic"] == ["a", "c"]

    def test_imply_deps_with_an_unknown_or_own_need(self) -> None:
        """Under imply_deps an unresolved need is needs_resolve and a self need no cycle."""
        report = check([t("a"), t("b", "a", needs={"x": "ghost", "y": "b"})], needs="imply_deps")
        assert [v.check for v in report.violations] == ["self_dependency", "needs_resolve"]
        assert report.outcomes["acyclic"] == "pass"


class TestSchemaPointers:
    def test_plan_level_schema_error_names_no_task(self) -> None:
        report = check_plan(Plan.from_dict({"goal": 5, "tasks": [t("a")]}))
        assert found(report, "schema") == [(None, "/goal", "5 is not of type 'string' (at /goal)")]

    def test_nested_non_task_pointer_names_no_task(self) -> None:
        report = check_plan(Plan.from_dict({"tasks": [t("a")], "workflow": {"end": [5]}}))
        assert found(report, "schema") == [
            (None, "/workflow/end/0", "5 is not of type 'string' (at /workflow/end/0)")
        ]
        assert report.outcomes["reaches_end"] == "skip"


def taskbench(nodes: list[tuple[str, list[str]]], links: list[Any]) -> CheckReport:
    """Check a TaskBench record (tool calls with arguments, links between tool names)."""
    from harness.plan._taskbench import taskbench_to_dict

    record = {
        "id": "r",
        "task_nodes": [{"task": tool, "arguments": args} for tool, args in nodes],
        "task_links": links,
    }
    return check_plan(Plan.from_dict(taskbench_to_dict(record, source="r.json")))


class TestTaskBenchLinks:
    def test_link_ends_that_name_no_node(self) -> None:
        """A missing target or source is named; two missing ends are both named."""
        report = taskbench(
            [("A", ["x"]), ("B", ["<node-0>"])],
            [
                {"source": "A", "target": "B"},
                {"source": "B", "target": "Q"},
                {"source": "Z", "target": "Y"},
            ],
        )
        assert found(report, "deps_resolve") == [
            (
                None,
                "/links/unresolved/0",
                "task_links[1] links 'B' -> 'Q', but 'Q' names no node of the plan (its tools: "
                "'A', 'B'); link tools the plan calls, or add the missing node",
            ),
            (
                None,
                "/links/unresolved/1",
                "task_links[2] links 'Z' -> 'Y', but 'Z' and 'Y' name no node of the plan (its "
                "tools: 'A', 'B'); link tools the plan calls, or add the missing node",
            ),
        ]
        assert report.outcomes["deps_resolve"] == "fail"

    def test_a_malformed_link_is_reported_and_the_rest_still_read(self) -> None:
        report = taskbench([("A", []), ("B", [])], ["bad", {"source": "A", "target": "Q"}])
        assert found(report, "deps_resolve") == [
            (
                None,
                "/links/unresolved/0",
                "task_links[0] is unusable: not an object with string source/target",
            ),
            (
                None,
                "/links/unresolved/1",
                "task_links[1] links 'A' -> 'Q', but 'Q' names no node of the plan (its tools: "
                "'A', 'B'); link tools the plan calls, or add the missing node",
            ),
        ]

    @pytest.mark.parametrize(
        ("count", "shown"),
        [
            (8, "'T0', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7'"),
            (9, "'T0', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', ..."),
        ],
    )
    def test_at_most_eight_tools_are_listed(self, count: int, shown: str) -> None:
        report = taskbench([(f"T{i}", []) for i in range(count)], [{"source": "T0", "target": "Q"}])
        assert found(report, "deps_resolve")[0][2] == (
            f"task_links[0] links 'T0' -> 'Q', but 'Q' names no node of the plan (its tools: "
            f"{shown}); link tools the plan calls, or add the missing node"
        )

    def test_an_ambiguous_tool_citation_is_explained_on_its_violation(self) -> None:
        """A citation of a tool called twice is read as the nearest earlier call, and the
        violation it causes says so."""
        report = taskbench([("A", ["x"]), ("A", ["y"]), ("B", ["<node-A>"])], [])
        assert found(report, "needs_earlier_output") == [
            (
                "node-2",
                "/tasks/2/needs/0",
                "task 'node-2' needs 'arg0' from 'node-1', which does not run before it; add "
                "'node-1' to its depends_on (directly or through a dependency) (note: 'A' is the "
                "tool of node-0 and node-1; the citation is read as node-1, the nearest earlier "
                "one)",
            ),
        ]

    def test_a_hand_edited_links_section(self) -> None:
        """A saved plan whose ``links`` was edited by hand (handwritten): the schema flags the
        junk, a non-object entry does not hide the links after it, notes that are not an object
        annotate nothing, a link without ``missing`` is still reported, and a plan with no
        tools says so."""
        plan = Plan.from_dict(
            {
                "tasks": [t("a"), t("b", "a")],
                "links": {
                    "unresolved": ["junk", {"index": 3, "source": "a", "target": "q"}],
                    "notes": ["/links/unresolved/1"],
                },
            }
        )
        report = check_plan(plan)
        assert [v.path for v in report.violations if v.check == "schema"] == [
            "/links/unresolved/0",
            "/links/notes",
        ]
        [(task, path, message)] = found(report, "deps_resolve")
        assert (task, path) == (None, "/links/unresolved/1")
        assert message.startswith("task_links[3] links 'a' -> 'q', but ")
        assert message.endswith(
            "no node of the plan (its tools: none); link tools the plan calls, or add the "
            "missing node"
        )
        assert "note:" not in message

    def test_notes_only_annotate_their_own_violation(self) -> None:
        report = taskbench([("A", ["x"]), ("A", ["y"]), ("B", ["<node-A>"]), ("C", [])], [])
        isolated = [m for _, _, m in found(report, "isolated_task")]
        assert isolated and not any("note:" in m for m in isolated)


class TestLargePlans:
    def test_a_large_plan_is_checked_against_the_registry(self) -> None:
        """From 1,000 tasks on (checked with the garbage collector paused) capabilities are
        still checked."""
        tasks = [Task(id=f"t{i}", capabilities=("search",)) for i in range(1_200)]
        tasks[700] = Task(id="t700", capabilities=("fax",))
        report = check_plan(Plan(tasks=tuple(tasks)), registry=REGISTRY)
        assert [(v.task, v.path) for v in report.violations if v.check == "known_capabilities"] == [
            ("t700", "/tasks/700/capabilities/0")
        ]

    def test_a_code_built_plan_that_breaks_the_schema(self) -> None:
        """A plan made with the Python API is schema-checked in its canonical form."""
        report = check_plan(Plan(tasks=(Task(id=""), Task(id="b", depends_on=("",)))))
        assert [(v.task, v.path) for v in report.violations if v.check == "schema"] == [
            ("", "/tasks/0/id"),
            ("b", "/tasks/1/depends_on/0"),
        ]
