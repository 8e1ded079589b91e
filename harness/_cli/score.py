"""``planeval score PLAN --reference GOLD``: one answer against one reference plan.

Exit 0 when the answer was scored, 1 when it holds no plan the metrics can read (its values
under ``--unparseable zero`` are still printed), 2 when an input is unusable.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._options import max_bytes_option
from harness._cli._output import fail_input, print_json


def score_command(
    plan: Path = typer.Argument(
        ..., metavar="PLAN", help="The answer: model text or a plan file (any format)."
    ),
    reference: Path = typer.Option(
        ...,
        "--reference",
        metavar="FILE",
        help="The reference (gold) plan: WorfBench, TaskBench or canonical.",
    ),
    tools: Path | None = typer.Option(
        None,
        "--tools",
        metavar="FILE",
        help="TaskBench tool_desc.json (or any registry): the tool catalogue.",
    ),
    dependency: str | None = typer.Option(
        None,
        "--dependency",
        metavar="resource|temporal",
        help="TaskBench links: resource or temporal (default: from the gold).",
    ),
    family: list[str] = typer.Option(
        [],
        "--family",
        metavar="taskbench|worfbench",
        help="Only these metric families: taskbench, worfbench (repeatable).",
    ),
    matcher: str = typer.Option(
        "text", "--matcher", metavar="text|embeddings", help="WorfBench node matcher."
    ),
    model: str | None = typer.Option(
        None,
        "--embedding-model",
        metavar="NAME",
        help="sentence-transformers model for --matcher embeddings.",
    ),
    unparseable: str = typer.Option(
        "zero",
        "--unparseable",
        metavar="zero|exclude",
        help="An answer with no readable plan scores 0 (zero) or nothing (exclude).",
    ),
    output: str = typer.Option("text", "--format", metavar="text|json", help="What to print."),
    max_bytes: int | None = max_bytes_option(
        "the plan, the reference and the tool list", "32 MiB, tool list 8 MiB"
    ),
) -> None:
    """Score one plan against a reference with the TaskBench and WorfBench metrics."""
    from harness._errors import InputError
    from harness.metrics import (
        CONVENTIONS,
        DEFAULT_EMBEDDING_MODEL,
        DEPENDENCY_TYPES,
        FAMILIES,
        EmbeddingMatcher,
        TextMatcher,
        ToolCatalogue,
        score_plan,
    )
    from harness.registry import load_registry

    _choice("--format", output, ("text", "json"))
    _choice("--unparseable", unparseable, CONVENTIONS)
    _choice("--matcher", matcher, ("text", "embeddings"))
    if dependency is not None:
        _choice("--dependency", dependency, DEPENDENCY_TYPES)
    for name in family:
        _choice("--family", name, FAMILIES)
    answer_text = _read(plan, "plan", max_bytes)
    reference_text = _read(reference, "reference", max_bytes)
    catalogue = None
    if tools is not None:
        try:
            catalogue = ToolCatalogue.from_registry(load_registry(tools, max_bytes=max_bytes))
        except InputError as exc:
            fail_input(exc)
    node_matcher = (
        EmbeddingMatcher(model or DEFAULT_EMBEDDING_MODEL)
        if matcher == "embeddings"
        else TextMatcher()
    )
    try:
        result = score_plan(
            answer_text,
            reference_text,
            families=family or None,
            matcher=node_matcher,
            catalogue=catalogue,
            dependency=dependency,  # type: ignore[arg-type]
            unparseable=unparseable,  # type: ignore[arg-type]
        )
    except InputError as exc:
        fail_input(exc)
    if result.status == "unusable_reference":
        fail_input(f"{reference}: {result.detail}")
    data = result.to_dict()
    data["unparseable_convention"] = unparseable
    if output == "json":
        print_json(data)
    else:
        _print_text(data)
    if result.status == "unparseable":
        raise typer.Exit(ExitCode.FAILED)


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        fail_input(f"unknown {option} {value!r}; choose one of: {', '.join(allowed)}")


def _read(path: Path, what: str, max_bytes: int | None) -> str:
    from harness._errors import InputError
    from harness._size import RAISE_HINT, over_limit, read_at_most
    from harness.plan import MAX_PLAN_BYTES

    limit = MAX_PLAN_BYTES if max_bytes is None else max_bytes
    try:
        data = read_at_most(path, limit)  # bounded whatever the file: /dev/zero, a pipe
        if len(data) > limit:
            size = path.stat().st_size or None
            fail_input(InputError(over_limit(size, limit), source=str(path), hint=RAISE_HINT))
        return data.decode("utf-8-sig")
    except FileNotFoundError:
        fail_input(f"{path}: no such {what} file")
    except IsADirectoryError:
        fail_input(f"{path}: is a directory; name the {what} file")
    except UnicodeDecodeError as exc:
        fail_input(f"{path}: the {what} file is not UTF-8 (byte {exc.start})")
    except OSError as exc:
        fail_input(f"{path}: cannot read the {what} file: {exc.strerror}")


def _print_text(data: dict[str, Any]) -> None:
    out = sys.stdout
    families = ", ".join(data["families"])
    convention = data["unparseable_convention"]
    out.write(f"status: {data['status']} ({families}; unparseable counts as {convention})\n")
    if data.get("detail"):
        out.write(f"detail: {data['detail']}\n")
    width = max((len(k) for k in data["metrics"]), default=0)
    for name, value in data["metrics"].items():
        out.write(f"  {name:<{width}}  {value:.4f}\n")
    for note in data.get("notes", []):
        out.write(f"note: {note}\n")
