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
