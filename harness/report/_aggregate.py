"""Aggregation of a run with pandas: pass rates per model, tag and case, check failure rates;
parse rate; pass@k / pass^k; stable / flaky labels; the ``MODEL_COLUMNS`` figures.

A rate is pooled: passed samples / counted samples. Every pass-rate interval over several
cases (per model, per tag, the run's overall line), and every per-check failure-rate interval,
is clustered by case (design-effect-adjusted Wilson, ``harness.stats.cluster_wilson``: plain
Wilson with one sample per case); one case's interval (its samples are independent draws) is
Wilson.

Rows that are ``missing``, ``stale`` or ``error`` never count in a pass rate (they are not
failures) but are counted in their own columns everywhere.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness.report._columns import model_columns
from harness.report._load import LoadedRun
from harness.stats import ClusterSums, cluster_wilson, pass_at_k, pass_hat_k, wilson_intervals

if TYPE_CHECKING:
    import numpy.typing as npt

    from harness.report._metrics import MetricReport

__all__ = ["NOT_COUNTED", "Summary", "case_label", "summarize"]

NOT_COUNTED = ("missing", "stale", "error")
"""Statuses shown beside pass rates, never inside them."""


def case_label(counted: int, passed: int) -> str:
    """``stable-pass`` / ``stable-fail`` / ``flaky`` for several samples, ``pass`` / ``fail``
    for one, ``no data`` when no sample counts."""
    if counted == 0:
        return "no data"
    if counted == 1:
        return "pass" if passed else "fail"
    if passed == counted:
        return "stable-pass"
    if passed == 0:
        return "stable-fail"
    return "flaky"


@dataclass(frozen=True)
class Summary:
    """Everything a report shows about one run."""

    run: LoadedRun
    """The run summarized."""
    models: pd.DataFrame
    """Index model; counted, passed, rate, low, high (clustered by case), cases, parsed,
    parse_rate, the count of each status, k, pass_at_k, pass_hat_k, and the columns of
    ``MODEL_COLUMNS`` (latency_mean/p50/p95 in ms, tokens_in, tokens_out, usage_calls,
    cost_usd, cost_per_pass_usd: NaN when unknown)."""
    checks: pd.DataFrame
    """Index (check, model); evaluated, failed (not pass: fail or warn), warned (warn only),
    rate, low, high."""
    tags: pd.DataFrame
    """Index (tag, model); counted, passed, rate, low, high (clustered by case),
    not_counted."""
    cases: pd.DataFrame
    """Index (case, model); counted, passed, rate, low, high, label, missing, stale, error."""
    not_counted: pd.DataFrame
    """The missing / stale / error rows: case, model, sample, status, detail."""

    @cached_property
    def total(self) -> dict[str, Any]:
        """Pooled figures over all models: counted, passed, rate, low, high (clustered by case
        over every model), and each status; computed once for every writer that shows them."""
        f = self.run.frame
        counted = int(f["counted"].sum())
        passed = int(f["passed"].sum())
        # Clustered by case: every sample of a case, of every model, shares its difficulty.
        # Per case, in order of first appearance (the case codes'), as a groupby would give.
        codes, cases = self.run.case_codes
        per_case = [
            np.bincount(codes, weights=f[c].to_numpy(), minlength=len(cases)).astype(np.int64)
            for c in ("passed", "counted")
        ]
        low, high = cluster_wilson(ClusterSums.of_cases(*per_case))
        out: dict[str, Any] = {
            "rows": len(f),
            "counted": counted,
            "passed": passed,
            "rate": passed / counted if counted else math.nan,
            "low": float(low[0]),
            "high": float(high[0]),
        }
        counts = f["status"].value_counts()
        for status in ("pass", "fail", "unparseable", *NOT_COUNTED):
            out[status] = int(counts.get(status, 0))
        return out

    @cached_property
    def metrics(self) -> MetricReport | None:
        """The metrics section (``metric_report`` of the run's rows; None when no row was
        scored), computed once for every writer that shows it."""
        from harness.report._metrics import metric_report
        from harness.report._scan import metric_rows

        # Only rows with a metric status count (the rest are skipped by metric_report).
        return metric_report(metric_rows(self.run))

    def case_labels(self) -> pd.Series:
        """Count of cases (case x model) per label."""
        return self.cases["label"].value_counts()


def _with_interval(df: pd.DataFrame, k: str, n: str) -> pd.DataFrame:
    low, high = wilson_intervals(df[k].to_numpy(), df[n].to_numpy())
    with np.errstate(divide="ignore", invalid="ignore"):
        df["rate"] = np.where(df[n] > 0, df[k] / df[n].where(df[n] > 0, 1), np.nan)
    df["low"] = low
    df["high"] = high
    return df


def _with_clustered_interval(df: pd.DataFrame, per_case: pd.DataFrame, by: list[str]) -> None:
    """Set rate, low and high of ``df`` (indexed by ``by``) from ``per_case`` (one row per
    case and ``by`` key, columns passed and counted) with the design-effect-adjusted Wilson."""
    pc = per_case[per_case["counted"] > 0]
    y, m = pc["passed"].astype(float), pc["counted"].astype(float)
    g = (
        pd.DataFrame(
            {"cases": 1, "y": y, "m": m, "yy": y * y, "ym": y * m, "mm": m * m}, index=pc.index
        )
        .groupby(level=by, sort=False)
        .sum()
    )
    g = g.reindex(df.index).fillna(0)
    low, high = cluster_wilson(ClusterSums(g["cases"], g["y"], g["m"], g["yy"], g["ym"], g["mm"]))
    n = df["counted"]
    with np.errstate(divide="ignore", invalid="ignore"):
        df["rate"] = np.where(n > 0, df["passed"] / n.where(n > 0, 1), np.nan)
    df["low"], df["high"] = low, high
    df["cases"] = g["cases"].astype("int64")


def _status_counts(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    counts = frame.groupby([*by, "status"], sort=False).size().unstack("status", fill_value=0)
    for status in ("pass", "fail", "unparseable", *NOT_COUNTED):
        if status not in counts.columns:
            counts[status] = 0
    return counts


def _coded_status_counts(run: LoadedRun, *, per_case: bool) -> pd.DataFrame:
    """``_status_counts(run.frame, ["case", "model"])`` (or ``["model"]``), the same table
    from the run's integer codes: one ``bincount``, no groupby on the id strings."""
    status, statuses = pd.factorize(run.frame["status"], sort=False)
    model, models = run.model_codes
    case, cases = run.case_codes
    if (status < 0).any() or (model < 0).any() or (per_case and (case < 0).any()):
        return _status_counts(run.frame, ["case", "model"] if per_case else ["model"])
    nm, ns = len(models), len(statuses)
    key = case.astype(np.int64) * nm + model if per_case else model.astype(np.int64)
    keys, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the groups in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    grid = np.bincount(rank[inverse] * ns + status, minlength=len(keys) * ns)
    keys = keys[order]
    if per_case:
        index = pd.MultiIndex.from_arrays(
            [cases[keys // nm], models[keys % nm]], names=["case", "model"]
        )
    else:
        index = pd.Index(models[keys], name="model")
    counts = pd.DataFrame(grid.reshape(len(keys), ns), index=index, columns=list(statuses))
    for name in ("pass", "fail", "unparseable", *NOT_COUNTED):
        if name not in counts.columns:
            counts[name] = 0
    return counts


def _models(run: LoadedRun, cases: pd.DataFrame) -> pd.DataFrame:
    f = run.frame
    counts = _coded_status_counts(run, per_case=False)
    df = pd.DataFrame(index=counts.index)
    df["counted"] = counts["pass"] + counts["fail"] + counts["unparseable"]
    df["passed"] = counts["pass"]
    _with_clustered_interval(df, cases[["passed", "counted"]], ["model"])
    df["parsed"] = counts["pass"] + counts["fail"]
    df["parse_rate"] = np.where(
        df["counted"] > 0, df["parsed"] / df["counted"].clip(lower=1), np.nan
    )
    for status in ("pass", "fail", "unparseable", *NOT_COUNTED):
        df[status] = counts[status]
    k = max(1, int(run.manifest.samples or 1))
    df["k"] = k
    at_k: dict[str, float] = {}
    hat_k: dict[str, float] = {}
    # Cases hold few distinct (counted, passed) pairs: each pair's pass@k and pass^k once.
    known: dict[tuple[int, int], tuple[float, float]] = {}
    for model, group in cases.groupby(level="model", sort=False):
        usable = group[group["counted"] >= k]
        if k < 2 or usable.empty:
            at_k[str(model)] = hat_k[str(model)] = math.nan
            continue
        both = []
        counted = map(int, usable["counted"].tolist())
        for pair in zip(counted, map(int, usable["passed"].tolist()), strict=True):
            found = known.get(pair)
            if found is None:
                n, c = pair
                found = known[pair] = (pass_at_k(n, c, k), pass_hat_k(n, c, k))
            both.append(found)
        at_k[str(model)] = float(np.mean([a for a, _ in both]))
        hat_k[str(model)] = float(np.mean([h for _, h in both]))
    df["pass_at_k"] = pd.Series(at_k)
    df["pass_hat_k"] = pd.Series(hat_k)
    from harness.cost import run_prices

    extra = model_columns(f, run_prices(run.manifest))
    for col in extra.columns:
        df[col] = extra[col]
    order = list(dict.fromkeys([m.get("id") for m in run.manifest.models if m.get("id")]))
    ordered = [m for m in order if m in df.index] + [m for m in df.index if m not in order]
    return df.loc[ordered]


def _cases(run: LoadedRun) -> pd.DataFrame:
    counts = _coded_status_counts(run, per_case=True)
    df = pd.DataFrame(index=counts.index)
    df["counted"] = counts["pass"] + counts["fail"] + counts["unparseable"]
    df["passed"] = counts["pass"]
    _with_interval(df, "passed", "counted")
    n, c = df["counted"].to_numpy(), df["passed"].to_numpy()
    # case_label, for every (case, model) at once
    df["label"] = np.select(
        [n == 0, (n == 1) & (c > 0), n == 1, c == n, c == 0],
        ["no data", "pass", "fail", "stable-pass", "stable-fail"],
        "flaky",
    ).tolist()
    for status in NOT_COUNTED:
        df[status] = counts[status]
    return df.sort_index()


def _checks(run: LoadedRun) -> pd.DataFrame:
    # Most rows share a handful of check-outcome sets (``LoadedRun.check_sets``): count the
    # rows of each (model, set) pair, in order of first appearance, then spread them over
    # checks.
    sets = run.check_sets
    codes, models = run.model_codes
    pairs, first, counts = np.unique(
        codes.astype(np.int64) * len(sets.names) + sets.ids, return_index=True, return_counts=True
    )
    order = np.argsort(first, kind="stable")
    agg: dict[tuple[str, str], list[int]] = {}
    for pair, n in zip(pairs[order].tolist(), counts[order].tolist(), strict=True):
        model, which = models[pair // len(sets.names)], pair % len(sets.names)
        for check, outcome in zip(sets.names[which], sets.outcomes[which], strict=True):
            if outcome in ("pass", "fail", "warn"):
                a = agg.setdefault((str(check), str(model)), [0, 0, 0])
                a[0] += n
                if outcome != "pass":
                    a[1] += n
                if outcome == "warn":
                    a[2] += n
    index = pd.MultiIndex.from_tuples(list(agg), names=["check", "model"])
    if not agg:
        index = pd.MultiIndex.from_arrays([[], []], names=["check", "model"])
    df = pd.DataFrame(
        {
            "evaluated": [v[0] for v in agg.values()],
            "failed": [v[1] for v in agg.values()],
            "warned": [v[2] for v in agg.values()],
        },
        index=index,
        dtype="int64",
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        n = df["evaluated"]
        df["rate"] = np.where(n > 0, df["failed"] / n.where(n > 0, 1), np.nan)
    df["low"], df["high"] = _check_intervals(run, df.index)
    return df


def _check_intervals(
    run: LoadedRun, index: pd.MultiIndex
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Failure-rate intervals per (check, model), clustered by case like the pass rates: the
    rows are counted per (model, case, outcome set), spread over each set's checks with numpy
    (no Python step per row), and summed per (check, model, case)."""
    sets = run.check_sets
    nan = np.full(len(index), np.nan)
    if not len(index):
        return nan, nan.copy()
    model_codes, models = run.model_codes
    case_codes, cases = run.case_codes
    nsets, nmodels, ncases = len(sets.names), len(models), len(cases)
    key = (model_codes.astype(np.int64) * ncases + case_codes) * nsets + np.asarray(sets.ids)
    uniq, counts = np.unique(key, return_counts=True)
    which, cell = uniq % nsets, uniq // nsets  # cell: model * ncases + case
    checks: dict[str, int] = {}
    flat_check: list[int] = []
    flat_fail: list[int] = []
    start = np.zeros(nsets, dtype=np.int64)
    length = np.zeros(nsets, dtype=np.int64)
    for k, (names, outcomes) in enumerate(zip(sets.names, sets.outcomes, strict=True)):
        start[k] = len(flat_check)
        for check, outcome in zip(names, outcomes, strict=True):
            if outcome in ("pass", "fail", "warn"):
                flat_check.append(checks.setdefault(str(check), len(checks)))
                flat_fail.append(outcome != "pass")
        length[k] = len(flat_check) - start[k]
    rep = length[which]
    total = int(rep.sum())
    if total == 0:
        return nan, nan.copy()
    first = np.repeat(np.cumsum(rep) - rep, rep)
    idx = np.repeat(start[which], rep) + (np.arange(total) - first)
    weight = np.repeat(counts, rep).astype(float)
    group = np.asarray(flat_check, dtype=np.int64)[idx] * (nmodels * ncases) + np.repeat(cell, rep)
    groups, inverse = np.unique(group, return_inverse=True)
    m = np.bincount(inverse, weights=weight)
    y = np.bincount(inverse, weights=weight * np.asarray(flat_fail, dtype=float)[idx])
    pair = (groups // (nmodels * ncases)) * nmodels + (groups % (nmodels * ncases)) // ncases
    size = len(checks) * nmodels
    sums = [np.bincount(pair, weights=w, minlength=size) for w in (np.ones_like(m), y, m)]
    sums += [np.bincount(pair, weights=w, minlength=size) for w in (y * y, y * m, m * m)]
    low, high = cluster_wilson(ClusterSums(*sums))
    model_of = {str(x): i for i, x in enumerate(models)}
    at = [checks[str(c)] * nmodels + model_of[str(mo)] for c, mo in index]
    return low[at], high[at]


def _tag_text(tag: Any) -> Any:
    """A tag as the report shows it: the results-row schema says text; a list or an object
    (from a row written by another tool) is shown as its JSON text rather than stopping the
    report."""
    return json.dumps(tag, ensure_ascii=False) if isinstance(tag, (list, dict)) else tag


def _tag_sets(run: LoadedRun) -> tuple[list[tuple[Any, ...]], npt.NDArray[np.int64]]:
    """The distinct tag lists of the run (each a tuple of tags, ``_tag_text``) and, per row,
    the index of its list: the loader reads equal ``tags`` values once."""
    scanned = run.scanned
    if scanned is not None:
        values, ids = scanned.tag_values, np.asarray(scanned.tag_ids, dtype=np.int64)
    else:
        values, ids = run.row_tags(), np.arange(len(run.frame), dtype=np.int64)
    return [tuple(map(_tag_text, t or ())) for t in values], ids


def _tags(run: LoadedRun) -> pd.DataFrame:
    """Per (tag, model), in sorted order: counted, passed, not_counted, rate, low, high
    (clustered by case), cases. Rows are spread over their tags by codes (numpy), not by
    exploding a column of lists; tags that are not all strings go through ``_tags_exploded``,
    which gives the same table."""
    f = run.frame
    sets, ids = _tag_sets(run)
    flat_sets = list(chain.from_iterable(sets))
    if not set(map(type, flat_sets)) <= {str}:
        return _tags_exploded(run, [sets[i] for i in ids.tolist()])
    set_len = np.array([len(t) for t in sets], dtype=np.int64)
    lens = set_len[ids]
    if not lens.sum():
        return _no_tags()
    # Each row repeated once per tag, in file order and each row's tag order.
    row = np.repeat(np.arange(len(ids)), lens)
    at = np.arange(len(row)) - np.repeat(np.cumsum(lens) - lens, lens)
    set_tag, tags = pd.factorize(np.array(flat_sets, dtype=object), sort=True)
    tag = set_tag[(np.cumsum(set_len) - set_len)[ids[row]] + at]
    model, models = pd.factorize(f["model"], sort=True)
    case, cases = run.case_codes
    counted = f["counted"].to_numpy()[row].astype(np.int64)
    passed = f["passed"].to_numpy()[row].astype(np.int64)
    nm = len(models)
    pair = tag.astype(np.int64) * nm + model[row]
    size = np.bincount(pair, minlength=len(tags) * nm)
    seen = np.flatnonzero(size)  # (tag, model) pairs in sorted order
    index = pd.MultiIndex.from_arrays(
        [np.asarray(tags, dtype=object)[seen // nm], np.asarray(models, dtype=object)[seen % nm]],
        names=["tag", "model"],
    )
    n_counted = np.bincount(pair, weights=counted, minlength=len(size))[seen].astype(np.int64)
    n_passed = np.bincount(pair, weights=passed, minlength=len(size))[seen].astype(np.int64)
    df = pd.DataFrame({"counted": n_counted, "passed": n_passed}, index=index)
    df["not_counted"] = size[seen] - df["counted"]
    # Per (tag, model, case) in order of first appearance, as groupby(sort=False) gives them.
    triple = pair * len(cases) + case[row]
    keys, first, inverse = np.unique(triple, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    keys = keys[order]
    per_case = pd.DataFrame(
        {
            "passed": np.bincount(inverse, weights=passed)[order].astype(np.int64),
            "counted": np.bincount(inverse, weights=counted)[order].astype(np.int64),
        },
        index=pd.MultiIndex.from_arrays(
            [
                np.asarray(tags, dtype=object)[keys // len(cases) // nm],
                np.asarray(models, dtype=object)[keys // len(cases) % nm],
                np.asarray(cases, dtype=object)[keys % len(cases)],
            ],
            names=["tag", "model", "case"],
        ),
    )
    _with_clustered_interval(df, per_case, ["tag", "model"])
    return df


def _no_tags() -> pd.DataFrame:
    return pd.DataFrame(
        columns=["counted", "passed", "rate", "low", "high", "not_counted"],
        index=pd.MultiIndex.from_arrays([[], []], names=["tag", "model"]),
    )


def _tags_exploded(run: LoadedRun, row_tags: list[tuple[Any, ...]] | None = None) -> pd.DataFrame:
    """``_tags`` by exploding a column of each row's tags (any hashable tag values, or
    ``_tag_text``); ``row_tags``: each row's tags, when already read."""
    if row_tags is None:
        sets, ids = _tag_sets(run)
        row_tags = [sets[i] for i in ids.tolist()]
    f = run.frame[["case", "model", "counted", "passed"]].copy()
    f["tag"] = [list(t) for t in row_tags]
    f = f.explode("tag").dropna(subset=["tag"])
    if f.empty:
        return _no_tags()
    g = f.groupby(["tag", "model"], sort=True)
    df = pd.DataFrame({"counted": g["counted"].sum(), "passed": g["passed"].sum()})
    df["not_counted"] = g.size() - df["counted"]
    per_case = f.groupby(["tag", "model", "case"], sort=False)[["passed", "counted"]].sum()
    _with_clustered_interval(df, per_case, ["tag", "model"])
    return df


def summarize(run: LoadedRun) -> Summary:
    """Aggregate a loaded run."""
    cases = _cases(run)
    f = run.frame
    mask = ~f["counted"].to_numpy()
    details = run.details(np.flatnonzero(mask).tolist())
    not_counted = f.loc[mask, ["case", "model", "sample", "status"]].assign(detail=details)
    return Summary(
        run=run,
        models=_models(run, cases),
        checks=_checks(run),
        tags=_tags(run),
        cases=cases,
        not_counted=not_counted.reset_index(drop=True),
    )
