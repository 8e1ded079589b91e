"""A live run's calls through the vendors' batch APIs, recorded as ordinary recordings.

``collect_batches`` sends every call a run needs for its HTTP models (one batch per model),
saves the batch ids in ``<run>/batch.json`` at once, waits for the batches with a progress line,
then writes each answer as a normal cassette and sidecar: replay cannot tell a batch recording
from a direct one except by its provenance (``origin: openai-batch:<id>/<request>``). A run
killed while waiting is resumed by running it again with the same ``--out`` folder: the saved
batches are picked up, never sent twice.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness._atomic import atomic_write_text
from harness._errors import InputError
from harness._redaction import scrub
from harness.batch._vendors import Outcome, poll, results, submit
from harness.providers import HttpProvider, ProviderError, http_provider
from harness.recording import Provenance, open_cassette, sample_paths, write_meta
from harness.suite import Case, ModelSpec, Suite

__all__ = ["BATCH_FILE", "BatchFailure", "batch_state", "collect_batches"]

BATCH_FILE = "batch.json"
BATCH_FORMAT = "planeval-batch/1"

Item = tuple[ModelSpec, Case, int]
Key = tuple[str, str, int]


@dataclass(frozen=True, slots=True)
class BatchFailure:
    """A sample the batch did not answer: its row's status and detail."""

    status: str
    """``error`` (the request failed) or ``missing`` (the batch expired first)."""
    detail: str


def batch_state(run_dir: Path) -> dict[str, Any] | None:
    """The run folder's ``batch.json``, or None."""
    path = run_dir / BATCH_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"unreadable batch state: {exc}", source=str(path)) from None
    if not isinstance(data, dict) or data.get("format") != BATCH_FORMAT:
        raise InputError(f"not a planeval batch state ({BATCH_FORMAT})", source=str(path))
    return data


def collect_batches(
    suite: Suite,
    todo: Sequence[Item],
    *,
    run_dir: Path,
    fixtures: Path,
    env: Mapping[str, str] | None,
    poll_interval: float,
    say: Callable[[str], None],
    resume_hint: str,
    sleep: Callable[[float], None] = time.sleep,
    budget: Any = None,
) -> dict[Key, BatchFailure]:
    """Send ``todo`` (or pick up the saved batches), wait, record; return the failures.

    ``budget`` (the run's ``LiveControls``) cuts each batch to what it admits before the batch
    is sent, each request at its worst case; the refused samples are ``missing`` with the
    reason, and each answered request is settled at its reported usage.

    Raises:
        InputError: a missing SDK or key (before anything is sent).
        ProviderError: a batch could not be created, polled or read.
    """
    state = batch_state(run_dir)
    tickets: dict[tuple[str, str], Any] = {}
    if state is None:
        state = {"format": BATCH_FORMAT, "batches": [], "refused": []}
        by_model: dict[str, list[Item]] = {}
        for item in todo:
            by_model.setdefault(item[0].id, []).append(item)
        for every in by_model.values():
            model = every[0][0]
            provider = _provider(model)
            key = provider.preflight(model, env)
            items: list[Item] = []
            requests: list[tuple[str, dict[str, Any]]] = []
            for m, case, k in every:
                prompt = suite.render_prompt(case)
                body = provider.request_body(model, prompt)
                admitted = budget.admit(m, prompt, body, wait=False) if budget else None
                if isinstance(admitted, str):
                    state["refused"].append([m.id, case.id, k, admitted])
                    continue
                cid = f"r{len(requests)}"
                tickets[(model.id, cid)] = admitted
                items.append((m, case, k))
                requests.append((cid, body))
            if not requests:
                continue
            client = provider.batch_client(model, key)
            try:
                batch_id = _call(
                    functools.partial(submit, model.provider, client, provider.path, requests)
                )
            finally:
                client.close()
            state["batches"].append(
                {
                    "provider": model.provider,
                    "model": model.id,
                    "batch_id": batch_id,
                    "requests": {
                        cid: [c.id, k]
                        for cid, (_m, c, k) in zip((r[0] for r in requests), items, strict=True)
                    },
                    "recorded": False,
                    "failures": {},
                }
            )
            _save(run_dir, state)
            say(
                f"batch {batch_id} sent: {len(requests)} request(s) for model {model.id!r}; "
                f"if this run stops, resume it with: {resume_hint}"
            )
    if state is not None and not state["batches"]:
        _save(run_dir, state)  # every request refused by the budget: nothing was sent
    failures: dict[Key, BatchFailure] = {
        (model_id, case_id, int(sample)): BatchFailure("missing", reason)
        for model_id, case_id, sample, reason in state.get("refused", [])
    }
    for entry in state["batches"]:
        if not entry["recorded"]:
            answered = _finish(suite, entry, fixtures, env, poll_interval, say, sleep)
            entry["recorded"] = True
            _save(run_dir, state)
            for cid in entry["requests"]:
                ticket = tickets.get((entry["model"], cid))
                if ticket is not None:
                    tokens = answered.get(cid)
                    budget.settle(ticket, tokens, ok=cid in answered)
        for cid, failure in entry["failures"].items():
            case_id, sample = entry["requests"][cid]
            failures[(entry["model"], case_id, int(sample))] = BatchFailure(**failure)
    return failures


