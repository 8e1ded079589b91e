"""Plan diffs: tasks matched by id, else by description; edges and violations compared."""

from __future__ import annotations

from harness.compare import diff_plans

BASE = {
    "tasks": [
        {"id": "fetch", "description": "Fetch the data", "capabilities": ["read"]},
        {"id": "clean", "description": "Clean it", "depends_on": ["fetch"]},
        {"id": "report", "description": "Write the report", "depends_on": ["clean"]},
    ]
}
CAND = {
    "tasks": [
        {"id": "fetch", "description": "Fetch the data", "capabilities": ["read", "net"]},
        {"id": "tidy", "description": "clean  IT", "depends_on": ["fetch"]},
        {"id": "chart", "description": "Draw a chart", "depends_on": ["tidy"]},
        {
            "id": "report",
            "description": "Write the report",
            "depends_on": ["fetch"],
            "needs": [{"name": "img", "task": "chart"}],
        },
    ]
}


def test_tasks_matched_by_id_then_description() -> None:
    """clean -> tidy by description; chart is new; fetch's capabilities and report's inputs
    changed; nothing was removed."""
    d = diff_plans(BASE, CAND)
    assert d.added == ["chart"] and d.removed == []
    changed = {c: fields for _, c, fields in d.changed}
    assert changed == {"fetch": ["capabilities"], "tidy": ["id"], "report": ["inputs"]}


def test_edges_added_and_removed() -> None:
    """report now depends on fetch and needs chart; it no longer depends on clean."""
    d = diff_plans(BASE, CAND)
    assert ("fetch", "report", "depends_on") in d.edges_added
    assert ("chart", "report", "needs") in d.edges_added
    assert ("tidy", "chart", "depends_on") in d.edges_added
    assert d.edges_removed == [("clean", "report", "depends_on")]
    assert ("fetch", "tidy", "depends_on") not in d.edges_added  # the same edge, renamed


def test_violations_appeared_and_gone() -> None:
    """A violation on a renamed task is the same violation; others appear or go."""
    bv = [
        {"check": "isolated_task", "task": "clean", "message": "clean is isolated"},
        {"check": "acyclic", "task": None, "message": "cycle a -> b -> a"},
    ]
    cv = [
        {"check": "isolated_task", "task": "tidy", "message": "tidy is isolated"},
        {"check": "deps_resolve", "task": "report", "message": "unknown task x"},
    ]
    d = diff_plans(BASE, CAND, bv, cv)
    assert [v["check"] for v in d.violations_appeared] == ["deps_resolve"]
    assert [v["check"] for v in d.violations_gone] == ["acyclic"]
    assert "new: [deps_resolve] unknown task x" in d.summary()


def test_missing_plan_and_same_plan() -> None:
    """No candidate plan: every task removed. The same plan: nothing changed."""
    assert diff_plans(BASE, None).removed == ["fetch", "clean", "report"]
    same = diff_plans(BASE, BASE)
    assert same.empty and same.summary() == "the plans are the same"
