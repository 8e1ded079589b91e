"""The on-disk records of a run: one ``ResultRow`` per line of ``results.jsonl``, one
``RunManifest`` in ``run.json``. ``planeval run`` writes them; report, compare and gate read them.

The format is versioned by ``RunManifest.format_version``; readers refuse versions they do not
know with a clear error rather than guessing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = [
    "ANSWER_LIMIT",
    "COUNTED_STATUSES",
    "FORMAT_VERSION",
    "PROMPTS_FILE",
    "STATUSES",
    "ResultRow",
    "RunManifest",
    "Status",
]

FORMAT_VERSION = 1

ANSWER_LIMIT = 20_000
"""Characters of a raw answer kept in a result row (reports show it; the recording has all)."""

PROMPTS_FILE = "prompts.json"
"""The run folder's ``{case id: rendered prompt}`` file, written when the run starts."""

Status = Literal["pass", "fail", "unparseable", "missing", "stale", "error"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "unparseable", "missing", "stale", "error")
COUNTED_STATUSES: tuple[Status, ...] = ("pass", "fail", "unparseable")
"""Statuses that count in a pass rate (unparseable counts as a failure); the others are
reported separately and never folded into failures."""


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One case x model x sample of a run (one line of ``results.jsonl``)."""

    suite: str
    """The suite name."""
    case: str
    """The case id."""
    model: str
    """The model id from the suite (not the provider's model name)."""
    sample: int
    """The sample index, from 0."""
    status: Status
    """pass | fail | unparseable | missing | stale | error."""
    checks: dict[str, str] = field(default_factory=dict)
    """Each check's outcome: ``pass``, ``fail`` (error severity), ``warn`` (warning) or
    ``skip`` (not applicable, e.g. no registry). Empty when no plan was checked."""
    violations: list[dict[str, Any]] = field(default_factory=list)
    """Violations as ``{check, severity, task, path, message}``."""
    task_count: int | None = None
    """Number of tasks in the plan, or None when there is no plan."""
    latency_ms: float | None = None
    """Time the planner took (as recorded), in milliseconds."""
    tokens: dict[str, int] | None = None
    """Token usage when the provider reported it: ``input``, ``output``, and ``cached_input``,
    ``cache_write_input``, ``reasoning`` where reported; None (unknown, never 0) for command
    and dataset models and for rows without an answer."""
    tags: list[str] = field(default_factory=list)
    """The case's tags."""
    detail: str | None = None
    """Why a row is unparseable / missing / stale / error (one line), else None."""
    recording: str | None = None
    """Path of the recording replayed or written, relative to the project root."""
    plan: dict[str, Any] | None = None
    """The canonical plan that was checked (for reports), or None."""
    answer: str | None = None
    """The planner's raw answer text (its first ``ANSWER_LIMIT`` characters) when there was
    one, also for unparseable answers; None for older runs and rows without an answer."""
    metrics: dict[str, float] | None = None
    """Metrics against the case's reference plan (``worfbench.f1_chain``, ...); for a row whose
    ``metric_status`` is unparseable, the zero-convention values. None when not scored."""
    metric_status: str | None = None
    """``scored``, ``unparseable``, ``unusable_reference`` or ``error`` (scoring failed for
    this row; ``metric_detail["detail"]`` says why); None when not scored."""
    metric_detail: dict[str, Any] | None = None
    """``{detail, notes, taskbench}``: why, what planeval noted, the TaskBench sets."""

    def to_dict(self) -> dict[str, Any]:
        """The row as the JSON object written to results.jsonl."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ResultRow:
        """Build a row from a results.jsonl object (unknown keys are ignored)."""
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True, slots=True)
class RunManifest:
    """What ``run.json`` says about a run."""

    run_id: str
    """The run's folder name under reports/runs/."""
    suite: str
    """The suite name."""
    suite_path: str
    """Path of the suite file, relative to the project root."""
    prompt_hash: str
    """``sha256:...`` of the prompt template (recordings made under another one are stale)."""
    models: list[dict[str, Any]]
    """The models evaluated: ``{id, provider, model, params}``."""
    samples: int
    """Samples per case and model."""
    record_mode: str
    """none | once | new_episodes | all."""
    harness_version: str
    """planeval's version."""
    git_commit: str | None
    """The project's git commit, when it is a git checkout."""
    started_at: str
    """ISO 8601 UTC."""
    finished_at: str | None
    """ISO 8601 UTC, None while running or when interrupted."""
    counts: dict[str, int]
    """Rows per status."""
    format_version: int = FORMAT_VERSION
    """The results format version."""
    interrupted: bool = False
    """True when the run was stopped (Ctrl+C or SIGTERM) before every row was written."""
    cases: int | None = None
    """Cases in the suite; a complete run has ``len(models) * cases * samples`` rows (None in
    runs written before planeval recorded it), or, for a shard run, its share of them."""
    budget: dict[str, Any] | None = None
    """``{max_cost, max_calls, stopped}`` of a live run with a budget; ``stopped`` says why
    calls were refused (their rows are ``missing``), or is None."""
    shard: dict[str, int] | None = None
    """``{index, count, items}`` of a ``--shard i/n`` run (items: of the whole run), else None."""
    case_ids: list[str] | None = None
    """The suite's case ids in order, written for shard runs only (``merge`` restores the
    single run's order from them; ``gate`` reads a plain run's cases from its suite file)."""
    merged_from: list[str] | None = None
    """The run ids a ``merge`` joined, else None."""
    partial: dict[str, int] | None = None
    """``{missing, foreign}`` item counts of a ``merge --allow-partial`` that was not its
    suite's exact items; ``gate`` and ``baseline`` refuse such a run. None otherwise."""
    prices: dict[str, Any] | None = None
    """The price each model's tokens were costed at (``harness.cost.Price`` fields, with its
    source and date), or None for a model without a price; None for runs made before prices."""

    @property
    def expected_rows(self) -> int | None:
        """Rows a complete run holds, or None when run.json does not say how many cases."""
        if self.cases is None:
            return None
        total = len(self.models) * self.cases * max(1, int(self.samples or 1))
        if self.shard:
            index, count = int(self.shard["index"]), int(self.shard["count"])
            return total // count + (1 if index - 1 < total % count else 0)
        return total

    def to_dict(self) -> dict[str, Any]:
        """The manifest as the JSON object written to run.json."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunManifest:
        """Build a manifest from run.json (unknown keys are ignored)."""
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})
