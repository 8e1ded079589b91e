"""Gate rules on metrics: ``--min-metric NAME=VALUE`` / ``--max-metric NAME=VALUE``.

Every model's mean of the metric (unparseable answers counted by ``--unparseable``, zero by
default) must reach the bound; a model that has no value for it fails the rule. Exit code 1.
"""

from __future__ import annotations

import difflib
import math

from harness.gate._gate import GateConfigError, RuleResult
from harness.metrics import Convention
from harness.report import LoadedRun
from harness.report._metrics import metric_values
from harness.report._scan import metric_rows

__all__ = ["metric_rules", "parse_bounds"]


def parse_bounds(values: list[str], option: str) -> dict[str, float]:
    """``["worfbench.f1_chain=0.6"]`` -> ``{"worfbench.f1_chain": 0.6}``.

    Raises:
        GateConfigError: not ``NAME=VALUE``, or a value outside [0, 1].
    """
    out: dict[str, float] = {}
    for text in values:
        name, sep, number = text.partition("=")
        try:
            value = float(number)
        except ValueError:
            value = math.nan
        if not sep or not name.strip() or math.isnan(value):
            raise GateConfigError(
                f"{option} takes NAME=VALUE, got {text!r}",
                hint=f"e.g. {option} worfbench.f1_chain=0.6",
            )
        if not 0.0 <= value <= 1.0:
            raise GateConfigError(f"{option} {name}: the bound must lie in [0, 1], got {value:g}")
        out[name.strip()] = value
    return out


def metric_rules(
    run: LoadedRun,
    *,
    minimum: dict[str, float],
    maximum: dict[str, float],
    convention: Convention = "zero",
) -> list[RuleResult]:
    """One rule per bound.

    Raises:
        GateConfigError: a metric that no row of the run has (with the nearest names).
    """
    values = metric_values(metric_rows(run), convention)
    known = sorted({metric for _, metric in values})
    rules = []
    for option, bounds, below in (("min-metric", minimum, True), ("max-metric", maximum, False)):
        for name, bound in bounds.items():
            if name not in known:
                near = difflib.get_close_matches(name, known, n=3)
                hint = (
                    f"did you mean {', '.join(near)}?"
                    if near
                    else (
                        f"the run's metrics: {', '.join(known)}"
                        if known
                        else "the run has no metric columns: its cases have no reference plans"
                    )
                )
                raise GateConfigError(f"--{option} {name}: no row of the run has it", hint=hint)
            rules.append(_rule(option, name, bound, below, values, convention))
    return rules


def _rule(
    option: str,
    name: str,
    bound: float,
    below: bool,
    values: dict[tuple[str, str], list[tuple[str, float]]],
    convention: str,
) -> RuleResult:
    means = {
        model: math.fsum(v for _, v in pairs) / len(pairs)
        for (model, metric), pairs in values.items()
        if metric == name and pairs
    }
    failing = sorted(
        (m for m, x in means.items() if (x < bound if below else x > bound)),
        key=lambda m: means[m] if below else -means[m],
    )
    relation = "at least" if below else "at most"
    shown = ", ".join(f"{m} {x:.3f}" for m, x in sorted(means.items()))
    message = f"{name} mean (unparseable: {convention}) must be {relation} {bound:g}: {shown}"
    details = [f"{m}: {means[m]:.3f}" for m in failing]
    return RuleResult(f"{option} {name}", not failing, 1, message, details)
