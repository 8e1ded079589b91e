"""The Ray recipe of docs/scale.md, run as the page prints it on a real local Ray head.

The test starts a Ray head of its own (`ray start --head --block`, its own temp folder, ports
and process group), takes the recipe's shell lines from docs/scale.md, puts this test's suite,
shard count, budget and shared folder in place of the page's examples and runs them with bash:
one `ray job submit --no-wait --working-dir .` per shard against the fake provider server on
127.0.0.1, then the merge. Every job must end SUCCEEDED (a plan fails on purpose:
`--plan-failures-ok` is what makes that a success), every recording must reach the shared
`--fixtures` folder (none in the project or in Ray's copy of it), and the merged run must
equal a single-process run of the same suite row for row. The head's process group is killed
at the end; nothing Ray started outlives the test.

Needs the optional extra: `pip install -e '.[ray]'`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")

from harness.testing import FakePlannerServer, make_project

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SHARDS = 3
CASES = 10
SAMPLES = 2
BUDGET = 30.0  # USD for the whole sweep: 10 per shard, far above the calls' cost
KEY = "sk-ray-test"
# What differs between two runs of the same answers: timing and where the run was written.
VOLATILE = {"latency_ms", "recording"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _recipe() -> tuple[str, str]:
    """The Ray block of docs/scale.md: (the submit loop, the merge line)."""
    text = (ROOT / "docs" / "scale.md").read_text(encoding="utf-8")
    block = re.search(r"\*\*Ray\*\*.*?```text\n(.*?)```", text, re.S)
    assert block, "docs/scale.md has no Ray recipe block"
    lines = block.group(1).splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip() == "done")
    loop = "\n".join(lines[: end + 1])
    merge = next(line.strip() for line in lines[end:] if line.strip().startswith("planeval merge"))
    return loop, merge


def _fill(text: str, shared: Path) -> str:
    """The page's example values replaced with the test's."""
    return (
        text.replace("/shared", str(shared))
        .replace("$(seq 1 16)", f"$(seq 1 {SHARDS})")
        .replace("/16", f"/{SHARDS}")
        .replace("--max-cost 160", f"--max-cost {BUDGET:g}")
    )


@contextlib.contextmanager
def _ray_head(env: dict[str, str]) -> Iterator[str]:
    """A local Ray head in its own process group; yields the job server's address."""
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's socket paths
    dashboard = _free_port()
    command = [
        str(BIN / "ray"),
        "start",
        "--head",
        "--block",
        "--disable-usage-stats",
        f"--temp-dir={temp}",
        f"--port={_free_port()}",
        "--node-ip-address=127.0.0.1",
        "--dashboard-host=127.0.0.1",
        f"--dashboard-port={dashboard}",
        f"--dashboard-agent-listen-port={_free_port()}",
        f"--ray-client-server-port={_free_port()}",
        "--num-cpus=4",
    ]
    log = temp / "ray-start.log"
    with log.open("wb") as out:
        head = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    address = f"http://127.0.0.1:{dashboard}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert head.poll() is None, log.read_text(errors="replace")[-3000:]
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{address}/api/version", timeout=5) as reply,
            ):
                if reply.status == 200:
                    break
            assert time.monotonic() < deadline, "the Ray head did not start in 180 s"
            time.sleep(1)
        yield address
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=60)
        time.sleep(2)  # `ray start --block` stops its children on SIGTERM; reap what is left
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        head.wait()
        strays = _processes_mentioning(str(temp))
        for pid in strays:  # this head's own processes (they name its temp folder)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
        assert not strays, f"Ray processes outlived the head's process group: {strays}"


