"""score_plan's TaskBench side as a user reads it in the result: how a canonical plan becomes a
TaskBench record (temporal links, only {name, value} arguments), and the catalogue given
applying to the gold of an answer that has no plan. Every plan here is handwritten."""

from __future__ import annotations

from harness.metrics import ToolCatalogue, score_plan

CANONICAL = {
    "tasks": [
        {
            "id": "a",
            "description": "Fetch the mail",
            "capabilities": ["email_read"],
            "arguments": ["inbox"],  # plain text: not a temporal argument
        },
        {
            "id": "b",
            "description": "File it",
            "capabilities": ["archive"],
            "depends_on": ["a"],
            "arguments": [{"name": "folder", "value": "2026"}],
        },
    ]
}
RESOURCE_GOLD = {
    "task_nodes": [
        {"task": "image_search", "arguments": ["cats.jpg"]},
        {"task": "summarize", "arguments": ["<node-0>"]},
    ],
    "task_links": [],
}


class TestCanonicalPlanAsTaskbench:
    def test_read_as_temporal_links_and_name_value_arguments(self) -> None:
        """A canonical plan, as gold and as answer: depends_on is a task link, a plain-text
        argument is left out, a {name, value} one is kept (the temporal reading, dailylifeapis
        style), whatever the dependency the gold's own arguments would suggest."""
        result = score_plan(CANONICAL, CANONICAL)
        assert result.status == "scored"
        sample = result.taskbench
        assert sample is not None
        assert sample.gold_nodes == sample.pred_nodes == {"email_read", "archive"}
        assert sample.gold_links == sample.pred_links == {("email_read", "archive")}
        assert sample.gold_arg_names == sample.pred_arg_names == {"archive-folder"}
        assert sample.gold_arg_values == sample.pred_arg_values == {"archive-folder-2026"}
        assert {k: v for k, v in result.metrics.items() if k.startswith("taskbench.")} == {
            "taskbench.node_f1": 1.0,
            "taskbench.link_f1": 1.0,
            "taskbench.argument_name_f1": 1.0,
            "taskbench.argument_value_f1": 1.0,
            "taskbench.edit_distance": 0.0,
        }

    def test_asking_for_resource_reads_it_the_other_way(self) -> None:
        """--dependency resource: depends_on becomes a <node-k> argument and plain text is
        kept, so the argument sets differ from the temporal reading."""
        sample = score_plan(CANONICAL, CANONICAL, dependency="resource").taskbench
        assert sample is not None
        assert sample.gold_arg_names == {"archive-text", "archive-other", "email read-text"}

    def test_a_canonical_answer_against_a_temporal_record(self) -> None:
        """The answer is read the same way as a canonical gold: its plain-text argument is
        left out, so it is scored, not dropped as a temporal plan with text arguments."""
        gold = {
            "task_nodes": [
                {"task": "email_read", "arguments": []},
                {"task": "archive", "arguments": [{"name": "folder", "value": "2026"}]},
            ],
            "task_links": [{"source": "email_read", "target": "archive"}],
        }
        result = score_plan(CANONICAL, gold)
        assert result.status == "scored"
        assert result.taskbench is not None
        assert result.taskbench.pred_arg_names == {"archive-folder"}
        assert result.metrics["taskbench.argument_value_f1"] == 1.0


class TestCatalogueOfAnUnparseableAnswer:
    def test_the_gold_counts_only_catalogue_tools(self) -> None:
        """Prose against a TaskBench gold with a catalogue that lacks one gold tool: the gold
        side of the corpus counts (what the empty plan is scored against) hold only the
        catalogue's tools, under either convention."""
        catalogue = ToolCatalogue(("image search",))
        for convention in ("zero", "exclude"):
            result = score_plan(
                "Sorry.", RESOURCE_GOLD, catalogue=catalogue, unparseable=convention
            )
            assert result.status == "unparseable"
            assert result.taskbench is not None
            assert result.taskbench.gold_nodes == {"image search"}
            assert result.taskbench.n_tools == 2
        without = score_plan("Sorry.", RESOURCE_GOLD).taskbench
        assert without is not None and without.gold_nodes == {"image search", "summarize"}
