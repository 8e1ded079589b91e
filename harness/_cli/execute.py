"""``planeval execute PLAN --journal J``: run a plan with an agent, journalled and resumable."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness._cli._exit import ExitCode
from harness._cli._options import max_bytes_option
from harness._cli._output import fail_input, print_json, say_error
from harness._errors import InputError

if TYPE_CHECKING:
    from harness.execute import ExecutionResult


def execute_command(
    plan: Annotated[
        Path, typer.Argument(metavar="PLAN", help="The plan file (any format planeval loads).")
    ],
    journal: Annotated[
        Path,
        typer.Option("--journal", "-j", metavar="FILE", help="The journal file (JSONL)."),
    ],
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the journal; completed tasks do not rerun.")
    ] = False,
    from_task: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="TASK",
            help="With --resume: rerun this task (id or unique description) and its downstream.",
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Accept a journal written for another plan.")
    ] = False,
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            metavar="MODULE:CALLABLE",
            show_default=False,
            help="The agent: module:callable or file.py:callable (default: the demo agent).",
        ),
    ] = "harness.execute:demo_agent",
    max_concurrency: Annotated[
        int,
        typer.Option(
            "--max-concurrency", min=1, metavar="N", help="Independent tasks run at once."
        ),
    ] = 4,
    max_attempts: Annotated[
        int,
        typer.Option(
            "--max-attempts", min=1, metavar="N", help="Attempts per task in this execution."
        ),
    ] = 3,
    max_total_attempts: Annotated[
        int,
        typer.Option(
            "--max-total-attempts",
            min=1,
            metavar="N",
            help="Attempts per task over every execution of the journal (then failed for good).",
        ),
    ] = 10,
    reset_attempts: Annotated[
        bool,
        typer.Option(
            "--reset-attempts", help="With --resume: give every task a fresh total budget."
        ),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="With --resume: refuse a journal with a damaged or missing line (exit 2).",
        ),
    ] = False,
    keep_outputs: Annotated[
        bool,
        typer.Option(
            "--keep-outputs",
            help="With --resume: keep the outputs of tasks whose definition or goal was edited.",
        ),
    ] = False,
    grace: Annotated[
        float,
        typer.Option(
            "--grace",
            min=0.0,
            metavar="SECONDS",
            help="Seconds an abandoned attempt may keep running before the execution stops.",
        ),
    ] = 10.0,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.001,
            metavar="SECONDS",
            help="Seconds an attempt may take (then Timeout).",
        ),
    ] = None,
    backoff: Annotated[
        float,
        typer.Option(
            "--backoff", min=0.0, metavar="SECONDS", help="Seconds before the first retry."
        ),
    ] = 0.5,
    fsync_every: Annotated[
        int,
        typer.Option("--fsync-every", min=1, metavar="N", help="fsync the journal every N events."),
    ] = 1,
    plan_format: Annotated[
        str,
        typer.Option(
            "--plan-format",
            metavar="FORMAT",
            help="auto, canonical, text, worfbench, taskbench, hugginggpt, llmcompiler, rewoo, "
            "teval, plan_and_execute, metagpt, openai_tool_calls or anthropic_tool_use "
            "(docs/formats.md).",
        ),
    ] = "auto",
    output_format: Annotated[
        str,
        typer.Option(
            "--format", metavar="text|json", help="What to print (json: the outputs included)."
        ),
    ] = "text",
    max_bytes: int | None = max_bytes_option("the plan file", "32 MiB"),
) -> None:
    """Run a plan's tasks in dependency order with an agent, journalling every step.

    Exit codes: 0 every task succeeded, 1 a task failed for good, 2 unusable input,
    4 the journal cannot be written, 5 the journal is in use by another execution,
    130 interrupted (Ctrl+C or SIGTERM; resume with --resume).
    """
    from harness.execute import execute, load_agent
    from harness.journal import JournalInUseError, JournalStorageError
    from harness.plan import MAX_PLAN_BYTES, load_plan

    if output_format not in ("text", "json"):
        fail_input(f"--format must be text or json, got {output_format!r}")
    try:
        limit = MAX_PLAN_BYTES if max_bytes is None else max_bytes
        loaded = load_plan(plan, format=plan_format, max_bytes=limit)
        agent_fn = load_agent(agent)
        result = execute(
            loaded,
            journal,
            agent=agent_fn,
            resume=resume,
            from_task=from_task,
            force=force,
            max_concurrency=max_concurrency,
            max_attempts=max_attempts,
            max_total_attempts=max_total_attempts,
            reset_attempts=reset_attempts,
            strict=strict,
            keep_outputs=keep_outputs,
            grace=grace,
            backoff=backoff,
            timeout=timeout,
            fsync_every=fsync_every,
            handle_signals=True,
            on_event=_progress if output_format == "text" else None,
            source=str(plan),
        )
    except JournalInUseError as exc:
        say_error(exc.one_line())
        raise typer.Exit(ExitCode.IN_USE) from None
    except InputError as exc:
        fail_input(exc)
    except JournalStorageError as exc:
        say_error(exc.one_line())
        raise typer.Exit(ExitCode.INFRA) from None
    except OSError as exc:  # the disk, not the input: a full disk, a revoked permission
        say_error(f"{journal}: cannot write the journal: {exc.strerror or exc}")
        raise typer.Exit(ExitCode.INFRA) from None
    if output_format == "json":
        print_json(result.to_dict())
    else:
        _summary(result)
    raise typer.Exit(_exit_code(result))


def _exit_code(result: ExecutionResult) -> int:
    if result.status == "interrupted":
        return int(ExitCode.INTERRUPTED)
    return int(ExitCode.OK if result.ok else ExitCode.FAILED)


def _progress(event: str, payload: dict[str, Any]) -> None:
    task = payload.get("task_id")
    if event == "task_started":
        line = f"  started   {task} (attempt {payload['attempt']})"
    elif event == "task_succeeded":
        line = f"  succeeded {task} in {payload['duration']:.3f}s"
    elif event == "task_failed":
        verdict = "failed for good" if payload.get("final") else "failed, will retry"
        line = f"  {verdict}: {task}: {payload['error_type']}: {payload['error']}"
    elif event == "task_blocked":
        line = f"  blocked   {task} (by {payload['blocked_by']})"
    elif event == "plan_resumed":
        restored = payload["restored"]
        line = f"resumed: {len(restored)} task(s) restored" + (
            f", from {payload['from']}" if payload.get("from") else ""
        )
        for task_id, why in (payload.get("invalidated") or {}).items():
            line += f"\nrun again: {task_id}: {why}"
        for task_id in payload.get("accepted") or {}:
            line += f"\nkept (--keep-outputs): {task_id}'s output, although it was edited"
        if payload.get("in_doubt"):
            line += "\nrun again (damaged journal lines hide their state): " + ", ".join(
                payload["in_doubt"]
            )
    elif event == "plan_interrupted":
        line = f"interrupted ({payload['reason']}); resume with --resume"
    elif event == "task_attempt_ended":
        line = f"  ended     {task} (abandoned attempt {payload['attempt']}, {payload['outcome']})"
    else:
        return
    sys.stderr.write(line + "\n")


def _summary(result: ExecutionResult) -> None:
    total = len(result.outputs) + len(result.failed) + len(result.blocked)
    total += len(result.not_started)
    lines = [
        f"{result.status}: {len(result.outputs)}/{total} tasks succeeded "
        f"({len(result.executed)} executed, {len(result.restored)} restored from the journal)"
    ]
    for task_id, failure in result.failed.items():
        lines.append(f"failed {task_id}: {failure.error_type}: {failure.error}")
    for task_id, by in result.blocked.items():
        lines.append(f"blocked {task_id} (by {by})")
    if result.stuck:
        lines.append(
            f"stopped: task {result.stuck}'s abandoned attempt is still running after the grace"
            " period; stop it (or its agent), then resume"
        )
    if result.not_started:
        lines.append("not run: " + ", ".join(result.not_started))
    for damage in result.damage:
        lines.append(f"journal line {damage.line} skipped: {damage.reason}")
    lines.append(f"journal: {result.journal}")
    sys.stdout.write("\n".join(lines) + "\n")
