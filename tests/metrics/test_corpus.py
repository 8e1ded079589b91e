"""Corpus figures at their edges: empty sets, no samples, figures without a catalogue size, and
WorfBench's averages over the gold items. Every sample here is handwritten; the expected values
follow scikit-learn's zero-division rule (0 where a denominator is 0)."""

from __future__ import annotations

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
        """Nothing scored: only the sample count, whatever the catalogue size."""
        assert taskbench_corpus([]) == {"all_samples": 0}
        assert taskbench_corpus([], 4) == {"all_samples": 0}

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
