"""A whole TaskBench predictions file against its gold file: matching by id, the conventions,
per-record failures, and parity with an oracle that follows ``taskbench/evaluate.py``.

The parity tests read real published files: the MiniMax-Text-01 predictions and the TaskBench
gold sample under ``../shared/data/taskbench``, and, where ``PLANEVAL_TASKBENCH_PREDICTIONS``
names a checkout of WxxShirley/GNN4TaskPlan's ``prediction/`` folder, its four published
prediction files scored against one another (their gold is not published in a fetchable
size). Each skips with its reason when its data is absent.
"""

from __future__ import annotations

import json
import os
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

import harness.metrics._files as files
from harness._errors import InputError
from harness.metrics import (
    GROUPS,
    ToolCatalogue,
    read_record_lines,
    score_taskbench_file,
)
from harness.registry import load_registry
from tests.metrics import oracle

GNN = os.environ.get("PLANEVAL_TASKBENCH_PREDICTIONS")
TOOLS = ToolCatalogue(("search", "summarize", "email"))


def record(key: Any, *tools: str, kind: str = "chain") -> dict[str, Any]:
    """A temporal TaskBench record (handwritten)."""
    return {
        "id": key,
        "type": kind,
        "task_nodes": [{"task": t, "arguments": [{"name": "q", "value": t}]} for t in tools],
        "task_links": [{"source": a, "target": b} for a, b in pairwise(tools)],
    }


