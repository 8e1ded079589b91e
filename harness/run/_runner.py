"""Running a suite: every case x model x sample, written row by row as each finishes.

Replay runs in the calling thread (it is CPU work). Live runs use a bounded pool of daemon
threads; Ctrl+C stops handing out work, keeps every finished row, marks run.json
``interrupted`` and raises ``RunInterrupted``. Recordings are written atomically, so a call
still in flight when the run stops leaves either a complete recording or none.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import json
import os
import queue
import secrets
import shlex
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from harness import __version__
from harness._atomic import atomic_path, atomic_write_text
from harness._errors import InputError, SuiteError
from harness._redaction import scrub
from harness.cost import Price, model_prices, price_table
from harness.providers import CommandProvider, RetryPolicy, close_thread_clients, http_provider
from harness.recording import sample_paths
from harness.run._evaluate import (
    Pending,
    check_record_mode,
    fixtures_root,
    needs_call,
    prepare_one,
)
from harness.run._limits import limits_from_suite
from harness.run._live import Budget, LiveControls, LiveStats, mean_recorded_output
from harness.run._metrics import is_unpredicted_gold, unpredicted_gold
from harness.run._records import PROMPTS_FILE, ResultRow, RunManifest
from harness.run._shard import Shard, fixtures_for_shards
from harness.run._stop import StopRequest
from harness.run._summary import count_statuses
from harness.run._tally import RunTally
from harness.suite import Case, ModelSpec, StreamedCases, Suite

if TYPE_CHECKING:
    from harness.batch import BatchFailure

__all__ = ["RunInterrupted", "RunResult", "live_record_mode", "run_suite"]

Progress = Callable[[ResultRow], None]


@dataclass(frozen=True, slots=True)
class RunResult:
    """What a run wrote and found."""

    run_dir: Path
    """The run folder (``reports/runs/<run-id>/``)."""
    manifest: RunManifest
    """What run.json says."""
    rows: tuple[ResultRow, ...]
    """Every finished row, in suite order (model, case, sample); empty for a run made with
    ``keep_rows=False`` (its summary is ``tally``)."""
    suite: Suite
    """The suite that ran."""
    notices: tuple[str, ...] = field(default=())
    """One-line notes for the user (a dataset model that cannot be re-recorded, ...)."""
    tally: RunTally | None = None
    """What the summary reads, counted as rows finished (``summary()``)."""

    def summary(self) -> RunTally:
        """The run's tally: counts, per-case clusters, the first errors and gaps, the worst
        failing cases, tokens and cost (made from ``rows`` when the run did not keep one)."""
        if self.tally is not None:
            return self.tally
        from harness.cost import run_prices

        manifest = self.manifest
        return RunTally.of_rows(
            self.rows,
            [str(m["id"]) for m in manifest.models],
            manifest.samples,
            prices=run_prices(manifest),
            budget_reason=(manifest.budget or {}).get("stopped"),
            is_unpredicted=lambda r: (
                self.suite is not None and is_unpredicted_gold(self.suite, r.model, r.case)
            ),
        )

    @property
    def interrupted(self) -> bool:
        """True when the run was stopped before every row was written."""
        return self.manifest.interrupted

    @property
    def exit_code(self) -> int:
        """4 infrastructure errors, else 3 missing/stale, else 1 a case failed, else 0.

        A ``dataset`` model's missing answer to a case with a reference plan is a gold id
        without a prediction (imported predictions rarely cover every gold id; TaskBench's
        ``evaluate.py`` leaves such ids out): its row stays ``missing`` and is scored as an
        empty plan under the ``zero`` convention, but it does not make the run exit 3."""
        counts = self.manifest.counts
        if counts.get("error"):
            return 4
        if counts.get("stale") or (counts.get("missing") and self._recordings_missing()):
            return 3
        if counts.get("fail") or counts.get("unparseable"):
            return 1
        return 0

    def _recordings_missing(self) -> bool:
        """Whether a missing row is one a recording would fill (see ``exit_code``)."""
        return self.summary().recordings_missing

    def rows_with(self, *statuses: str) -> list[ResultRow]:
        """The rows whose status is one of ``statuses``."""
        return [r for r in self.rows if r.status in statuses]

    def rerecord_command(
        self, *, suite_arg: str | None = None, fixtures: Path | None = None
    ) -> str:
        """The command that records exactly the missing and stale samples of this run.

        ``--record-mode new_episodes`` replays what is fresh and records the rest; only the
        models with missing or stale rows (and that can be recorded) are named.
        """
        from harness.run._finish import rerecord_command

        models = self.summary().pending_models()
        command = rerecord_command(
            self.manifest,
            models,
            suite_samples=self.suite.samples,
            suite_arg=suite_arg or str(self.suite.path),
            fixtures=fixtures,
        )
        # every model is a dataset model: the command names none (callers check "--model")
        return command or shlex.join(["planeval", "run", suite_arg or str(self.suite.path)])


class RunInterrupted(KeyboardInterrupt):
    """Ctrl+C stopped a run; ``result`` holds the rows that finished (run.json says so)."""

    def __init__(self, result: RunResult) -> None:
        super().__init__("run interrupted")
        self.result = result


def live_record_mode(live: bool, record_mode: str | None, environ: Mapping[str, str]) -> str:
    """The record mode: ``--live`` or ``LIVE_EVALS=1`` mean ``all``; else the given or ``none``."""
    if live or environ.get("LIVE_EVALS", "").strip().lower() in ("1", "true", "yes"):
        return "all"
    return record_mode or "none"


def run_suite(
    suite: Suite,
    *,
    models: Sequence[str] | None = None,
    samples: int | None = None,
    record_mode: str = "none",
    concurrency: int = 4,
    out: Path | None = None,
    progress: Progress | None = None,
    fixtures: Path | None = None,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
    transform: Callable[[ResultRow], ResultRow] | None = None,
    transform_rows: Callable[[Iterator[ResultRow]], Iterator[ResultRow]] | None = None,
    label: str | None = None,
    prices: Path | None = None,
    budget: Budget | None = None,
    stats: LiveStats | None = None,
    shard: Shard | None = None,
    batch: bool = False,
    batch_poll: float = 30.0,
    notify: Callable[[str], None] | None = None,
    stop: StopRequest | None = None,
    keep_rows: bool = True,
) -> RunResult:
    """Evaluate every case x model x sample and write results.jsonl and run.json.

    Args:
        suite: the loaded suite.
        models: model ids to run (default: all of the suite's).
        samples: samples per case and model (default: the suite's).
        record_mode: ``none`` (replay only), ``once``, ``new_episodes`` or ``all``.
        concurrency: planner calls in flight at once in live modes.
        out: the run folder (default ``<root>/reports/runs/<run-id>``); must not hold a run.
        progress: called with each finished row, in the calling thread.
        fixtures: the recordings folder (default ``<root>/plan_fixtures``).
        retry: the retry policy for live calls (default: each model's ``retries``).
        env: environment for API keys (default ``os.environ``).
        transform: applied to each checked row before it is written (``resume-eval`` turns a
            row's plan into crash-and-resume scenario outcomes here).
        transform_rows: like ``transform``, over the stream of checked rows (one row out per
            row in, in order), for transforms that work ahead in other processes; it is
            closed when the run stops early.
        label: the suite name written into the run and its rows (default the suite's name);
            a run of another kind gets its own label so it is never compared with plain runs.
        prices: a price file on top of the shipped table and the suite's (``--prices``).
        budget: ``--max-cost`` / ``--max-calls`` of a live run; samples the budget stops
            become ``missing`` and run.json says why.
        stats: running totals of live calls (calls, tokens, cost) for a progress display.
        shard: run only this deterministic slice of the items (``harness.run.Shard``);
            ``merge_runs`` joins the shards' runs.
        batch: send the HTTP models' calls through the vendors' batch APIs
            (``harness.batch``); an ``out`` folder holding an unfinished batch run resumes it.
        batch_poll: seconds between batch status checks.
        notify: called with one-line notices while the run is under way (batch ids, progress).
        stop: looked at between rows (``stop_on_signals`` sets it on SIGINT and SIGTERM); a
            stop ends the run like Ctrl+C.
        keep_rows: keep each finished row whole in ``RunResult.rows`` (the default). False
            keeps no row: every row is still written whole to results.jsonl as it finishes,
            and ``RunResult.tally`` holds what the summary reads, so the run's memory does not
            grow with its rows (``planeval run``). Either way the cases are read one at a time
            (a suite with a cases file is streamed from it) and the items are never listed.

    Raises:
        InputError: unknown model ids, a bad record mode or concurrency, a run folder that
            already holds a run, or live mode without an SDK, key or command (before any call).
        RunInterrupted: Ctrl+C or ``stop``; run.json is marked interrupted and finished rows
            are kept.
    """
    mode = check_record_mode(record_mode)
    if concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, got {concurrency}")
    chosen = _choose_models(suite, models)
    count = samples if samples is not None else suite.samples
    if count < 1:
        raise InputError(f"--samples must be at least 1, got {count}")
    cases = len(suite.cases)
    every = len(chosen) * cases * count
    total = shard.size(every) if shard is not None else every

    def selected() -> Iterator[tuple[int, int, Item]]:
        return _items(suite, chosen, count, shard)

    if batch and mode == "none":
        raise InputError("--batch sends live calls: use it with --live or a --record-mode")
    notices = _preflight(suite, chosen, selected, mode, fixtures, env)
    if shard is not None and mode != "none":  # a shard's recordings must reach the merge
        warning = fixtures_for_shards(fixtures_root(suite, fixtures), env)
        notices += [warning] if warning else []
    described = [m.describe() for m in chosen]
    costs = model_prices(described, price_table(suite.prices_path, prices))
    controls = None
    if mode != "none":
        _check_budget(budget, chosen, costs)
        root = fixtures_root(suite, fixtures)
        # A paid answer must never be thrown away for want of a place to keep it.
        _check_writable(root / suite.name)
        controls = LiveControls(
            budget=budget or Budget(),
            limits=limits_from_suite(suite.rate_limits),
            prices=costs,
            recorded_output=_recorded_outputs(root, suite.name, chosen, budget),
            stats=stats if stats is not None else LiveStats(),
        )
    if isinstance(suite.cases, StreamedCases):  # before the run folder is made
        suite.cases.check_unchanged()
    started = _now()
    name = label or suite.name
    run_dir = _run_dir(suite, out, started, name, shard, resume_batch=batch)
    manifest = RunManifest(
        run_id=run_dir.name,
        suite=name,
        suite_path=_relative(suite.path, suite.root),
        prompt_hash=suite.prompt_hash,
        models=described,
        samples=count,
        record_mode=mode,
        harness_version=__version__,
        git_commit=_git_commit(suite.root),
        started_at=started.isoformat(timespec="seconds"),
        finished_at=None,
        counts=count_statuses(()),
        prices={k: p.to_dict() if p is not None else None for k, p in costs.items()},
        budget=None if budget is None else {**budget.describe(), "stopped": None},
        shard=None if shard is None else shard.describe(every),
        case_ids=None if shard is None else [c.id for c in suite.cases],
        cases=cases,
    )
    _write_manifest(run_dir, manifest)
    batched: dict[tuple[str, str, int], BatchFailure] | None = None
    if batch:
        try:
            batched = _send_batches(
                suite,
                (item for _, _, item in selected()),
                mode,
                run_dir,
                fixtures,
                env,
                batch_poll,
                notify,
                controls,
            )
        except KeyboardInterrupt:
            manifest = RunManifest(**{**manifest.to_dict(), "interrupted": True})
            _write_manifest(run_dir, manifest)
            raise RunInterrupted(RunResult(run_dir, manifest, (), suite)) from None
        except SuiteError:  # the cases file changed or broke under the run
            _write_manifest(run_dir, RunManifest(**{**manifest.to_dict(), "interrupted": True}))
            raise
    try:
        _write_prompts(run_dir, suite)
    except SuiteError:
        _write_manifest(run_dir, RunManifest(**{**manifest.to_dict(), "interrupted": True}))
        raise
    stopped_by_budget = (lambda: controls.stopped) if controls is not None else None
    tally = RunTally(
        [m.id for m in chosen],
        cases,
        count,
        prices=costs,
        items_of=functools.partial(_items_of, count, cases, shard),
        budget_reason=stopped_by_budget,
    )

    def prepare(item: tuple[ModelSpec, Case, int]) -> Pending:
        model, case, sample = item
        if batched is not None and model.is_http:  # answered by a batch: replay it
            failure = batched.get((model.id, case.id, sample))
            if failure is not None:
                return Pending(None, functools.partial(_batch_row, suite.name, item, failure))
            return prepare_one(suite, case, model, sample, record_mode="none", fixtures=fixtures)
        return prepare_one(
            suite,
            case,
            model,
            sample,
            record_mode=mode,
            fixtures=fixtures,
            retry=retry,
            env=env,
            live=controls,
        )

    def replay(item: tuple[ModelSpec, Case, int]) -> ResultRow:
        pending = prepare(item)
        if pending.write is not None:
            pending.write()
        return pending.check()

    done: list[tuple[int, ResultRow]] = []
    stop = stop if stop is not None else StopRequest()
    if controls is not None:  # a call waiting for budget room gives up when the run stops
        controls.cancelled = stop.is_set
    # Where each row is in the run, one entry per row in row order (``transform_rows`` may
    # read ahead): its index, its case's index and whether it is a gold id without a
    # prediction.
    places: collections.deque[tuple[int, int, bool]] = collections.deque()

    def replayed() -> Generator[ResultRow, None, None]:
        for index, case_index, item in selected():
            places.append((index, case_index, unpredicted_gold(item[0], item[1])))
            yield replay(item)

    rows: Generator[ResultRow, None, None] = (
        replayed()
        if mode == "none"
        else _in_pool(suite.name, selected(), total, prepare, concurrency, stop, places)
    )
    # Live rows are flushed one by one; replay rows at least every 0.2 s (replay is cheap to
    # redo, and a flush per row would cost more than the rest of a replayed row).
    flush_every = 0.0 if mode != "none" else 0.2
    broken: SuiteError | None = None
    last_flush = time.monotonic()
    stream = transform_rows(rows) if transform_rows is not None else rows
    with (run_dir / "results.jsonl").open("a", encoding="utf-8", newline="\n") as sink:
        try:
            for checked in stream:
                row = transform(checked) if transform is not None else checked
                if label is not None:
                    row = dataclasses.replace(row, suite=label)
                sink.write(scrub(json.dumps(_row_dict(row), ensure_ascii=False)) + "\n")
                if time.monotonic() - last_flush >= flush_every:
                    sink.flush()
                    last_flush = time.monotonic()
                index, case_index, unpredicted = places.popleft()
                tally.add(index, case_index, row, unpredicted_gold=unpredicted)
                if keep_rows:
                    done.append((index, row))
                if progress is not None:
                    progress(row)
                if stop.is_set():
                    break
        except KeyboardInterrupt:
            stop.set("Ctrl+C")
        except SuiteError as exc:  # the cases file changed or broke under the run
            broken = exc
        finally:
            close = getattr(stream, "close", None)
            if stream is not rows and close is not None:
                close()
            rows.close()  # the pool hands out no more calls
            sink.flush()
            os.fsync(sink.fileno())
    interrupted = (stop.is_set() and tally.rows < total) or broken is not None
    done.sort(key=lambda placed: placed[0])
    tally.finish()
    manifest = RunManifest(
        **{
            **manifest.to_dict(),
            "finished_at": None if interrupted else _now().isoformat(timespec="seconds"),
            "counts": tally.counts(),
            "interrupted": interrupted,
            "budget": None
            if budget is None
            else {**budget.describe(), "stopped": controls.stopped if controls else None},
        }
    )
    _write_manifest(run_dir, manifest)
    if broken is not None:  # run.json says interrupted: nothing looks complete
        raise broken
    kept = tuple(row for _, row in done)
    result = RunResult(run_dir, manifest, kept, suite, tuple(notices), tally)
    if interrupted:
        raise RunInterrupted(result)
    return result


Item = tuple[ModelSpec, Case, int]
"""One sample to evaluate: the model, the case and the sample's index."""


def _items(
    suite: Suite, chosen: Sequence[ModelSpec], samples: int, shard: Shard | None
) -> Iterator[tuple[int, int, Item]]:
    """The run's items in run order (models, then cases, then samples), each with its index
    among every item of the run and its case's index: only a shard's own when ``shard`` is
    given. The cases are iterated once per model (a cases file is read one line at a time)."""
    index = 0
    for model in chosen:
        for case_index, case in enumerate(suite.cases):
            for sample in range(samples):
                if shard is None or shard.holds(index):
                    yield index, case_index, (model, case, sample)
                index += 1


def _items_of(samples: int, cases: int, shard: Shard | None, model: int, case: int) -> int:
    """How many of a (model, case) pair's samples the run (or its shard) has."""
    if shard is None:
        return samples
    first = (model * cases + case) * samples
    return sum(shard.holds(index) for index in range(first, first + samples))


def summary_row(row: ResultRow) -> ResultRow:
    """``row`` without what no summary reads: checks, plan, answer, metrics, tags and every
    violation but the first error of a failing row (what ``failing_cases`` shows)."""
    violations = row.violations
    if violations:
        errors = [v for v in violations if v.get("severity") == "error"]
        violations = (errors or violations)[:1] if row.status == "fail" else []
    return dataclasses.replace(
        row,
        checks={},
        violations=violations,
        tags=[],
        recording=None,
        plan=None,
        answer=None,
        metrics=None,
        metric_detail=None,
    )


def _check_writable(folder: Path) -> None:
    """Create ``folder`` and a file in it, or raise the OSError (before any planner call).

    Raises:
        OSError: the folder cannot be created or written (read-only, full disk), naming it.
    """
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(folder)) from None


def _send_batches(
    suite: Suite,
    items: Iterable[Item],
    mode: str,
    run_dir: Path,
    fixtures: Path | None,
    env: Mapping[str, str] | None,
    poll_interval: float,
    notify: Callable[[str], None] | None,
    controls: LiveControls | None = None,
) -> dict[tuple[str, str, int], BatchFailure]:
    """The HTTP items that need a call, sent as batches; the samples they failed to answer."""
    from harness.batch import collect_batches

    todo = [
        (model, case, sample)
        for model, case, sample in items
        if model.is_http
        and needs_call(suite, case, model, sample, record_mode=mode, fixtures=fixtures)
    ]
    hint = shlex.join(
        [
            "planeval",
            "run",
            str(suite.path),
            "--batch",
            "--record-mode",
            mode,
            "--out",
            str(run_dir),
        ]
    )
    return collect_batches(
        suite,
        todo,
        run_dir=run_dir,
        fixtures=fixtures_root(suite, fixtures),
        env=env,
        poll_interval=poll_interval,
        say=notify or (lambda _line: None),
        resume_hint=hint,
        budget=controls,
    )


def _batch_row(
    suite_name: str, item: tuple[ModelSpec, Case, int], failure: BatchFailure
) -> ResultRow:
    model, case, sample = item
    return ResultRow(
        suite=suite_name,
        case=case.id,
        model=model.id,
        sample=sample,
        status=failure.status,  # type: ignore[arg-type]
        tags=list(case.tags),
        detail=failure.detail,
    )


def _check_budget(
    budget: Budget | None, chosen: list[ModelSpec], costs: Mapping[str, Price | None]
) -> None:
    if budget is None:
        return
    if budget.max_calls is not None and budget.max_calls < 0:
        raise InputError(f"--max-calls must be at least 0, got {budget.max_calls}")
    if budget.max_cost is None:
        return
    if budget.max_cost < 0:
        raise InputError(f"--max-cost must be at least 0, got {budget.max_cost:g}")
    commands = [m.id for m in chosen if m.provider == "command"]
    if commands:  # no usage, no output cap: neither a worst case nor a bill to settle to
        raise InputError(
            "--max-cost cannot hold for command planners: planeval sees neither what they "
            f"send to a model nor what they are billed; command model(s) "
            f"{', '.join(map(repr, commands))}",
            hint="leave them out with --model (run them in a command of their own, where "
            "--max-calls caps their calls), or run without --max-cost",
        )
    unpriced = [m for m in chosen if m.provider != "dataset" and costs.get(m.id) is None]
    if unpriced:
        names = ", ".join(f"{m.id!r} ({m.provider} {m.model or m.command})" for m in unpriced)
        raise InputError(
            f"--max-cost needs a price for every model that may be called; none for {names}",
            hint="add them to a price file and pass --prices FILE (docs/cost.md), or leave "
            "those models out with --model",
        )
    uncapped = [m.id for m in chosen if m.is_http and _uncapped(m)]
    if uncapped:
        raise InputError(
            "--max-cost needs a cap on each call's output (its worst case is reserved before "
            f"it starts); no max_tokens for model(s) {', '.join(map(repr, uncapped))}",
            hint="set params: {max_tokens: N} (or max_completion_tokens) for each of them in "
            "the suite (docs/cost.md)",
        )


def _uncapped(model: ModelSpec) -> bool:
    from harness.run._live import output_cap

    provider = http_provider(model.provider)
    return provider is not None and output_cap(provider.request_body(model, "")) is None


def _recorded_outputs(
    root: Path, suite: str, chosen: list[ModelSpec], budget: Budget | None
) -> dict[str, float]:
    """Mean output tokens of each model's recordings (only read when a cost budget is set)."""
    if budget is None or budget.max_cost is None:
        return {}
    found = {m.id: mean_recorded_output(root / suite / m.id) for m in chosen}
    return {k: v for k, v in found.items() if v is not None}


def _choose_models(suite: Suite, models: Sequence[str] | None) -> list[ModelSpec]:
    if not models:
        return list(suite.models)
    chosen = []
    for model_id in dict.fromkeys(models):
        spec = suite.model(model_id)
        if spec is None:
            known = ", ".join(m.id for m in suite.models)
            raise SuiteError(
                f"the suite has no model {model_id!r}",
                source=str(suite.path),
                hint=f"choose from: {known}",
            )
        chosen.append(spec)
    return chosen


def _preflight(
    suite: Suite,
    chosen: list[ModelSpec],
    items: Callable[[], Iterator[tuple[int, int, Item]]],
    mode: str,
    fixtures: Path | None,
    env: Mapping[str, str] | None,
) -> list[str]:
    """Check SDKs, keys and commands of every model that may go live, before any call."""
    notices: list[str] = []
    if mode == "none":
        return notices
    root = fixtures_root(suite, fixtures)
    for model in chosen:
        if model.provider == "dataset":
            notices.append(
                f"model {model.id!r} is a dataset (recordings only): it cannot be re-recorded; "
                "its recordings are replayed"
            )
            continue
        if mode == "once" and all(
            sample_paths(root, suite.name, m.id, c.id, k).existing(m.is_http) is not None
            for _, _, (m, c, k) in items()
            if m.id == model.id
        ):
            continue
        provider = http_provider(model.provider)
        if provider is not None:
            provider.preflight(model, env)
        else:
            CommandProvider().preflight(model, suite.root)
    return notices


def _in_pool(
    suite_name: str,
    items: Iterator[tuple[int, int, Item]],
    total: int,
    prepare: Callable[[Item], Pending],
    concurrency: int,
    stop: StopRequest,
    places: collections.deque[tuple[int, int, bool]],
) -> Generator[ResultRow, None, None]:
    """Call planners in up to ``concurrency`` daemon threads; yield rows as they finish.

    Workers take the next of the ``total`` items as they free up (the items are read as they
    are needed, never listed) and only call planners. Recordings are written by a few writer
    threads (fsync and rename wait on the disk) and plans are checked in this thread, so a
    worker's next request goes out while earlier answers are still being written and checked.
    Each row's place (index, case index, gold id without a prediction) goes to ``places``
    as the row is yielded.
    """
    taking = threading.Lock()
    Placed = tuple[int, int, Item]
    Ready = tuple[Placed, Callable[[], ResultRow]]
    ready: queue.SimpleQueue[Ready] = queue.SimpleQueue()
    source_errors: list[BaseException] = []

    def take() -> Placed | None:
        with taking:
            if source_errors:
                return None
            try:
                return next(items, None)
            except BaseException as exc:  # the cases file changed or broke under the run
                source_errors.append(exc)
                return None

    writers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="planeval-writer")

    def internal_error(placed: Placed, exc: BaseException) -> ResultRow:
        model, case, sample = placed[2]
        return ResultRow(
            suite=suite_name,
            case=case.id,
            model=model.id,
            sample=sample,
            status="error",
            tags=list(case.tags),
            detail=f"internal error: {exc.__class__.__name__}: {exc}",
        )

    disk_errors: list[OSError] = []

    def write(item: Placed, pending: Pending) -> None:
        try:
            assert pending.write is not None
            pending.write()
            ready.put((item, pending.check))
        except OSError as exc:  # a full or read-only disk: no more answers it cannot keep
            disk_errors.append(exc)  # workers take no new item; this thread raises it
            ready.put((item, functools.partial(internal_error, item, exc)))
        except Exception as exc:
            ready.put((item, functools.partial(internal_error, item, exc)))

    def worker() -> None:
        try:
            while not stop.is_set() and not disk_errors:
                item = take()
                if item is None:
                    return
                try:
                    pending = prepare(item[2])
                except Exception as exc:  # a bug must not lose the run: it becomes an error row
                    ready.put((item, functools.partial(internal_error, item, exc)))
                    continue
                if pending.write is None:
                    ready.put((item, pending.check))
                    continue
                try:
                    writers.submit(write, item, pending)
                except RuntimeError:  # the run stopped while this call was in flight
                    return
        finally:
            close_thread_clients()

    for _ in range(min(concurrency, total)):
        threading.Thread(target=worker, daemon=True, name="planeval-worker").start()
    try:
        for _ in range(total):
            while True:
                if stop.is_set():
                    return
                if source_errors:
                    raise source_errors[0]
                try:
                    item, check = ready.get(timeout=0.05)
                    break
                except queue.Empty:
                    continue
            if disk_errors:
                raise disk_errors[0]  # the CLI exits 4, naming the file
            try:
                row = check()
            except Exception as exc:
                row = internal_error(item, exc)
            model, case = item[2][0], item[2][1]
            places.append((item[0], item[1], unpredicted_gold(model, case)))
            del item, check
            yield row
    finally:
        # Answers already handed to a writer are still recorded (they were paid for).
        writers.shutdown(wait=False)


_ROW_FIELDS = tuple(f.name for f in fields(ResultRow))


def _row_dict(row: ResultRow) -> dict[str, object]:
    """``row.to_dict()`` without ``asdict``'s deep copy (values are plain JSON already)."""
    return {name: getattr(row, name) for name in _ROW_FIELDS}


def _run_dir(
    suite: Suite,
    out: Path | None,
    started: datetime,
    name: str,
    shard: Shard | None = None,
    *,
    resume_batch: bool = False,
) -> Path:
    if out is None:
        stamp = started.strftime("%Y%m%dT%H%M%SZ")
        part = f"-shard-{shard.index}of{shard.count}" if shard is not None else ""
        out = suite.root / "reports" / "runs" / f"{stamp}-{name}{part}-{secrets.token_hex(2)}"
    out = Path(out)
    if resume_batch and _unfinished_batch_run(out):
        (out / "results.jsonl").unlink(missing_ok=True)
        return out
    if (out / "results.jsonl").exists() or (out / "run.json").exists():
        raise InputError(
            "the output folder already holds a run",
            source=str(out),
            hint="choose another --out folder; runs are never overwritten",
        )
    out.mkdir(parents=True, exist_ok=True)  # an OSError here is the disk's: exit 4
    return out


def _unfinished_batch_run(folder: Path) -> bool:
    """True for a run folder with saved batches whose run never finished (a resume), or a
    batch run killed before it saved any (nothing was sent: batches are saved before)."""
    from harness.batch import BATCH_FILE

    saved = (folder / BATCH_FILE).is_file()
    try:
        data = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return saved
    rows = folder / "results.jsonl"
    unsent = data.get("record_mode") != "none" and not (rows.is_file() and rows.stat().st_size)
    return not data.get("finished_at") and (saved or unsent)


def _write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    text = json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(run_dir / "run.json", text)


def _write_prompts(run_dir: Path, suite: Suite) -> None:
    """``prompts.json``: each case's rendered prompt, for the reports. Written one prompt at a
    time (the text ``json.dumps(prompts, indent=0)`` gives): with a tool list in every
    prompt, the whole document held at once was the peak of a long run's memory."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    path = run_dir / PROMPTS_FILE
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("{")
        separator = "\n"
        for case in suite.cases:
            fh.write(f"{separator}{encode(case.id)}: {encode(suite.render_prompt(case))}")
            separator = ",\n"
        fh.write("}\n" if separator == "\n" else "\n}\n")


def _git_commit(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:
        return path.as_posix()


def _now() -> datetime:
    return datetime.now(UTC)
