"""score_plan: which families apply, canonical plans, statuses."""

from __future__ import annotations

from harness.metrics import plan_to_worfgraph, score_plan
from harness.plan import load_plan

GOLD = {
    "tasks": [
        {"id": "fetch", "description": "Fetch the email", "capabilities": ["email_read"]},
        {
            "id": "extract",
            "description": "Extract the order",
            "capabilities": ["extract"],
            "depends_on": ["fetch"],
        },
        {
            "id": "refund",
            "description": "Refund the order",
            "capabilities": ["payments"],
            "depends_on": ["extract"],
        },
    ]
}


class TestCanonical:
    def test_canonical_reference_gets_both_families(self) -> None:
        """A canonical gold scores with TaskBench (tools) and WorfBench (descriptions)."""
        result = score_plan(GOLD, GOLD)
        assert result.status == "scored"
        assert result.families == ("taskbench", "worfbench")
        assert all(
            v == (0.0 if k.endswith("edit_distance") else 1.0) for k, v in result.metrics.items()
        )

    def test_missing_task_lowers_recall(self) -> None:
        """Dropping the last task: node F1 4/5, f1_chain recall 2/3."""
        shorter = {"tasks": GOLD["tasks"][:2]}
        got = score_plan(shorter, GOLD).metrics
        assert got["taskbench.node_f1"] == 0.8
        assert got["worfbench.recall_chain"] == 2 / 3

    def test_plan_as_workflow(self) -> None:
        """depends_on become edges; roots hang from START and leaves lead to END."""
        graph = plan_to_worfgraph(load_plan(GOLD))
        assert graph.nodes == (
            "START",
            "Fetch the email",
            "Extract the order",
            "Refund the order",
            "END",
        )
        assert graph.edges == ((0, 1), (1, 2), (2, 3), (3, 4))

    def test_canonical_answer_against_worfbench_gold(self) -> None:
        """A JSON plan is read as a plan even when the gold is WorfBench text."""
        gold = (
            "Node:\n1: Fetch the email\n2: Extract the order\n3: Refund the order\n"
            "Edge: (START,1) (1,2) (2,3) (3,END)"
        )
        assert score_plan(GOLD, gold).metrics["worfbench.f1_graph"] == 1.0


class TestStatus:
    def test_reference_that_is_no_plan(self) -> None:
        """A reference no metric reads is unusable, whatever the answer."""
        result = score_plan(GOLD, "just prose")
        assert result.status == "unusable_reference"
        assert result.detail

    def test_family_filter(self) -> None:
        """--family worfbench leaves the TaskBench metrics out."""
        result = score_plan(GOLD, GOLD, families=["worfbench"])
        assert all(k.startswith("worfbench.") for k in result.metrics)
