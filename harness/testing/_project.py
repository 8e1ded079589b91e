"""Building small throw-away projects (suite, prompt, registry, recordings) for tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from harness import __version__
from harness.recording import Provenance, ResponseFile, prompt_hash, response_file_path

__all__ = ["DEFAULT_PROMPT", "make_project", "sound_plan", "write_response"]

DEFAULT_PROMPT = (
    'Plan the goal as JSON {"tasks": [...]} using these capabilities:\n{capabilities}\n\n{goal}\n'
)
"""A prompt template with JSON braces (so that str.format would break on it)."""


def make_project(
    root: Path,
    *,
    suite: str = "demo",
    models: Sequence[dict[str, Any]] = ({"id": "planner", "provider": "dataset"},),
    cases: Sequence[dict[str, Any]] = ({"id": "c1", "goal": "Refund a damaged order"},),
    prompt: str = DEFAULT_PROMPT,
    registry: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``root/evals/<suite>.yaml`` (with its prompt and registry) and return its path.

    ``root`` gets a ``plan_fixtures/`` folder so that it is the project root.
    """
    evals = root / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    (root / "plan_fixtures").mkdir(exist_ok=True)
    (evals / f"{suite}.prompt.md").write_text(prompt, encoding="utf-8")
    data: dict[str, Any] = {
        "suite": suite,
        "prompt": f"{suite}.prompt.md",
        "models": [dict(m) for m in models],
        "cases": [dict(c) for c in cases],
    }
    if registry is not None:
        (evals / f"{suite}.registry.json").write_text(json.dumps(registry), encoding="utf-8")
        data["registry"] = f"{suite}.registry.json"
    data.update(extra or {})
    path = evals / f"{suite}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def sound_plan(goal: str = "Refund a damaged order", tasks: int = 3) -> dict[str, Any]:
    """A structurally sound chain plan of ``tasks`` tasks."""
    items = []
    for i in range(tasks):
        prev = [f"t{i}"] if i else []
        needs = [{"name": "input", "task": f"t{i}"}] if i else []
        items.append(
            {"id": f"t{i + 1}", "description": f"Step {i + 1}", "depends_on": prev, "needs": needs}
        )
    return {"goal": goal, "tasks": items}


def write_response(
    root: Path,
    suite: str,
    model: str,
    case: str,
    text: str,
    *,
    template: str = DEFAULT_PROMPT,
    sample: int = 0,
    source: str = "handwritten",
) -> Path:
    """Write a response file under ``root/plan_fixtures`` recorded under ``template``."""
    path = response_file_path(root / "plan_fixtures", suite, model, case, sample)
    provenance = Provenance(
        source=source,  # type: ignore[arg-type]
        model=model,
        prompt_hash=prompt_hash(template),
        recorded_at="2026-01-01T00:00:00+00:00",
        harness_version=__version__,
    )
    ResponseFile(provenance=provenance, response=text).write(path)
    return path
