"""``planeval journal show|verify J``: a journal's replayed state, and its integrity."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness._cli._exit import ExitCode
from harness._cli._output import fail_input, print_json
from harness._errors import InputError

if TYPE_CHECKING:
    from harness.journal import ReplayState

journal_app = typer.Typer(
    name="journal",
    help="Inspect execution journals.",
    no_args_is_help=True,
    add_completion=False,
)


@journal_app.command("show")
def show_command(
    journal: Annotated[Path, typer.Argument(metavar="JOURNAL", help="The journal file (JSONL).")],
    output_format: Annotated[
        str, typer.Option("--format", metavar="text|json", help="What to print.")
    ] = "text",
) -> None:
    """Print the replayed state: per task its status, attempts and duration; damage."""
    state = _replay(journal, output_format)
    if output_format == "json":
        print_json(state.to_dict())
    else:
        sys.stdout.write(render_state(state))


@journal_app.command("verify")
def verify_command(
    journal: Annotated[Path, typer.Argument(metavar="JOURNAL", help="The journal file (JSONL).")],
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when a line is damaged.")
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", metavar="text|json", help="What to print.")
    ] = "text",
) -> None:
    """Check that every line of a journal replays; list the damaged ones.

    Exit codes: 0 readable (damage is listed), 1 damaged with --strict, 2 unusable input.
    """
    state = _replay(journal, output_format)
    if output_format == "json":
        print_json(
            {
                "journal": str(journal),
                "ok": not state.damage,
                "events": state.events,
                "damage": [d.to_dict() for d in state.damage],
            }
        )
    elif not state.damage:
        sys.stdout.write(f"ok: {state.events} events, every line replays\n")
    else:
        sys.stdout.write(f"damaged: {len(state.damage)} line(s) skipped, {state.events} events\n")
        for damage in state.damage:
            sys.stdout.write(f"  line {damage.line}: {damage.reason}\n")
    if strict and state.damage:
        raise typer.Exit(ExitCode.FAILED)


def _replay(journal: Path, output_format: str) -> ReplayState:
    from harness.journal import replay, require_journal

    if output_format not in ("text", "json"):
        fail_input(f"--format must be text or json, got {output_format!r}")
    try:
        require_journal(journal)
        return replay(journal)
    except InputError as exc:
        fail_input(exc)


def render_state(state: ReplayState) -> str:
    """The replayed state as a few readable lines."""
    lines = [
        f"journal: {state.path}",
        f"plan: {state.plan_id or '(unknown)'}   status: {state.status or '(no plan event)'}"
        f"   events: {state.events}   resumes: {state.resumes}",
    ]
    if state.tasks:
        width = max(4, *(len(t) for t in state.tasks))
        lines.append(f"{'task':<{width}}  {'status':<9}  attempts  duration")
        for task in state.tasks.values():
            duration = f"{task.duration:.3f}s" if task.duration is not None else "-"
            note = f"  {_clip(task.description)}" if task.description else ""
            if task.status == "failed":
                note += f"  {task.error_type}: {task.error}"
            elif task.status == "blocked":
                note += f"  (blocked by {task.blocked_by})"
            lines.append(
                f"{task.task_id:<{width}}  {task.status:<9}  {task.attempts:>8}  {duration}{note}"
            )
    for damage in state.damage:
        lines.append(f"damaged line {damage.line}: {damage.reason}")
    for repair in state.repairs:
        lines.append(
            f"repaired: torn line {repair.get('line')} cut off ({repair.get('bytes')} bytes)"
        )
    for event, count in state.unknown_events.items():
        lines.append(f"ignored {count} unknown {event!r} event(s)")
    return "\n".join(lines) + "\n"


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
