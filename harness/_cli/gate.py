"""``planeval gate RUN``: the CI verdict against thresholds and a committed baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness._cli._output import fail_input, print_json
from harness._errors import InputError


def gate_command(
    run: Annotated[Path, typer.Argument(help="The run folder to judge.")],
    min_pass_rate: Annotated[
        float | None,
        typer.Option("--min-pass-rate", help="Every model's pass rate must reach this (0-1)."),
    ] = None,
    max_drop: Annotated[
        float | None,
        typer.Option("--max-drop", help="Largest pass-rate drop allowed against the baseline."),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="Baseline file (default: reports/baseline.json)."),
    ] = None,
    no_new_failures: Annotated[
        bool,
        typer.Option("--no-new-failures", help="No case passing in the baseline may fail."),
    ] = False,
    max_infra_errors: Annotated[
        int, typer.Option("--max-infra-errors", help="Error rows tolerated (default 0).")
    ] = 0,
    max_missing: Annotated[
        int,
        typer.Option("--max-missing", help="Missing or stale rows tolerated (default 0)."),
    ] = 0,
    min_metric: Annotated[
        list[str] | None,
        typer.Option("--min-metric", help="NAME=VALUE: every model's metric mean must reach it."),
    ] = None,
    max_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--max-metric", help="NAME=VALUE: every model's metric mean must stay under it."
        ),
    ] = None,
    unparseable: Annotated[
        str,
        typer.Option(
            "--unparseable",
            help="Metrics: unparseable answers count as zero or are left out (exclude).",
        ),
    ] = "zero",
    fmt: Annotated[str, typer.Option("--format", help="text | json.")] = "text",
) -> None:
    """Exit 0 pass, 1 regression, 2 unusable input, 3 missing or stale, 4 infra errors."""
    if fmt not in ("text", "json"):
        fail_input(f"--format must be text or json, not {fmt!r}")
    from harness.gate import default_baseline_path, load_baseline, run_gate, validate_options
    from harness.gate._gate import GateResult
    from harness.gate._metrics import metric_rules, parse_bounds
    from harness.report import load_run

    if unparseable not in ("zero", "exclude"):
        fail_input(f"--unparseable must be zero or exclude, not {unparseable!r}")
    try:
        validate_options(min_pass_rate, max_drop, max_infra_errors, max_missing)
        lower = parse_bounds(min_metric or [], "--min-metric")
        upper = parse_bounds(max_metric or [], "--max-metric")
        loaded = load_run(run)
        for warning in loaded.warnings:
            typer.echo(f"planeval: warning: {warning}", err=True)
        base = None
        if max_drop is not None or no_new_failures:
            base = load_baseline(baseline or default_baseline_path(loaded.run_dir))
        result = run_gate(
            loaded,
            min_pass_rate=min_pass_rate,
            max_drop=max_drop,
            no_new_failures=no_new_failures,
            max_infra_errors=max_infra_errors,
            max_missing=max_missing,
            baseline=base,
        )
        if lower or upper:
            extra = metric_rules(loaded, minimum=lower, maximum=upper, convention=unparseable)  # type: ignore[arg-type]
            result = GateResult([*result.rules, *extra])
    except InputError as exc:
        fail_input(exc)
    decided = result.decided_by
    if fmt == "json":
        print_json(
            {
                "run": str(loaded.run_dir),
                "suite": loaded.suite,
                "baseline": base.path if base else None,
                "exit_code": result.exit_code,
                "decided_by": decided.rule if decided else None,
                "rules": [r.to_dict() for r in result.rules],
                "warnings": loaded.warnings,
            }
        )
        raise typer.Exit(result.exit_code)
    if min_pass_rate is None and max_drop is None and not no_new_failures and not (lower or upper):
        typer.echo(
            "note: no quality rule given (--min-pass-rate, --max-drop, --no-new-failures, "
            "--min-metric)"
        )
    for r in result.rules:
        typer.echo(f"{'ok  ' if r.ok else 'FAIL'} {r.rule}: {r.message}")
        for d in r.details[:10]:
            typer.echo(f"       {d}")
        if len(r.details) > 10:
            typer.echo(f"       …and {len(r.details) - 10} more")
    if decided is None:
        typer.echo(f"gate: PASS (exit 0): all {len(result.rules)} rules hold")
    else:
        typer.echo(
            f"gate: FAIL (exit {decided.exit_code}) decided by {decided.rule}: {decided.message}"
        )
    raise typer.Exit(result.exit_code)
