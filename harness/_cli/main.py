"""The ``planeval`` command: each command lives in its own module and is registered here.

Command modules import the library lazily (inside the command function) so that
``planeval check`` does not pay for pandas or the provider SDKs.
"""

from __future__ import annotations

import sys

import typer

from harness import __version__
from harness._cli import (
    baseline,
    check,
    compare,
    execute,
    gate,
    import_,
    journal,
    merge,
    report,
    resume_eval,
    run,
    schema,
    score,
)
from harness._cli._exit import ExitCode
from harness._cli._output import disk_error_line
from harness._errors import InputError, PlanevalError

app = typer.Typer(
    name="planeval",
    help="Plan-quality evaluation harness for LLM planners.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"planeval {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Plan-quality evaluation harness for LLM planners."""


app.command("check")(check.check_command)
app.command("schema")(schema.schema_command)
app.command("run")(run.run_command)
app.command("report")(report.report_command)
app.command("compare")(compare.compare_command)
app.command("gate")(gate.gate_command)
app.command("baseline")(baseline.baseline_command)
app.add_typer(import_.app, name="import")
app.command("execute")(execute.execute_command)
app.add_typer(journal.journal_app, name="journal")
app.command("resume-eval")(resume_eval.resume_eval_command)
app.command("merge")(merge.merge_command)
app.command("score")(score.score_command)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: usage errors become one line and exit 2."""
    try:
        code = app(args=argv, standalone_mode=False)
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("planeval: interrupted\n")
        sys.exit(ExitCode.INTERRUPTED)
    except OSError as exc:  # a full disk or a read-only folder, wherever it struck
        sys.stderr.write(f"planeval: error: {disk_error_line(exc)}\n")
        sys.exit(ExitCode.INFRA)
    except PlanevalError as exc:  # raised by a library call a command did not expect to fail
        code = ExitCode.INPUT if isinstance(exc, InputError) else ExitCode.INFRA
        line = exc.one_line() if isinstance(exc, InputError) else str(exc)
        sys.stderr.write(f"planeval: error: {line}\n")
        sys.exit(code)
    except Exception as exc:
        # click's exceptions (vendored by recent typer, so matched by shape, not by class).
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        message = exc.format_message()
        if message:  # empty when the help was shown for a bare group: nothing more to say
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            sys.stderr.write(f"planeval: error: {message}{hint}\n")
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
