"""The CI gate: a run judged against thresholds and a committed baseline.

Every rule is evaluated and printed; the exit code is decided by the first failing rule in
this order: missing or stale recordings (3), infrastructure errors over tolerance (4), then
the quality rules (1). Nothing sensible can be judged on an incomplete run, so data problems
come first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from harness._errors import InputError
from harness._format import format_interval, format_rate
from harness.gate._baseline import Baseline
from harness.gate._complete import require_complete
from harness.gate._drop import (
    DropVerdict,
    ModelDrop,
    SharedItem,
    judge_against_baseline,
)
from harness.gate._evidence import CASE_LEVEL, NewFailures
from harness.report import LoadedRun, Summary, rerecord_hint, summarize
from harness.report._markdown import PROMPT_STALE, prompt_change_line

__all__ = ["GateConfigError", "GateResult", "RuleResult", "run_gate", "validate_options"]


class GateConfigError(InputError):
    """Gate options that make no sense (a threshold outside [0, 1], a rule with no baseline)."""


@dataclass(frozen=True, slots=True)
class RuleResult:
    """One rule's verdict."""

    rule: str
    """The rule (its option name without dashes, or ``recordings``)."""
    ok: bool
    """True when the rule holds."""
    exit_code: int
    """The exit code this rule gives when it fails."""
    message: str
    """What was measured against what, and by how much it passed or failed."""
    details: list[str] = field(default_factory=list)
    """Items behind a failure (models, cases), worst first (at most ``DETAILS``)."""
    more: int = 0
    """Items behind the failure beyond ``details`` (not listed)."""

    def to_dict(self) -> dict[str, Any]:
        """The rule as JSON."""
        return {
            "rule": self.rule,
            "ok": self.ok,
            "exit_code": self.exit_code,
            "message": self.message,
            "details": self.details,
            "more": self.more,
        }


@dataclass(frozen=True)
class GateResult:
    """All rules and the decision."""

    rules: list[RuleResult]
    """Every rule evaluated, in precedence order."""

    @property
    def decided_by(self) -> RuleResult | None:
        """The first failing rule (by precedence), or None when every rule holds."""
        return next((r for r in self.rules if not r.ok), None)

    @property
    def exit_code(self) -> int:
        """0 when every rule holds, else the deciding rule's code."""
        d = self.decided_by
        return 0 if d is None else d.exit_code


def _pts(x: float) -> str:
    return f"{abs(x) * 100:.1f} points"


def _check_fraction(name: str, value: float | None) -> None:
    if value is not None and (math.isnan(value) or not 0.0 <= value <= 1.0):
        raise GateConfigError(
            f"{name} must be a fraction between 0 and 1, got {value:g}",
            hint=f"e.g. {name} 0.8 for 80%",
        )


def validate_options(
    min_pass_rate: float | None, max_drop: float | None, max_infra_errors: int, max_missing: int = 0
) -> None:
    """Refuse thresholds outside [0, 1] and a negative tolerance (GateConfigError)."""
    _check_fraction("--min-pass-rate", min_pass_rate)
    _check_fraction("--max-drop", max_drop)
    if max_infra_errors < 0:
        raise GateConfigError(f"--max-infra-errors must be 0 or more, got {max_infra_errors}")
    if max_missing < 0:
        raise GateConfigError(f"--max-missing must be 0 or more, got {max_missing}")


DETAILS = 20
"""Items a failing rule lists (``more`` counts the rest)."""


def _recordings(s: Summary, tolerance: int) -> RuleResult:
    nc = s.not_counted
    bad = nc[nc["status"].isin(("missing", "stale"))]
    n = len(bad)
    allowed = "none tolerated" if tolerance == 0 else f"tolerance {tolerance}"
    if n <= tolerance:
        what = "no missing or stale recordings" if n == 0 else f"{n} missing or stale recordings"
        return RuleResult("recordings", True, 3, f"{what} ({allowed})")
    counts = bad["status"].value_counts()
    changed = prompt_change_line(s)
    prompt = bad["detail"].fillna("").str.startswith(PROMPT_STALE) & (bad["status"] == "stale")
    listed = bad[~prompt]
    details = [
        f"{r.model} / {r.case} / sample {r.sample}: {r.status}"
        for r in listed.head(DETAILS).itertuples()
    ]
    over = f", over by {n - tolerance}" if tolerance else ""
    head = (
        f"{int(counts.get('missing', 0))} missing and {int(counts.get('stale', 0))} stale "
        f"recordings ({allowed}{over}); "
    )
    if changed and listed.empty:  # one line for a prompt change, not one per row
        return RuleResult("recordings", False, 3, head + changed[0].lower() + changed[1:])
    hint = rerecord_hint(s.run.manifest, bad["model"].astype(str), s.run.run_dir)
    return RuleResult(
        "recordings",
        False,
        3,
        head + hint + (f"; {changed[0].lower()}{changed[1:]}" if changed else ""),
        details,
        more=max(0, len(listed) - DETAILS),
    )


