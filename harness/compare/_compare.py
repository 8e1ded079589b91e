"""Comparing two runs of one suite, on the cases both runs counted.

Items are (model, case) pairs with at least one counted sample in both runs; everything
``compare`` shows (rates, tests, flips, check deltas) is computed on those shared items only,
and the headline says how many cases were compared and how many each side had that were left
out. Rates are pooled (passed / counted samples), as in the reports. The test and its interval
come from one procedure (``harness.stats.paired_test``); with several model pairs the per-model
verdicts are Holm-corrected and each interval is at the level Holm tested that model at.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from harness._errors import InputError
from harness.cost import run_prices
from harness.report import LoadedRun, Summary, summarize
from harness.report._columns import model_columns
from harness.stats import PairedResult, holm, holm_levels, paired_test

__all__ = [
    "ALPHA",
    "Comparison",
    "Flip",
    "IncomparableRunsError",
    "PairedTest",
    "compare_runs",
]

ALPHA = 0.05
"""Significance level of every verdict (family-wise over models, by Holm's procedure)."""

Verdict = Literal["better", "worse", "no significant difference"]


class IncomparableRunsError(InputError):
    """Two runs that cannot be compared (different suites, no model in common, ...)."""


@dataclass(frozen=True, slots=True)
class Flip:
    """A (model, case) whose outcome changed between the runs."""

    model: str
    """The model key (``base -> cand`` when two differently named models are paired)."""
    case: str
    """The case id."""
    base: str
    """Passed / counted samples in the base run, e.g. ``3/3``."""
    cand: str
    """Passed / counted samples in the candidate run."""


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A paired test of candidate against base, with its verdict."""

    result: PairedResult
    """The test and its interval (at level ``result.alpha``)."""
    p_adjusted: float
    """The p-value the verdict uses (Holm-adjusted when several models were compared)."""
    adjusted: bool = False
    """Whether ``p_adjusted`` carries Holm's correction."""

    @property
    def method(self) -> str:
        """``mcnemar-exact`` or ``sign-flip``."""
        return self.result.method

    @property
    def n(self) -> int:
        """Cases compared."""
        return self.result.cases

    @property
    def base_rate(self) -> float:
        """Pooled base pass rate on the compared cases."""
        return self.result.base_rate

    @property
    def cand_rate(self) -> float:
        """Pooled candidate pass rate on the compared cases."""
        return self.result.cand_rate

    @property
    def difference(self) -> float:
        """``cand_rate - base_rate``."""
        return self.result.difference

    @property
    def low(self) -> float:
        """Lower end of the interval (``1 - result.alpha``)."""
        return self.result.low

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.result.high

    @property
    def p_value(self) -> float:
        """The unadjusted p-value."""
        return self.result.p_value

    @property
    def confidence(self) -> float:
        """The interval's confidence level, e.g. 0.95 (0.975 for Holm's first of two)."""
        return 1 - self.result.alpha

    @property
    def pass_to_fail(self) -> int:
        """McNemar: cases passing in base and failing in the candidate."""
        return self.result.pass_to_fail

    @property
    def fail_to_pass(self) -> int:
        """McNemar: cases failing in base and passing in the candidate."""
        return self.result.fail_to_pass

    @property
    def smallest_detectable(self) -> float:
        """Rough smallest difference this many cases could detect (5% level, 80% power):
        2.8 standard errors, and no less than six cases all moving one way."""
        if self.n == 0:
            return math.nan
        return min(1.0, max(6 / self.n, 2.8 * self.result.se))

    @property
    def verdict(self) -> Verdict:
        """better / worse / no significant difference; agrees with the interval."""
        if self.n == 0 or not self.p_adjusted < ALPHA:
            return "no significant difference"
        return "better" if self.low > 0 else "worse"

    @property
    def verdict_text(self) -> str:
        """The verdict as one honest phrase."""
        if self.verdict != "no significant difference":
            holm_note = ", Holm-adjusted" if self.adjusted else ""
            return (
                f"{self.verdict} ({self.difference * 100:+.1f} points, "
                f"p={self.p_adjusted:.3g}{holm_note}, n={self.n})"
            )
        if self.n == 0:
            return "no significant difference (n=0: nothing to compare)"
        why = self.result.point_interval_reason
        point = f"; the interval has zero width: {why}" if why else ""
        return (
            f"no significant difference (n={self.n}, smallest detectable difference "
            f"~{self.smallest_detectable * 100:.0f} points{point})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The test as JSON."""
        return {
            "method": self.method,
            "n": self.n,
            "base_rate": _num(self.base_rate),
            "cand_rate": _num(self.cand_rate),
            "difference": _num(self.difference),
            "interval": [_num(self.low), _num(self.high)],
            "confidence": _num(self.confidence),
            "p_value": _num(self.p_value),
            "p_adjusted": _num(self.p_adjusted),
            "holm_adjusted": self.adjusted,
            "smallest_detectable_difference": _num(self.smallest_detectable),
            "pass_to_fail": self.pass_to_fail,
            "fail_to_pass": self.fail_to_pass,
            "verdict": self.verdict,
            "verdict_text": self.verdict_text,
        }


def _num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 6)


@dataclass(frozen=True)
class Comparison:
    """Everything ``planeval compare`` shows."""

    base: LoadedRun
    """The base run."""
    cand: LoadedRun
    """The candidate run."""
    pairs: list[tuple[str, str]]
    """(base model, candidate model) pairs compared."""
    overall: PairedTest
    """The test over every shared item, clustered by case."""
    per_model: dict[str, PairedTest]
    """The test per model pair, keyed ``model`` or ``base -> cand`` (Holm with several)."""
    to_fail: list[Flip]
    """Items that passed every counted sample in base and not in the candidate."""
    to_pass: list[Flip]
    """Items that did not pass every sample in base and do in the candidate."""
    check_deltas: pd.DataFrame
    """Columns check, model, base_rate, cand_rate, delta, base_n, cand_n: failure rates on the
    shared items only."""
    items: pd.DataFrame = field(default_factory=pd.DataFrame)
    """The shared items: model, case, passed_b, counted_b, passed_c, counted_c."""
    only_in_base: list[tuple[str, str]] = field(default_factory=list)
    """(model, case) items counted in base only: listed, not compared."""
    only_in_cand: list[tuple[str, str]] = field(default_factory=list)
    """(model, case) items counted in the candidate only: listed, not compared."""
    unpaired_models: dict[str, list[str]] = field(default_factory=dict)
    """``{"base": [...], "cand": [...]}``: models of one run that were not compared."""
    figures: dict[str, pd.DataFrame] = field(default_factory=dict)
    """``{"base": ..., "cand": ...}``: the ``MODEL_COLUMNS`` figures of each run on the shared
    items, indexed by model key."""
    base_summary: Summary | None = None
    """The base run's summary (for writers that show more)."""
    cand_summary: Summary | None = None
    """The candidate run's summary."""

    @property
    def coverage(self) -> dict[str, int]:
        """Cases compared, and cases of each side left out (counted there, not shared)."""
        shared = set(self.items["case"]) if len(self.items) else set()
        return {
            "compared": len(shared),
            "base_only": len({c for _, c in self.only_in_base} - shared),
            "cand_only": len({c for _, c in self.only_in_cand} - shared),
        }

    @property
    def headline(self) -> str:
        """``40 cases compared; left out: 2 only in base, 1 only in the candidate``."""
        c = self.coverage
        left = (
            f"left out: {c['base_only']} case(s) only in base, "
            f"{c['cand_only']} only in the candidate"
            if c["base_only"] or c["cand_only"]
            else "no case left out"
        )
        return f"{c['compared']} case(s) compared; {left}"


def _key(pair: tuple[str, str]) -> str:
    return pair[0] if pair[0] == pair[1] else f"{pair[0]} -> {pair[1]}"


def _pair_models(
    base: Summary, cand: Summary, base_model: str | None, cand_model: str | None
) -> list[tuple[str, str]]:
    bm, cm = list(base.models.index), list(cand.models.index)
    if base_model or cand_model:
        b = base_model or cand_model
        c = cand_model or base_model
        for name, models, which in ((b, bm, "base"), (c, cm, "candidate")):
            if name not in models:
                raise IncomparableRunsError(
                    f"model {name!r} is not in the {which} run "
                    f"(it has {', '.join(map(str, models))})",
                    source=str((base if which == "base" else cand).run.run_dir),
                )
        return [(str(b), str(c))]
    shared = [m for m in bm if m in cm]
    if shared:
        return [(str(m), str(m)) for m in shared]
    if len(bm) == 1 and len(cm) == 1:
        return [(str(bm[0]), str(cm[0]))]
    raise IncomparableRunsError(
        "the runs have no model in common",
        source=f"{base.run.run_dir} vs {cand.run.run_dir}",
        hint="choose the pair with --base-model and --cand-model",
    )


def _counted(s: Summary, keys: dict[str, str]) -> pd.DataFrame:
    cases = s.cases[s.cases["counted"] > 0].reset_index()[["case", "model", "counted", "passed"]]
    cases["model"] = cases["model"].astype(str)
    cases = cases[cases["model"].isin(list(keys))]
    cases["model"] = cases["model"].map(keys)
    cases["case"] = cases["case"].astype(str)
    return cases


def _test(items: pd.DataFrame, alpha: float, seed: int) -> PairedResult:
    per_case = items.groupby("case", sort=True)[
        ["passed_b", "counted_b", "passed_c", "counted_c"]
    ].sum()
    return paired_test(
        per_case["passed_b"],
        per_case["counted_b"],
        per_case["passed_c"],
        per_case["counted_c"],
        alpha=alpha,
        seed=seed,
    )


def _check_deltas(
    runs: tuple[LoadedRun, LoadedRun],
    keys: tuple[dict[str, str], dict[str, str]],
    shared: set[tuple[str, str]],
) -> pd.DataFrame:
    """Per check and model key: failure rate over the shared items of each run."""
    sides: list[dict[tuple[str, str], list[int]]] = []
    for loaded, key in zip(runs, keys, strict=True):
        # Each row's (check, outcome) pairs from the run's numbered check sets, not its row.
        sets = loaded.check_sets
        items = [
            tuple(zip(n, o, strict=True)) for n, o in zip(sets.names, sets.outcomes, strict=True)
        ]
        f = loaded.frame
        combos = Counter(
            (key[model], items[i])
            for model, case, i in zip(
                f["model"].tolist(), f["case"].tolist(), sets.ids.tolist(), strict=True
            )
            if model in key and (key[model], case) in shared
        )
        counts: dict[tuple[str, str], list[int]] = {}
        for (model, outcomes), n in combos.items():
            for check, outcome in outcomes:
                if outcome in ("pass", "fail", "warn"):
                    c = counts.setdefault((str(check), model), [0, 0])
                    c[0] += n
                    c[1] += n if outcome != "pass" else 0
        sides.append(counts)
    rows = []
    for check, model in dict.fromkeys([*sides[0], *sides[1]]):
        (bn, bf), (cn, cf) = (s.get((check, model), [0, 0]) for s in sides)
        br, cr = (bf / bn if bn else math.nan), (cf / cn if cn else math.nan)
        rows.append([check, model, br, cr, cr - br, bn, cn])
    return pd.DataFrame(
        rows, columns=["check", "model", "base_rate", "cand_rate", "delta", "base_n", "cand_n"]
    )


def _figures(run: LoadedRun, key: dict[str, str], items: pd.DataFrame) -> pd.DataFrame:
    f = run.frame[run.frame["model"].isin(list(key))].assign(model=lambda x: x["model"].map(key))
    shared = f.merge(items[["model", "case"]], on=["model", "case"])
    prices = run_prices(run.manifest)
    return model_columns(shared, {key[m]: prices.get(m) for m in key})


def _flips(frame: pd.DataFrame) -> list[Flip]:
    return [
        Flip(str(m), str(case), f"{pb}/{nb}", f"{pc}/{nc}")
        for m, case, pb, nb, pc, nc in frame[
            ["model", "case", "passed_b", "counted_b", "passed_c", "counted_c"]
        ].itertuples(index=False)
    ]


def compare_runs(
    base: LoadedRun,
    cand: LoadedRun,
    *,
    base_model: str | None = None,
    cand_model: str | None = None,
    seed: int = 0,
) -> Comparison:
    """Compare a candidate run with a base run of the same suite, on their shared items.

    Raises:
        IncomparableRunsError: the runs are of different suites, or no model pairs up.
    """
    if base.suite != cand.suite:
        raise IncomparableRunsError(
            f"the runs are of different suites ({base.suite!r} vs {cand.suite!r})",
            source=f"{base.run_dir} vs {cand.run_dir}",
            hint="compare two runs of the same suite",
        )
    bs, cs = summarize(base), summarize(cand)
    pairs = _pair_models(bs, cs, base_model, cand_model)
    bkey = {bm: _key((bm, cm)) for bm, cm in pairs}
    ckey = {cm: _key((bm, cm)) for bm, cm in pairs}
    j = _counted(bs, bkey).merge(
        _counted(cs, ckey),
        how="outer",
        on=["model", "case"],
        suffixes=("_b", "_c"),
        indicator=True,
    )
    only_b = [(m, c) for m, c in j.loc[j["_merge"] == "left_only", ["model", "case"]].values]
    only_c = [(m, c) for m, c in j.loc[j["_merge"] == "right_only", ["model", "case"]].values]
    items = j[j["_merge"] == "both"].drop(columns="_merge").reset_index(drop=True)
    for col in ("counted_b", "passed_b", "counted_c", "passed_c"):
        items[col] = items[col].astype("int64")
    bpass = items["passed_b"] == items["counted_b"]
    cpass = items["passed_c"] == items["counted_c"]
    keys = [_key(p) for p in pairs]
    overall = PairedTest(r := _test(items, ALPHA, seed), r.p_value)
    if len(pairs) == 1:
        per_model = {keys[0]: overall}
    else:
        raw = [_test(items[items["model"] == k], ALPHA, seed) for k in keys]
        ps = [t.p_value for t in raw]
        levels, adjusted = holm_levels(ps, ALPHA), holm(ps)
        per_model = {
            k: PairedTest(_test(items[items["model"] == k], lv, seed), pa, adjusted=True)
            for k, lv, pa in zip(keys, levels, adjusted, strict=True)
        }
    shared = set(zip(items["model"], items["case"], strict=True))
    used_b, used_c = {p[0] for p in pairs}, {p[1] for p in pairs}
    return Comparison(
        base=base,
        cand=cand,
        pairs=pairs,
        overall=overall,
        per_model=per_model,
        to_fail=_flips(items[bpass & ~cpass]),
        to_pass=_flips(items[~bpass & cpass]),
        check_deltas=_check_deltas((base, cand), (bkey, ckey), shared),
        items=items,
        only_in_base=only_b,
        only_in_cand=only_c,
        unpaired_models={
            "base": [str(m) for m in bs.models.index if m not in used_b],
            "cand": [str(m) for m in cs.models.index if m not in used_c],
        },
        figures={"base": _figures(base, bkey, items), "cand": _figures(cand, ckey, items)},
        base_summary=bs,
        cand_summary=cs,
    )
