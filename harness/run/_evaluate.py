"""Evaluating one case x model x sample: obtain the answer (replay or live), parse, check."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import __version__
from harness._errors import InputError, PlanLoadError
from harness.providers import http_provider
from harness.providers._base import Answer, ProviderError, answer_from_body
from harness.recording import (
    RECORD_MODES,
    Provenance,
    ResponseFile,
    SamplePaths,
    read_meta,
    sample_paths,
    write_meta,
)
from harness.run._records import ANSWER_LIMIT, ResultRow, Status
from harness.suite import Case, ModelSpec, Suite

# Replaying response files needs none of these: the cassette machinery, the command provider,
# the retry loop and the live controls load where a cassette is replayed or a planner called.
if TYPE_CHECKING:
    from harness.providers import RetryPolicy
    from harness.run._live import LiveControls, Ticket

__all__ = [
    "Pending",
    "check_record_mode",
    "evaluate_one",
    "fixtures_root",
    "needs_call",
    "prepare_one",
]

_LOAD_FORMAT = {"canonical": "auto"}


def check_record_mode(record_mode: str) -> str:
    """Return ``record_mode`` if it is one of ``none|once|new_episodes|all``.

    Raises:
        InputError: any other value (a misspelled mode fails loudly).
    """
    if record_mode not in RECORD_MODES:
        raise InputError(
            f"unknown record mode {record_mode!r}",
            hint=f"choose one of: {', '.join(RECORD_MODES)}",
        )
    return record_mode


def fixtures_root(suite: Suite, fixtures: Path | None = None) -> Path:
    """Where recordings live: ``fixtures`` or ``<project root>/plan_fixtures``."""
    return Path(fixtures) if fixtures is not None else suite.root / "plan_fixtures"


@dataclass(frozen=True, slots=True)
class _Obtained:
    """An answer, or the reason there is none."""

    answer: Answer | None
    status: Status | None = None
    detail: str | None = None
    recording: Path | None = None
    commit: Callable[[], None] | None = None
    """Writes the new recording."""


def evaluate_one(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    sample: int,
    *,
    record_mode: str = "none",
    fixtures: Path | None = None,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
    metrics: bool = True,
    keep_plan: bool = True,
) -> ResultRow:
    """Replay (or, per ``record_mode``, record) one sample and check its plan.

    ``metrics=False`` leaves the researcher metrics (scores against the gold) out of the row,
    and ``keep_plan=False`` the parsed plan (``row.plan``): a caller that judges only the
    checks (``pytest --planeval``) does not pay for them.

    Never raises for a planner or plan problem: those are the row's status (``unparseable``,
    ``missing``, ``stale``, ``error``).

    Raises:
        InputError: an unknown record mode, or live mode without the SDK, key or command.
    """
    try:
        pending = prepare_one(
            suite,
            case,
            model,
            sample,
            record_mode=record_mode,
            fixtures=fixtures,
            retry=retry,
            env=env,
            metrics=metrics,
            keep_plan=keep_plan,
        )
    finally:
        _close_thread_clients()
    if pending.write is not None:
        pending.write()
    return pending.check()


def _close_thread_clients() -> None:
    """Close this thread's SDK clients; none can be open while the HTTP providers were never
    imported (a replay of response files), which this does not import."""
    http = sys.modules.get("harness.providers._http")
    if http is not None:
        http.close_thread_clients()


@dataclass(frozen=True, slots=True)
class Pending:
    """An answer obtained but not yet recorded and checked (see ``prepare_one``)."""

    write: Callable[[], None] | None
    """Writes the new recording (atomically), or None when nothing new was recorded."""
    check: Callable[[], ResultRow]
    """Checks the plan and returns the row."""


def prepare_one(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    sample: int,
    *,
    record_mode: str = "none",
    fixtures: Path | None = None,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
    live: LiveControls | None = None,
    metrics: bool = True,
    keep_plan: bool = True,
) -> Pending:
    """``evaluate_one`` in steps: obtain the answer now; write and check it later.

    A live run's workers obtain answers and go straight back to the network, while other
    threads write recordings (waiting on the disk) and check plans. ``live`` applies a run's
    budget and rate limits to the calls and keeps its running totals.
    """
    mode = check_record_mode(record_mode)
    paths = sample_paths(fixtures_root(suite, fixtures), suite.name, model.id, case.id, sample)
    obtained = _obtain(suite, case, model, sample, mode, paths, retry, env, live)
    return Pending(
        write=obtained.commit,
        check=lambda: _grade(
            suite, case, model, sample, obtained, metrics=metrics, keep_plan=keep_plan
        ),
    )


def _obtain(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    sample: int,
    mode: str,
    paths: SamplePaths,
    retry: RetryPolicy | None,
    env: Mapping[str, str] | None,
    live: LiveControls | None = None,
) -> _Obtained:
    replayed = _kept_recording(suite, case, model, mode, paths)
    if replayed is not None:
        return replayed
    from harness.providers import RetryPolicy

    policy = retry or RetryPolicy(retries=model.retries)
    ticket = None
    if live is not None:
        prompt = suite.render_prompt(case)
        provider = http_provider(model.provider)
        body = provider.request_body(model, prompt) if provider is not None else None
        admitted = live.admit(model, prompt, body)
        if isinstance(admitted, str):
            return _Obtained(None, "missing", admitted)
        ticket = admitted
    try:
        if model.is_http:
            got = _record_http(suite, case, model, paths, policy, env, live, ticket)
        else:
            got = _record_command(suite, case, model, sample, paths, policy, live, ticket)
    except BaseException:
        if live is not None and ticket is not None:
            live.settle(ticket, None, ok=False)
        raise
    if live is not None and ticket is not None:
        tokens = got.answer.tokens if got.answer is not None else None
        live.settle(ticket, tokens, ok=got.status != "error")
    return got


def _kept_recording(
    suite: Suite, case: Case, model: ModelSpec, mode: str, paths: SamplePaths
) -> _Obtained | None:
    """The replayed answer when ``mode`` keeps what is recorded; None when it calls the planner.

    ``none`` (and dataset models) always replay; ``once`` calls only where nothing is
    recorded (a stale recording is replayed and reported ``stale``); ``new_episodes`` calls
    where the recording is missing or stale; ``all`` always calls.
    """
    if mode == "none" or model.provider == "dataset":
        return _replay(suite, case, model, paths)
    if mode == "once" and paths.existing(model.is_http) is not None:
        return _replay(suite, case, model, paths)
    if mode == "new_episodes":
        replayed = _replay(suite, case, model, paths)
        if replayed.status not in ("missing", "stale"):
            return replayed
    return None


def needs_call(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    sample: int,
    *,
    record_mode: str,
    fixtures: Path | None = None,
) -> bool:
    """True when a run in ``record_mode`` would call the planner for this sample.

    The one rule for every way of calling: direct calls (``prepare_one``) and batches
    (``harness.batch``) send exactly the same samples.
    """
    mode = check_record_mode(record_mode)
    paths = sample_paths(fixtures_root(suite, fixtures), suite.name, model.id, case.id, sample)
    return _kept_recording(suite, case, model, mode, paths) is None


# -- replay ---------------------------------------------------------------------------------
def _replay(suite: Suite, case: Case, model: ModelSpec, paths: SamplePaths) -> _Obtained:
    found = paths.existing(prefer_cassette=model.is_http)
    if found is None:
        where = _relative(suite, paths.response.with_suffix(""))
        return _Obtained(None, "missing", f"no recording ({where}.json or .yaml)")
    try:
        if found == paths.response:
            return _replay_response_file(suite, found)
        return _replay_cassette(suite, case, model, paths)
    except InputError as exc:
        return _Obtained(None, "error", f"unreadable recording: {exc.one_line()}", found)


def _stale(suite: Suite, recorded: str, found: Path) -> _Obtained:
    return _Obtained(
        None,
        "stale",
        f"recorded under prompt {recorded[:19]}…, the suite's prompt is now "
        f"{suite.prompt_hash[:19]}…",
        found,
    )


def _replay_response_file(suite: Suite, path: Path) -> _Obtained:
    recorded = ResponseFile.read(path)
    if recorded.provenance.prompt_hash != suite.prompt_hash:
        return _stale(suite, recorded.provenance.prompt_hash, path)
    answer = Answer(recorded.response, recorded.tokens, recorded.latency_ms)
    return _Obtained(answer, recording=path)


def _replay_cassette(suite: Suite, case: Case, model: ModelSpec, paths: SamplePaths) -> _Obtained:
    meta = read_meta(paths.meta)
    if meta is not None and meta.provenance.prompt_hash != suite.prompt_hash:
        return _stale(suite, meta.provenance.prompt_hash, paths.cassette)
    from harness.recording import CassetteMiss, read_cassette, replay_response

    provider = http_provider(model.provider)
    expected = None
    if provider is not None and (meta is None or meta.provenance.source == "live"):
        body = provider.request_body(model, suite.render_prompt(case))
        expected = ("POST", provider.url(model), body)
    try:
        data = replay_response(read_cassette(paths.cassette), expected=expected)
    except CassetteMiss as miss:
        return _Obtained(None, "stale", miss.detail, paths.cassette)
    except InputError as exc:
        raise InputError(
            f"not a usable cassette: {exc.what}", source=str(paths.cassette), location=exc.location
        ) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a usable cassette: {exc}", source=str(paths.cassette)) from None
    try:
        answer = answer_from_body(data)
    except ValueError as exc:
        return _Obtained(Answer(""), "unparseable", str(exc), paths.cassette)
    latency = meta.latency_ms if meta is not None else None
    return _Obtained(replace(answer, latency_ms=latency), recording=paths.cassette)


# -- live -----------------------------------------------------------------------------------
def _provenance(suite: Suite, model: ModelSpec) -> Provenance:
    return Provenance(
        source="live",
        model=model.model or model.command or model.id,
        prompt_hash=suite.prompt_hash,
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
        harness_version=__version__,
        params=dict(model.params),
    )


def _record_http(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    paths: SamplePaths,
    policy: RetryPolicy,
    env: Mapping[str, str] | None,
    live: LiveControls | None = None,
    ticket: Ticket | None = None,
) -> _Obtained:
    from harness.providers import with_retries
    from harness.recording import open_cassette

    provider = http_provider(model.provider)
    assert provider is not None
    key = provider.preflight(model, env)
    body = provider.request_body(model, suite.render_prompt(case))
    # One cassette holds one sample: a sample recorded now (missing, stale, or re-recorded)
    # replaces what was there rather than piling up episodes of older prompts.
    cassette = open_cassette(paths.cassette, record_mode="all", secrets=(key,))

    def attempt() -> tuple[dict[str, object], float]:
        if live is not None and ticket is not None:
            if ticket.unknown >= ticket.units:  # the last attempt may have been billed
                refusal = live.readmit(ticket)
                if refusal is not None:
                    raise ProviderError(
                        f"not retried: {refusal.removeprefix('not called: ')}",
                        retryable=False,
                    )
            live.pace(ticket)
        started = time.perf_counter()
        try:
            data = provider.send(model, body, api_key=key, cassette=cassette)
        except ProviderError as exc:
            if exc.status is None and ticket is not None:  # no answer: maybe billed
                ticket.unknown += 1
            raise
        return data, round((time.perf_counter() - started) * 1000.0, 3)

    try:
        data, latency = with_retries(attempt, policy)
    except ProviderError as exc:
        return _Obtained(None, "error", str(exc))
    commit = None
    if cassette.dirty:
        provenance = _provenance(suite, model)

        def commit() -> None:
            # the cassette first: a crash between the two leaves a cassette whose request
            # body is still matched on replay, never a sidecar describing another answer
            cassette._save()
            write_meta(paths.meta, provenance, latency_ms=latency)
            paths.remove_other_form(paths.cassette)

    try:
        answer = answer_from_body(data)
    except ValueError as exc:
        return _Obtained(Answer(""), "unparseable", str(exc), paths.cassette, commit)
    return _Obtained(replace(answer, latency_ms=latency), recording=paths.cassette, commit=commit)


def _record_command(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    sample: int,
    paths: SamplePaths,
    policy: RetryPolicy,
    live: LiveControls | None = None,
    ticket: Ticket | None = None,
) -> _Obtained:
    from harness.providers import CommandProvider, with_retries

    provider = CommandProvider()
    prompt = suite.render_prompt(case)

    def attempt() -> Answer:
        if live is not None and ticket is not None:
            live.pace(ticket)
        return provider.run(
            model, prompt, cwd=suite.root, suite=suite.name, case=case, sample=sample
        )

    try:
        answer = with_retries(attempt, policy)
    except ProviderError as exc:
        return _Obtained(None, "error", str(exc))
    recorded = ResponseFile(
        provenance=_provenance(suite, model),
        response=answer.text,
        latency_ms=answer.latency_ms,
        tokens=answer.tokens,
    )

    def commit() -> None:
        recorded.write(paths.response)
        paths.remove_other_form(paths.response)

    return _Obtained(answer, recording=paths.response, commit=commit)


# -- grading --------------------------------------------------------------------------------
def _grade(
    suite: Suite,
    case: Case,
    model: ModelSpec,
    sample: int,
    got: _Obtained,
    *,
    metrics: bool = True,
    keep_plan: bool = True,
) -> ResultRow:
    def row(**graded: Any) -> ResultRow:
        """The row, built once: what grading found on top of what was obtained."""
        answer = got.answer
        found = {"status": got.status or "error", "detail": got.detail, **graded}
        return ResultRow(
            suite=suite.name,
            case=case.id,
            model=model.id,
            sample=sample,
            tags=list(case.tags),
            recording=_relative(suite, got.recording) if got.recording else None,
            latency_ms=answer.latency_ms if answer else None,
            tokens=answer.tokens if answer else None,
            answer=answer.text[:ANSWER_LIMIT] if answer else None,
            **found,
        )

    if got.status is not None or got.answer is None:
        if not metrics:
            return row()
        from harness.run._metrics import metric_columns, unpredicted_gold, unpredicted_gold_columns

        if got.status == "unparseable":  # an answer without text: scored as one
            return row(**metric_columns(suite, case, ""))
        if got.status == "missing" and unpredicted_gold(model, case):
            return row(**unpredicted_gold_columns(suite, case))
        return row()
    from harness.checks import check_plan
    from harness.plan import load_plan

    scores: dict[str, Any] = {}
    if metrics:
        from harness.run._metrics import metric_columns

        scores = metric_columns(suite, case, got.answer.text)
    fmt = _LOAD_FORMAT.get(suite.plan_format, suite.plan_format)
    try:
        plan = load_plan(got.answer.text, format=fmt, source=_where(suite, got))
    except PlanLoadError as exc:
        return row(status="unparseable", detail=exc.one_line(), **scores)
    registry = suite.registry_for(case)
    report = check_plan(plan, registry=registry, expect=suite.expectations_for(case))
    return row(
        **scores,
        status="pass" if report.ok else "fail",
        checks=dict(report.outcomes),
        violations=[v.to_dict() for v in report.violations],
        task_count=report.task_count,
        plan=plan.to_dict() if keep_plan else None,
    )


def _where(suite: Suite, got: _Obtained) -> str:
    """The name a plan's parse errors give it: its recording, or ``<answer>``."""
    return _relative(suite, got.recording) if got.recording else "<answer>"


def _relative(suite: Suite, path: Path) -> str:
    text, root = str(path), str(suite.root) + os.sep
    if text.startswith(root):
        return text[len(root) :].replace(os.sep, "/")
    try:
        return Path(os.path.relpath(path, suite.root)).as_posix()
    except ValueError:
        return path.as_posix()