def _infra(s: Summary, tolerance: int) -> RuleResult:
    n = int(s.total["error"])
    ok = n <= tolerance
    nc = s.not_counted
    errors = nc[nc["status"] == "error"]
    details = [
        f"{r.model} / {r.case} / sample {r.sample}: {r.detail or 'error'}"
        for r in errors.head(DETAILS).itertuples()
    ]
    verb = "within" if ok else "over"
    return RuleResult(
        "max-infra-errors",
        ok,
        4,
        f"{n} infrastructure error row(s), {verb} the tolerance of {tolerance}"
        + ("" if ok else f" (by {n - tolerance})"),
        [] if ok else details,
        more=0 if ok else max(0, len(errors) - DETAILS),
    )


def _min_rate(s: Summary, threshold: float) -> RuleResult:
    m = s.models[s.models["counted"] > 0]
    if m.empty:
        return RuleResult("min-pass-rate", False, 1, "no model has a counted result to judge")
    worst = m.sort_values("rate").iloc[0]
    name = str(m.sort_values("rate").index[0])
    below = m[m["rate"] < threshold].sort_values("rate")
    details = [
        f"{model}: {format_rate(r['passed'], r['counted'])} "
        f"(95% CI {format_interval(r['low'], r['high'])}, clustered by case), "
        f"short by {_pts(threshold - r['rate'])}"
        for model, r in below.iterrows()
    ]
    margin = float(worst["rate"]) - threshold
    if below.empty:
        msg = (
            f"lowest pass rate {format_rate(worst['passed'], worst['counted'])} ({name}) "
            f">= {threshold * 100:.1f}% "
            f"(margin {_pts(margin)})"
        )
        return RuleResult("min-pass-rate", True, 1, msg)
    msg = (
        f"{len(below)} model(s) below {threshold * 100:.1f}%; worst {name} at "
        f"{format_rate(worst['passed'], worst['counted'])}, short by {_pts(margin)}"
    )
    return RuleResult("min-pass-rate", False, 1, msg, details)


def _shared_items(s: Summary, base: Baseline) -> tuple[list[SharedItem], int]:
    """The (model, case) items both the baseline and the run counted, and how many the
    baseline holds that the run has at all (counted or not)."""
    items: list[SharedItem] = []
    shared = 0
    cache: dict[str, dict[str, tuple[int, int]]] = {}
    for (case, model), r in s.cases.iterrows():
        if str(model) not in cache:
            cache[str(model)] = base.cases(str(model))
        bc = cache[str(model)].get(str(case))
        if bc is None:
            continue
        shared += 1
        if bc[1] > 0 and r["counted"] > 0:
            items.append((str(model), str(case), bc, (int(r["passed"]), int(r["counted"]))))
    return items, shared


def _nothing_shared(rule: str, shared: int) -> RuleResult:
    """A regression rule that compares nothing must not pass."""
    if shared:
        why = (
            f"{shared} model x case item(s) are in the baseline and the run, but none was "
            "counted in the run (all missing, stale or error): nothing to compare"
        )
    else:
        why = "no model and case shared with the baseline: nothing to compare"
    return RuleResult(rule, False, 1, why)


def _max_drop(verdict: DropVerdict, shared: int) -> RuleResult:
    if not verdict.models:
        return _nothing_shared("max-drop", shared)
    limit, level = verdict.limit, verdict.level
    failing = verdict.failed_models()
    worst = failing[0] if failing else verdict.models[0]

    def head(m: ModelDrop) -> str:
        return (
            f"{m.model}: {m.test.base_rate * 100:.1f}% -> {m.test.cand_rate * 100:.1f}% "
            f"on {m.cases} shared cases"
        )

    def evidence(m: ModelDrop) -> str:
        p = f"{m.test_name}: one-sided p={m.p_adjusted:.2g}"
        if len(verdict.models) > 1:
            p += " Holm-adjusted"
        return p

    if failing:
        details = [
            f"{head(m)} (drop {_pts(m.drop)}, at least {_pts(max(0.0, m.drop_at_least))} "
            f"with {(1 - m.holm_level) * 100:.4g}% confidence; {evidence(m)})"
            for m in failing
        ]
        return RuleResult(
            "max-drop",
            False,
            1,
            f"{head(worst)}: a drop of {_pts(worst.drop)}, over the allowed {_pts(limit)} by "
            f"{_pts(worst.drop - limit)}, and beyond chance ({evidence(worst)} < {level:g})",
            details,
        )
    over = verdict.over_limit()
    if over:
        m = over[0]
        return RuleResult(
            "max-drop",
            True,
            1,
            f"largest drop {_pts(m.drop)} ({head(m)}) is over {_pts(limit)} but within "
            f"chance ({evidence(m)} >= {level:g}): two runs of one planner differ this much; "
            "more cases or --samples would tell",
        )
    word = "drop" if worst.drop > 0 else "rise" if worst.drop < 0 else "change"
    return RuleResult(
        "max-drop",
        True,
        1,
        f"largest {word} {_pts(worst.drop)} ({head(worst)}) within {_pts(limit)} "
        f"(margin {_pts(limit - worst.drop)})",
    )


