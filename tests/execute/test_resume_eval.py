"""Crash-and-resume scenarios over a plan: one result per crash point and mode."""

from __future__ import annotations

import dataclasses
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


def test_on_failure_continue_reruns_what_was_built_on_a_failure() -> None:
    """A dependent that ran on a failed input runs again once its input is fixed, so the
    resume reproduces the uninterrupted outputs (it kept the degraded output before)."""
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
    assert raised["a"].passed, raised["a"].violations
    assert raised["a"].executed_on_resume == ("a", "b")
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


def test_each_property_is_reported_on_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """An executor that forgets one restored task breaks no_rerun, exact_rerun, from_closure
    (and torn_tail), but not outputs_equal: the report says which property failed."""
    from harness.execute import _resume as resume_module

    real = resume_module.decide_resume

    def forgetful(*args: Any, **kwargs: Any) -> Any:
        decision = real(*args, **kwargs)
        if len(decision.restored) < 2:
            return decision
        kept = decision.restored[1:]  # forget the first restored task: it runs again
        return dataclasses.replace(
            decision, restored=kept, outputs={t: decision.outputs[t] for t in kept}
        )

    monkeypatch.setattr("harness.execute._executor.decide_resume", forgetful)
    results = resume_scenarios(chain_plan(4), modes=["raise", "torn_write"])
    broken = {p for r in results for p in r.failed_properties}
    assert broken == {"no_rerun", "exact_rerun", "from_closure", "torn_tail"}
    late = next(r for r in results if r.crash_at == "t4" and r.mode == "raise")
    assert late.failed_properties == ("no_rerun", "exact_rerun", "from_closure")
    assert "outputs_equal" in late.checked and "from_closure" in late.checked


def test_a_real_sigkill_scenario_resumes_cleanly() -> None:
    (result,) = resume_scenarios(chain_plan(3), modes=[], kill_at=["t2"])
    assert result.mode == "kill" and result.passed, result.violations
    assert result.completed_before_resume == ("t1",)
    assert result.executed_on_resume == ("t2", "t3")
