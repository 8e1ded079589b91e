"""An example planner written by hand: it is a program, not a language model.

The example suites (``evals/refunds.yaml``, ``evals/data-pipeline.yaml``,
``evals/travel.yaml``) compare two of its styles as two "models":

- ``careful``: answers with the case's playbook plan (``playbooks.yaml``), in a ```json fence;
  on hard cases it sometimes over-plans (extra review steps past the task-count band) or
  drops a dependency.
- ``sloppy``: starts from the same playbook and often slips, more on harder cases: it forgets a
  dependency while still reading its output, invents a capability, skips a key step, makes a
  cycle, points at a task that does not exist, repeats an id, over-plans, answers in prose
  only, or stops mid-JSON.

Each slip is drawn from a random generator seeded with (style, suite, case, sample), so the
same sample always gets the same answer and different samples of one case can differ (flaky
cases). ``planeval`` runs it as a ``command`` planner: the prompt arrives on stdin and
``PLANEVAL_SUITE``, ``PLANEVAL_CASE`` and ``PLANEVAL_SAMPLE`` say what is asked::

    python examples/planners/example_planner.py careful < prompt.txt
    python examples/planners/example_planner.py sloppy --suite refunds --case gift-refund \
        --sample 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PLAYBOOKS = Path(__file__).with_name("playbooks.yaml")
STYLES = ("careful", "sloppy")

SLIP_CHANCE = {
    "careful": {"easy": 0.0, "medium": 0.04, "hard": 0.25},
    "sloppy": {"easy": 0.3, "medium": 0.55, "hard": 0.75},
}
"""How often a style slips on a case of each difficulty."""

SLIPS = {
    "careful": {"over_plan": 3, "drop_dependency": 1},
    "sloppy": {
        "drop_dependency": 4,
        "invent_capability": 3,
        "skip_key_step": 3,
        "over_plan": 2,
        "dangling_dependency": 1,
        "cycle": 1,
        "duplicate_id": 1,
        "self_dependency": 1,
        "prose_only": 1,
        "truncated": 1,
    },
}
"""Which slips each style makes, with their relative weights."""

KEY_CAPABILITIES = {
    "refunds": {"payments", "shipping_label", "human_review", "fraud_check", "subscription_admin"},
    "data-pipeline": {
        "warehouse_load",
        "pii_redact",
        "schema_validate",
        "dedupe",
        "join",
        "fx_rates",
        "data_quality_check",
        "notify",
    },
    "travel": {
        "budget_check",
        "visa_check",
        "book_flight",
        "car_rental",
        "payments",
        "rail_search",
    },
}
"""The steps a sloppy planner may skip: the ones a case usually requires."""

INVENTED = {
    "refunds": ["refund_api", "send_email", "ticket_close", "stripe_refund"],
    "data-pipeline": ["spark_job", "airflow_trigger", "s3_write", "slack_post"],
    "travel": ["book_trip", "expedia_search", "train_booking", "send_itinerary"],
}
"""Plausible capability names that are not in the suites' registries."""


