"""``planeval gate RUN...``: the CI verdict against thresholds and each suite's baseline."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._output import fail_input, print_json, say_error
from harness._errors import InputError

if TYPE_CHECKING:
    from harness.gate import GateResult

# Across runs, like across rules: unusable input, then missing rows, infrastructure, quality.
_PRECEDENCE = (ExitCode.INPUT, ExitCode.STALE, ExitCode.INFRA, ExitCode.FAILED, ExitCode.OK)


@dataclass
class _Options:
    min_pass_rate: float | None
    max_drop: float | None
    no_new_failures: bool
    max_infra_errors: int
    max_missing: int
    baseline: Path | None
    min_metric: dict[str, float] = field(default_factory=dict)
    max_metric: dict[str, float] = field(default_factory=dict)
    unparseable: str = "zero"


@dataclass
class _Verdict:
    """One run's outcome: a gate result, or the one-line reason it could not be judged."""

    run: Path
    exit_code: int
    suite: str | None = None
    baseline: str | None = None
    result: GateResult | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        decided = self.result.decided_by if self.result else None
        return {
            "run": str(self.run),
            "suite": self.suite,
            "baseline": self.baseline,
            "exit_code": self.exit_code,
            "decided_by": decided.rule if decided else None,
            "error": self.error,
            "rules": [r.to_dict() for r in self.result.rules] if self.result else [],
            "warnings": self.warnings,
        }


def gate_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN...",
            help="Run folders to judge, or a folder of them (one per suite).",
            show_default=False,
        ),
    ],
    min_pass_rate: Annotated[
        float | None,
        typer.Option(
            "--min-pass-rate", metavar="RATE", help="Every model's pass rate must reach RATE (0-1)."
        ),
    ] = None,
    max_drop: Annotated[
        float | None,
        typer.Option(
            "--max-drop",
            metavar="RATE",
            help="Largest pass-rate drop allowed against the baseline (0-1).",
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="PATH",
            help="A baseline file, or a folder of <suite>.json (default: reports/baselines/).",
        ),
    ] = None,
    no_new_failures: Annotated[
        bool,
        typer.Option(
            "--no-new-failures",
            help="Fail on cases that newly fail beyond chance (docs/ci.md: the evidence rule).",
        ),
    ] = False,
    max_infra_errors: Annotated[
        int,
        typer.Option("--max-infra-errors", metavar="N", help="Error rows tolerated."),
    ] = 0,
    max_missing: Annotated[
        int,
        typer.Option("--max-missing", metavar="N", help="Missing or stale rows tolerated."),
    ] = 0,
    min_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--min-metric",
            metavar="NAME=VALUE",
            help="Every model's mean of metric NAME must reach VALUE (repeatable).",
        ),
    ] = None,
    max_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--max-metric",
            metavar="NAME=VALUE",
            help="Every model's mean of metric NAME must stay under VALUE (repeatable).",
        ),
    ] = None,
    unparseable: Annotated[
        str,
        typer.Option(
            "--unparseable",
            metavar="zero|exclude",
            help="Metrics: unparseable answers count as zero or are left out (exclude).",
        ),
    ] = "zero",
    fmt: Annotated[
        str, typer.Option("--format", metavar="text|json", help="What to print.")
    ] = "text",
    comment: Annotated[
        Path | None,
        typer.Option(
            "--comment",
            metavar="FILE",
            help="Also write the pull-request comment: the verdict and deciding rule first, "
            "then each run's summary.md, under GitHub's size limit.",
        ),
    ] = None,
) -> None:
    """Judge runs against thresholds and each suite's baseline: the CI verdict.

    Exit 0 pass, 1 regression, 2 unusable input, 3 missing or stale recordings or an
    incomplete run, 4 infrastructure errors. With several runs, the worst in that order
    (2, 3, 4, 1).
    """
    if fmt not in ("text", "json"):
        fail_input(f"--format must be text or json, not {fmt!r}")
    from harness.gate import run_folders, validate_options
    from harness.gate._metrics import parse_bounds

    if unparseable not in ("zero", "exclude"):
        fail_input(f"--unparseable must be zero or exclude, not {unparseable!r}")
    try:
        validate_options(min_pass_rate, max_drop, max_infra_errors, max_missing)
        lower = parse_bounds(min_metric or [], "--min-metric")
        upper = parse_bounds(max_metric or [], "--max-metric")
        folders = run_folders(runs)
    except InputError as exc:
        fail_input(exc)
    options = _Options(
        min_pass_rate,
        max_drop,
        no_new_failures,
        max_infra_errors,
        max_missing,
        baseline,
        lower,
        upper,
        unparseable,
    )
    verdicts = [_judge(folder, options) for folder in folders]
    code = next(c for c in _PRECEDENCE if any(v.exit_code == c for v in verdicts))
    if comment is not None:
        _write_comment(comment, verdicts, int(code))
    if fmt == "json":
        for verdict in verdicts:
            if verdict.error:
                say_error(verdict.error)
        if len(verdicts) == 1:
            print_json(verdicts[0].to_dict())
        else:
            print_json({"exit_code": int(code), "runs": [v.to_dict() for v in verdicts]})
        raise typer.Exit(code)
    if min_pass_rate is None and max_drop is None and not no_new_failures and not lower | upper:
        typer.echo(
            "note: no quality rule given (--min-pass-rate, --max-drop, --no-new-failures, "
            "--min-metric)"
        )
    for verdict in verdicts:
        _print(verdict, several=len(verdicts) > 1)
    if len(verdicts) > 1:
        worst = next(v for v in verdicts if v.exit_code == code)
        passed = sum(v.exit_code == 0 for v in verdicts)
        what = "PASS" if code == 0 else "FAIL"
        typer.echo(
            f"gate: {what} (exit {int(code)}): {passed} of {len(verdicts)} runs pass"
            + ("" if code == 0 else f"; decided by {worst.suite or worst.run}")
        )
    raise typer.Exit(code)


