"""``planeval import worfbench|taskbench|ruby-vcr``: public data and the gem's cassettes as
suites."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness._cli._options import max_bytes_option
from harness._cli._output import fail_input

app = typer.Typer(
    name="import",
    help="Turn public data or the agentic gem's cassettes into suites and recordings.",
    no_args_is_help=True,
)

_ROOT = typer.Option(
    Path("."),
    "--root",
    metavar="DIR",
    help="Project root: evals/ and plan_fixtures/ are written under it.",
)


@app.command("worfbench")
def worfbench_command(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="A WorfBench data file (JSON list of items).")
    ],
    suite: str | None = typer.Option(
        None, "--suite", metavar="NAME", help="Suite name (default: worfbench-<file stem>)."
    ),
    limit: int | None = typer.Option(
        None, "--limit", metavar="N", help="Import only the first N items."
    ),
    root: Path = _ROOT,
) -> None:
    """Import WorfBench gold workflows as a suite (model worfbench-gold)."""
    from harness._errors import InputError
    from harness.importers import import_worfbench

    try:
        result = import_worfbench(file, root=root, suite=suite, limit=limit)
    except InputError as exc:
        fail_input(exc)
    except OSError as exc:  # nothing was written: the import undid its moves
        fail_input(_unwritable(root, exc))
    skipped = f" ({result.skipped} left out by --limit)" if result.skipped else ""
    typer.echo(
        f"imported {result.case_count} cases{skipped} into {result.suite_path} "
        f"with recordings of {result.model} under "
        f"{root / 'plan_fixtures' / result.suite}"
    )


@app.command("taskbench")
def taskbench_command(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="TaskBench data: data.json (one record a line) or a JSON list."
        ),
    ],
    tools: Path = typer.Option(
        ..., "--tools", metavar="FILE", help="The domain's tool_desc.json (the suite's registry)."
    ),
    suite: str | None = typer.Option(
        None, "--suite", metavar="NAME", help="Suite name (default: taskbench-<domain>)."
    ),
    limit: int | None = typer.Option(
        None, "--limit", metavar="N", help="Import only the first N records."
    ),
    requests: Path | None = typer.Option(
        None,
        "--requests",
        metavar="FILE",
        help="user_requests.json: goals for records without their own user_request.",
    ),
    root: Path = _ROOT,
    max_bytes: int | None = max_bytes_option("the tool list", "8 MiB"),
) -> None:
    """Import TaskBench gold plans as a suite (dataset model gold)."""
    from harness._errors import InputError
    from harness.importers import import_taskbench

    try:
        result = import_taskbench(
            file,
            tools=tools,
            root=root,
            suite=suite,
            limit=limit,
            requests=requests,
            max_bytes=max_bytes,
        )
    except InputError as exc:
        fail_input(exc)
    except OSError as exc:
        fail_input(_unwritable(root, exc))
    skipped = f" ({result.skipped} left out by --limit)" if result.skipped else ""
    typer.echo(
        f"imported {result.case_count} cases{skipped} into {result.suite_path} "
        f"with recordings of {result.model} under "
        f"{root / 'plan_fixtures' / result.suite}"
    )


@app.command("ruby-vcr")
def ruby_vcr_command(
    cassette: Annotated[
        Path, typer.Argument(metavar="CASSETTE", help="A Ruby VCR cassette (http_interactions:).")
    ],
    suite: str | None = typer.Option(
        None, "--suite", metavar="NAME", help="Suite name (default: the cassette file stem)."
    ),
    case: str | None = typer.Option(
        None, "--case", metavar="ID", help="Case id (default: the goal as a slug)."
    ),
    description: str | None = typer.Option(
        None, "--description", metavar="TEXT", help="Suite description."
    ),
    root: Path = _ROOT,
    max_bytes: int | None = max_bytes_option("a cassette", "8 MiB"),
) -> None:
    """Import a Ruby VCR cassette's planner answer as a suite and a recording."""
    from harness._errors import InputError
    from harness.importers import import_ruby_vcr

    try:
        result = import_ruby_vcr(
            cassette,
            root=root,
            suite=suite,
            case=case,
            description=description,
            max_bytes=max_bytes,
        )
    except InputError as exc:
        fail_input(exc)
    except OSError as exc:
        fail_input(_unwritable(root, exc))
    typer.echo(
        f"imported {result.recording_count} recording(s) of {result.model} for case(s) "
        f"{', '.join(result.first_cases)}"
        + (f" and {result.more_cases} more" if result.more_cases else "")
        + f" into {result.suite_path}"
    )


def _unwritable(root: Path, exc: OSError) -> str:
    return (
        f"{root}: cannot write the import ({exc.strerror or exc}); nothing was written. "
        "Check that --root is a writable folder with free space"
    )
