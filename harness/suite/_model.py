"""The records of an eval suite: the suite, its models and its cases."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.checks import Expectations
from harness.registry import Registry
from harness.suite._context import MetricSettings, case_registry, render_template

__all__ = ["PROVIDERS", "Case", "ModelSpec", "ProviderName", "Suite"]

ProviderName = Literal["openai", "anthropic", "command", "dataset"]
PROVIDERS: tuple[ProviderName, ...] = ("openai", "anthropic", "command", "dataset")
HTTP_PROVIDERS: frozenset[str] = frozenset({"openai", "anthropic"})


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model a suite evaluates: who answers and how to reach it."""

    id: str
    """The suite's id for the model (a folder name under plan_fixtures/<suite>/)."""
    provider: ProviderName
    """``openai``, ``anthropic``, ``command`` or ``dataset`` (recordings only)."""
    model: str | None = None
    """The provider's model name (``gpt-4o-mini``); None for command and dataset models."""
    params: dict[str, Any] = field(default_factory=dict)
    """Sampling parameters sent with every request (temperature, max_tokens, ...)."""
    base_url: str | None = None
    """An OpenAI-compatible (or Anthropic) endpoint other than the vendor's."""
    command: str | None = None
    """For ``command`` models: the command line; the prompt goes to stdin."""
    api_key_env: str | None = None
    """The environment variable with the API key (None: the provider's default)."""
    structured_output: bool = True
    """Ask for the plan schema (OpenAI ``response_format``, Anthropic tool use)."""
    timeout: float = 120.0
    """Seconds one attempt may take in all (connect, send and every read together) before it
    counts as a timeout: a total deadline, not a per-read one."""
    retries: int = 4
    """Retries on 429, 5xx, timeouts and dropped connections before the row is ``error``."""

    def __post_init__(self) -> None:
        if self.base_url:  # a password or key in the URL is never written or printed
            from harness._redaction import remember_url

            remember_url(self.base_url)

    @property
    def is_http(self) -> bool:
        """True for providers recorded as vcrpy cassettes (``openai``, ``anthropic``)."""
        return self.provider in HTTP_PROVIDERS

    def describe(self) -> dict[str, Any]:
        """``{id, provider, model, params}`` as run.json lists it."""
        out: dict[str, Any] = {
            "id": self.id,
            "provider": self.provider,
            "model": self.model,
            "params": dict(self.params),
        }
        if self.base_url:  # never a password or key from the URL
            from harness._redaction import redact_url

            out["base_url"] = redact_url(self.base_url)
        if self.command:
            out["command"] = self.command
        return out


@dataclass(frozen=True, slots=True)
class Case:
    """One goal of a suite, with what its plans must satisfy."""

    id: str
    """The case id (a folder name under plan_fixtures/<suite>/<model>/)."""
    goal: str
    """The goal handed to the planner."""
    min_tasks: int | None = None
    """Fewest tasks allowed (None: the suite's default)."""
    max_tasks: int | None = None
    """Most tasks allowed (None: the suite's default)."""
    required_capabilities: tuple[str, ...] = ()
    """Capabilities some task must use, on top of the suite's."""
    tags: tuple[str, ...] = ()
    """Free labels for grouping in reports."""
    context: Mapping[str, str] = field(default_factory=dict)
    """Template variables of this case (strings), filled into the prompt as ``{name}``."""
    tools: Registry | None = None
    """The tools offered to the planner for this goal (``context.tools``): they replace the
    suite registry in the prompt's ``{capabilities}`` and in ``known_capabilities``."""
    reference: str | dict[str, Any] | None = None
    """The reference (gold) plan: model text or a JSON object, inline or read from
    ``reference_file``; None when the case has none."""


@dataclass(frozen=True, slots=True)
class Suite:
    """An eval suite loaded from ``evals/<suite>.yaml``."""

    name: str
    """The suite name (a folder under plan_fixtures/)."""
    path: Path
    """The suite file."""
    root: Path
    """The project root (holds evals/, plan_fixtures/ and reports/)."""
    prompt_template: str
    """The prompt template's text, exactly as in its file."""
    prompt_hash: str
    """``prompt_hash(prompt_template)``: recordings made under another one are stale."""
    models: tuple[ModelSpec, ...]
    """The models to compare, in file order."""
    cases: Sequence[Case]
    """The cases, in file order: a tuple, or for a suite with a ``cases_file`` a
    ``StreamedCases`` that reads the file again each time it is iterated (iterate it; indexing
    reads up to that case)."""
    description: str = ""
    """What the suite is about."""
    prompt_path: Path | None = None
    """The prompt template file."""
    registry: Registry | None = None
    """The capability registry, or None."""
    registry_path: Path | None = None
    """The registry file, or None."""
    plan_format: str = "auto"
    """How answers are read: a name of ``harness.plan.FORMATS`` (docs/formats.md)."""
    expect: Expectations = field(default_factory=Expectations)
    """Default expectations for every case."""
    samples: int = 1
    """Samples per case and model."""
    prices_path: Path | None = None
    """A price file whose entries go on top of the shipped table (``harness.cost``)."""
    rate_limits: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per provider: ``requests_per_minute`` and/or ``tokens_per_minute`` for live calls."""
    metrics: MetricSettings = field(default_factory=MetricSettings)
    """How case references are scored (the ``metrics:`` block)."""

    def model(self, model_id: str) -> ModelSpec | None:
        """The model with this id, or None."""
        return next((m for m in self.models if m.id == model_id), None)

    def case(self, case_id: str) -> Case | None:
        """The case with this id, or None."""
        return next((c for c in self.cases if c.id == case_id), None)

    @property
    def capabilities_text(self) -> str:
        """The registry's catalogue as the prompt shows it ('' without a registry)."""
        if self.registry is None:
            return ""
        return self.registry.catalogue()

    def registry_for(self, case: Case) -> Registry | None:
        """The registry ``case`` is checked against: its own tools, else the suite's."""
        return case_registry(self.registry, case.tools)

    def render_prompt(self, case: Case) -> str:
        """The prompt for ``case``: ``{goal}``, ``{capabilities}`` (the case's tools when it has
        them, else the registry) and each of the case's context variables filled in.

        Plain string replacement, never ``str.format``: templates contain JSON braces.
        """
        tools = case.tools.catalogue() if case.tools is not None else self.capabilities_text
        values = {**case.context, "goal": case.goal, "capabilities": tools}
        return render_template(self.prompt_template, values)

    def expectations_for(self, case: Case) -> Expectations:
        """The suite's expectations with the case's band and capabilities on top."""
        both = (*self.expect.required_capabilities, *case.required_capabilities)
        required = tuple(dict.fromkeys(both))
        return Expectations(
            min_tasks=case.min_tasks if case.min_tasks is not None else self.expect.min_tasks,
            max_tasks=case.max_tasks if case.max_tasks is not None else self.expect.max_tasks,
            required_capabilities=required,
            needs=self.expect.needs,
            dataflow_types=self.expect.dataflow_types,
        )
