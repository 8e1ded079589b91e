"""``gate`` and ``baseline`` refuse an incomplete run: exit 3, how many rows are missing and
the command that finishes it (run as a user would, in a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.gate import completeness
from harness.report import load_run
from harness.testing import make_project, sound_plan, write_response
from tests.cli_helpers import planeval_process

PLAN = json.dumps(sound_plan())


planeval = planeval_process


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete replay of 3 cases x 2 samples (6 rows) of one command model."""
    root = tmp_path_factory.mktemp("project")
    make_project(
        root,
        models=[{"id": "rb", "provider": "command", "command": "agentic plan --json"}],
        cases=[{"id": f"c{i}", "goal": f"Goal {i}"} for i in range(3)],
        extra={"samples": 2},
    )
    for i in range(3):
        for sample in range(2):
            write_response(root, "demo", "rb", f"c{i}", PLAN, sample=sample)
    done = planeval("run", "evals/demo.yaml", "--out", "reports/runs/full", cwd=root)
    assert done.returncode == 0, done.stderr
    return root / "reports" / "runs" / "full"


def _copy(run: Path, name: str, *, keep: int, interrupted: bool) -> Path:
    """The run cut to its first ``keep`` rows, marked interrupted or not."""
    out = run.parent / name
    out.mkdir()
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:keep]))
    manifest = json.loads((run / "run.json").read_text())
    manifest["interrupted"] = interrupted
    if interrupted:
        manifest["finished_at"] = None
    (out / "run.json").write_text(json.dumps(manifest))
    return out


@pytest.mark.parametrize("interrupted", [True, False], ids=["interrupted", "rows-missing"])
@pytest.mark.parametrize("command", ["gate", "baseline"])
def test_incomplete_run_is_refused(finished_run: Path, command: str, interrupted: bool) -> None:
    """2 of 6 rows: exit 3, '4 of 6 rows are missing', the command that finishes the run,
    and no baseline written."""
    name = f"cut-{command}-{interrupted}"
    run = _copy(finished_run, name, keep=2, interrupted=interrupted)
    root = finished_run.parents[2]
    done = planeval(command, str(run), cwd=root)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "4 of 6 rows are missing" in line
    assert ("interrupted" in line) == interrupted
    assert "planeval run evals/demo.yaml --model rb --samples 2" in line
    assert "Traceback" not in done.stderr
    assert not (root / "reports" / "baselines" / "demo.json").exists()


def test_complete_run_is_accepted(finished_run: Path) -> None:
    """The finished run is complete, and baseline then gate accept it."""
    state = completeness(load_run(finished_run))
    assert state.complete and state.expected == 6 and state.rows == 6
    root = finished_run.parents[2]
    assert planeval("baseline", str(finished_run), cwd=root).returncode == 0
    assert planeval("gate", str(finished_run), "--no-new-failures", cwd=root).returncode == 0


def test_runs_without_a_case_count_use_the_suite_file(finished_run: Path) -> None:
    """A run.json written before it recorded the case count is checked against the suite."""
    run = _copy(finished_run, "old-format", keep=4, interrupted=False)
    manifest = json.loads((run / "run.json").read_text())
    del manifest["cases"]
    (run / "run.json").write_text(json.dumps(manifest))
    state = completeness(load_run(run))
    assert (state.expected, state.missing) == (6, 2)


def _edit(run: Path, name: str, edit) -> Path:  # type: ignore[no-untyped-def]
    """A finished copy of the run whose results.jsonl lines went through ``edit``."""
    out = run.parent / name
    out.mkdir()
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(edit(lines)))
    (out / "run.json").write_text((run / "run.json").read_text())
    return out


@pytest.mark.parametrize("command", ["gate", "baseline"])
def test_a_deleted_and_a_duplicated_row_are_refused(finished_run: Path, command: str) -> None:
    """Six rows, but one item deleted and another written twice: the row count is right, the
    items are not. Exit 3 naming both items (it passed with exit 0 and a baseline of 5 of 6
    items)."""
    run = _edit(finished_run, f"dup-{command}", lambda lines: [lines[0], *lines[:1], *lines[2:]])
    second = json.loads((finished_run / "results.jsonl").read_text().splitlines()[1])
    first = json.loads((finished_run / "results.jsonl").read_text().splitlines()[0])
    root = finished_run.parents[2]
    out = run.parent / f"dup-{command}.json"
    extra = ["--out", str(out)] if command == "baseline" else []
    done = planeval(command, str(run), *extra, cwd=root)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert (
        f"1 of 6 rows are missing (rows are missing): rb / {second['case']} / sample "
        f"{second['sample']}" in line
    )
    assert (
        f"1 (model, case, sample) items have more than one row: rb / {first['case']} / "
        f"sample {first['sample']}" in line
    )
    assert not out.exists()


def test_a_row_of_a_case_the_suite_does_not_have_is_refused(finished_run: Path) -> None:
    """A seventh row, of a case not in the suite: foreign, named, exit 3."""

    def add(lines: list[str]) -> list[str]:
        row = json.loads(lines[0])
        row["case"] = "not-in-suite"
        return [*lines, json.dumps(row) + "\n"]

    run = _edit(finished_run, "foreign", add)
    state = completeness(load_run(run))
    assert not state.complete and state.items is not None
    assert state.items.foreign == (("rb", "not-in-suite", 0),)
    done = planeval("gate", str(run), cwd=finished_run.parents[2])
    assert done.returncode == 3
    assert "1 rows are of a model, case or sample the run was not asked for" in done.stderr


def test_a_suite_with_a_cases_file_names_the_missing_items(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A plain run of a suite whose cases are in a cases file is checked against that file,
    read as a stream (once per model, no list of ids): the missing items are named."""
    import yaml

    root = tmp_path_factory.mktemp("streamed")
    make_project(
        root,
        models=[{"id": "rb", "provider": "command", "command": "agentic plan --json"}],
        cases=[{"id": f"c{i}", "goal": f"Goal {i}"} for i in range(3)],
        extra={"samples": 2},
    )
    suite_path = root / "evals" / "demo.yaml"
    doc = yaml.safe_load(suite_path.read_text())
    cases = doc.pop("cases")
    cases_file = root / "evals" / "demo.cases.jsonl"
    cases_file.write_text("".join(json.dumps(c) + "\n" for c in cases))
    suite_path.write_text(yaml.safe_dump({**doc, "cases_file": "demo.cases.jsonl"}))
    for i in range(3):
        for sample in range(2):
            write_response(root, "demo", "rb", f"c{i}", PLAN, sample=sample)
    done = planeval("run", "evals/demo.yaml", "--out", "reports/runs/full", cwd=root)
    assert done.returncode == 0, done.stderr
    run = _copy(root / "reports" / "runs" / "full", "cut", keep=4, interrupted=False)
    state = completeness(load_run(run))
    assert state.items is not None
    assert (state.expected, state.items.missing) == (6, (("rb", "c2", 0), ("rb", "c2", 1)))
    assert planeval("gate", str(run), cwd=root).returncode == 3