@cache
def playbooks() -> dict[str, Any]:
    """The hand-written plans, by suite and case."""
    return yaml.safe_load(PLAYBOOKS.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def playbook_plan(suite: str, case: str, goal: str | None = None) -> dict[str, Any]:
    """The playbook plan of a case, in planeval's canonical JSON form."""
    entry = playbooks()[suite][case]
    tasks = []
    for step in entry["steps"]:
        task_id, capability, description, *rest = step
        depends_on = list(rest[0]) if rest else []
        extra = list(rest[1]) if len(rest) > 1 else []
        needs = [{"name": name, "task": name} for name in depends_on + extra]
        tasks.append(
            {
                "id": task_id,
                "description": description,
                "capabilities": [capability],
                "depends_on": depends_on,
                "needs": needs,
            }
        )
    return {"goal": goal or case, "tasks": tasks}


def answer(style: str, suite: str, case: str, sample: int, goal: str | None = None) -> str:
    """The planner's answer (text, as a model would print it) for one sample of a case."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; choose one of {', '.join(STYLES)}")
    try:
        entry = playbooks()[suite][case]
    except KeyError:
        return f"I have no playbook for case {case!r} of suite {suite!r}, so I cannot plan it.\n"
    rng = random.Random(f"{style}/{suite}/{case}/{sample}")
    plan = playbook_plan(suite, case, goal)
    slip = None
    if rng.random() < SLIP_CHANCE[style][entry["difficulty"]]:
        weights = SLIPS[style]
        slip = rng.choices(list(weights), weights=list(weights.values()))[0]
    if slip == "prose_only":
        steps = "; then ".join(t["description"].lower() for t in plan["tasks"])
        return f"Sure! First {steps}. Let me know if you want this as JSON.\n"
    if slip is not None:
        _SLIP_FUNCTIONS[slip](plan, rng, suite)
    if style == "sloppy" and rng.random() < 0.3:
        _add_redundant_dependency(plan)
    text = json.dumps(plan, indent=2)
    if slip == "truncated":
        return "```json\n" + text[: len(text) * 3 // 5] + "\n"
    if style == "careful":
        return f"Here is the plan ({len(plan['tasks'])} tasks).\n\n```json\n{text}\n```\n"
    return text + "\n" if rng.random() < 0.5 else f"Plan:\n{text}\nHope this helps!\n"


def _drop_dependency(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Forget one depends_on edge but keep reading that task's output (needs_earlier_output)."""
    candidates = [t for t in plan["tasks"] if t["depends_on"]]
    task = rng.choice(candidates)
    task["depends_on"].remove(rng.choice(task["depends_on"]))


def _invent_capability(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Name a capability the registry does not have (known_capabilities)."""
    rng.choice(plan["tasks"])["capabilities"] = [rng.choice(INVENTED[suite])]


def _skip_key_step(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Leave out one key step, wiring its dependents to its own prerequisites."""
    keys = [
        t for t in plan["tasks"] if t["capabilities"][0].split("@")[0] in KEY_CAPABILITIES[suite]
    ]
    if not keys:
        return
    skipped = rng.choice(keys)
    plan["tasks"].remove(skipped)
    for task in plan["tasks"]:
        if skipped["id"] in task["depends_on"]:
            task["depends_on"].remove(skipped["id"])
            task["depends_on"] += [d for d in skipped["depends_on"] if d not in task["depends_on"]]
        task["needs"] = [n for n in task["needs"] if n["task"] != skipped["id"]]


def _over_plan(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Append review steps until the plan is longer than any band of the suites allows."""
    tasks = plan["tasks"]
    for k in range(11 - len(tasks) if len(tasks) < 11 else 2):
        previous = tasks[-1]
        tasks.append(
            {
                "id": f"double_check_{k + 1}",
                "description": f"Double-check: {previous['description'].lower()}",
                "capabilities": list(previous["capabilities"]),
                "depends_on": [previous["id"]],
                "needs": [{"name": "result", "task": previous["id"]}],
            }
        )


def _dangling_dependency(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Depend on a task that is not in the plan (deps_resolve)."""
    task = rng.choice(plan["tasks"][1:])
    task["depends_on"].append(rng.choice(["verify_identity", "get_approval", "load_config"]))


def _cycle(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Make the first task wait for the last one (acyclic)."""
    plan["tasks"][0]["depends_on"].append(plan["tasks"][-1]["id"])


def _duplicate_id(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Give a task the id of the one before it (unique_ids)."""
    index = rng.randrange(1, len(plan["tasks"]))
    plan["tasks"][index]["id"] = plan["tasks"][index - 1]["id"]


def _self_dependency(plan: dict[str, Any], rng: random.Random, suite: str) -> None:
    """Make a task depend on itself (self_dependency)."""
    task = rng.choice(plan["tasks"])
    task["depends_on"].append(task["id"])


def _add_redundant_dependency(plan: dict[str, Any]) -> None:
    """Depend on a grandparent too: allowed, but a warning (redundant_dependency)."""
    by_id = {t["id"]: t for t in plan["tasks"]}
    for task in plan["tasks"]:
        for parent in list(task["depends_on"]):
            for grandparent in by_id.get(parent, {}).get("depends_on", []):
                if grandparent not in task["depends_on"]:
                    task["depends_on"].append(grandparent)
                    return


_SLIP_FUNCTIONS = {
    "drop_dependency": _drop_dependency,
    "invent_capability": _invent_capability,
    "skip_key_step": _skip_key_step,
    "over_plan": _over_plan,
    "dangling_dependency": _dangling_dependency,
    "cycle": _cycle,
    "duplicate_id": _duplicate_id,
    "self_dependency": _self_dependency,
    "truncated": lambda plan, rng, suite: None,
}


def main(argv: list[str] | None = None) -> int:
    """Read the prompt on stdin and print the answer for the case planeval asks about."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("style", choices=STYLES)
    parser.add_argument("--suite", default=os.environ.get("PLANEVAL_SUITE"))
    parser.add_argument("--case", default=os.environ.get("PLANEVAL_CASE"))
    parser.add_argument("--sample", type=int, default=int(os.environ.get("PLANEVAL_SAMPLE", "0")))
    parser.add_argument("--goal", default=os.environ.get("PLANEVAL_GOAL"))
    args = parser.parse_args(argv)
    if not args.suite or not args.case:
        parser.error(
            "say which case to plan: --suite and --case (planeval sets PLANEVAL_SUITE "
            "and PLANEVAL_CASE)"
        )
    if not sys.stdin.isatty():
        sys.stdin.read()  # the prompt: this planner plans from its playbook, not from the text
    sys.stdout.write(answer(args.style, args.suite, args.case, args.sample, args.goal))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
