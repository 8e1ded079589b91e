"""Corpus figures at their edges: empty sets, no samples, figures without a catalogue size, and
WorfBench's averages over the gold items. Every sample here is handwritten; the expected values
follow scikit-learn's zero-division rule (0 where a denominator is 0)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.metrics import TaskbenchSample, taskbench_breakdown, taskbench_corpus, worfbench_corpus


def sample(
    gold: set[str],
    pred: set[str],
    *,
    links: tuple[set[tuple[str, str]], set[tuple[str, str]]] = (set(), set()),
    split: str = "chain",
) -> TaskbenchSample:
    return TaskbenchSample(
        gold_nodes=frozenset(gold),
        pred_nodes=frozenset(pred),
        gold_links=frozenset(links[0]),
        pred_links=frozenset(links[1]),
        gold_arg_names=frozenset(),
        pred_arg_names=frozenset(),
        gold_arg_values=frozenset(),
        pred_arg_values=frozenset(),
        ed_ratio=1.0,
        split=split,
        n_tools=len(gold),
    )


class TestTaskbenchCorpus:
    def test_no_samples(self) -> None:
        """Nothing scored: only the counts, as the script writes them before "No supports,
        skip"; a prediction matched but dropped counts in all_samples only."""
        counts = {
            "all_samples": 0,
            "step_supports": 0,
            "node_supports": 0,
            "link_supports": 0,
            "argument_supports": 0,
        }
        assert taskbench_corpus([]) == counts
        assert taskbench_corpus([], 4, unscored=2) == {**counts, "all_samples": 2}

    def test_empty_plans_score_zero(self) -> None:
        """Gold and prediction both without a known tool: every node figure 0 (no division by
        zero), with or without a catalogue size."""
        for size in (None, 3):
            figures = taskbench_corpus([sample(set(), set())], size)
            for kind in ("micro", "macro"):
                for part in ("precision", "recall", "f1"):
                    assert figures[f"node_{kind}_{part}_no_matching"] == 0.0

    def test_only_predicted_or_only_gold(self) -> None:
        """Precision of a prediction with no tool is 0; recall of a gold with no tool is 0."""
        empty_pred = taskbench_corpus([sample({"a"}, set())])
        empty_gold = taskbench_corpus([sample(set(), {"a"})])
        assert empty_pred["node_micro_precision_no_matching"] == 0.0
        assert empty_gold["node_micro_recall_no_matching"] == 0.0

    def test_half_recall(self) -> None:
        """One of two gold tools found: micro recall 0.5, precision 1."""
        figures = taskbench_corpus([sample({"a", "b"}, {"a"})])
        assert figures["node_micro_recall_no_matching"] == 0.5
        assert figures["node_micro_precision_no_matching"] == 1.0
        assert figures["node_micro_f1_no_matching"] == pytest.approx(2 / 3)

    def test_macro_without_catalogue_size_runs_over_tools_seen(self) -> None:
        """No catalogue size: the macro average runs over every tool seen, a tool only
        predicted included (F1 1 and 0: 0.5)."""
        figures = taskbench_corpus([sample({"a"}, {"a", "b"})])
        assert figures["node_macro_f1_no_matching"] == 0.5
        assert figures["node_macro_recall_no_matching"] == 0.5

    def test_links_that_all_miss_score_zero_not_none(self) -> None:
        """A reversed link: binary F1 0 (there are links, none shared), not None."""
        figures = taskbench_corpus([sample({"a"}, {"a"}, links=({("a", "b")}, {("b", "a")}))])
        assert figures["link_binary_f1"] == 0.0

    def test_no_link_in_any_sample_is_zero_as_the_pinned_scikit_learn_gives(self) -> None:
        """Empty label vectors: 0.0 in scikit-learn 1.0.2 (the script's pin), which the
        published single-split figures show (MiniMax-Text-01 single_overall link_binary_f1
        0.0); planeval used to report no value."""
        figures = taskbench_corpus([sample({"a"}, {"a"})])
        assert figures["link_binary_f1"] == 0.0
        assert figures["argument_task_argname_binary_f1_no_matching"] == 0.0

    def test_per_tool_figures_with_the_script_spelling(self) -> None:
        """``tools`` adds node_per_type_no_matchcing in catalogue order, support = gold
        count."""
        figures = taskbench_corpus([sample({"a", "b"}, {"a"})], tools=("b", "a", "c"))
        per_type = figures["node_per_type_no_matchcing"]
        assert list(per_type) == ["b", "a", "c"]
        assert per_type["a"] == {"precision": 1.0, "recall": 1.0, "f1-score": 1.0, "support": 1}
        assert per_type["b"] == {"precision": 0.0, "recall": 0.0, "f1-score": 0.0, "support": 1}
        assert per_type["c"]["support"] == 0
        assert figures["node_macro_f1_no_matching"] == pytest.approx(1 / 3)

    def test_breakdown_has_the_scripts_groups_only(self) -> None:
        """All 14 groups of --splits all --n_tools all --mode add, in its order, even empty;
        a 15-tool gold counts in overall_overall and its split, never in an overall_15."""
        many = replace(sample(set(), set(), split="dag"), n_tools=15)
        groups = taskbench_breakdown([sample({"a"}, {"a"}), many], unscored=[("chain", 2)])
        assert list(groups) == [
            "overall_overall",
            "single_overall",
            "chain_overall",
            "dag_overall",
            *(f"overall_{n}" for n in range(1, 11)),
        ]
        assert groups["overall_overall"]["all_samples"] == 3
        assert groups["overall_overall"]["node_supports"] == 2
        assert groups["dag_overall"]["node_supports"] == 1
        assert groups["overall_2"] == {**groups["overall_5"], "all_samples": 1}
        assert "node_micro_f1_no_matching" not in groups["overall_2"]

    def test_breakdown_uses_the_catalogue_size(self) -> None:
        """Each group's macro average runs over the whole catalogue: 1 tool right of 4."""
        groups = taskbench_breakdown([sample({"a"}, {"a"})], 4)
        assert groups["chain_overall"]["node_macro_f1_no_matching"] == 0.25
        assert groups["overall_1"]["node_macro_f1_no_matching"] == 0.25


class TestWorfbenchCorpus:
    VALUES = (
        {"worfbench.f1_chain": 1.0, "worfbench.f1_graph": 0.5, "taskbench.node_f1": 1.0},
        {"worfbench.f1_graph": 1.0},
    )

    def test_sum_over_gold_items(self) -> None:
        """Sums divided by the gold items: an unparsed prediction (no values) counts 0."""
        assert worfbench_corpus(self.VALUES, 4) == {
            "worfbench.f1_chain": 0.25,
            "worfbench.f1_graph": 0.375,
        }

    def test_default_divides_by_the_answers(self) -> None:
        """Without a gold count: divided by the number of answers; other families left out."""
        assert worfbench_corpus(self.VALUES) == {
            "worfbench.f1_chain": 0.5,
            "worfbench.f1_graph": 0.75,
        }

    def test_no_gold_item_and_no_values(self) -> None:
        """Zero gold items give 0, never a division error; no values give no figure."""
        assert worfbench_corpus(self.VALUES, 0) == {
            "worfbench.f1_chain": 0.0,
            "worfbench.f1_graph": 0.0,
        }
        assert worfbench_corpus([]) == {}