def _processes_mentioning(text: str) -> list[int]:
    """Processes whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            with contextlib.suppress(OSError):
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def _rows(run_dir: Path) -> list[dict[str, object]]:
    """The run's rows by (model, case, sample), without what differs between two runs of the
    same answers (a live run writes rows as they finish; a merge writes them in suite order)."""
    rows = []
    for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["detail"] and row["recording"]:
            row["detail"] = row["detail"].replace(row["recording"], "<recording>")
        rows.append({k: v for k, v in row.items() if k not in VOLATILE})
    return sorted(rows, key=lambda r: (str(r["model"]), str(r["case"]), int(r["sample"])))


def _wait_for_jobs(env: dict[str, str], timeout: float) -> dict[str, str]:
    """Each planeval job's final status once none is pending or running (`ray job list`)."""
    from ray.job_submission import JobStatus, JobSubmissionClient

    client = JobSubmissionClient(env["RAY_ADDRESS"])
    deadline = time.monotonic() + timeout
    while True:
        jobs = [j for j in client.list_jobs() if "planeval run" in (j.entrypoint or "")]
        if len(jobs) == SHARDS and all(j.status.is_terminal() for j in jobs):
            return {j.submission_id or "": str(JobStatus(j.status).value) for j in jobs}
        assert time.monotonic() < deadline, [(j.submission_id, j.status) for j in jobs]
        time.sleep(2)


def _job_logs(job: str, env: dict[str, str]) -> str:
    command = [str(BIN / "ray"), "job", "logs", job]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120).stdout


def test_the_ray_recipe_as_written(tmp_path: Path) -> None:
    """Three shards submitted as docs/scale.md shows: every job SUCCEEDED although a plan
    fails, all recordings are on the shared storage, and the merge equals one process's run."""
    shared = Path(tempfile.mkdtemp(prefix="shared-", dir=tmp_path))  # outside the job's copy
    project = tmp_path / "project"
    with FakePlannerServer() as server:
        server.answer("I would rather ramble than plan.", when="ramble on")
        model = {
            "id": "gpt",
            "provider": "openai",
            "model": "gpt-fake",
            "base_url": server.openai_base_url,
            "params": {"max_tokens": 400},
        }
        cases = [{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(CASES - 1)]
        cases.append({"id": "bad", "goal": "ramble on"})
        make_project(
            project,
            suite="sweep",
            models=[model],
            cases=cases,
            extra={"samples": SAMPLES, "prices": "prices.yaml"},
        )
        (project / "evals" / "prices.yaml").write_text(
            "models:\n  - {provider: openai, model: gpt-fake, input: 1, output: 4,"
            " source: handwritten}\n",
            encoding="utf-8",
        )
        env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "OPENAI_API_KEY": KEY,  # the cluster's environment holds the key, not the job
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        env.pop("RAY_ADDRESS", None)
        loop, merge = _recipe()
        with _ray_head(env) as address:
            env["RAY_ADDRESS"] = address
            submitted = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", _fill(loop, shared)],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert submitted.returncode == 0, submitted.stderr[-3000:]
            statuses = _wait_for_jobs(env, timeout=600)
            failed = {job: status for job, status in statuses.items() if status != "SUCCEEDED"}
            logs = {job: _job_logs(job, env) for job in failed}
        assert not failed, logs
        assert len(server.requests) == (CASES) * SAMPLES  # each sample bought once

        for i in range(1, SHARDS + 1):  # each shard spent at most its share of the budget
            budget = json.loads((shared / "runs" / f"shard-{i}" / "run.json").read_text())["budget"]
            assert budget["shard_max_cost"] == pytest.approx(BUDGET / SHARDS), budget
            assert budget["stopped"] is None, budget
        recordings = sorted((shared / "fixtures").rglob("sample-*.json"))
        assert len(recordings) == CASES * SAMPLES, recordings
        assert not any(p.is_file() for p in (project / "plan_fixtures").rglob("*"))

        merged = subprocess.run(
            ["bash", "-c", _fill(merge, shared)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert merged.returncode == 0, merged.stderr

        single = subprocess.run(
            [
                str(BIN / "planeval"),
                "run",
                "evals/sweep.yaml",
                "--live",
                "--plan-failures-ok",
                "--out",
                str(tmp_path / "single"),
                "--fixtures",
                str(tmp_path / "single-fixtures"),
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert single.returncode == 0, single.stderr
    sweep = _rows(shared / "runs" / "sweep")
    assert sweep == _rows(tmp_path / "single")
    assert sum(r["status"] != "pass" for r in sweep) == SAMPLES  # the rambling case fails
