"""Comparing two runs of one suite: flips, per-check deltas and a paired significance test.

Pairs are (model, case) items present, with at least one counted sample, in both runs. With one
sample per item the test is an exact McNemar test on pass/fail; with several, a paired
bootstrap over cases of the pass-rate difference. Items present in only one run are listed,
never compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from harness._errors import InputError
from harness.report import LoadedRun, Summary, summarize
from harness.stats import mcnemar_exact, paired_bootstrap

__all__ = [
    "ALPHA",
    "Comparison",
    "Flip",
    "IncomparableRunsError",
    "PairedTest",
    "compare_runs",
]

ALPHA = 0.05
"""Significance level of every verdict."""

Verdict = Literal["better", "worse", "no significant difference"]


class IncomparableRunsError(InputError):
    """Two runs that cannot be compared (different suites, no model in common, ...)."""


@dataclass(frozen=True, slots=True)
class Flip:
    """A (model, case) whose outcome changed between the runs."""

    model: str
    """The model id (the candidate's when models are paired by name)."""
    case: str
    """The case id."""
    base: str
    """Passed / counted samples in the base run, e.g. ``3/3``."""
    cand: str
    """Passed / counted samples in the candidate run."""


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A paired test of candidate against base on shared items."""

    method: Literal["mcnemar-exact", "paired-bootstrap"]
    """Which test was used."""
    n: int
    """Paired items compared."""
    base_rate: float
    """Mean base pass rate over the paired items."""
    cand_rate: float
    """Mean candidate pass rate over the paired items."""
    difference: float
    """``cand_rate - base_rate``."""
    low: float
    """Lower end of a 95% interval for the difference."""
    high: float
    """Upper end of a 95% interval for the difference."""
    p_value: float
    """Two-sided p-value for no difference."""
    smallest_detectable: float
    """Rough smallest difference this many items could detect (5% level, 80% power)."""
    pass_to_fail: int = 0
    """McNemar: items passing in base and failing in candidate."""
    fail_to_pass: int = 0
    """McNemar: items failing in base and passing in candidate."""

    @property
    def verdict(self) -> Verdict:
        """better / worse / no significant difference, at ``ALPHA``."""
        if self.n == 0 or not self.p_value < ALPHA or self.difference == 0:
            return "no significant difference"
        return "better" if self.difference > 0 else "worse"

    @property
    def verdict_text(self) -> str:
        """The verdict as one honest phrase."""
        if self.verdict != "no significant difference":
            return (
                f"{self.verdict} ({self.difference * 100:+.1f} points, p={self.p_value:.3g}, "
                f"n={self.n})"
            )
        if self.n == 0:
            return "no significant difference (n=0: nothing to compare)"
        return (
            f"no significant difference (n={self.n}, smallest detectable difference "
            f"~{self.smallest_detectable * 100:.0f} points)"
        )

    def to_dict(self) -> dict[str, Any]:
        """The test as JSON."""
        return {
            "method": self.method,
            "n": self.n,
            "base_rate": _num(self.base_rate),
            "cand_rate": _num(self.cand_rate),
            "difference": _num(self.difference),
            "ci95": [_num(self.low), _num(self.high)],
            "p_value": _num(self.p_value),
            "smallest_detectable_difference": _num(self.smallest_detectable),
            "pass_to_fail": self.pass_to_fail,
            "fail_to_pass": self.fail_to_pass,
            "verdict": self.verdict,
            "verdict_text": self.verdict_text,
        }


def _num(x: float) -> float | None:
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
    """The test over every paired item."""
    per_model: dict[str, PairedTest]
    """The test per model pair, keyed ``base`` or ``base -> cand``."""
    to_fail: list[Flip]
    """Items that passed every counted sample in base and not in the candidate."""
    to_pass: list[Flip]
    """Items that did not pass every sample in base and do in the candidate."""
    check_deltas: pd.DataFrame
    """Columns check, model, base_rate, cand_rate, delta, base_n, cand_n (failure rates)."""
    only_in_base: list[tuple[str, str]] = field(default_factory=list)
    """(model, case) items counted in base only: listed, not compared."""
    only_in_cand: list[tuple[str, str]] = field(default_factory=list)
    """(model, case) items counted in the candidate only: listed, not compared."""
    unpaired_models: dict[str, list[str]] = field(default_factory=dict)
    """``{"base": [...], "cand": [...]}``: models of one run that were not compared."""


def _key(pair: tuple[str, str]) -> str:
    return pair[0] if pair[0] == pair[1] else f"{pair[0]} -> {pair[1]}"


def _mdd(n: int, spread: float) -> float:
    """Smallest detectable difference: 2.8 standard errors (5% two-sided, 80% power), and no
    less than what six items all moving one way would show (the exact test's floor)."""
    if n == 0:
        return math.nan
    return min(1.0, max(6 / n, 2.8 * spread))


def _test(items: pd.DataFrame, single: bool, seed: int) -> PairedTest:
    n = len(items)
    if n == 0:
        nan = math.nan
        return PairedTest(
            "mcnemar-exact" if single else "paired-bootstrap", 0, nan, nan, nan, nan, nan, 1.0, nan
        )
    base, cand = items["base_rate"].to_numpy(), items["cand_rate"].to_numpy()
    b_rate, c_rate = float(base.mean()), float(cand.mean())
    diff = c_rate - b_rate
    if single:
        b = int(np.count_nonzero((base == 1) & (cand == 0)))
        c = int(np.count_nonzero((base == 0) & (cand == 1)))
        p = mcnemar_exact(b, c)
        var = max(0.0, (b + c) - (c - b) ** 2 / n) / (n * n)
        half = 1.959963984540054 * math.sqrt(var)
        mdd = _mdd(n, math.sqrt(((b + c) / n) / n))
        return PairedTest(
            "mcnemar-exact", n, b_rate, c_rate, diff, diff - half, diff + half, p, mdd, b, c
        )
    d = items.assign(d=cand - base).groupby("case", sort=False)["d"].agg(["sum", "size"])
    boot = paired_bootstrap(d["sum"].to_numpy(), d["size"].to_numpy(), seed=seed)
    mdd = _mdd(n, boot.se if not math.isnan(boot.se) else 0.0)
    return PairedTest(
        "paired-bootstrap", n, b_rate, c_rate, diff, boot.low, boot.high, boot.p_value, mdd
    )


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


def _items(frame: pd.DataFrame, names: dict[str, str]) -> list[tuple[str, str]]:
    return [(names[m], str(c)) for m, c in zip(frame["model"], frame["case"], strict=True)]


def _flips(frame: pd.DataFrame, ckey: dict[str, str]) -> list[Flip]:
    names = {v: k for k, v in ckey.items()}
    return [
        Flip(names[m], str(case), f"{pb}/{nb}", f"{pc}/{nc}")
        for m, case, pb, nb, pc, nc in zip(
            frame["model"],
            frame["case"],
            frame["passed_b"],
            frame["counted_b"],
            frame["passed_c"],
            frame["counted_c"],
            strict=True,
        )
    ]


def compare_runs(
    base: LoadedRun,
    cand: LoadedRun,
    *,
    base_model: str | None = None,
    cand_model: str | None = None,
    seed: int = 0,
) -> Comparison:
    """Compare a candidate run with a base run of the same suite.

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
    b = _counted(bs, bkey)
    c = _counted(cs, ckey)
    j = b.merge(c, how="outer", on=["model", "case"], suffixes=("_b", "_c"), indicator=True)
    only_b = _items(j[j["_merge"] == "left_only"], {v: k for k, v in bkey.items()})
    only_c = _items(j[j["_merge"] == "right_only"], {v: k for k, v in ckey.items()})
    items = j[j["_merge"] == "both"].copy()
    for col in ("counted_b", "passed_b", "counted_c", "passed_c"):
        items[col] = items[col].astype("int64")
    items["base_rate"] = items["passed_b"] / items["counted_b"]
    items["cand_rate"] = items["passed_c"] / items["counted_c"]
    bpass = items["passed_b"] == items["counted_b"]
    cpass = items["passed_c"] == items["counted_c"]
    to_fail = _flips(items[bpass & ~cpass], ckey)
    to_pass = _flips(items[~bpass & cpass], ckey)
    single = bool(
        len(items) == 0 or (items["counted_b"].max() <= 1 and items["counted_c"].max() <= 1)
    )
    overall = _test(items, single, seed)
    per_model = (
        {_key(p): _test(items[items["model"] == _key(p)], single, seed) for p in pairs}
        if len(pairs) > 1
        else {_key(pairs[0]): overall}
    )
    bchecks: dict[Any, dict[str, Any]] = bs.checks[["rate", "evaluated"]].to_dict("index")
    cchecks: dict[Any, dict[str, Any]] = cs.checks[["rate", "evaluated"]].to_dict("index")
    names = list(dict.fromkeys([k[0] for k in bchecks] + [k[0] for k in cchecks]))
    deltas = []
    for bm, cm in pairs:
        for check in names:
            br, cr = bchecks.get((check, bm)), cchecks.get((check, cm))
            b_rate = float(br["rate"]) if br is not None else math.nan
            c_rate = float(cr["rate"]) if cr is not None else math.nan
            deltas.append(
                {
                    "check": str(check),
                    "model": _key((bm, cm)),
                    "base_rate": b_rate,
                    "cand_rate": c_rate,
                    "delta": c_rate - b_rate,
                    "base_n": int(br["evaluated"]) if br is not None else 0,
                    "cand_n": int(cr["evaluated"]) if cr is not None else 0,
                }
            )
    check_deltas = pd.DataFrame(
        deltas, columns=["check", "model", "base_rate", "cand_rate", "delta", "base_n", "cand_n"]
    )
    used_b = {p[0] for p in pairs}
    used_c = {p[1] for p in pairs}
    unpaired = {
        "base": [str(m) for m in bs.models.index if m not in used_b],
        "cand": [str(m) for m in cs.models.index if m not in used_c],
    }
    return Comparison(
        base,
        cand,
        pairs,
        overall,
        per_model,
        to_fail,
        to_pass,
        check_deltas,
        only_b,
        only_c,
        unpaired,
    )