def _finish(
    suite: Suite,
    entry: dict[str, Any],
    fixtures: Path,
    env: Mapping[str, str] | None,
    poll_interval: float,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
) -> dict[str, dict[str, int] | None]:
    """Wait for the entry's batch and record its answers; the answered requests' usage."""
    from harness.cost import usage_from_body

    model = suite.model(entry["model"])
    if model is None:
        raise InputError(f"the saved batch is for model {entry['model']!r}, not in the suite")
    provider = _provider(model)
    key = provider.preflight(model, env)
    client = provider.batch_client(model, key)
    try:
        outcomes = _wait(model, client, entry["batch_id"], poll_interval, say, sleep)
    finally:
        client.close()
    batch_id = entry["batch_id"]
    answered: dict[str, dict[str, int] | None] = {}
    for cid, (case_id, sample) in entry["requests"].items():
        outcome = outcomes.get(cid) or Outcome(None, "no result for this request", expired=True)
        case = suite.case(case_id)
        if outcome.body is None or case is None:
            entry["failures"][cid] = _failure(batch_id, outcome)
            continue
        origin = f"{model.provider}-batch:{batch_id}/{cid}"
        _record(suite, provider, model, case, int(sample), outcome.body, key, fixtures, origin)
        answered[cid] = usage_from_body(outcome.body)
    return answered


def _wait(
    model: ModelSpec,
    client: Any,
    batch_id: str,
    poll_interval: float,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
) -> dict[str, Outcome]:
    """Poll until the batch has ended (a line whenever its progress changes); its results."""
    last = ""
    while True:
        status = _call(lambda: poll(model.provider, client, batch_id))
        line = f"batch {batch_id}: {status.done}/{status.total} done ({status.state})"
        if line != last:
            say(line)
            last = line
        if status.ended:
            break
        sleep(poll_interval)
    found: dict[str, Outcome] = _call(lambda: results(model.provider, client, batch_id))
    return found


def _record(
    suite: Suite,
    provider: HttpProvider,
    model: ModelSpec,
    case: Case,
    sample: int,
    body: dict[str, Any],
    key: str,
    fixtures: Path,
    origin: str,
) -> None:
    """Write the answer exactly as a direct call's recording (request matched on replay)."""
    from vcr.request import Request

    paths = sample_paths(fixtures, suite.name, model.id, case.id, sample)
    request_body = provider.request_body(model, suite.render_prompt(case))
    request = Request(
        "POST",
        provider.url(model),
        json.dumps(request_body).encode("utf-8"),
        {"content-type": "application/json"},
    )
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": json.dumps(body).encode("utf-8")},
    }
    cassette = open_cassette(paths.cassette, record_mode="all", secrets=(key,))
    cassette.append(request, response)
    cassette._save()
    provenance = Provenance(
        source="live",
        model=model.model or model.id,
        prompt_hash=suite.prompt_hash,
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
        harness_version=__version__,
        params=dict(model.params),
        origin=origin,
    )
    write_meta(paths.meta, provenance)
    paths.remove_other_form(paths.cassette)


def _failure(batch_id: str, outcome: Outcome) -> dict[str, str]:
    """The row a failed request becomes (a vendor's error file may quote the key: scrubbed)."""
    outcome = Outcome(None, scrub(outcome.error or ""), outcome.expired)
    if outcome.expired:
        return {
            "status": "missing",
            "detail": f"batch {batch_id} ended before this request ran ({outcome.error}); "
            "send the gaps with --batch --record-mode new_episodes",
        }
    return {"status": "error", "detail": f"batch {batch_id}: {outcome.error}"}


def _provider(model: ModelSpec) -> HttpProvider:
    provider = http_provider(model.provider)
    if provider is None:
        raise InputError(f"model {model.id!r} ({model.provider}) has no batch API")
    return provider


def _call(action: Callable[[], Any]) -> Any:
    """Run an SDK call; its errors become ``ProviderError`` with one line."""
    try:
        return action()
    except ProviderError:
        raise
    except Exception as exc:  # the SDKs' APIError tree, connection errors
        message = " ".join(scrub(str(exc)).split())[:200]
        raise ProviderError(
            f"batch API call failed: {exc.__class__.__name__}: {message}", retryable=False
        ) from None


def _save(run_dir: Path, state: dict[str, Any]) -> None:
    atomic_write_text(run_dir / BATCH_FILE, json.dumps(state, indent=2) + "\n")
