"""Property: a node graph rendered as a TaskBench record (tools named, not nodes; the same
tool used several times; nodes listed in any order; some edges cited as ``<node-k>``) gets the
acyclic / deps_resolve verdict of the graph itself.

Rendering is TaskBench's own: one ``task_links`` entry per edge, naming the two tools. For a
DAG, a reading exists in which every link is an edge of the graph, so planeval must find an
acyclic one; a graph with a cycle is rendered with every edge cited (otherwise tool names alone
may have an acyclic reading), so its cycle must be reported. A link naming a tool the plan
does not call must fail deps_resolve.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.checks import check_plan
from harness.plan import load_plan

TOOLS = ("A", "B", "C")


@st.composite
def rendered_graphs(draw: st.DrawFn) -> tuple[dict[str, Any], bool, bool]:
    """(TaskBench record, graph is acyclic, a link names a missing tool)."""
    n = draw(st.integers(1, 7))
    tools = [draw(st.sampled_from(TOOLS)) for _ in range(n)]
    order = draw(st.permutations(range(n)))  # a topological order for the DAG case
    edges = {
        (order[i], order[j])
        for i in range(n)
        for j in range(i + 1, n)
        if draw(st.booleans()) and draw(st.booleans())  # about one pair in four
    }
    cyclic = n > 1 and draw(st.booleans()) and bool(edges)
    if cyclic:  # close a cycle with an edge back from a later node to an earlier one
        u, v = draw(st.sampled_from(sorted(edges)))
        edges.add((v, u))
    cited = {e for e in edges if cyclic or draw(st.booleans())}
    listed = draw(st.permutations(range(n)))  # the order TaskBench lists the nodes in
    position = {node: k for k, node in enumerate(listed)}
    nodes = []
    for node in listed:
        args: list[Any] = [f"input {node}"]
        args += [f"<node-{position[u]}>" for u, v in sorted(cited) if v == node]
        nodes.append({"task": tools[node], "arguments": args})
    links = [{"source": tools[u], "target": tools[v]} for u, v in sorted(edges)]
    missing = draw(st.booleans()) and draw(st.booleans())
    if missing:
        links.append({"source": tools[0], "target": "Z"})
    links = draw(st.permutations(links))
    return {"id": "p", "task_nodes": nodes, "task_links": links}, not cyclic, missing


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rendered_graphs())
def test_verdict_equals_the_node_graph_verdict(case: tuple[dict[str, Any], bool, bool]) -> None:
    record, acyclic, missing = case
    report = check_plan(load_plan(json.dumps(record), format="taskbench"))
    assert (report.outcomes["acyclic"] == "pass") == acyclic, record
    assert (report.outcomes["deps_resolve"] == "pass") == (not missing), record
    assert report.outcomes["self_dependency"] == "pass", record
    assert report.outcomes["needs_resolve"] == "pass", record


# --- the JSON Lines fast lane builds the plan the general path builds -------------------------

ARGUMENTS = st.one_of(
    st.sampled_from(["x", "<node-0>", "<node-1>", "<node-2>", "<node-7>", "image: <node-1>",
                     "<output-of-node-0>", "A", "<node-A>", "<output-of-B>", " B "]),
    st.fixed_dictionaries({"name": st.sampled_from(["image", "", "q"]),
                           "value": st.sampled_from(["<node-0>", "x", "A", "<node-1>"])}),
    st.lists(st.sampled_from(["<node-0>", "y"]), max_size=2),
    st.integers() | st.none(),
)  # fmt: skip
RECORDS = st.fixed_dictionaries(
    {
        "task_nodes": st.lists(
            st.fixed_dictionaries(
                {"task": st.sampled_from(["A", "B", "C", ""])},
                optional={"arguments": st.lists(ARGUMENTS, max_size=3), "extra": st.integers()},
            ),
            max_size=4,
        )
    },
    optional={
        "id": st.sampled_from(["r1", 7, True, " "]),
        "task_links": st.lists(
            st.fixed_dictionaries(
                {
                    "source": st.sampled_from(["A", "B", "C", "Z"]),
                    "target": st.sampled_from(["A", "B", "C"]),
                }
            ),
            max_size=4,
        ),
        "user_request": st.text(max_size=5),
        "type": st.just("chain"),
        "sampled_nodes": st.lists(st.fixed_dictionaries({"id": st.text(max_size=2)}), max_size=2),
    },
)


@settings(max_examples=400, deadline=None)
@given(RECORDS)
def test_fast_lane_equals_general_path(record: dict[str, Any]) -> None:
    from harness.plan._taskbench_fast import fast_taskbench_plan

    line = json.dumps(record)
    fast = fast_taskbench_plan(line)
    if fast is None:
        return  # read by the general path
    general = load_plan(line, format="taskbench")
    assert fast == general
    assert [t.needs for t in fast.tasks] == [t.needs for t in general.tasks]
    assert check_plan(fast).violations == check_plan(general).violations


def test_fast_lane_refuses_duplicate_keys_and_nan() -> None:
    from harness.plan._taskbench_fast import fast_taskbench_plan

    assert fast_taskbench_plan('{"task_nodes": [{"task": "A", "task": "B"}]}') is None
    assert fast_taskbench_plan('{"task_nodes": [], "x": NaN}') is None
    assert fast_taskbench_plan('{"task_nodes": [], "x": [{"k": 1, "k": 2}]}') is None
    assert fast_taskbench_plan('{"task_nodes": [{"task": "A"}]}') is not None