def _new_failures(verdict: NewFailures, items: list[SharedItem], shared: int) -> RuleResult:
    rule = "no-new-failures"
    if not items:  # a wrong baseline or renamed cases: passing would gate nothing
        return _nothing_shared(rule, shared)
    flagged, weaker, level = verdict.flagged, verdict.weaker, verdict.level
    if verdict.failed:
        return RuleResult(
            rule,
            False,
            1,
            f"{len(flagged)} new failure(s) (every baseline sample passed; exact one-sided "
            f"Fisher p <= {CASE_LEVEL:g} each), more than chance explains (P(>= {len(flagged)} "
            f"by chance) = {verdict.chance:.2g} <= {level:g}, a Poisson-binomial count, not "
            "compare's paired test of the overall rate, which a few broken cases barely move); "
            f"first: {flagged[0].describe()}",
            [e.describe() for e in flagged],
        )
    dropped = len(flagged) + len(weaker)
    if not verdict.possible:
        samples = max((bn for _, _, (_, bn), _ in items), default=0)
        return RuleResult(
            rule,
            True,
            1,
            f"no case can show a new failure with {samples} baseline sample(s) per case (even "
            f"0 passes now would give p > {CASE_LEVEL:g}); {dropped} case(s) passing every "
            "baseline sample fail some now: use --max-drop, or more --samples",
        )
    if not flagged:
        return RuleResult(
            rule,
            True,
            1,
            f"no new failure on evidence: {dropped} case(s) passing every baseline sample "
            f"fail some sample now, none at p <= {CASE_LEVEL:g}",
        )
    return RuleResult(
        rule,
        True,
        1,
        f"{len(flagged)} case(s) at p <= {CASE_LEVEL:g}, as many as chance gives "
        f"(P(>= {len(flagged)} by chance) = {verdict.chance:.2g} > {level:g}; "
        f"{verdict.expected:.1f} expected)",
    )


def run_gate(
    run: LoadedRun,
    *,
    min_pass_rate: float | None = None,
    max_drop: float | None = None,
    no_new_failures: bool = False,
    max_infra_errors: int = 0,
    max_missing: int = 0,
    baseline: Baseline | None = None,
) -> GateResult:
    """Judge a run.

    Raises:
        GateConfigError: a threshold outside [0, 1], a negative tolerance, a baseline rule
            without a baseline, or a baseline of another suite.
        IncompleteRunError: the run was interrupted or lacks rows (see ``completeness``).
    """
    validate_options(min_pass_rate, max_drop, max_infra_errors, max_missing)
    require_complete(run, what="gate")
    needs_base = max_drop is not None or no_new_failures
    if needs_base and baseline is None:
        raise GateConfigError(
            "--max-drop and --no-new-failures need a baseline",
            hint="write one with `planeval baseline RUN` or pass --baseline PATH",
        )
    if baseline is not None and needs_base and baseline.suite != run.suite:
        raise GateConfigError(
            f"the baseline is of suite {baseline.suite!r}, the run of {run.suite!r}",
            source=baseline.path,
            hint="pass the baseline of this suite with --baseline",
        )
    s = summarize(run)
    rules = [_recordings(s, max_missing), _infra(s, max_infra_errors)]
    if min_pass_rate is not None:
        rules.append(_min_rate(s, min_pass_rate))
    if baseline is not None and needs_base:
        items, shared = _shared_items(s, baseline)
        judged = judge_against_baseline(items, max_drop=max_drop, no_new_failures=no_new_failures)
        if judged.drops is not None:
            rules.append(_max_drop(judged.drops, shared))
        if judged.new_failures is not None:
            rules.append(_new_failures(judged.new_failures, items, shared))
    return GateResult(rules)
