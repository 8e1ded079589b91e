"""Live runs record real vcrpy cassettes through the fake server; replay reproduces them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.providers import RetryPolicy
from harness.recording import read_meta, sample_paths
from harness.run import run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

SENTINEL_OPENAI = "sk-SENTINEL-0123456789abcdef"
SENTINEL_ANTHROPIC = "sk-ant-SENTINEL-fedcba9876543210"
ENV = {"OPENAI_API_KEY": SENTINEL_OPENAI, "ANTHROPIC_API_KEY": SENTINEL_ANTHROPIC}
CASES = [
    {"id": "refund", "goal": "Refund a damaged order"},
    {"id": "tight", "goal": "Ship a replacement", "task_count": {"min": 5}},
    {"id": "prose", "goal": "Say something else"},
]
NO_WAIT = RetryPolicy(retries=2, base_delay=0.0, sleep=lambda _s: None)


def _project(tmp_path: Path, server: FakePlannerServer) -> Path:
    return make_project(
        tmp_path,
        models=[
            {
                "id": "gpt",
                "provider": "openai",
                "model": "gpt-fake",
                "params": {"temperature": 0.3},
                "base_url": server.openai_base_url,
            },
            {
                "id": "claude",
                "provider": "anthropic",
                "model": "claude-fake",
                "base_url": server.anthropic_base_url,
            },
        ],
        cases=CASES,
        extra={"samples": 2},
    )


def _comparable(row: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in row.items() if k != "latency_ms"}


def test_live_then_replay_with_the_server_stopped(tmp_path: Path) -> None:
    """Record every sample live, stop the server, replay: identical rows, no network."""
    server = FakePlannerServer().start()
    server.answer("I would rather not plan that.", when="Say something else")
    suite = load_suite(_project(tmp_path, server))
    live = run_suite(suite, record_mode="all", env=ENV, retry=NO_WAIT, concurrency=3)
    assert len(server.requests) == 12
    server.stop()

    statuses = {(r.model, r.case): r.status for r in live.rows}
    assert statuses[("gpt", "refund")] == statuses[("claude", "refund")] == "pass"
    assert statuses[("gpt", "tight")] == "fail"
    assert statuses[("claude", "prose")] == "unparseable"
    assert all(r.tokens and r.tokens["input"] > 0 for r in live.rows if r.status != "error")

    replay = run_suite(suite)  # record mode none: the server is gone, nothing may call out
    assert [_comparable(r.to_dict()) for r in replay.rows] == [
        _comparable(r.to_dict()) for r in live.rows
    ]
    assert [r.latency_ms for r in replay.rows] == [r.latency_ms for r in live.rows]
    assert replay.manifest.counts == live.manifest.counts
    assert replay.exit_code == 1


def test_cassettes_are_vcrpy_files_with_provenance(
    tmp_path: Path, server: FakePlannerServer
) -> None:
    """Each sample is a vcrpy cassette plus a meta.json with live provenance."""
    suite = load_suite(_project(tmp_path, server))
    run_suite(suite, models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT)
    paths = sample_paths(tmp_path / "plan_fixtures", "demo", "gpt", "refund", 0)
    cassette = yaml.safe_load(paths.cassette.read_text(encoding="utf-8"))
    (interaction,) = cassette["interactions"]
    assert interaction["request"]["method"] == "POST"
    assert interaction["request"]["uri"] == server.openai_base_url + "/chat/completions"
    assert json.loads(interaction["request"]["body"])["model"] == "gpt-fake"
    assert interaction["response"]["status"]["code"] == 200
    meta = read_meta(paths.meta)
    assert meta is not None
    assert meta.provenance.source == "live" and meta.provenance.model == "gpt-fake"
    assert meta.provenance.prompt_hash == suite.prompt_hash
    assert meta.provenance.params == {"temperature": 0.3}
    assert not paths.response.exists()


def test_sentinel_keys_reach_no_file(tmp_path: Path, server: FakePlannerServer) -> None:
    """After a live run, the API keys' bytes appear in no file under fixtures or reports."""
    suite = load_suite(_project(tmp_path, server))
    run_suite(suite, record_mode="all", env=ENV, retry=NO_WAIT)
    sent = [
        r.headers.get("authorization", "") + r.headers.get("x-api-key", "") for r in server.requests
    ]
    assert any(SENTINEL_OPENAI in h for h in sent)  # the key really was sent
    assert any(SENTINEL_ANTHROPIC in h for h in sent)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".yaml" and "plan_fixtures" in p.parts for p in files)
    assert any(p.name == "results.jsonl" for p in files)
    for path in files:
        data = path.read_bytes()
        for key in (SENTINEL_OPENAI, SENTINEL_ANTHROPIC, "SENTINEL"):
            assert key.encode() not in data, f"{key} leaked into {path}"
        if path.suffix == ".yaml" and "plan_fixtures" in path.parts:
            assert b"authorization" not in data.lower()


