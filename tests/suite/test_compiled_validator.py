"""The compiled suite validator: current with the schema, and of one mind with jsonschema."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from harness.suite import suite_schema
from harness.suite._generate_validator import TARGET, generated_code
from harness.suite._suite_validator import validate_suite

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "evals").glob("*.yaml"))
RICH: dict[str, Any] = {  # every top-level key and case key (provenance: handwritten)
    "suite": "rich",
    "description": "d",
    "prompt": "p.md",
    "registry": "r.yaml",
    "prices": "prices.yaml",
    "rate_limits": {"openai": {"requests_per_minute": 60, "tokens_per_minute": 1000}},
    "plan_format": "worfbench",
    "expect": {"task_count": {"min": 1, "max": 9}, "required_capabilities": ["a"]},
    "samples": 2,
    "metrics": {"families": ["worfbench"], "matcher": "text"},
    "models": [
        {"id": "m", "provider": "openai", "model": "gpt", "params": {"t": 1}, "timeout": 5},
        {"id": "c", "provider": "command", "command": "plan", "retries": 0},
    ],
    "cases": [
        {
            "id": "c1",
            "goal": "g",
            "task_count": {"min": 1},
            "required_capabilities": ["a"],
            "tags": ["t"],
            "context": {"tool_list": "x", "n": 3, "tools": ["a", {"name": "b"}]},
            "reference": "Node:\n1: a\nEdge: (START,1) (1,END)",
        },
        {"id": "c2", "goal": "g", "reference_file": "ref.json"},
    ],
}


def test_generated_module_is_current() -> None:
    """The committed module is what the schema compiles to today."""
    assert TARGET.read_text(encoding="utf-8") == generated_code(), (
        "suite.schema.json changed: run python -m harness.suite._generate_validator"
    )


def _compiled_accepts(data: Any) -> bool:
    try:
        validate_suite(data)
    except Exception:
        return False
    return True


_ODD_VALUES: list[Any] = [None, 0, -1, 1.5, True, "", "..", "a b", [], {}, ["x"], {"k": 1}]


def _mutations(data: Any, rng: random.Random, count: int) -> list[Any]:
    """Copies of ``data`` with one value somewhere replaced, or one key dropped or added."""
    out = []
    for _ in range(count):
        doc = copy.deepcopy(data)
        node, path = doc, []
        while isinstance(node, dict | list) and node and rng.random() < 0.75:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append((node, key))
            node = node[key]
        if not path:
            continue
        parent, key = path[-1]
        move = rng.random()
        if move < 0.6:
            parent[key] = rng.choice(_ODD_VALUES)
        elif move < 0.8 and isinstance(parent, dict):
            del parent[key]
        elif isinstance(parent, dict):
            parent[rng.choice(["extra", "cases_file", "cases", "tools", "min"])] = rng.choice(
                _ODD_VALUES
            )
        out.append(doc)
    return out


@pytest.mark.parametrize("example", [*EXAMPLES, None], ids=[*(p.stem for p in EXAMPLES), "rich"])
def test_same_verdict_as_jsonschema(example: Path | None) -> None:
    """On the shipped suites, one using every key, and 400 damaged copies of each, valid
    means valid to both."""
    reference = Draft202012Validator(suite_schema())
    data = RICH if example is None else yaml.safe_load(example.read_text(encoding="utf-8"))
    assert reference.is_valid(data)
    rng = random.Random(example.stem if example else "rich")
    documents = [data, *_mutations(data, rng, 400)]
    disagree = [d for d in documents if _compiled_accepts(d) != reference.is_valid(d)]
    assert not disagree, f"{len(disagree)} documents judged differently, first: {disagree[0]}"
    assert sum(reference.is_valid(d) for d in documents) < len(documents) - 50
