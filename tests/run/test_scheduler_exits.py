"""What a scheduler sees: `--plan-failures-ok` turns "finished, some plans failed" into exit 0
while gaps and errors keep their codes; a shard's recordings folder must outlive the job."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness._errors import InputError
from harness.run import Shard, run_suite
from harness.run._shard import fixtures_for_shards
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

ROOT = Path(__file__).resolve().parents[2]
SUITE = str(ROOT / "evals" / "travel.yaml")  # sloppy-planner fails some cases by design


def test_failing_plans_exit_0_with_the_option(tmp_path: Path) -> None:
    """The example suite exits 1 (plans failed); with --plan-failures-ok it exits 0."""
    runner = CliRunner()
    failing = runner.invoke(app, ["run", SUITE, "--out", str(tmp_path / "a")])
    allowed = runner.invoke(app, ["run", SUITE, "--out", str(tmp_path / "b"), "--plan-failures-ok"])
    assert failing.exit_code == 1, failing.stderr
    assert allowed.exit_code == 0, allowed.stderr


def test_gaps_still_exit_3_with_the_option(tmp_path: Path) -> None:
    """A sample with no recording is still exit 3: the scheduler must not call it success."""
    gaps = CliRunner().invoke(
        app, ["run", SUITE, "--samples", "6", "--plan-failures-ok", "--out", str(tmp_path / "g")]
    )
    assert gaps.exit_code == 3, gaps.stderr


def test_a_shard_refuses_recordings_in_a_ray_job_copy(tmp_path: Path) -> None:
    """Recordings inside Ray's working-dir copy would be thrown away: refused before a call."""
    with FakePlannerServer() as server:
        model = {"id": "m", "provider": "openai", "model": "x", "base_url": server.openai_base_url}
        path = make_project(tmp_path, models=[model])
        copy = tmp_path / "ray" / "session_1" / "runtime_resources" / "working_dir_files" / "p"
        with pytest.raises(InputError, match="thrown away when the job ends"):
            run_suite(
                load_suite(path),
                record_mode="all",
                shard=Shard(1, 2),
                fixtures=copy / "plan_fixtures",
                env={"OPENAI_API_KEY": "sk-test"},
            )
        assert not server.requests


def test_a_shard_warns_about_recordings_in_a_temporary_folder(tmp_path: Path) -> None:
    """A recordings folder under $SLURM_TMPDIR gets a warning naming the folder; shared
    storage does not."""
    scratch = tmp_path / "scratch"
    warning = fixtures_for_shards(scratch / "plan_fixtures", {"SLURM_TMPDIR": str(scratch)})
    assert warning is not None and "must outlive the job" in warning
    assert fixtures_for_shards(Path("/srv/shared/fixtures"), {}) is None