def test_prompt_change_makes_recordings_stale(tmp_path: Path, server: FakePlannerServer) -> None:
    """Editing the prompt template turns every cassette stale (exit 3), not failed."""
    path = _project(tmp_path, server)
    run_suite(load_suite(path), samples=1, record_mode="all", env=ENV, retry=NO_WAIT)
    prompt = tmp_path / "evals" / "demo.prompt.md"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "\nBe brief.\n", encoding="utf-8")
    replay = run_suite(load_suite(path), samples=1)
    assert {r.status for r in replay.rows} == {"stale"}
    assert "prompt" in (replay.rows[0].detail or "")
    assert replay.exit_code == 3


def test_request_change_without_meta_is_stale(tmp_path: Path, server: FakePlannerServer) -> None:
    """With no sidecar, the request body itself is matched: other params mean stale."""
    path = _project(tmp_path, server)
    run_suite(
        load_suite(path), models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT
    )
    for meta in (tmp_path / "plan_fixtures").rglob("*.meta.json"):
        meta.unlink()
    replayed = run_suite(load_suite(path), models=["gpt"], samples=1).rows
    assert "stale" not in {r.status for r in replayed}  # the request body still matches
    text = path.read_text(encoding="utf-8").replace("temperature: 0.3", "temperature: 0.9")
    path.write_text(text, encoding="utf-8")
    rows = run_suite(load_suite(path), models=["gpt"], samples=1).rows
    assert {r.status for r in rows} == {"stale"}
    assert "body" in (rows[0].detail or "")


@pytest.mark.parametrize("mode", ["once", "new_episodes"])
def test_modes_record_only_what_is_missing(
    tmp_path: Path, server: FakePlannerServer, mode: str
) -> None:
    """once and new_episodes replay existing recordings and record the missing ones."""
    path = _project(tmp_path, server)
    suite = load_suite(path)
    run_suite(suite, models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT)
    paths = sample_paths(tmp_path / "plan_fixtures", "demo", "gpt", "refund", 0)
    paths.cassette.unlink()
    paths.meta.unlink()
    before = len(server.requests)
    result = run_suite(suite, models=["gpt"], samples=1, record_mode=mode, env=ENV, retry=NO_WAIT)
    assert len(server.requests) - before == 1
    assert paths.cassette.exists() and result.exit_code == 1  # 'tight' fails its band


def test_new_episodes_rerecords_stale_but_once_does_not(
    tmp_path: Path, server: FakePlannerServer
) -> None:
    """After a prompt change, once reports stale; new_episodes records afresh."""
    path = _project(tmp_path, server)
    run_suite(
        load_suite(path), models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT
    )
    prompt = tmp_path / "evals" / "demo.prompt.md"
    prompt.write_text("New prompt for {goal}\n", encoding="utf-8")
    suite = load_suite(path)
    before = len(server.requests)
    once = run_suite(suite, models=["gpt"], samples=1, record_mode="once", env=ENV)
    assert {r.status for r in once.rows} == {"stale"} and len(server.requests) == before
    fresh = run_suite(
        suite, models=["gpt"], samples=1, record_mode="new_episodes", env=ENV, retry=NO_WAIT
    )
    assert "stale" not in {r.status for r in fresh.rows}
    assert len(server.requests) == before + 3
    replayed = run_suite(suite, models=["gpt"], samples=1).rows
    assert [r.status for r in replayed] == [r.status for r in fresh.rows]
    for cassette in (tmp_path / "plan_fixtures").rglob("*.yaml"):  # old episodes replaced
        assert len(yaml.safe_load(cassette.read_text())["interactions"]) == 1


