"""``planeval check PLAN...``: structural checks on plan files.

Exit 0 when every plan passes (warnings allowed), 1 when an error-severity check fails,
2 when an input is unusable (the others are still checked and reported). Results are printed
as they are found, so a 100,000-line JSON Lines file is checked in the memory of one plan.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._options import max_bytes_option
from harness._cli._output import fail_input

if TYPE_CHECKING:
    from harness.checks import CheckVerdict


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
    from harness.checks import Expectations, iter_check_verdicts
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
    results = iter_check_verdicts(
        plans,
        registry=reg,
        expect=expect,
        format=plan_format,
        max_bytes=MAX_PLAN_BYTES if max_bytes is None else max_bytes,
    )
    tally = _print_json(results) if output == "json" else _print_text(results)
    if tally.unusable:
        raise typer.Exit(ExitCode.INPUT)
    if tally.failed:
        raise typer.Exit(ExitCode.FAILED)


@dataclass
class _Tally:
    """What the printed results add up to (the exit code and the text summary line)."""

    plans: int = 0
    failed: int = 0
    unusable: int = 0
    errors: int = 0
    warnings: int = 0


_BATCH = 256
"""Results printed per write: each write goes through the redaction layer's scrubber."""
_MEMO = 1 << 14
"""Verdicts whose printed form is kept (records of one graph share a verdict)."""

Checked = tuple[str, "CheckVerdict | str"]
"""A plan's label and its verdict, or why it is unusable (``iter_check_verdicts``)."""


def _print_json(results: Iterable[Checked]) -> _Tally:
    """``{"plans": [...]}`` byte for byte as ``print_json`` writes it, each result written as
    it comes (``_verdict_json``: json's own indenting encoder is pure Python and builds
    closures that only the cyclic collector frees)."""
    out = sys.stdout.write
    tally = _Tally()
    chunk: list[str] = []
    add = chunk.append
    known: dict[CheckVerdict, str] = {}
    for label, verdict in results:
        add(",\n    " if tally.plans else '{\n  "plans": [\n    ')
        tally.plans += 1
        if isinstance(verdict, str):
            tally.unusable += 1
            error = {"path": label, "ok": False, "task_count": None, "violations": []}
            add(_pretty({**error, "error": verdict}, "\n    "))
        else:
            if not verdict.ok:
                tally.failed += 1
            tail = known.get(verdict)
            if tail is None:
                if len(known) >= _MEMO:
                    known.clear()
                tail = known[verdict] = _verdict_json(verdict)
            add(f'{{\n      "path": {_string(label)}{tail}')
        if len(chunk) >= 2 * _BATCH:
            out("".join(chunk))
            chunk.clear()
    add("\n  ]\n}\n" if tally.plans else '{\n  "plans": []\n}\n')
    out("".join(chunk))
    return tally


_scalar = json.JSONEncoder(ensure_ascii=False).encode
_string: Any = json.encoder.encode_basestring
"""A str as ``json.dumps(..., ensure_ascii=False)`` writes it (json's C encoder)."""


def _verdict_json(verdict: CheckVerdict) -> str:
    """A result's JSON object after its ``path``, as ``json.dumps(indent=2,
    ensure_ascii=False)`` writes ``FileResult.to_dict()``, its lines after the first indented
    by four spaces (an item of ``plans``)."""
    head = (
        f',\n      "ok": {"true" if verdict.ok else "false"},\n      "task_count": '
        f'{verdict.task_count},\n      "violations": '
    )
    if not verdict.violations:
        return head + "[]\n    }"
    items = [
        f'{{\n          "check": {_string(v.check)},\n          "severity": '
        f"{_string(v.severity)},\n          "
        f'"task": {"null" if v.task is None else _string(v.task)},\n          "path": '
        f'{_string(v.path)},\n          "message": {_string(v.message)}\n        }}'
        for v in verdict.violations
    ]
    return head + "[\n        " + ",\n        ".join(items) + "\n      ]\n    }"


def _pretty(value: Any, newline: str) -> str:
    """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it, lines after
    the first starting with ``newline``."""
    if isinstance(value, dict) and value:
        inner = newline + "  "
        items = [f"{_scalar(k)}: {_pretty(v, inner)}" for k, v in value.items()]
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if isinstance(value, list | tuple) and value:
        inner = newline + "  "
        return "[" + inner + ("," + inner).join(_pretty(v, inner) for v in value) + newline + "]"
    return _scalar(value)


def _print_text(results: Iterable[Checked]) -> _Tally:
    write = sys.stdout.write
    tally = _Tally()
    chunk: list[str] = []
    add = chunk.append
    known: dict[CheckVerdict, tuple[str, int, int]] = {}
    for label, verdict in results:
        tally.plans += 1
        if isinstance(verdict, str):
            tally.unusable += 1
            add(f"{label}: unusable: {verdict}\n")
        else:
            if not verdict.ok:
                tally.failed += 1
            printed = known.get(verdict)
            if printed is None:
                if len(known) >= _MEMO:
                    known.clear()
                printed = known[verdict] = _verdict_text(verdict)
            tail, n_err, n_warn = printed
            tally.errors += n_err
            tally.warnings += n_warn
            add(f"{label}{tail}")
        if len(chunk) >= _BATCH:
            write("".join(chunk))
            chunk.clear()
    passed = tally.plans - tally.failed - tally.unusable
    write("".join(chunk))
    write(
        f"{tally.plans} plans: {passed} passed, {tally.failed} failed, {tally.unusable} "
        f"unusable; {tally.errors} errors, {tally.warnings} warnings\n"
    )
    return tally


def _verdict_text(verdict: CheckVerdict) -> tuple[str, int, int]:
    """A result's text after its label, with its numbers of errors and warnings."""
    n_err = n_warn = 0
    for v in verdict.violations:
        if v.severity == "error":
            n_err += 1
        else:
            n_warn += 1
    counts = f"{verdict.task_count} tasks"
    if n_err or n_warn:
        counts += f", {n_err} errors, {n_warn} warnings"
    lines = [f": {'ok' if not n_err else 'FAIL'} ({counts})\n"]
    for v in verdict.violations:
        lines.append(f"  {v.severity:<7} {v.check:<21} {v.path:<26} {v.message}\n")
    return "".join(lines), n_err, n_warn
