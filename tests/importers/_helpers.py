"""Helpers for the importer tests: small hand-written inputs and file listings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[2]
"""The repository root (the folder with pyproject.toml, evals/ and plan_fixtures/)."""

SYSTEM = "You are a helpful task planner.\nKeep your output in format:\nNode:\n...\n"


def worfbench_item(
    item_id: str, task: str, tools: str = "", answer: str | None = None
) -> dict[str, Any]:
    """One hand-written WorfBench item (system, user with a tool list, assistant)."""
    turns = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Task: {task}\n{tools}"},
    ]
    if answer is not None:
        turns.append({"role": "assistant", "content": answer})
    return {"source": "handwritten", "id": item_id, "conversations": turns, "target": "graph"}


GOLD = "Node:\n1: Look it up\n2: Report it\nEdge: (START,1) (1,2) (2,END)"


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def imported_cases(root: Path, suite: str) -> list[dict[str, Any]]:
    """The cases of an imported suite, from the JSON Lines file its ``cases_file`` names
    (an imported suite never lists them inline)."""
    import yaml

    doc = yaml.safe_load((root / "evals" / f"{suite}.yaml").read_text(encoding="utf-8"))
    assert "cases" not in doc
    lines = (root / "evals" / doc["cases_file"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def files_under(folder: Path) -> set[Path]:
    """Every file under ``folder`` (relative paths)."""
    return {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()}
