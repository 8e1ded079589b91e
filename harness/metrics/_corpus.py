"""Corpus figures: TaskBench's pooled F1 scores and WorfBench's averages over many samples.

TaskBench (``evaluate.py``) flattens each sample's sets into label vectors and calls
scikit-learn's ``precision_recall_fscore_support``: node F1 with ``labels`` = every tool of
``tool_desc.json`` and ``average='micro'`` / ``'macro'``; links and arguments with
``average='binary'``. This module computes the same numbers from the counts, with the same
zero-division rule (0 where a denominator is 0): per tool, a sample where the tool is in both
sets is a true positive, only in the prediction a false positive, only in the gold a false
negative. Micro pools the counts over tools; macro averages the per-tool figures over *every*
catalogue tool (a tool that never occurs adds 0). A binary F1 over samples that hold no link
(or no argument) at all is 0.0, as in the scikit-learn the script pins (1.0.2).

WorfBench (``node_eval.py:eval_workflow``) sums precision, recall and F1 over the samples and
divides by the number of gold items, so an unparsed prediction adds 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.metrics._taskbench import TaskbenchSample

__all__ = [
    "GROUPS",
    "SPLITS",
    "group_keys",
    "prf",
    "taskbench_breakdown",
    "taskbench_corpus",
    "worfbench_corpus",
]

SPLITS: tuple[str, ...] = ("single", "chain", "dag")
"""TaskBench's task structures (``--splits``); ``--n_tools`` groups by gold node count."""


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1 from counts; 0 where the denominator is 0 (scikit-learn's rule)."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return precision, recall, f1


def _binary(pairs: Iterable[tuple[frozenset[object], frozenset[object]]]) -> float:
    tp = fp = fn = 0
    for gold, pred in pairs:
        hits = len(gold & pred)
        tp += hits
        fp += len(pred) - hits
        fn += len(gold) - hits
    # No entry at all (no link in any sample): the empty label vectors give 0.0 in the
    # scikit-learn the official script pins (1.0.2; 1.8 raises instead).
    return prf(tp, fp, fn)[2]


def taskbench_corpus(
    samples: Sequence[TaskbenchSample],
    catalogue_size: int | None = None,
    *,
    unscored: int = 0,
    tools: Sequence[str] | None = None,
) -> dict[str, Any]:
    """TaskBench's figures over ``samples``, under the names and in the order ``evaluate.py``
    writes them (with ``-m f1 -m ed -m link -m argument``: no step metrics).

    Args:
        samples: one per scored prediction.
        catalogue_size: number of tools in ``tool_desc.json``; the macro average runs over all
            of them. None: over the tools that occur in the samples.
        unscored: predictions matched to a gold id that were not scored (the script's "Parsing
            Error"): counted in ``all_samples`` only, as the script counts them.
        tools: the catalogue's tool names in file order: adds ``node_per_type_no_matchcing``
            (the script's spelling) with each tool's precision, recall, F1 and support.

    Without samples only the counts are given, as the script skips the figures ("No supports").
    """
    scored = len(samples)
    out: dict[str, Any] = {
        "all_samples": scored + unscored,
        "step_supports": 0,
        "node_supports": scored,
        "link_supports": scored,
        "argument_supports": scored,
    }
    if not samples:
        return out
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for s in samples:
        tp.update(s.gold_nodes & s.pred_nodes)
        fp.update(s.pred_nodes - s.gold_nodes)
        fn.update(s.gold_nodes - s.pred_nodes)
    seen = set(tp) | set(fp) | set(fn)
    if tools is not None:
        catalogue_size = max(catalogue_size or 0, len(tools))
    labels = max(catalogue_size or 0, len(seen))
    micro = prf(sum(tp.values()), sum(fp.values()), sum(fn.values()))
    per_tool = [prf(tp[t], fp[t], fn[t]) for t in seen]
    macro = tuple(sum(v[k] for v in per_tool) / labels if labels else 0.0 for k in range(3))
    for name, values in (("micro", micro), ("macro", macro)):
        for key, value in zip(("precision", "recall", "f1"), values, strict=True):
            out[f"node_{name}_{key}_no_matching"] = value
    if tools is not None:
        per_type: dict[str, dict[str, float | int]] = {}
        for tool in tools:
            precision, recall, f1 = prf(tp[tool], fp[tool], fn[tool])
            support = tp[tool] + fn[tool]
            per_type[tool] = {
                "precision": precision,
                "recall": recall,
                "f1-score": f1,
                "support": support,
            }
        out["node_per_type_no_matchcing"] = per_type
    out["argument_task_argname_binary_f1_no_matching"] = _binary(
        (s.gold_arg_names, s.pred_arg_names) for s in samples
    )
    out["argument_task_argname_value_binary_f1_no_matching"] = _binary(
        (s.gold_arg_values, s.pred_arg_values) for s in samples
    )
    out["edit_distance"] = 1.0 - sum(s.ed_ratio for s in samples) / scored
    out["link_binary_f1"] = _binary((s.gold_links, s.pred_links) for s in samples)
    return out


GROUPS: tuple[str, ...] = (
    "overall_overall",
    *(f"{split}_overall" for split in SPLITS),
    *(f"overall_{n}" for n in range(1, 11)),
)
"""The groups ``evaluate.py --splits all --n_tools all --mode add`` writes, in its order: every
one, even without samples; a sample of more than 10 gold tools is in ``overall_overall`` and
its split only."""


def group_keys(split: str, n_tools: int) -> tuple[str, str, str]:
    """The groups a sample of ``split`` with ``n_tools`` gold tools belongs to."""
    return ("overall_overall", f"{split}_overall", f"overall_{n_tools}")


def taskbench_breakdown(
    samples: Sequence[TaskbenchSample],
    catalogue_size: int | None = None,
    *,
    unscored: Iterable[tuple[str, int]] = (),
    tools: Sequence[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """``taskbench_corpus`` per group, keyed and ordered as ``evaluate.py --splits all
    --n_tools all --mode add`` writes them (``GROUPS``).

    Args:
        unscored: ``(split, gold tools)`` of each matched prediction that was not scored
            (counted in its groups' ``all_samples``).
    """
    members: dict[str, list[TaskbenchSample]] = {key: [] for key in GROUPS}
    dropped: Counter[str] = Counter()
    for s in samples:
        for key in group_keys(s.split, s.n_tools):
            if key in members:
                members[key].append(s)
    for split, n_tools in unscored:
        for key in group_keys(split, n_tools):
            dropped[key] += 1
    return {
        key: taskbench_corpus(group, catalogue_size, unscored=dropped[key], tools=tools)
        for key, group in members.items()
    }


def worfbench_corpus(
    values: Sequence[Mapping[str, float]], gold_items: int | None = None
) -> dict[str, float]:
    """WorfBench's averages: each metric summed over ``values`` and divided by ``gold_items``
    (default: ``len(values)``), as ``eval_workflow`` divides by ``len(gold_plan)``."""
    count = gold_items if gold_items is not None else len(values)
    names = sorted({k for v in values for k in v if k.startswith("worfbench.")})
    return {n: sum(v.get(n, 0.0) for v in values) / count if count else 0.0 for n in names}