def _write_comment(path: Path, verdicts: list[_Verdict], code: int) -> None:
    """The comment file; a file that cannot be written is a warning (the verdict stands)."""
    from harness._atomic import atomic_write_text
    from harness.gate._comment import SuiteVerdict, pull_request_comment

    def summary(run: Path) -> str | None:
        try:
            return (run / "summary.md").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    text = pull_request_comment(
        [
            SuiteVerdict(v.suite or str(v.run), v.exit_code, v.result, v.error, summary(v.run))
            for v in verdicts
        ],
        code,
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except OSError as exc:
        say_error(f"warning: cannot write the comment to {path} ({exc}); the verdict stands")


def _judge(folder: Path, o: _Options) -> _Verdict:
    """Gate one run; unusable input and incomplete runs become a verdict, not an exit."""
    from harness.gate import IncompleteRunError, baseline_path, load_baseline, run_gate
    from harness.report import load_run

    base = None
    suite = None
    try:
        loaded = load_run(folder)
        suite = loaded.suite
        if o.max_drop is not None or o.no_new_failures:
            base = load_baseline(baseline_path(loaded.suite, o.baseline, loaded.run_dir))
        result = run_gate(
            loaded,
            min_pass_rate=o.min_pass_rate,
            max_drop=o.max_drop,
            no_new_failures=o.no_new_failures,
            max_infra_errors=o.max_infra_errors,
            max_missing=o.max_missing,
            baseline=base,
        )
        if o.min_metric or o.max_metric:
            from harness.gate import GateResult
            from harness.gate._metrics import metric_rules

            extra = metric_rules(
                loaded,
                minimum=o.min_metric,
                maximum=o.max_metric,
                convention=o.unparseable,  # type: ignore[arg-type]
            )
            result = GateResult([*result.rules, *extra])
    except IncompleteRunError as exc:
        return _Verdict(folder, ExitCode.STALE, suite=suite, error=exc.one_line())
    except InputError as exc:
        return _Verdict(folder, ExitCode.INPUT, error=exc.one_line())
    return _Verdict(
        loaded.run_dir,
        result.exit_code,
        suite=loaded.suite,
        baseline=base.path if base else None,
        result=result,
        warnings=loaded.warnings,
    )


def _print(v: _Verdict, *, several: bool) -> None:
    if several:
        typer.echo(f"== {v.suite or '?'} ({v.run})")
    for warning in v.warnings:
        typer.echo(f"planeval: warning: {warning}", err=True)
    if v.result is None:
        say_error(v.error or "unusable run")
        if several:
            typer.echo(f"{v.suite or v.run}: not judged (exit {v.exit_code}): {v.error}")
        return
    for r in v.result.rules:
        typer.echo(f"{'ok  ' if r.ok else 'FAIL'} {r.rule}: {r.message}")
        for d in r.details[:10]:
            typer.echo(f"       {d}")
        more = max(0, len(r.details) - 10) + r.more
        if more:
            typer.echo(f"       …and {more} more")
    decided = v.result.decided_by
    name = f"{v.suite}: " if several else ""
    if decided is None:
        typer.echo(f"{name}gate: PASS (exit 0): all {len(v.result.rules)} rules hold")
    else:
        typer.echo(
            f"{name}gate: FAIL (exit {decided.exit_code}) decided by {decided.rule}: "
            f"{decided.message}"
        )
