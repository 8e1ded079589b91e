"""``planeval run`` keeps each loaded suite out of the cyclic GC's scans while it runs."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

import harness.checks
from harness.testing import make_project, sound_plan, write_response
from tests.cli_helpers import run_cli


def test_a_suite_is_frozen_while_it_runs_and_given_back_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every plan is checked with the loaded suite frozen (``gc.freeze``: full collections
    during the run do not walk its cases again); when the command ends nothing stays frozen,
    so an in-process caller's later garbage is collected as before."""
    cases = [{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(3)]
    suite = make_project(tmp_path, cases=cases)
    for case in cases:
        write_response(tmp_path, "demo", "planner", case["id"], json.dumps(sound_plan()))
    frozen: list[int] = []
    real = harness.checks.check_plan

    def counting(*args: object, **kwargs: object) -> object:
        frozen.append(gc.get_freeze_count())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(harness.checks, "check_plan", counting)
    result = run_cli(capsys, "run", str(suite), "--out", str(tmp_path / "run"))
    assert result.code == 0, result.err
    assert len(frozen) == 3 and min(frozen) > 1000
    assert gc.get_freeze_count() == 0


def test_each_suite_is_frozen_without_walking_the_whole_heap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before a suite is frozen only the young generations are collected (what the load just
    built), not the oldest one that holds every import and the suites before: a full
    collection per suite was a ninth of the CPU of ``planeval run`` over five suites."""
    for name in ("one", "two", "three"):
        make_project(tmp_path, suite=name)
        write_response(tmp_path, name, "planner", "c1", json.dumps(sound_plan()))
    collected: list[int] = []
    real = gc.collect

    def collect(generation: int = 2) -> int:
        collected.append(generation)
        return real(generation)

    monkeypatch.setattr(gc, "collect", collect)
    result = run_cli(capsys, "run", str(tmp_path / "evals"), "--out", str(tmp_path / "runs"))
    assert result.code == 0, result.err
    assert collected == [1, 1, 1]
    assert gc.get_freeze_count() == 0
