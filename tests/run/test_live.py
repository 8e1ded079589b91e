"""Live runs: the command provider, retries through the fake server, concurrency, setup errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.providers import RetryPolicy
from harness.recording import ResponseFile, sample_paths
from harness.run import evaluate_one, run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project, sound_plan, write_response

PLANNER = Path(__file__).parent / "data" / "planner.py"
KEY = {"OPENAI_API_KEY": "sk-test"}


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["run", *args], env=env)
    return result.exit_code, result.stdout, result.stderr


class TestCommandProvider:
    def _suite(self, tmp_path: Path) -> Path:
        return make_project(
            tmp_path,
            models=[
                {"id": "script", "provider": "command", "command": f"{sys.executable} {PLANNER}"}
            ],
            cases=[
                {"id": "ok", "goal": "Refund an order"},
                {"id": "ramble", "goal": "ramble on"},
                {"id": "crash", "goal": "crash please"},
            ],
        )

    def test_records_response_files_and_replays_them(self, tmp_path: Path) -> None:
        """--live runs the script; replay gives the same rows; a crash is an error row."""
        path = self._suite(tmp_path)
        code, _, err = _cli(str(path), "--live")
        assert code == 4  # the crashing case is an infrastructure error
        assert "exited with status 3: planner: out of ideas" in err
        (first,) = (tmp_path / "reports" / "runs").iterdir()
        live = [json.loads(x) for x in (first / "results.jsonl").read_text().splitlines()]
        assert {r["case"]: r["status"] for r in live} == {
            "ok": "pass",
            "ramble": "unparseable",
            "crash": "error",
        }
        recorded = ResponseFile.read(
            sample_paths(tmp_path / "plan_fixtures", "demo", "script", "ok", 0).response
        )
        assert recorded.provenance.source == "live"
        assert recorded.provenance.prompt_hash == load_suite(path).prompt_hash
        assert json.loads(recorded.response)["prompt_chars"] > 0  # the prompt came on stdin
        replay = run_suite(load_suite(path))
        by_case = {r.case: r for r in replay.rows}
        assert by_case["crash"].status == "missing"  # nothing was recorded for it
        ok = next(r for r in live if r["case"] == "ok")
        assert by_case["ok"].plan == ok["plan"] and by_case["ok"].checks == ok["checks"]
        assert by_case["ramble"].status == "unparseable"

    def test_rerecording_replaces_the_other_form(self, tmp_path: Path) -> None:
        """A command re-recording removes a cassette left for the same sample."""
        path = self._suite(tmp_path)
        paths = sample_paths(tmp_path / "plan_fixtures", "demo", "script", "ok", 0)
        paths.cassette.parent.mkdir(parents=True)
        paths.cassette.write_text("interactions: []\n")
        suite = load_suite(path)
        row = evaluate_one(suite, suite.cases[0], suite.models[0], 0, record_mode="all")
        assert row.status == "pass"
        assert paths.response.exists() and not paths.cassette.exists()


def _http_suite(tmp_path: Path, server: FakePlannerServer, **model: object) -> Path:
    spec = {
        "id": "gpt",
        "provider": "openai",
        "model": "gpt-fake",
        "base_url": server.openai_base_url,
        **model,
    }
    return make_project(tmp_path, models=[spec], cases=[{"id": "c", "goal": "Refund an order"}])


class TestRetries:
    def _evaluate(
        self, tmp_path: Path, server: FakePlannerServer, retries: int = 3, **model: object
    ) -> tuple[str, str | None, list[float]]:
        suite = load_suite(_http_suite(tmp_path, server, **model))
        sleeps: list[float] = []
        policy = RetryPolicy(retries=retries, base_delay=0.01, sleep=sleeps.append)
        row = evaluate_one(
            suite, suite.cases[0], suite.models[0], 0, record_mode="all", retry=policy, env=KEY
        )
        return row.status, row.detail, sleeps

    def test_429_honours_retry_after(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """Two 429s with Retry-After: 7 wait exactly 7 s each, then the answer passes."""
        server.fail("rate_limit", times=2, retry_after=7)
        status, _, sleeps = self._evaluate(tmp_path, server)
        assert status == "pass" and sleeps == [7.0, 7.0] and len(server.requests) == 3

    @pytest.mark.parametrize("kind", ["server_error", "drop", "not_json"])
    def test_transient_faults_are_retried(
        self, tmp_path: Path, server: FakePlannerServer, kind: str
    ) -> None:
        """500, a dropped connection and a non-JSON body are retried with backoff."""
        server.fail(kind, times=2)
        status, _, sleeps = self._evaluate(tmp_path, server)
        assert status == "pass" and len(sleeps) == 2 and all(0 <= s <= 0.02 for s in sleeps)
        cassette = next((tmp_path / "plan_fixtures").rglob("*.yaml")).read_text()
        assert "Bad Gateway" not in cassette and cassette.count("request:") == 1

    def test_slow_reply_times_out_then_succeeds(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """A reply slower than the timeout is retried; a prompt one is taken."""
        server.fail("slow", delay=1.5)
        status, _, sleeps = self._evaluate(tmp_path, server, timeout=0.3)
        assert status == "pass" and len(sleeps) == 1

    def test_exhausted_retries_are_errors_not_failures(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """A case that still fails after the retries is `error`, with the attempts named."""
        server.fail("server_error", times=10)
        status, detail, sleeps = self._evaluate(tmp_path, server, retries=2)
        assert len(sleeps) == 2
        assert (
            status == "error"
            and "HTTP 500" in (detail or "")
            and "after 3 attempts" in (detail or "")
        )
        assert not list((tmp_path / "plan_fixtures").rglob("sample-*"))  # nothing recorded

    def test_timeout_without_retries(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """With no retries left, a slow reply is a timeout error."""
        server.fail("slow", delay=1.5)
        status, detail, _ = self._evaluate(tmp_path, server, retries=0, timeout=0.3)
        assert status == "error" and "timed out" in (detail or "")

    def test_bad_request_is_not_retried(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """A 404 (wrong base_url) fails at once as an error row."""
        suite = load_suite(_http_suite(tmp_path, server, base_url=server.url + "/wrong"))
        sleeps: list[float] = []
        row = evaluate_one(
            suite,
            suite.cases[0],
            suite.models[0],
            0,
            record_mode="all",
            retry=RetryPolicy(sleep=sleeps.append),
            env=KEY,
        )
        assert row.status == "error" and "HTTP 404" in (row.detail or "") and sleeps == []


class TestLiveRuns:
    def test_missing_key_stops_before_any_request(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """--live without the key: one line naming the variable, exit 2, no request sent."""
        path = _http_suite(tmp_path, server)
        code, _, err = _cli(str(path), "--live", env={"OPENAI_API_KEY": ""})
        assert code == 2 and "set OPENAI_API_KEY" in err
        assert len(err.strip().splitlines()) == 1
        assert server.requests == [] and not (tmp_path / "reports").exists()

    def test_live_evals_variable_means_record_all(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """LIVE_EVALS=1 re-records like --live."""
        path = _http_suite(tmp_path, server)
        code, out, _ = _cli(str(path), env={"LIVE_EVALS": "1", **KEY})
        assert code == 0 and len(server.requests) == 1 and "record mode all" in out

    def test_replay_never_calls_out(self, tmp_path: Path, server: FakePlannerServer) -> None:
        """The default mode never touches the network, even with keys and a live server."""
        path = _http_suite(tmp_path, server)
        code, _, _ = _cli(str(path), env=KEY)
        assert code == 3 and server.requests == []

    def test_dataset_models_replay_in_live_mode(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """A dataset model cannot be re-recorded: a note, and its recordings replay."""
        path = make_project(tmp_path, models=[{"id": "gold", "provider": "dataset"}])
        write_response(tmp_path, "demo", "gold", "c1", json.dumps(sound_plan()))
        code, _, err = _cli(str(path), "--live")
        assert code == 0 and "'gold' is a dataset" in err and "cannot be re-recorded" in err

    def test_concurrency_is_bounded(self, tmp_path: Path) -> None:
        """No more than --concurrency calls are in flight, and that many are used."""
        with FakePlannerServer(latency=0.2) as server:
            self._bounded(tmp_path, server)

    def _bounded(self, tmp_path: Path, server: FakePlannerServer) -> None:
        path = make_project(
            tmp_path,
            models=[
                {
                    "id": "gpt",
                    "provider": "openai",
                    "model": "m",
                    "base_url": server.openai_base_url,
                }
            ],
            cases=[{"id": f"c{i}", "goal": f"Goal {i}"} for i in range(9)],
        )
        seen: list[str] = []
        result = run_suite(
            load_suite(path),
            record_mode="all",
            concurrency=3,
            env=KEY,
            progress=lambda row: seen.append(row.case),
        )
        assert server.max_in_flight == 3
        assert sorted(seen) == sorted(f"c{i}" for i in range(9))
        assert [r.case for r in result.rows] == [f"c{i}" for i in range(9)]  # suite order
