"""The example model agent, against a tiny OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from harness.execute import AgentLoadError, execute, make_model_agent, model_agent
from tests.execute._execute_helpers import chain_plan

KEY = "sk-test-not-a-real-key-123"


class FakeServer:
    """Answers /v1/chat/completions; records each request; can be told to fail."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.fail_with: int | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                    }
                )
                if owner.fail_with is not None:
                    self._send(owner.fail_with, {"error": {"message": "nope", "type": "x"}})
                    return
                user = body["messages"][-1]["content"]
                self._send(
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": f"done: {len(user)}"},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13},
                    },
                )

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    thread = threading.Thread(target=fake.httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


def test_each_task_is_one_request_with_its_inputs(
    server: FakeServer, journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every task sends its description and inputs; the key comes from the named variable."""
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    agent = make_model_agent(model="tiny-model", base_url=server.base_url, api_key_env="MY_LLM_KEY")
    result = execute(chain_plan(2, plan_id="llm"), journal, agent=agent)
    assert result.status == "completed"
    first, second = server.requests
    assert first["path"] == "/v1/chat/completions"
    assert first["body"]["model"] == "tiny-model"
    assert "Your task: Step 1" in first["body"]["messages"][-1]["content"]
    assert first["headers"]["authorization"] == f"Bearer {KEY}"
    assert first["headers"]["idempotency-key"] == "llm:t1"
    user = second["body"]["messages"][-1]["content"]
    assert "Step 2" in user and json.dumps(result.outputs["t1"]["text"]) in user
    assert result.outputs["t2"]["usage"] == {"prompt_tokens": 11, "completion_tokens": 2}
    assert KEY not in journal.read_text()  # secrets never reach the journal


@pytest.mark.parametrize(
    ("status", "attempts", "retryable"),
    [(500, 3, True), (429, 3, True), (401, 1, False), (400, 1, False)],
)
def test_errors_are_classified_for_the_retry_budget(
    server: FakeServer,
    journal: Path,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    attempts: int,
    retryable: bool,
) -> None:
    """Server errors and rate limits are retried by the executor; auth and bad requests are not."""
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    server.fail_with = status
    agent = make_model_agent(model="m", base_url=server.base_url, api_key_env="MY_LLM_KEY")
    result = execute(chain_plan(1), journal, agent=agent, backoff=0.0)
    assert len(server.requests) == attempts  # the SDK itself does not retry
    assert result.failed["t1"].retryable is retryable


@pytest.mark.parametrize("configured_by", ["arguments", "environment"])
def test_missing_key_is_refused_before_the_first_task(
    server: FakeServer, journal: Path, monkeypatch: pytest.MonkeyPatch, configured_by: str
) -> None:
    """An unset key variable is an input error before anything runs: no task, no journal,
    no request (the CLI exits 2, as `run --live` does for the same mistake)."""
    monkeypatch.delenv("MY_LLM_KEY", raising=False)
    monkeypatch.setenv("PLANEVAL_AGENT_MODEL", "m")
    monkeypatch.setenv("PLANEVAL_AGENT_API_KEY_ENV", "MY_LLM_KEY")
    agent = (
        make_model_agent(model="m", base_url=server.base_url, api_key_env="MY_LLM_KEY")
        if configured_by == "arguments"
        else model_agent
    )
    with pytest.raises(AgentLoadError) as caught:
        execute(chain_plan(1), journal, agent=agent)
    assert "the environment variable MY_LLM_KEY (the API key) is not set" in caught.value.what
    assert not journal.exists() and not server.requests


def test_a_missing_model_name_is_refused_before_the_first_task(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANEVAL_AGENT_MODEL", raising=False)
    with pytest.raises(AgentLoadError, match="set PLANEVAL_AGENT_MODEL"):
        execute(chain_plan(1), journal, agent=model_agent)
    assert not journal.exists()


def test_env_configured_agent(
    server: FakeServer, journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--agent harness.execute:model_agent` reads model, base URL and key variable from the env."""
    monkeypatch.setenv("PLANEVAL_AGENT_MODEL", "env-model")
    monkeypatch.setenv("PLANEVAL_AGENT_BASE_URL", server.base_url)
    monkeypatch.setenv("PLANEVAL_AGENT_API_KEY_ENV", "MY_LLM_KEY")
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    result = execute(chain_plan(1), journal, agent=model_agent)
    assert result.outputs["t1"]["model"] == "env-model"
