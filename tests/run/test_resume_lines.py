"""Every continue / finish line planeval prints buys exactly the gaps: each test runs the line
as printed and counts the calls the fake server received."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from harness._cli.main import app
from harness.recording import sample_paths
from harness.testing import FakePlannerServer, make_project

KEY = {"OPENAI_API_KEY": "sk-test"}
CASES = 20


def _suite(root: Path, server: FakePlannerServer) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "prices.yaml").write_text(
        "models:\n  - {provider: openai, model: gpt-fake, input: 1, output: 4,"
        " source: handwritten}\n",
        encoding="utf-8",
    )
    models = [
        {
            "id": "gpt",
            "provider": "openai",
            "model": "gpt-fake",
            "base_url": server.openai_base_url,
            "params": {"max_tokens": 300},
        }
    ]
    cases = [{"id": f"c{i:02d}", "goal": f"Refund order {i:02d}"} for i in range(CASES)]
    return make_project(root, models=models, cases=cases, extra={"prices": "../prices.yaml"})


def _line(stderr: str, marker: str) -> list[str]:
    """The printed command after ``marker``, as argv without ``planeval``."""
    text = " ".join(stderr.split())  # rich may wrap long lines
    start = text.index(marker) + len(marker)
    argv = shlex.split(text[start:].strip())
    assert argv[0] == "planeval"
    end = next((i for i, word in enumerate(argv) if word.startswith("planeval:")), len(argv))
    return argv[1:end]


def _calls(server: FakePlannerServer) -> int:
    return sum(r.path == "/v1/chat/completions" for r in server.requests)


def _unrecorded(fixtures: Path, shard: int | None = None) -> int:
    items = [(c, k) for c in range(CASES) for k in range(1)]
    if shard is not None:
        items = [item for n, item in enumerate(items) if n % 2 + 1 == shard]
    return sum(
        sample_paths(fixtures, "demo", "gpt", f"c{c:02d}", k).existing(True) is None
        for c, k in items
    )


def test_the_finish_line_of_an_interrupted_shard_buys_only_its_gaps(tmp_path: Path) -> None:
    """A shard run (--record-mode all, budget, concurrency, fixtures, out) stopped by SIGINT:
    its finish line keeps the shard, budget, concurrency and fixtures, uses new_episodes and
    calls exactly the shard's samples that have no recording."""
    with FakePlannerServer(latency=0.1) as server:
        path = _suite(tmp_path, server)
        fixtures, out = tmp_path / "shared-fixtures", tmp_path / "runs" / "shard-1"
        argv = ["run", str(path), "--record-mode", "all", "--shard", "1/2", "--max-cost", "5",
                "--concurrency", "2", "--fixtures", str(fixtures), "--out", str(out)]  # fmt: skip
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness", *argv],
            env={**os.environ, **KEY},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while _calls(server) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        finish = _line(err, "finish with:")
        assert finish[finish.index("--record-mode") + 1] == "new_episodes"
        for option, value in (("--shard", "1/2"), ("--max-cost", "5.0"), ("--concurrency", "2"),
                              ("--fixtures", str(fixtures))):  # fmt: skip
            assert finish[finish.index(option) + 1] == value, finish
        assert finish[finish.index("--out") + 1] == f"{out}-continued"
        gaps = _unrecorded(fixtures, shard=1)
        assert 0 < gaps < CASES // 2
        server.reset()
        done = CliRunner().invoke(app, finish, env=KEY)
        assert done.exit_code == 0, done.stderr
        assert _calls(server) == gaps  # exactly the gaps, nothing re-bought
        assert _unrecorded(fixtures, shard=1) == 0 and _unrecorded(fixtures) == CASES // 2
        rows = (Path(f"{out}-continued") / "results.jsonl").read_text().splitlines()
        assert len(rows) == CASES // 2


def test_the_continue_line_after_a_budget_stop_keeps_the_budget(
    tmp_path: Path, server: FakePlannerServer
) -> None:
    """A shard stopped by --max-calls: the continue line keeps --max-calls and --shard and
    buys exactly the samples the budget stopped."""
    path = _suite(tmp_path, server)
    out = tmp_path / "first"
    result = CliRunner().invoke(
        app,
        ["run", str(path), "--live", "--shard", "2/2", "--max-calls", "14", "--out", str(out)],
        env=KEY,
    )
    assert result.exit_code == 3, result.stderr
    assert _calls(server) == 7  # 14 // 2 per shard
    line = _line(result.stderr, "Continue, paying only for the gaps, with:")
    assert line[line.index("--max-calls") + 1] == "14" and "--shard" in line
    assert line[line.index("--record-mode") + 1] == "new_episodes"
    server.reset()
    again = CliRunner().invoke(app, line, env=KEY)
    assert again.exit_code == 0, again.stderr
    assert _calls(server) == CASES // 2 - 7


def test_the_rerecord_line_after_a_replay_buys_only_the_missing(
    tmp_path: Path, server: FakePlannerServer
) -> None:
    """A replay with missing recordings prints a re-record line; it calls only those."""
    path = _suite(tmp_path, server)
    recorded = CliRunner().invoke(app, ["run", str(path), "--live"], env=KEY)
    assert recorded.exit_code == 0, recorded.stderr
    for case in ("c03", "c11", "c17"):
        paths = sample_paths(tmp_path / "plan_fixtures", "demo", "gpt", case, 0)
        for file in (paths.cassette, paths.meta, paths.response):
            file.unlink(missing_ok=True)
    server.reset()
    replay = CliRunner().invoke(app, ["run", str(path), "--concurrency", "3"], env=KEY)
    assert replay.exit_code == 3, replay.stderr
    assert _calls(server) == 0
    line = _line(replay.stderr, "re-record them with:")
    assert line[line.index("--concurrency") + 1] == "3"
    again = CliRunner().invoke(app, line, env=KEY)
    assert again.exit_code == 0, again.stderr
    assert _calls(server) == 3
