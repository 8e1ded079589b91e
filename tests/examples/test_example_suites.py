"""The example suites: hand-written planners whose recorded answers ship in plan_fixtures/.

They are what ``planeval run evals/`` replays on a fresh clone, so they must stay reproducible
(the generating script writes exactly the shipped files), honest (provenance ``handwritten``)
and useful (two planners that really differ, with failures of several checks and flaky cases).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness.compare import compare_runs
from harness.recording import ResponseFile, sample_paths
from harness.report import load_run
from harness.run import evaluate_one, run_suite
from harness.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITES = ("refunds", "data-pipeline", "travel")


def _script() -> ModuleType:
    path = ROOT / "examples" / "make_example_recordings.py"
    spec = importlib.util.spec_from_file_location("make_example_recordings", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(folder: Path) -> dict[Path, str]:
    return {p.relative_to(folder): p.read_text(encoding="utf-8") for p in folder.rglob("*.json")}


class TestRecordings:
    def test_the_script_writes_exactly_the_shipped_recordings(self, tmp_path: Path) -> None:
        """Re-running examples/make_example_recordings.py reproduces plan_fixtures/ byte for
        byte: nobody hand-edited a recording, and no recording is left over."""
        script = _script()
        count = script.write_recordings(tmp_path)
        shipped = {
            rel: text
            for rel, text in _files(ROOT / "plan_fixtures").items()
            if rel.parts[0] in SUITES
        }
        assert count == len(shipped) == 300
        assert _files(tmp_path / "plan_fixtures") == shipped

    def test_every_shipped_recording_is_marked_handwritten(self) -> None:
        """Nothing in plan_fixtures/ claims to be model output or public data."""
        sources = {
            json.loads(p.read_text(encoding="utf-8"))["provenance"]["source"]
            for p in (ROOT / "plan_fixtures").rglob("sample-*.json")
        }
        assert sources == {"handwritten"}
        assert not list((ROOT / "plan_fixtures").rglob("sample-*.yaml"))

    def test_live_recording_through_the_command_provider_gives_the_same_answers(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The suites' models are real command planners: recording them live (no network)
        gives the answers that ship."""
        monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
        for name in SUITES:
            suite = load_suite(ROOT / "evals" / f"{name}.yaml")
            for model in suite.models:
                for case in suite.cases[:2]:
                    row = evaluate_one(suite, case, model, 1, record_mode="all", fixtures=tmp_path)
                    assert row.status in ("pass", "fail", "unparseable"), row.detail
                    live = sample_paths(tmp_path, name, model.id, case.id, 1).response
                    shipped = sample_paths(ROOT / "plan_fixtures", name, model.id, case.id, 1)
                    assert (
                        ResponseFile.read(live).response
                        == ResponseFile.read(shipped.response).response
                    )


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A replay of each example suite, as ``planeval run evals/`` makes it."""
    out = tmp_path_factory.mktemp("runs")
    return {
        name: run_suite(load_suite(ROOT / "evals" / f"{name}.yaml"), out=out / name).run_dir
        for name in SUITES
    }


@pytest.mark.parametrize("name", SUITES)
class TestReplay:
    def test_every_sample_replays_offline(self, runs: dict[str, Path], name: str) -> None:
        """Every case x model x sample has a fresh recording: nothing missing, stale or in
        error, and the run fails (exit 1) because the sloppy planner fails checks."""
        rows = _rows(runs[name])
        statuses = {row["status"] for row in rows}
        assert len(rows) == 10 * 2 * 5
        assert statuses <= {"pass", "fail", "unparseable"} and "fail" in statuses

    def test_sloppy_is_significantly_worse_than_careful(
        self, runs: dict[str, Path], name: str
    ) -> None:
        """Comparing the two planners of one run gives a clear verdict: worse."""
        run = load_run(runs[name])
        result = compare_runs(run, run, base_model="careful-planner", cand_model="sloppy-planner")
        assert result.overall.verdict == "worse"
        assert result.overall.cand_rate < result.overall.base_rate - 0.25

    def test_failures_span_several_checks_and_some_cases_are_flaky(
        self, runs: dict[str, Path], name: str
    ) -> None:
        """The sloppy planner breaks several different checks, and some (case, model) pairs
        pass on some samples and fail on others."""
        rows = _rows(runs[name])
        failed_checks = {
            v["check"]
            for row in rows
            for v in row.get("violations") or []
            if v["severity"] == "error"
        }
        assert len(failed_checks) >= 4
        outcomes: dict[tuple[str, str], set[str]] = {}
        for row in rows:
            outcomes.setdefault((row["model"], row["case"]), set()).add(row["status"] == "pass")
        assert any(len(seen) == 2 for seen in outcomes.values())
