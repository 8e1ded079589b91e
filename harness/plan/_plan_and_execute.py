"""LangGraph plan-and-execute plans: ``{"steps": [...]}`` or numbered steps.

LangGraph's plan-and-execute tutorial (langchain-ai/langgraph at
23961cff61a42b52525f3b20b4094d8d2fba1744, ``docs/docs/tutorials/plan-and-execute``) has the
planner answer a ``Plan`` model, ``steps: List[str]`` ("different steps to follow, should be in
sorted order"), through structured output (the replanner answers ``{"action": {"steps":
[...]}}``, read the same way); the executor runs ``plan[0]``, then the replanner
returns the steps left. So the steps run one after another: step k depends on step k-1. A task
per step, ``step_1``, ``step_2``, ...; the text is its description.

The same plan written as text, one numbered step a line (``1. Look up ...``, ``2) Find ...``),
is read the same way: under ``auto`` only when the whole text is those lines (``auto`` tries it
last), under ``plan_and_execute`` from the first run numbered from 1 in any text.
"""

from __future__ import annotations

import re
from typing import Any

from harness._errors import NoPlanFoundError, PlanLoadError

__all__ = [
    "looks_like_numbered_steps",
    "looks_like_steps",
    "numbered_steps_to_dict",
    "steps_to_dict",
]

_CALL = re.compile(r"\w+\(")
_NUMBERED = re.compile(r"^[ \t]*(?:Step[ \t]+)?(\d+)[.)][ \t]+(\S.*?)[ \t]*$", re.MULTILINE)


def looks_like_steps(value: Any) -> bool:
    """An object whose ``steps`` is a list of strings."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("steps"), list)
        and all(isinstance(s, str) for s in value["steps"])
    )


def looks_like_numbered_steps(text: str) -> bool:
    """The whole text is steps numbered 1, 2, ..., n (n >= 2), one a line, as LangGraph's
    executor prints a plan, none of them a tool call (``1. search("x")`` is LLMCompiler's).

    Prose around a numbered list (a refusal with numbered reasons) is not a plan here; forcing
    ``plan_and_execute`` reads the first numbered run of any text."""
    lines = [line for line in text[:200_000].splitlines() if line.strip()]
    matches = [_NUMBERED.fullmatch(line) for line in lines]
    return (
        len(lines) >= 2
        and all(m is not None for m in matches)
        and [int(m.group(1)) for m in matches if m] == list(range(1, len(lines) + 1))
        and not any(m and _CALL.match(m.group(2)) for m in matches)
    )


def steps_to_dict(value: dict[str, Any], *, source: str) -> dict[str, Any]:
    """A ``{"steps": [...]}`` plan as a chain of tasks.

    Raises:
        PlanLoadError: ``steps`` is not a list of strings.
    """
    steps = value.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise PlanLoadError(
            "'steps' must be a list of strings",
            source=source,
            location="/steps",
            hint='expected {"steps": ["first step", "second step"]}',
        )
    plan = _chain(steps)
    plan.update({k: v for k, v in value.items() if k != "steps"})
    return plan


def numbered_steps_to_dict(text: str, *, source: str) -> dict[str, Any]:
    """Numbered step lines as a chain of tasks (the first run numbered from 1).

    Raises:
        NoPlanFoundError: no line numbered 1.
    """
    steps: list[str] = []
    for match in _NUMBERED.finditer(text):
        number = int(match.group(1))
        if number == len(steps) + 1:
            steps.append(match.group(2))
        elif steps:
            break
    if not steps:
        raise NoPlanFoundError(
            "no numbered steps in the text", source=source, hint="expected '1. first step' lines"
        )
    return _chain(steps)


def _chain(steps: list[str]) -> dict[str, Any]:
    tasks = []
    for k, step in enumerate(steps, 1):
        tasks.append(
            {
                "id": f"step_{k}",
                "description": step,
                "depends_on": [f"step_{k - 1}"] if k > 1 else [],
            }
        )
    return {"tasks": tasks}
