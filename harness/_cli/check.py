"""``planeval check PLAN...``: structural checks on plan files.

Exit 0 when every plan passes (warnings allowed), 1 when an error-severity check fails,
2 when an input is unusable (the others are still checked and reported).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._options import max_bytes_option
from harness._cli._output import fail_input, print_json


def check_command(
    plans: list[Path] = typer.Argument(
        ..., metavar="PLAN...", help="Plan files (any supported format).", show_default=False
    ),
    registry: Path | None = typer.Option(
        None,
        "--registry",
        "-r",
        metavar="FILE",
        help=(
            "Capability registry (YAML/JSON, TaskBench tool_desc.json, OpenAI or Anthropic "
            "tools, an MCP tools/list result)."
        ),
    ),
    min_tasks: int | None = typer.Option(
        None, "--min-tasks", min=0, metavar="N", help="Fewest tasks allowed."
    ),
    max_tasks: int | None = typer.Option(
        None, "--max-tasks", min=0, metavar="N", help="Most tasks allowed."
    ),
    plan_format: str = typer.Option(
        "auto",
        "--plan-format",
        metavar="FORMAT",
        help="auto, canonical, text, worfbench, taskbench, hugginggpt, llmcompiler, rewoo, teval, "
        "plan_and_execute, metagpt, openai_tool_calls or anthropic_tool_use (docs/formats.md).",
    ),
    needs_imply_deps: bool = typer.Option(
        False,
        "--needs-imply-deps",
        help="Relax needs_earlier_output: needs count as dependencies (the gem's rule).",
    ),
    dataflow_errors: bool = typer.Option(
        False,
        "--dataflow-errors",
        help="Make dataflow_types an error (a result fed to a parameter of another type).",
    ),
    output: str = typer.Option(
        "text",
        "--format",
        metavar="text|json",
        help="text (for people) or json (the stable contract for scripts).",
    ),
    max_bytes: int | None = max_bytes_option(
        "plan files and the registry", "plans 32 MiB, registry 8 MiB"
    ),
) -> None:
    """Run the structural checks on plan files."""
    from harness._errors import InputError
    from harness.checks import Expectations, check_files
    from harness.plan import FORMATS, MAX_PLAN_BYTES
    from harness.registry import load_registry

    if plan_format not in FORMATS:
        fail_input(f"unknown --plan-format {plan_format!r}; choose one of: {', '.join(FORMATS)}")
    if output not in ("text", "json"):
        fail_input(f"unknown --format {output!r}; choose text or json")
    if min_tasks is not None and max_tasks is not None and min_tasks > max_tasks:
        fail_input(f"--min-tasks {min_tasks} is larger than --max-tasks {max_tasks}")
    try:
        reg = load_registry(registry, max_bytes=max_bytes) if registry is not None else None
    except InputError as exc:
        fail_input(exc)
    expect = Expectations(
        min_tasks=min_tasks,
        max_tasks=max_tasks,
        needs="imply_deps" if needs_imply_deps else "strict",
        dataflow_types="error" if dataflow_errors else "warning",
    )
    results = check_files(
        plans,
        registry=reg,
        expect=expect,
        format=plan_format,
        max_bytes=MAX_PLAN_BYTES if max_bytes is None else max_bytes,
    )
    if output == "json":
        print_json({"plans": [r.to_dict() for r in results]})
    else:
        _print_text(results)
    if any(r.error is not None for r in results):
        raise typer.Exit(ExitCode.INPUT)
    if any(not r.ok for r in results):
        raise typer.Exit(ExitCode.FAILED)


def _print_text(results: list[Any]) -> None:
    import sys

    out = sys.stdout.write
    errors = warnings = unusable = failed = 0
    for r in results:
        if r.error is not None:
            unusable += 1
            out(f"{r.path}: unusable: {r.error}\n")
            continue
        report = r.report
        n_err, n_warn = len(report.errors), len(report.warnings)
        errors += n_err
        warnings += n_warn
        if not report.ok:
            failed += 1
        verdict = "ok" if report.ok else "FAIL"
        counts = f"{report.task_count} tasks"
        if n_err or n_warn:
            counts += f", {n_err} errors, {n_warn} warnings"
        out(f"{r.path}: {verdict} ({counts})\n")
        for v in report.violations:
            out(f"  {v.severity:<7} {v.check:<21} {v.path:<26} {v.message}\n")
    passed = len(results) - failed - unusable
    out(
        f"{len(results)} plans: {passed} passed, {failed} failed, {unusable} unusable; "
        f"{errors} errors, {warnings} warnings\n"
    )
