"""The ``planeval`` command: each command lives in its own module and is registered here.

Start-up is most of a small command's time, so nothing is imported before it is needed:

- the command table below names each command's module; ``main`` builds the app with only the
  command that was asked for (``planeval check`` never imports ``run``'s module, nor typer's
  work of reading every other command's signature), and the whole app only for
  ``planeval --help``, an unknown command or ``harness._cli.main.app`` (tests);
- command modules import the library inside the command function, so ``planeval check``
  does not pay for pandas, jsonschema, rich or the provider SDKs;
- ``harness.__version__`` (``importlib.metadata``) is looked up only by ``--version``.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

from harness import _signals
from harness._cli._exit import ExitCode

if TYPE_CHECKING:
    import typer

COMMANDS: dict[str, str] = {
    "check": "harness._cli.check:check_command",
    "schema": "harness._cli.schema:schema_command",
    "run": "harness._cli.run:run_command",
    "report": "harness._cli.report:report_command",
    "compare": "harness._cli.compare:compare_command",
    "gate": "harness._cli.gate:gate_command",
    "baseline": "harness._cli.baseline:baseline_command",
    "execute": "harness._cli.execute:execute_command",
    "resume-eval": "harness._cli.resume_eval:resume_eval_command",
    "merge": "harness._cli.merge:merge_command",
    "score": "harness._cli.score:score_command",
}
"""Command name -> ``module:function``, in the order ``planeval --help`` lists them."""

GROUPS: dict[str, str] = {
    "import": "harness._cli.import_:app",
    "journal": "harness._cli.journal:journal_app",
    "registry": "harness._cli.registry:registry_app",
}
"""Command group name -> ``module:typer app`` (listed after the commands)."""


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(import_module(module), name)


def build_app(only: str | None = None) -> typer.Typer:
    """The ``planeval`` typer app: every command, or only the one named ``only``.

    Args:
        only: A name of ``COMMANDS`` or ``GROUPS``; ``None`` registers them all.

    Returns:
        The app; the root callback keeps it a group even with a single command, so
        ``planeval check ...`` parses the same either way.
    """
    import typer

    app = typer.Typer(
        name="planeval",
        help="Evaluate the plans LLM planners write: check, replay, report, gate, execute.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root())
    for name, target in COMMANDS.items():
        if only is None or only == name:
            app.command(name)(_load(target))
    for name, target in GROUPS.items():
        if only is None or only == name:
            app.add_typer(_load(target), name=name)
    return app


def _print_version(value: bool) -> None:
    if value:
        import typer

        from harness import __version__

        typer.echo(f"planeval {__version__}")
        raise typer.Exit(0)


def _root() -> Any:
    """The root callback (``--version``); built here so that typer is imported only once a
    command runs, after the signal handlers are in place."""
    import typer

    def root(
        version: bool = typer.Option(
            False, "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ) -> None:
        """Evaluate the plans LLM planners write: check, replay, report, gate, execute."""
        scrub_output()

    return root


def scrub_output() -> None:
    """Make stdout and stderr a sink of the redaction layer: every credential the process
    knows (credential-named environment variables now, API keys and URL passwords as they are
    read) is replaced before it is printed."""
    import os

    from harness._redaction import ScrubbingStream, remember_environment

    remember_environment(os.environ)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, ScrubbingStream):
            setattr(sys, name, ScrubbingStream(stream))


def __getattr__(name: str) -> Any:
    """``app``: the whole app, built on first use (tests invoke it through typer's runner)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    app = build_app()
    globals()["app"] = app
    return app


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: usage errors become one line and exit 2.

    Called without ``argv`` (the ``planeval`` command itself), SIGINT and SIGTERM are
    handled from this first line to the exit: whenever one arrives the exit code is 130
    (see ``harness._signals``). With ``argv`` (in-process callers, tests) the caller's
    handlers are left alone.
    """
    console = argv is None
    if console:
        _signals.install()
    try:
        code = _run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        code = _interrupted()
    if console:
        _signals.finish(code)
    sys.exit(code)


def _interrupted() -> int:
    try:
        sys.stderr.write("planeval: interrupted\n")
        sys.stderr.flush()
    except (KeyboardInterrupt, OSError):
        pass
    return int(ExitCode.INTERRUPTED)


def _run(args: list[str]) -> int:
    """Run one command line; the exit code (errors printed as one line)."""
    from harness._cli._output import disk_error_line
    from harness._errors import InputError, PlanevalError

    scrub_output()
    wanted = args[0] if args and (args[0] in COMMANDS or args[0] in GROUPS) else None
    try:
        code = build_app(wanted)(args=args, prog_name="planeval", standalone_mode=False)
    except SystemExit as exc:  # typer.Exit becomes SystemExit outside standalone mode
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except OSError as exc:  # a full disk or a read-only folder, wherever it struck
        sys.stderr.write(f"planeval: error: {disk_error_line(exc)}\n")
        return int(ExitCode.INFRA)
    except PlanevalError as exc:  # raised by a library call a command did not expect to fail
        failed = ExitCode.INPUT if isinstance(exc, InputError) else ExitCode.INFRA
        line = exc.one_line() if isinstance(exc, InputError) else str(exc)
        sys.stderr.write(f"planeval: error: {line}\n")
        return int(failed)
    except Exception as exc:
        if type(exc).__name__ == "Abort":  # click's answer to a KeyboardInterrupt
            return _interrupted()
        # click's exceptions (vendored by recent typer, so matched by shape, not by class).
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        message = exc.format_message()
        if message:  # empty when the help was shown for a bare group: nothing more to say
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            sys.stderr.write(f"planeval: error: {message}{hint}\n")
        return int(exc.exit_code)
    return code if isinstance(code, int) else 0
