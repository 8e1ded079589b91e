"""``planeval run SUITE...``: replay (or record) every case x model x sample and report."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from harness._cli._exit import ExitCode
from harness._cli._options import max_bytes_option
from harness._cli._output import fail_input, say_error

if TYPE_CHECKING:
    from rich.console import Console

    from harness.run import LiveStats, RunResult, Selection, Shard

_SHOWN = 10
_SEVERITY = {0: 0, 1: 1, 3: 2, 4: 3}


def run_command(
    suites: list[Path] = typer.Argument(
        ...,
        metavar="SUITE...",
        help="Suite files (evals/<suite>.yaml), or folders of them.",
        show_default=False,
    ),
    live: bool = typer.Option(
        False, "--live", help="Call the planners and re-record everything (same as LIVE_EVALS=1)."
    ),
    model: list[str] = typer.Option(
        [],
        "--model",
        "-m",
        metavar="MODEL",
        help="Run only this model id (repeatable).",
        show_default=False,
    ),
    samples: int | None = typer.Option(
        None, "--samples", metavar="N", help="Samples per case and model."
    ),
    record_mode: str | None = typer.Option(
        None,
        "--record-mode",
        metavar="MODE",
        help="none (default: replay only), once, new_episodes or all.",
    ),
    concurrency: int = typer.Option(
        4, "--concurrency", metavar="N", help="Planner calls in flight."
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        metavar="DIR",
        help="Run folder (default reports/runs/<run-id>; <DIR>/<suite> for several).",
    ),
    fixtures: Path | None = typer.Option(
        None,
        "--fixtures",
        metavar="DIR",
        help="Recordings folder (default <project root>/plan_fixtures).",
    ),
    max_bytes: int | None = max_bytes_option(
        "YAML files (suites, registries, prompts, cassettes, prices)", "8 MiB"
    ),
    prices: Path | None = typer.Option(
        None,
        "--prices",
        metavar="FILE",
        help="Price file on top of the shipped one (docs/cost.md).",
    ),
    max_cost: float | None = typer.Option(
        None,
        "--max-cost",
        metavar="USD",
        help="Live: start no call whose worst case would pass this many USD (one budget for "
        "every suite of the command; with --shard i/n each shard gets USD/n).",
    ),
    max_calls: int | None = typer.Option(
        None,
        "--max-calls",
        metavar="N",
        help="Live: start at most this many planner calls (all suites; N/n per shard).",
    ),
    shard: str | None = typer.Option(
        None,
        "--shard",
        metavar="I/N",
        help="Run only slice I of N; join the runs with `planeval merge`.",
    ),
    batch: bool = typer.Option(
        False, "--batch", help="Send the calls as OpenAI / Anthropic batches (docs/scale.md)."
    ),
    batch_poll: float = typer.Option(
        30.0,
        "--batch-poll",
        metavar="SECONDS",
        help="Seconds between batch status checks.",
        show_default=True,
    ),
    plan_failures_ok: bool = typer.Option(
        False,
        "--plan-failures-ok",
        help="Exit 0 when the run completed but some plans failed (for schedulers: errors, "
        "gaps, bad input and interrupts still exit 4, 3, 2, 130).",
    ),
) -> None:
    """Evaluate suites: replay recorded planner answers or record them live.

    Exit codes: 0 all pass, 1 a case failed (0 with --plan-failures-ok), 2 unusable input,
    3 missing or stale recordings, 4 infrastructure errors, 130 interrupted.
    """
    from harness._errors import InputError
    from harness._yaml import max_bytes_in_force
    from harness.run import Budget, LiveStats, Selection, live_record_mode, parse_shard, run_suite

    mode = live_record_mode(live, record_mode, os.environ)
    try:
        slice_ = parse_shard(shard) if shard is not None else None
    except InputError as exc:
        fail_input(exc)
    budget = None  # one budget for every suite this command runs, split evenly over shards
    if max_cost is not None or max_calls is not None:
        budget = Budget(max_cost, max_calls, shards=slice_.count if slice_ else 1)
    stats = LiveStats()
    selection = Selection(  # what every continue / finish line reproduces
        suites=tuple(map(str, suites)),
        models=tuple(dict.fromkeys(model)),
        samples=samples,
        shard=shard,
        max_cost=max_cost,
        max_calls=max_calls,
        concurrency=concurrency if concurrency != 4 else None,  # 4: the default
        fixtures=str(fixtures) if fixtures is not None else None,
        out=str(out) if out is not None else None,
        prices=str(prices) if prices is not None else None,
        batch=batch,
        live=mode != "none",
    )

    evaluate = functools.partial(
        run_suite,
        record_mode=mode,
        concurrency=concurrency,
        prices=prices,
        budget=budget,
        stats=stats,
        shard=slice_,
        batch=batch,
        batch_poll=batch_poll,
        notify=_note,
        keep_rows=False,  # rows are written as they finish; the summary needs only a few fields
    )
    with max_bytes_in_force(max_bytes):
        run_and_report(
            suites,
            evaluate,
            models=model,
            samples=samples,
            out=out,
            fixtures=fixtures,
            show_progress=mode != "none",
            stats=stats,
            shard=slice_,
            selection=selection,
            plan_failures_ok=plan_failures_ok,
        )


def _note(line: str) -> None:
    """A progress notice of a live run (batch ids, batch status) on stderr."""
    sys.stderr.write(f"planeval: {line}\n")
    sys.stderr.flush()


def run_and_report(
    suites: list[Path],
    evaluate: Callable[..., RunResult],
    *,
    models: list[str],
    samples: int | None,
    out: Path | None,
    fixtures: Path | None,
    show_progress: bool,
    stats: LiveStats | None = None,
    shard: Shard | None = None,
    selection: Selection | None = None,
    plan_failures_ok: bool = False,
) -> NoReturn:
    """Load the suites, evaluate each into its run, report, print one table, exit the worst.

    Shared by ``run`` and ``resume-eval``: ``evaluate(suite, models=, samples=, out=,
    fixtures=, progress=, stop=)`` makes one suite's run (``run_suite`` or
    ``resume_eval_suite`` with the command's own options bound). A suite that cannot be
    loaded or run is reported at the end (exit 2) and the others still run. SIGINT and
    SIGTERM stop the run under way the same way: finished rows kept, run.json marked
    interrupted, one line saying how to finish, exit 130. ``selection`` is the command line
    every continue / finish line reproduces (``--record-mode new_episodes``);
    ``plan_failures_ok`` turns exit 1 (plans failed) into 0.
    """
    from harness._cli._live_output import print_budget_stop, print_usage
    from harness._cli._live_progress import live_progress
    from harness._cli._run_table import console_width, print_failing, print_table
    from harness._errors import InputError
    from harness._gc import survivors_frozen
    from harness.run import RunInterrupted, StopRequest, finish_command, stop_on_signals
    from harness.suite import load_suite

    stop = StopRequest()
    with stop_on_signals(stop):
        try:
            paths = suite_files(suites)
        except InputError as exc:
            fail_input(exc)
        from rich.console import Console

        stdout = Console(width=console_width(sys.stdout))
        stderr = Console(stderr=True, width=console_width(sys.stderr))
        worst = 0
        results: list[RunResult] = []
        broken: list[str] = []
        stopped: RunResult | None = None
        stopped_arg = ""
        for path in paths:
            if stop.is_set():
                break
            try:
                suite = load_suite(path)
                target = out / suite.name if out is not None and len(paths) > 1 else out
                total = len(models or suite.models) * len(suite.cases) * (samples or suite.samples)
                if shard is not None:
                    total = shard.size(total)
                with (
                    survivors_frozen(),  # the suite lives through its run: not rescanned
                    live_progress(
                        stderr, total=total, stats=stats, enabled=show_progress
                    ) as advance,
                ):
                    result = evaluate(
                        suite,
                        models=models or None,
                        samples=samples,
                        out=target,
                        fixtures=fixtures,
                        progress=advance,
                        stop=stop,
                    )
            except InputError as exc:
                broken.append(exc.one_line())
                continue
            except RunInterrupted as interrupted:
                stopped, stopped_arg = interrupted.result, str(path)
                break
            report_run(stderr, result, str(path), fixtures, selection)
            print_budget_stop(stderr, result, str(path), fixtures, selection)
            results.append(result)
            code = 0 if plan_failures_ok and result.exit_code == 1 else result.exit_code
            worst = max(worst, code, key=lambda c: _SEVERITY[c])
    if results:
        print_table(stdout, results)
        print_failing(stdout, results)
        print_usage(stdout, results)
    for line in broken:
        say_error(line)
    if stop.is_set():
        why = stop.reason or "stopped"
        if stopped is not None:
            kept = stopped.manifest
            expected = kept.expected_rows
            of = f" of {expected}" if expected is not None else ""
            finish = (
                selection.continue_command()
                if selection is not None
                else finish_command(kept, suite_arg=stopped_arg)
            )
            say_error(
                f"interrupted ({why}): {stopped.summary().rows}{of} rows kept in "
                f"{stopped.run_dir} "
                f"(run.json marks it interrupted); finish with: {finish}"
            )
        else:
            say_error(f"interrupted ({why}) between suites: the runs listed above are complete")
        raise typer.Exit(ExitCode.INTERRUPTED)
    if broken:
        if len(paths) > 1:
            say_error(
                f"{len(broken)} of {len(paths)} suites could not be run (listed above); "
                f"the other {len(paths) - len(broken)} ran"
            )
        raise typer.Exit(ExitCode.INPUT)
    raise typer.Exit(worst)


def suite_files(args: list[Path]) -> list[Path]:
    """The suite files named, with each folder replaced by the ``*.yaml`` files in it."""
    from harness._errors import SuiteError

    files: list[Path] = []
    for arg in args:
        if arg.is_dir():
            found = sorted([*arg.glob("*.yaml"), *arg.glob("*.yml")])
            if not found:
                raise SuiteError("the folder holds no suite files (*.yaml)", source=str(arg))
            files.extend(found)
        else:
            files.append(arg)
    return files


def report_run(
    stderr: Console,
    result: RunResult,
    suite_arg: str,
    fixtures: Path | None,
    selection: Selection | None = None,
) -> None:
    """What a person must know about one suite's run, on stderr: where, and what went wrong."""
    stderr.print(
        f"{result.manifest.suite}: {result.run_dir / 'results.jsonl'}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    for notice in result.notices:
        say_error(f"note: {notice}")
    tally = result.summary()
    counts = tally.counts()
    if counts["error"]:
        say_error(
            f"{counts['error']} sample(s) failed with infrastructure errors (not plan failures):"
        )
        _list_rows(
            stderr,
            [f"{r.case} ({r.model}, sample {r.sample}): {r.detail}" for r in tally.first_errors()],
            counts["error"],
        )
    missing, stale = counts["missing"], counts["stale"]
    if missing or stale:
        say_error(
            f"{missing} sample(s) have no recording and {stale} are stale "
            "(recorded under another prompt or request):"
        )
        _list_rows(
            stderr,
            [f"{r.status}: {r.case} ({r.model}, sample {r.sample})" for r in tally.first_pending()],
            missing + stale,
        )
        command = result.rerecord_command(suite_arg=suite_arg, fixtures=fixtures)
        gaps = tally.pending_models()
        recordable = [
            m for m in gaps if (spec := result.suite.model(m)) and spec.provider != "dataset"
        ]
        if selection is not None and recordable:  # the command as given
            one_file = len(selection.suites) == 1 and not Path(selection.suites[0]).is_dir()
            command = selection.continue_command(  # narrowed to the models with gaps
                models=recordable if one_file else None, record=True
            )  # (a folder's line has no --model: it names every suite's models)
        if recordable:
            stderr.print(
                f"re-record them with: {command}", highlight=False, markup=False, soft_wrap=True
            )
        else:
            stderr.print(
                "they belong to dataset models, which cannot be re-recorded",
                highlight=False,
                markup=False,
            )


def _list_rows(console: Console, lines: list[str], total: int) -> None:
    """The first few of ``total`` lines, indented, then how many more there are."""
    for line in lines[:_SHOWN]:
        console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    if total > _SHOWN:
        console.print(f"  … and {total - _SHOWN} more (see results.jsonl)", highlight=False)
