"""Corpus figures: TaskBench's pooled F1 scores and WorfBench's averages over many samples.

TaskBench (``evaluate.py``) flattens each sample's sets into label vectors and calls
scikit-learn's ``precision_recall_fscore_support``: node F1 with ``labels`` = every tool of
``tool_desc.json`` and ``average='micro'`` / ``'macro'``; links and arguments with
``average='binary'``. This module computes the same numbers from the counts, with the same
zero-division rule (0 where a denominator is 0): per tool, a sample where the tool is in both
sets is a true positive, only in the prediction a false positive, only in the gold a false
negative. Micro pools the counts over tools; macro averages the per-tool figures over *every*
catalogue tool (a tool that never occurs adds 0). Where scikit-learn raises (binary F1 over
samples that hold no link at all) the figure is None.

WorfBench (``node_eval.py:eval_workflow``) sums precision, recall and F1 over the samples and
divides by the number of gold items, so an unparsed prediction adds 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from harness.metrics._taskbench import TaskbenchSample

__all__ = ["SPLITS", "prf", "taskbench_breakdown", "taskbench_corpus", "worfbench_corpus"]

SPLITS: tuple[str, ...] = ("single", "chain", "dag")
"""TaskBench's task structures (``--splits``); ``--n_tools`` groups by gold node count."""


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1 from counts; 0 where the denominator is 0 (scikit-learn's rule)."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return precision, recall, f1


def _binary(pairs: Iterable[tuple[frozenset[object], frozenset[object]]]) -> float | None:
    tp = fp = fn = 0
    for gold, pred in pairs:
        hits = len(gold & pred)
        tp += hits
        fp += len(pred) - hits
        fn += len(gold) - hits
    if tp + fp + fn == 0:
        return None  # no entry at all: scikit-learn raises on the empty vectors
    return prf(tp, fp, fn)[2]


def taskbench_corpus(
    samples: Sequence[TaskbenchSample], catalogue_size: int | None = None
) -> dict[str, float | int | None]:
    """TaskBench's figures over ``samples``, under the names ``evaluate.py`` writes.

    Args:
        samples: one per scored prediction.
        catalogue_size: number of tools in ``tool_desc.json``; the macro average runs over all
            of them. None: over the tools that occur in the samples.
    """
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for s in samples:
        tp.update(s.gold_nodes & s.pred_nodes)
        fp.update(s.pred_nodes - s.gold_nodes)
        fn.update(s.gold_nodes - s.pred_nodes)
    seen = set(tp) | set(fp) | set(fn)
    labels = max(catalogue_size or 0, len(seen))
    micro = prf(sum(tp.values()), sum(fp.values()), sum(fn.values()))
    per_tool = [prf(tp[t], fp[t], fn[t]) for t in seen]
    macro = tuple(sum(v[k] for v in per_tool) / labels if labels else 0.0 for k in range(3))
    out: dict[str, float | int | None] = {"all_samples": len(samples)}
    if not samples:
        return out
    for name, values in (("micro", micro), ("macro", macro)):
        for key, value in zip(("precision", "recall", "f1"), values, strict=True):
            out[f"node_{name}_{key}_no_matching"] = value
    out["argument_task_argname_binary_f1_no_matching"] = _binary(
        (s.gold_arg_names, s.pred_arg_names) for s in samples
    )
    out["argument_task_argname_value_binary_f1_no_matching"] = _binary(
        (s.gold_arg_values, s.pred_arg_values) for s in samples
    )
    out["edit_distance"] = 1.0 - sum(s.ed_ratio for s in samples) / len(samples)
    out["link_binary_f1"] = _binary((s.gold_links, s.pred_links) for s in samples)
    return out


def taskbench_breakdown(
    samples: Sequence[TaskbenchSample], catalogue_size: int | None = None
) -> dict[str, dict[str, float | int | None]]:
    """``taskbench_corpus`` per group, keyed as ``evaluate.py`` keys them (``--mode add``):
    ``overall_overall``, ``<split>_overall`` and ``overall_<n tools>``."""
    groups: dict[str, list[TaskbenchSample]] = {"overall_overall": list(samples)}
    for s in samples:
        groups.setdefault(f"{s.split}_overall", []).append(s)
    for s in sorted(samples, key=lambda x: x.n_tools):
        groups.setdefault(f"overall_{s.n_tools}", []).append(s)
    return {key: taskbench_corpus(group, catalogue_size) for key, group in groups.items()}


def worfbench_corpus(
    values: Sequence[Mapping[str, float]], gold_items: int | None = None
) -> dict[str, float]:
    """WorfBench's averages: each metric summed over ``values`` and divided by ``gold_items``
    (default: ``len(values)``), as ``eval_workflow`` divides by ``len(gold_plan)``."""
    count = gold_items if gold_items is not None else len(values)
    names = sorted({k for v in values for k in v if k.startswith("worfbench.")})
    return {n: sum(v.get(n, 0.0) for v in values) / count if count else 0.0 for n in names}
