"""TaskBench metrics: hand-worked samples, corpus figures, agreement with scikit-learn."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from harness.metrics import (
    ToolCatalogue,
    UnscorableError,
    score_plan,
    taskbench_breakdown,
    taskbench_corpus,
    taskbench_sample,
)
from tests.metrics import oracle
from tests.metrics.perturb import taskbench_variants

TOOLS = ToolCatalogue(("search", "summarize", "translate", "email"))


def temporal(*tools: str, links: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    return {
        "task_nodes": [{"task": t, "arguments": [{"name": "q", "value": t}]} for t in tools],
        "task_links": [{"source": a, "target": b} for a, b in links],
    }


def sample(
    pred: dict[str, Any],
    gold: dict[str, Any],
    mode: str = "temporal",
    tools: ToolCatalogue | None = TOOLS,
):
    return taskbench_sample(pred, gold, dependency=mode, catalogue=tools)  # type: ignore[arg-type]


class TestSample:
    def test_equal_to_gold(self) -> None:
        """Every F1 is 1 and the edit distance 0."""
        gold = temporal("search", "summarize", links=(("search", "summarize"),))
        got = sample(gold, gold).as_metrics()
        assert got == {
            "taskbench.node_f1": 1.0,
            "taskbench.link_f1": 1.0,
            "taskbench.argument_name_f1": 1.0,
            "taskbench.argument_value_f1": 1.0,
            "taskbench.edit_distance": 0.0,
        }

    def test_disjoint(self) -> None:
        """No shared tool: F1 0, edit distance 1."""
        got = sample(temporal("email"), temporal("search", "summarize")).as_metrics()
        assert got["taskbench.node_f1"] == 0.0
        assert got["taskbench.edit_distance"] == 1.0

    def test_empty_prediction(self) -> None:
        """An empty plan against one task: node F1 0, edit distance 1."""
        got = sample({"task_nodes": [], "task_links": []}, temporal("search")).as_metrics()
        assert got["taskbench.node_f1"] == 0.0
        assert got["taskbench.edit_distance"] == 1.0
        assert "taskbench.link_f1" not in got  # no link on either side: not applicable

    def test_repeated_tool_counts_once_for_nodes_but_not_for_edit_distance(self) -> None:
        """Sets for F1, sequences for the edit distance: ratio 2*2/(3+2) = 0.8."""
        got = sample(temporal("search", "search", "summarize"), temporal("search", "summarize"))
        assert got.as_metrics()["taskbench.node_f1"] == 1.0
        assert got.ed_ratio == pytest.approx(0.8)

    def test_unknown_tool_adds_nothing_to_node_counts(self) -> None:
        """A name outside tool_desc.json is neither a hit nor a false positive for nodes, but
        counts as symbol 0 in the edit distance."""
        got = sample(temporal("search", "fly_to_mars"), temporal("search"))
        assert got.pred_nodes == frozenset({"search"})
        assert got.as_metrics()["taskbench.node_f1"] == 1.0
        assert got.ed_ratio == pytest.approx(2 / 3)

    def test_reversed_link(self) -> None:
        """Links are ordered pairs: a reversed one is a miss and a false positive."""
        gold = temporal("search", "summarize", links=(("search", "summarize"),))
        pred = temporal("search", "summarize", links=(("summarize", "search"),))
        assert sample(pred, gold).as_metrics()["taskbench.link_f1"] == 0.0

    def test_resource_links_come_from_node_arguments(self) -> None:
        """Resource mode: '<node-0>' is a link from node 0, '_' becomes a space in names, the
        link target keeps its raw name, task_links are ignored."""
        gold = {
            "task_nodes": [
                {"task": "Image_Captioning", "arguments": ["photo.jpg"]},
                {"task": "Text_to_Speech", "arguments": ["<node-0>"]},
            ],
            "task_links": [{"source": "x", "target": "y"}],
        }
        got = sample(
            gold,
            gold,
            "resource",
            ToolCatalogue(("Image Captioning", "Text to Speech"), {"Image Captioning": "text"}),
        )
        assert got.gold_links == frozenset({("Image Captioning", "Text_to_Speech")})
        assert got.gold_nodes == frozenset({"Image Captioning", "Text to Speech"})
        assert got.gold_arg_values == frozenset(
            {"Image Captioning-image-photo.jpg", "Text to Speech-text-Image Captioning"}
        )

    def test_node_citing_itself_is_skipped(self) -> None:
        """'<node-0>' on node 0 adds neither a link nor an argument."""
        gold = {"task_nodes": [{"task": "A", "arguments": ["<node-0>", "x.wav"]}]}
        got = sample(gold, gold, "resource", None)
        assert got.gold_links == frozenset()
        assert got.gold_arg_names == frozenset({"A-audio"})

    def test_unusable_argument_repeats_the_previous_one(self) -> None:
        """'<node-9>' out of range: the official loop appends the previous argument again."""
        gold = {
            "task_nodes": [
                {"task": "A", "arguments": ["a.png"]},
                {"task": "B", "arguments": ["b.mp3"]},
            ]
        }
        pred = {
            "task_nodes": [
                {"task": "A", "arguments": ["a.png"]},
                {"task": "B", "arguments": ["<node-9>"]},
            ]
        }
        got = sample(pred, gold, "resource", None)
        assert "B-image-a.png" in got.pred_arg_values
        assert got.notes

    def test_temporal_prediction_with_text_arguments_is_dropped(self) -> None:
        """TaskBench drops a temporal prediction whose arguments are not {name, value}."""
        pred = {"task_nodes": [{"task": "search", "arguments": ["x"]}], "task_links": []}
        with pytest.raises(UnscorableError) as caught:
            sample(pred, temporal("search"))
        assert caught.value.side == "prediction"


class TestCorpus:
    def test_macro_averages_over_every_catalogue_tool(self) -> None:
        """Gold {search}, prediction {search, summarize}, 4 tools: per-tool F1 1, 0, 0, 0."""
        figures = taskbench_corpus([sample(temporal("search", "summarize"), temporal("search"))], 4)
        assert figures["node_macro_f1_no_matching"] == pytest.approx(0.25)
        assert figures["node_micro_precision_no_matching"] == pytest.approx(0.5)
        assert figures["node_micro_recall_no_matching"] == 1.0
        assert figures["node_micro_f1_no_matching"] == pytest.approx(2 / 3)

    def test_no_link_anywhere_has_link_f1_zero(self) -> None:
        """Empty vectors: 0.0, as the scikit-learn the script pins (1.0.2) gives."""
        figures = taskbench_corpus([sample(temporal("search"), temporal("search"))], 4)
        assert figures["link_binary_f1"] == 0.0

    def test_breakdown_by_split_and_tool_count(self) -> None:
        """Groups are keyed as evaluate.py keys them; empty ones hold the counts only."""
        one = sample(temporal("search"), {**temporal("search"), "type": "single"})
        two = sample(temporal("search"), {**temporal("search", "email"), "type": "chain"})
        groups = taskbench_breakdown([one, two], 4)
        filled = {k for k, v in groups.items() if v["node_supports"]}
        assert filled == {
            "overall_overall",
            "single_overall",
            "chain_overall",
            "overall_1",
            "overall_2",
        }
        assert groups["chain_overall"]["all_samples"] == 1
        assert groups["dag_overall"]["all_samples"] == 0


def _read(path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


class TestAgreement:
    @pytest.mark.parametrize(
        ("domain", "mode"),
        [("huggingface", "resource"), ("multimedia", "resource"), ("dailylifeapis", "temporal")],
    )
    def test_public_gold_perturbations(self, shared_data: Path, domain: str, mode: str) -> None:
        """Perturbed TaskBench gold plans: every corpus figure equals scikit-learn's to 1e-9."""
        pytest.importorskip("sklearn", reason="scikit-learn is the reference implementation")
        desc = json.loads(
            (shared_data / "taskbench" / f"{domain}_tool_desc.json").read_text(encoding="utf-8")
        )
        tools = [t["id"] for t in desc["nodes"]]
        out_types = {
            t["id"]: (t["output-type"][0] if t.get("output-type") else "none")
            for t in desc["nodes"]
        }
        rng = random.Random(5)
        pairs = [
            (g, p)
            for g in _read(shared_data / "taskbench" / "gold_sample" / f"{domain}.jsonl")
            for p in [g, *taskbench_variants(g, tools, rng)]
        ]
        assert len(pairs) >= 50
        catalogue = ToolCatalogue(tuple(tools), out_types)
        samples = [
            score_plan(p, g, catalogue=catalogue, dependency=mode).taskbench for g, p in pairs
        ]  # type: ignore[arg-type]
        got = taskbench_corpus(samples, len(tools))  # type: ignore[arg-type]
        expected = oracle.taskbench_figures(pairs, tools, mode, out_types)
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=1e-9), name

    def test_handwritten_perturbations(self) -> None:
        """Hand-written temporal plans (always run): equal to scikit-learn's figures."""
        pytest.importorskip("sklearn", reason="scikit-learn is the reference implementation")
        golds = [
            temporal("search", "summarize", links=(("search", "summarize"),)),
            temporal(
                "translate", "email", "search", links=(("translate", "email"), ("email", "search"))
            ),
        ]
        rng = random.Random(1)
        pairs = [(g, p) for g in golds for p in [g, *taskbench_variants(g, list(TOOLS.names), rng)]]
        got = taskbench_corpus([sample(p, g) for g, p in pairs], 4)
        for name, value in oracle.taskbench_figures(
            pairs, list(TOOLS.names), "temporal", {}
        ).items():
            assert got[name] == pytest.approx(value, abs=1e-9), name
