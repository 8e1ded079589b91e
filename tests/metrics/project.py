"""A small project whose cases carry reference plans, and runs of it (handwritten).

Twenty cases, each with a WorfBench-style gold workflow of three tasks; the ``planner`` model's
recorded answers are the gold itself (``good``) or the gold with its last task renamed
(``weaker``), and one case's answer is prose (unparseable).
"""

from __future__ import annotations

from pathlib import Path

from harness.run import run_suite
from harness.suite import load_suite
from harness.testing import make_project, write_response

PROMPT = "Plan as Node:/Edge: lines.\n{goal}\n"
CASES = 20


def gold(case: int) -> str:
    return (
        f"Node:\n1: Open box {case}\n2: Check item {case}\n3: Close box {case}\n"
        "Edge: (START,1) (1,2) (2,3) (3,END)"
    )


def metric_run(root: Path, *, weaker: bool) -> Path:
    """Write the project under ``root`` and replay it; returns the run folder."""
    cases = [{"id": f"c{i}", "goal": f"Handle box {i}", "reference": gold(i)} for i in range(CASES)]
    suite = make_project(
        root, suite="boxes", prompt=PROMPT, cases=cases, extra={"plan_format": "auto"}
    )
    for i in range(CASES):
        text = gold(i)
        if weaker and i % 2 == 0:
            text = text.replace(f"3: Close box {i}", "3: Throw the box away")
        if i == CASES - 1:
            text = "I would rather not."
        write_response(root, "boxes", "planner", f"c{i}", text, template=PROMPT)
    out = root / "run"
    run_suite(load_suite(suite), out=out)
    return out
