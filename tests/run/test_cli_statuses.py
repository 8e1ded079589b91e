"""``planeval run`` over hand-written recordings: every status and every exit code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

import harness
from harness._cli.main import app
from harness.testing import make_project, sound_plan, write_response
from tests.run.test_table import table_rows

DATA = Path(__file__).parent / "data" / "handwritten"
ROW_SCHEMA = json.loads(
    (Path(harness.__file__).parent / "schemas" / "results-row.schema.json").read_text("utf-8")
)


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["run", *args], env={"COLUMNS": "160"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def handwritten(tmp_path: Path) -> Path:
    shutil.copytree(DATA, tmp_path / "hw")
    return tmp_path / "hw"


def _only_run(root: Path) -> Path:
    (run_dir,) = (root / "reports" / "runs").iterdir()
    return run_dir


def test_every_status_from_handwritten_recordings(handwritten: Path) -> None:
    """pass, fail, unparseable, missing and stale, with rows and run.json to match."""
    code, out, err = _run(str(handwritten / "evals" / "handwritten.yaml"))
    assert code == 3
    run_dir = _only_run(handwritten)
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    status = {r["case"]: r["status"] for r in rows}
    assert status == {
        "sound": "pass",
        "cyclic": "fail",
        "prose": "unparseable",
        "unrecorded": "missing",
        "old-prompt": "stale",
    }
    cyclic = next(r for r in rows if r["case"] == "cyclic")
    assert cyclic["checks"]["acyclic"] == "fail"
    assert any(v["check"] == "acyclic" for v in cyclic["violations"])
    validator = Draft202012Validator(ROW_SCHEMA)
    for row in rows:
        validator.validate(row)
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["counts"] == {
        "pass": 1,
        "fail": 1,
        "unparseable": 1,
        "missing": 1,
        "stale": 1,
        "error": 0,
    }
    assert manifest["interrupted"] is False and manifest["finished_at"]
    assert manifest["suite_path"] == "evals/handwritten.yaml"
    # the table: 1 pass of 3 counted rows; 2 of 3 had a plan
    assert "hand" in out and "33.3%" in out and "66.7%" in out
    assert "unrecorded" in err and "old-prompt" in err and "cannot be re-recorded" in err


def _suite_with(tmp_path: Path, answers: dict[str, str | None], suite: str = "demo") -> Path:
    """A suite with a command model; answers are written as response files."""
    path = make_project(
        tmp_path,
        suite=suite,
        models=[{"id": "rb", "provider": "command", "command": "agentic plan --json"}],
        cases=[{"id": case, "goal": f"Goal {case}"} for case in answers],
    )
    for case, text in answers.items():
        if text is not None:
            write_response(tmp_path, suite, "rb", case, text)
    return path


PLAN = json.dumps(sound_plan())


@pytest.mark.parametrize(
    ("answers", "exit_code"),
    [
        ({"a": PLAN, "b": PLAN}, 0),  # all pass
        ({"a": PLAN, "b": '{"tasks": [{"id": "x", "depends_on": ["x"]}]}'}, 1),  # a fail
        ({"a": PLAN, "b": "no plan here"}, 1),  # unparseable counts as a failure
        ({"a": PLAN, "b": None}, 3),  # missing
    ],
)
def test_exit_codes(tmp_path: Path, answers: dict[str, str | None], exit_code: int) -> None:
    """0 all pass, 1 a case failed or was unparseable, 3 a recording is missing."""
    code, _, _ = _run(str(_suite_with(tmp_path, answers)))
    assert code == exit_code


def test_missing_message_gives_the_rerecord_command(tmp_path: Path) -> None:
    """Exit 3 names the cases and the exact command that records them."""
    path = _suite_with(tmp_path, {"a": PLAN, "b": None})
    code, _, err = _run(str(path), "--fixtures", str(tmp_path / "plan_fixtures"))
    assert code == 3
    assert "missing: b (rb, sample 0)" in err
    expected = (
        f"planeval run {path} --record-mode new_episodes --model rb "
        f"--fixtures {tmp_path / 'plan_fixtures'}"
    )
    assert expected in " ".join(err.split())


def test_stale_after_prompt_change_exits_3(tmp_path: Path) -> None:
    """A prompt edit makes recordings stale: exit 3, and they are not failures."""
    path = _suite_with(tmp_path, {"a": PLAN})
    prompt = tmp_path / "evals" / "demo.prompt.md"
    prompt.write_text(prompt.read_text() + "Be terse.\n", encoding="utf-8")
    code, _, err = _run(str(path))
    assert code == 3 and "stale: a (rb, sample 0)" in err
    rows = (_only_run(tmp_path) / "results.jsonl").read_text().splitlines()
    assert json.loads(rows[0])["status"] == "stale"


def test_unreadable_recording_is_an_error_row(tmp_path: Path) -> None:
    """A corrupt recording is an infrastructure error (exit 4), never a plan failure."""
    path = _suite_with(tmp_path, {"a": PLAN})
    (tmp_path / "plan_fixtures" / "demo" / "rb" / "a" / "sample-0.json").write_text("{oops")
    code, _, err = _run(str(path))
    assert code == 4 and "infrastructure" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "nope"], "no model 'nope'"),
        (["--record-mode", "sometimes"], "unknown record mode 'sometimes'"),
        (["--concurrency", "0"], "at least 1"),
        (["--samples", "0"], "at least 1"),
    ],
)
def test_unusable_options_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    """Bad options are one line on stderr and exit 2."""
    code, _, err = _run(str(_suite_with(tmp_path, {"a": PLAN})), *args)
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_suite_exits_2(tmp_path: Path) -> None:
    """A malformed suite is one line naming the file and place; exit 2."""
    path = make_project(tmp_path, cases=[{"id": "../up", "goal": "g"}])
    code, _, err = _run(str(path))
    assert code == 2 and "/cases/0/id" in err and str(path) in err


def test_out_folder_is_never_overwritten(tmp_path: Path) -> None:
    """--out names the run folder; a second run into it is refused (exit 2)."""
    path = _suite_with(tmp_path, {"a": PLAN})
    out = tmp_path / "my-run"
    assert _run(str(path), "--out", str(out))[0] == 0
    assert (out / "results.jsonl").exists() and (out / "run.json").exists()
    code, _, err = _run(str(path), "--out", str(out))
    assert code == 2 and "already holds a run" in err


def test_several_suites_take_the_worst_exit_code(tmp_path: Path) -> None:
    """Two suites in one command: each gets a run; the exit code is the worst one."""
    good = _suite_with(tmp_path / "one", {"a": PLAN}, suite="one")
    bad = _suite_with(tmp_path / "two", {"a": None}, suite="two")
    code, out, _ = _run(str(good), str(bad), "--out", str(tmp_path / "runs"))
    assert code == 3
    assert (tmp_path / "runs" / "one" / "run.json").exists()
    assert (tmp_path / "runs" / "two" / "run.json").exists()
    assert [row[0] for row in table_rows(out)] == ["one", "two"]


def test_a_folder_runs_every_suite_in_it(tmp_path: Path) -> None:
    """A folder argument runs each *.yaml suite in it, in name order, in one table."""
    first = _suite_with(tmp_path / "p", {"a": PLAN}, suite="alpha")
    _suite_with(tmp_path / "p", {"a": PLAN}, suite="beta")
    code, out, _ = _run(str(first.parent), "--out", str(tmp_path / "runs"))
    assert code == 0
    assert [row[0] for row in table_rows(out)] == ["alpha", "beta"]


def test_an_empty_folder_is_unusable(tmp_path: Path) -> None:
    """A folder without suite files is one clear line and exit 2."""
    (tmp_path / "empty").mkdir()
    code, _, err = _run(str(tmp_path / "empty"))
    assert code == 2 and "holds no suite files" in err


def test_a_broken_suite_is_reported_at_the_end_and_the_others_run(tmp_path: Path) -> None:
    """Bad YAML and a missing registry: both reported after the table, exit 2; the good
    suite still runs and is in the table."""
    good = _suite_with(tmp_path, {"a": PLAN}, suite="good")
    (tmp_path / "evals" / "bad-yaml.yaml").write_text("suite: [unclosed\n", encoding="utf-8")
    make_project(tmp_path, suite="no-registry", extra={"registry": "missing.yaml"})
    code, out, err = _run(str(good.parent), "--out", str(tmp_path / "runs"))
    assert code == 2
    assert [row[0] for row in table_rows(out)] == ["good"]
    assert (tmp_path / "runs" / "good" / "run.json").exists()
    errors = [line for line in err.splitlines() if line.startswith("planeval: error:")]
    assert any("bad-yaml.yaml" in line for line in errors)
    assert any("missing.yaml" in line for line in errors)
    assert (
        errors[-1]
        == "planeval: error: 2 of 3 suites could not be run (listed above); the other 1 ran"
    )
    assert "Traceback" not in err
