"""``planeval score PLAN --reference GOLD``: one answer against one reference plan, or a whole
TaskBench predictions file against its gold file.

One plan: exit 0 when the answer was scored, 1 when it holds no plan the metrics can read (its
values under ``--unparseable zero`` are still printed), 2 when an input is unusable.

A predictions file (JSON Lines whose records carry an ``id``): records are matched by id and
scored as ``taskbench/evaluate.py`` scores them, every group it writes is printed. Exit 0 when
scored (predictions the official script drops included), 1 when scoring failed for a record
(named; the others are kept), 2 when an input is unusable (no shared id, a bad line).
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
        ...,
        metavar="PLAN",
        help="The answer: model text or a plan file (any format), or a TaskBench "
        "predictions file (JSON Lines with ids).",
    ),
    reference: Path = typer.Option(
        ...,
        "--reference",
        metavar="FILE",
        help="The reference (gold) plan: WorfBench, TaskBench or canonical; for a "
        "predictions file, the gold file (TaskBench's data.json).",
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
    unparseable: str | None = typer.Option(
        None,
        "--unparseable",
        metavar="zero|exclude",
        help="An answer with no readable plan (in a file: or no prediction line) scores 0 "
        "(zero) or nothing (exclude). Default: zero for one plan, exclude (the official "
        "script's) for a predictions file.",
    ),
    output: str = typer.Option("text", "--format", metavar="text|json", help="What to print."),
    max_bytes: int | None = max_bytes_option(
        "the plan, the reference and the tool list", "32 MiB, tool list 8 MiB"
    ),
) -> None:
    """Score a plan, or a TaskBench predictions file, against its reference.

    One plan: the TaskBench and WorfBench metrics the reference supports. A predictions file
    (JSON Lines with ids) against its gold file: matched by id, as taskbench/evaluate.py
    scores it."""
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
    if unparseable is not None:
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
    from harness.metrics._files import is_record_lines

    answer_records = is_record_lines(answer_text) and _records(answer_text)
    reference_records = is_record_lines(reference_text) and _records(reference_text)
    if not answer_records and reference_records > 1:
        fail_input(
            f"{reference}: a gold file of {reference_records} records; score it against the "
            "predictions file (JSON Lines whose records carry the gold ids)"
        )
    if answer_records > 1 or (answer_records and reference_records):
        if family and "taskbench" not in family:
            fail_input(f"{plan}: a predictions file is scored with the TaskBench metrics only")
        _score_file(
            plan,
            answer_text,
            reference,
            reference_text,
            catalogue=catalogue,
            dependency=dependency,
            convention=unparseable or "exclude",
            output=output,
        )
        return
    unparseable = unparseable or "zero"
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


def _records(text: str) -> int:
    """Non-blank lines of a JSON Lines text."""
    return sum(1 for line in text.splitlines() if line.strip())


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


_SHOWN = (
    ("node_micro_f1_no_matching", "node micro F1"),
    ("node_macro_f1_no_matching", "node macro F1"),
    ("link_binary_f1", "link F1"),
    ("argument_task_argname_binary_f1_no_matching", "arg name F1"),
    ("argument_task_argname_value_binary_f1_no_matching", "arg name+value F1"),
    ("edit_distance", "edit distance"),
)
_LISTED = 10
"""Records listed by id per status in the text output (the JSON on stdout has none)."""


def _score_file(
    plan: Path,
    answer_text: str,
    reference: Path,
    reference_text: str,
    *,
    catalogue: Any,
    dependency: str | None,
    convention: str,
    output: str,
) -> None:
    from harness._errors import InputError
    from harness.metrics._files import is_record_lines, read_record_lines, score_taskbench_file

    if not is_record_lines(reference_text):
        fail_input(
            f"{reference}: the predictions are JSON Lines with ids, so the reference must be "
            "the gold file: JSON Lines of records with 'id' and 'task_nodes' (TaskBench's "
            "data.json)"
        )
    try:
        result = score_taskbench_file(
            read_record_lines(answer_text, str(plan)),
            read_record_lines(reference_text, str(reference)),
            catalogue=catalogue,
            dependency=dependency,  # type: ignore[arg-type]
            convention=convention,
            source=f"{plan} against {reference}",
        )
    except InputError as exc:
        fail_input(exc)
    if output == "json":
        print_json(result.groups)
        _print_file_notes(result, sys.stderr)
    else:
        _print_file_text(result)
    if result.counts()["error"]:
        raise typer.Exit(ExitCode.FAILED)


def _print_file_text(result: Any) -> None:
    out = sys.stdout
    counts = result.counts()
    rule = (
        "gold ids without a prediction and predictions the official script drops count as "
        "empty plans"
        if result.convention == "zero"
        else "the official script's: only gold ids with a prediction count"
    )
    out.write(
        f"predictions: {result.prediction_ids} ids; gold: {result.gold_ids} ids; shared: "
        f"{result.matched}; dependency: {result.dependency}; unparseable: "
        f"{result.convention} ({rule})\n"
    )
    out.write(
        f"records: {counts['scored']} scored, {counts['dropped']} dropped (the official "
        f"script's 'Parsing Error'), {counts['missing']} without a prediction line, "
        f"{counts['error']} failed\n\n"
    )
    heads = ["group", "samples", "supports", *(name for _, name in _SHOWN)]
    rows = []
    for group, figures in result.groups.items():
        cells = [group, str(figures["all_samples"]), str(figures["node_supports"])]
        if "node_micro_f1_no_matching" in figures:
            cells += [f"{figures[key]:.4f}" for key, _ in _SHOWN]
        else:
            cells += ["no supports"] + [""] * (len(_SHOWN) - 1)
        rows.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    for cells in (heads, *rows):
        out.write("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
        out.write("\n")
    _print_file_notes(result, out)


def _print_file_notes(result: Any, out: Any) -> None:
    for status in ("error", "dropped", "missing"):
        records = [r for r in result.records if r.status == status]
        for record in records[:_LISTED]:
            detail = record.detail or ""
            if status == "error":
                out.write(f"error: {detail}\n")
            else:
                out.write(f"{status}: id {record.id!r}: {detail}\n")
        if len(records) > _LISTED:
            out.write(f"{status}: ... and {len(records) - _LISTED} more\n")
    for note in result.notes:
        out.write(f"note: {note}\n")