def test_all_rerecords_everything(tmp_path: Path, server: FakePlannerServer) -> None:
    """Mode all calls the planner for every sample even when recordings exist."""
    suite = load_suite(_project(tmp_path, server))
    run_suite(suite, models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT)
    server.answer('{"tasks": [{"id": "only", "description": "one task"}]}')
    again = run_suite(suite, models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT)
    assert len(server.requests) == 6
    assert {r.task_count for r in again.rows} == {1}
    cassettes = list((tmp_path / "plan_fixtures").rglob("*.yaml"))
    assert all(len(yaml.safe_load(c.read_text())["interactions"]) == 1 for c in cassettes)


def test_compressed_answers_are_stored_readable(tmp_path: Path) -> None:
    """A gzip answer (as the vendors send) is recorded decompressed and replays the same."""
    with FakePlannerServer(gzip=True) as server:
        suite = load_suite(_project(tmp_path, server))
        live = run_suite(
            suite, models=["gpt"], samples=1, record_mode="all", env=ENV, retry=NO_WAIT
        )
    cassette = next((tmp_path / "plan_fixtures").rglob("sample-0.yaml")).read_text()
    response = yaml.safe_load(cassette)["interactions"][0]["response"]
    assert "content-encoding" not in {k.lower() for k in response["headers"]}
    assert '"choices"' in response["body"]["string"]
    replay = run_suite(suite, models=["gpt"], samples=1)
    assert [r.status for r in replay.rows] == [r.status for r in live.rows]
    assert replay.rows[0].status == "pass"


def test_parallel_tool_calls_are_recorded_and_replayed_whole(tmp_path: Path) -> None:
    """A recorded answer with parallel calls (published bodies: OpenAI two calls, Anthropic
    four tool_use blocks) served by the fake server: the live row and the replayed row both
    hold every call as a task (only the first call's arguments were kept before)."""
    published = Path(__file__).parent.parent / "data" / "published"
    openai_body = json.loads(
        (
            published
            / "openai_tool_calls"
            / "pydantic-ai__test_dbos_test_dbos_agent_with_hitl_tool__0.json"
        ).read_text(encoding="utf-8")
    )
    anthropic_body = json.loads(
        (
            published
            / "anthropic_tool_use"
            / "pydantic-ai__test_anthropic_test_multiple_parallel_tool_calls__0.json"
        ).read_text(encoding="utf-8")
    )
    server = FakePlannerServer().start()
    suite_path = make_project(
        tmp_path,
        models=[
            {
                "id": "gpt",
                "provider": "openai",
                "model": "gpt-4o",
                "base_url": server.openai_base_url,
            },
            {
                "id": "claude",
                "provider": "anthropic",
                "model": "claude-haiku-4-5",
                "base_url": server.anthropic_base_url,
            },
        ],
        cases=[{"id": "family", "goal": "Who is the youngest?"}],
    )
    server.answer_body(openai_body)
    live_gpt = run_suite(
        load_suite(suite_path), models=["gpt"], record_mode="all", env=ENV, retry=NO_WAIT
    )
    server.reset()
    server.answer_body(anthropic_body)
    live_claude = run_suite(
        load_suite(suite_path), models=["claude"], record_mode="all", env=ENV, retry=NO_WAIT
    )
    server.stop()
    live = {r.model: r for r in [*live_gpt.rows, *live_claude.rows]}
    assert live["gpt"].plan is not None and live["claude"].plan is not None
    assert [t["id"] for t in live["gpt"].plan["tasks"]] == [
        c["id"] for c in openai_body["choices"][0]["message"]["tool_calls"]
    ]
    assert [t["id"] for t in live["claude"].plan["tasks"]] == [
        b["id"] for b in anthropic_body["content"] if b["type"] == "tool_use"
    ]
    assert (live["gpt"].task_count, live["claude"].task_count) == (2, 4)
    assert all(r.status == "pass" and r.checks["isolated_task"] == "warn" for r in live.values())

    replay = run_suite(load_suite(suite_path))  # the server is gone: recordings only
    assert {r.model: _comparable(r.to_dict()) for r in replay.rows} == {
        m: _comparable(r.to_dict()) for m, r in live.items()
    }