def lines(*records: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return list(enumerate(records, start=1))


GOLD = lines(
    record("a", "search", kind="single"),
    record("b", "search", "summarize"),
    record("c", "search", "email"),
)


def score(preds: list[tuple[int, dict[str, Any]]], **options: Any):
    return score_taskbench_file(preds, GOLD, catalogue=TOOLS, dependency="temporal", **options)


class TestMatching:
    def test_records_are_matched_by_id_not_by_line(self) -> None:
        """The same predictions in another order give the same figures (line 1 against line
        1 would score 'c' against 'a')."""
        preds = [record("c", "search", "email"), record("a", "search", kind="single")]
        forward = score(lines(*preds)).groups
        backward = score(lines(*reversed(preds))).groups
        assert forward == backward
        assert forward["overall_overall"]["node_micro_f1_no_matching"] == 1.0

    def test_exclude_scores_the_shared_ids_only(self) -> None:
        """The script's convention: gold 'b' has no prediction, so it is not counted."""
        result = score(lines(record("a", "search"), record("c", "search", "email")))
        assert result.groups["overall_overall"]["all_samples"] == 2
        assert result.counts() == {"scored": 2, "dropped": 0, "missing": 0, "error": 0}

    def test_zero_counts_gold_ids_without_a_prediction_line(self) -> None:
        """Under zero the missing 'b' is an empty plan: recall falls from 1 to 2/4."""
        preds = lines(record("a", "search"), record("c", "search", "email"))
        result = score(preds, convention="zero")
        overall = result.groups["overall_overall"]
        assert overall["all_samples"] == overall["node_supports"] == 3
        assert overall["node_micro_recall_no_matching"] == 3 / 5
        assert [r.status for r in result.records] == ["scored", "missing", "scored"]

    def test_a_dropped_prediction_counts_in_all_samples_only(self) -> None:
        """A prediction without task_links is a "Parsing Error" for the script: in
        all_samples, not in node_supports; under zero it is an empty plan."""
        broken = {"id": "b", "result": {"task_nodes": [{"task": "search"}]}}
        preds = lines(record("a", "search"), broken)
        overall = score(preds).groups["overall_overall"]
        assert (overall["all_samples"], overall["node_supports"]) == (2, 1)
        overall = score(preds, convention="zero").groups["overall_overall"]
        assert (overall["all_samples"], overall["node_supports"]) == (3, 3)

    def test_the_plan_may_sit_under_result_or_at_the_top(self) -> None:
        """inference.py writes {"id", "result": {...}}; GNN4TaskPlan writes the plan at the
        top of the line."""
        top = record("b", "search", "summarize")
        nested = {"id": "b", "result": {k: v for k, v in top.items() if k != "id"}}
        assert score(lines(top)).groups == score(lines(nested)).groups

    def test_no_shared_id_is_an_error_naming_the_counts(self) -> None:
        with pytest.raises(InputError) as caught:
            score(lines(record("x", "search"), record("y", "email")))
        assert "(2 prediction ids, 3 gold ids, 0 shared)" in str(caught.value)

    def test_ids_are_compared_as_written(self) -> None:
        """The script's dict keys: the number 1 is not the text "1"."""
        with pytest.raises(InputError):
            score_taskbench_file(
                lines(record(1, "search")), lines(record("1", "search")), catalogue=TOOLS
            )

    def test_only_the_scripts_groups(self) -> None:
        """Every group of --splits all --n_tools all --mode add, even empty (counts only);
        a gold of 12 tools is in overall_overall and its split, never in overall_12."""
        gold = lines(record("big", *(["search"] * 12)))
        result = score_taskbench_file(gold, gold, catalogue=TOOLS)
        assert list(result.groups) == list(GROUPS)
        assert result.groups["chain_overall"]["node_supports"] == 1
        assert result.groups["overall_10"] == {
            "all_samples": 0,
            "step_supports": 0,
            "node_supports": 0,
            "link_supports": 0,
            "argument_supports": 0,
        }

    def test_read_record_lines_names_the_bad_line(self) -> None:
        with pytest.raises(InputError) as caught:
            read_record_lines('{"id": 1}\n\n[1, 2]\n', "preds.jsonl")
        assert str(caught.value).startswith("preds.jsonl: line 3: not a JSON object with an 'id'")


class TestFailures:
    def test_a_failure_inside_scoring_is_an_error_record_and_the_others_are_kept(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A failure injected into the scoring of record 'b': it is an error naming the id,
        'a' and 'c' are scored and counted."""
        real = files.taskbench_sample

        def failing(pred: Any, gold: Any, **options: Any) -> Any:
            if pred["task_nodes"][-1]["task"] == "summarize":
                raise RuntimeError("injected failure")
            return real(pred, gold, **options)

        monkeypatch.setattr(files, "taskbench_sample", failing)
        preds = lines(*(r for _, r in GOLD))
        result = score(preds)
        assert [r.status for r in result.records] == ["scored", "error", "scored"]
        assert result.records[1].detail == "id 'b': scoring failed (RuntimeError: injected failure)"
        overall = result.groups["overall_overall"]
        assert (overall["all_samples"], overall["node_supports"]) == (3, 2)
        assert overall["node_micro_f1_no_matching"] == 1.0


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _assert_parity(
    pred_text: str, gold: list[dict[str, Any]], tool_desc: Path, mode: str
) -> dict[str, Any]:
    """planeval's groups equal the oracle's: same groups, same keys in the same order, every
    figure within 1e-12. Returns the oracle's overall figures."""
    expected = oracle.official_file_figures(
        _read_text(pred_text), gold, json.loads(tool_desc.read_text("utf-8")), mode
    )
    got = score_taskbench_file(
        read_record_lines(pred_text, "predictions"),
        lines(*gold),
        catalogue=ToolCatalogue.from_registry(load_registry(tool_desc)),
        dependency=mode,  # type: ignore[arg-type]
    ).groups
    assert list(got) == list(expected)
    for group, figures in expected.items():
        assert list(got[group]) == list(figures), group
        for key, value in figures.items():
            if key == "node_per_type_no_matchcing":
                for tool, row in value.items():
                    assert got[group][key][tool] == pytest.approx(row, abs=1e-12), (group, tool)
            else:
                assert got[group][key] == pytest.approx(value, abs=1e-12), (group, key)
    return expected["overall_overall"]


def _read_text(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


SHAPES: list[Any] = [
    {"name": "query", "value": ""},  # GNN4TaskPlan multimedia/mistral-7b, id 24799612
    "example.jpg",
    [{}],
    None,
    [5, "<node-9>", "<node-x>"],
]
"""Argument shapes the published predictions hold (handwritten here): an object, text, an
empty object, null, items the script cannot convert."""


class TestPublishedParity:
    def test_minimax_predictions_against_the_gold_sample(self, shared_data: Path) -> None:
        """MiniMax-Text-01's published multimedia predictions (20 whose gold is in the
        sample) equal the oracle in all 14 groups."""
        data = shared_data / "taskbench"
        preds = data / "predictions_minimax" / "multimedia_MiniMax-Text-01_first20.jsonl"
        overall = _assert_parity(
            preds.read_text("utf-8"),
            _read(data / "gold_sample" / "multimedia.jsonl"),
            data / "multimedia_tool_desc.json",
            "resource",
        )
        assert overall["all_samples"] == overall["node_supports"] == 20

    @pytest.mark.parametrize(
        ("domain", "mode"),
        [("huggingface", "resource"), ("multimedia", "resource"), ("dailylifeapis", "temporal")],
    )
    def test_the_gold_sample_against_perturbations_and_argument_shapes(
        self, shared_data: Path, domain: str, mode: str
    ) -> None:
        """Each real gold record's perturbations (a task dropped, renamed, repeated, moved,
        a link reversed) and the argument shapes of published predictions, as prediction
        files of the domain's gold."""
        import random

        from tests.metrics.perturb import taskbench_variants

        data = shared_data / "taskbench"
        gold = _read(data / "gold_sample" / f"{domain}.jsonl")
        tool_desc = data / f"{domain}_tool_desc.json"
        names = [t["id"] for t in json.loads(tool_desc.read_text("utf-8"))["nodes"]]
        rng = random.Random(25)
        for round_ in range(3):
            preds = []
            for index, g in enumerate(gold):
                plan = {k: g[k] for k in ("task_nodes", "task_links")}
                variants = taskbench_variants(plan, names, rng)
                chosen = json.loads(json.dumps(variants[round_ % len(variants)]))
                if index % 4 == round_:
                    shape = SHAPES[(index + round_) % len(SHAPES)]
                    chosen["task_nodes"][-1]["arguments"] = shape
                preds.append({"id": g["id"], "result": chosen})
            _assert_parity("\n".join(json.dumps(p) for p in preds), gold, tool_desc, mode)


def _typed(rec: dict[str, Any]) -> dict[str, Any]:
    """A published prediction used as gold needs TaskBench's ``type``: single for one node,
    chain for n-1 links, else dag."""
    nodes = rec.get("task_nodes") or []
    links = rec.get("task_links") or []
    kind = "single" if len(nodes) <= 1 else "chain" if len(links) == len(nodes) - 1 else "dag"
    return {**rec, "type": kind}


@pytest.mark.skipif(
    GNN is None or not Path(GNN).is_dir(),
    reason="PLANEVAL_TASKBENCH_PREDICTIONS (GNN4TaskPlan's prediction/ folder) is not set",
)
class TestGnn4TaskPlanParity:
    @pytest.mark.parametrize("domain", ["huggingface", "multimedia"])
    @pytest.mark.parametrize(
        ("gold_model", "pred_model"),
        [("CodeLlama-13b", "mistral-7b"), ("mistral-7b", "CodeLlama-13b")],
    )
    def test_published_predictions_scored_against_one_another(
        self, shared_data: Path, domain: str, gold_model: str, pred_model: str
    ) -> None:
        """Real published answers with every argument shape (null, object, gold nodes
        without arguments); multimedia/mistral-7b holds id 24799612's object arguments."""
        root = Path(str(GNN))
        gold = [_typed(r) for r in _read(root / domain / gold_model / "direct.json")]
        preds = (root / domain / pred_model / "direct.json").read_text("utf-8")
        tool_desc = shared_data / "taskbench" / f"{domain}_tool_desc.json"
        overall = _assert_parity(preds, gold, tool_desc, "resource")
        assert overall["node_supports"] > 400
