"""Crash-and-resume scenarios over a plan: one result per crash point and mode."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

import harness.execute
import harness.journal
from harness.execute import CRASH_MODES, TaskContext, demo_agent, resume_scenarios
from harness.plan import Plan
from tests.execute._execute_helpers import chain_plan, diamond_plan


def test_every_crash_point_of_a_chain_passes(tmp_path: Path) -> None:
    """A 4-task chain crashed at each task in each mode resumes correctly: 12 passes."""
    results = resume_scenarios(chain_plan(4), workdir=tmp_path)
    assert [(r.crash_at, r.mode) for r in results] == list(
        itertools.product(["t1", "t2", "t3", "t4"], CRASH_MODES)
    )
    assert all(r.passed for r in results), [r.violations for r in results if not r.passed]
    crash_at_t3 = next(r for r in results if r.crash_at == "t3" and r.mode == "raise")
    assert crash_at_t3.completed_before_resume == ("t1", "t2")
    assert crash_at_t3.executed_on_resume == ("t3", "t4")
    assert (tmp_path / "crash-002-torn_write.jsonl").exists()  # journals kept in workdir


def test_concurrent_plan_passes() -> None:
    """With independent tasks running together, every crash point still resumes correctly."""
    results = resume_scenarios(diamond_plan(), max_concurrency=3, modes=["interrupt"])
    assert len(results) == 6 and all(r.passed for r in results)


def test_a_nondeterministic_agent_is_caught() -> None:
    """An agent whose output changes between runs breaks the equal-outputs invariant."""
    counter = itertools.count()

    def drifting(context: TaskContext) -> Any:
        return {**demo_agent(context), "n": next(counter)}

    results = resume_scenarios(chain_plan(3), agent=drifting, modes=["raise"])
    assert not any(r.passed for r in results)
    assert all("outputs differ" in r.violations[0] for r in results)


def test_on_failure_continue_is_reported() -> None:
    """A dependent that ran on a failed input keeps its degraded output after a plain resume."""
    plan = Plan.from_dict(
        {
            "tasks": [
                {"id": "a", "on_failure": "continue"},
                {"id": "b", "needs": {"x": "a"}},
            ]
        },
        source="handwritten",
    )
    raised = {r.crash_at: r for r in resume_scenarios(plan, modes=["raise"])}
    assert not raised["a"].passed and "outputs differ" in raised["a"].violations[0]
    assert "for: b" in raised["a"].violations[0]
    assert raised["b"].passed


def test_unknown_mode_is_refused() -> None:
    """A misspelled crash mode fails loudly."""
    with pytest.raises(ValueError, match="unknown crash mode"):
        resume_scenarios(chain_plan(2), modes=["explode"])  # type: ignore[list-item]


def test_scenario_as_json() -> None:
    """A scenario serialises with its verdict."""
    (result,) = resume_scenarios(chain_plan(1), modes=["raise"])
    assert result.to_dict()["passed"] is True and result.to_dict()["crash_at"] == "t1"


@pytest.mark.parametrize("module", [harness.execute, harness.journal])
def test_public_names_are_sorted_and_exported(module: Any) -> None:
    """Each package's `__all__` is sorted and every name in it exists."""
    assert module.__all__ == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
    assert all(hasattr(module, name) for name in module.__all__)
