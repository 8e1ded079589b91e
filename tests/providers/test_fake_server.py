"""The fake planner server speaks both wire formats and acts out scripted faults."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from harness.testing import FakePlannerServer


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


CHAT = {"model": "m", "messages": [{"role": "user", "content": "Plan: refund"}]}


def test_openai_shape_and_scripted_answers() -> None:
    """Chat completions carry the scripted answer; later rules win; requests are logged."""
    with FakePlannerServer() as server:
        server.answer("general")
        server.answer("specific", when="refund")
        code, _, raw = _post(server.openai_base_url + "/chat/completions", CHAT)
        body = json.loads(raw)
        assert code == 200 and body["choices"][0]["message"]["content"] == "specific"
        assert body["usage"]["prompt_tokens"] > 0
        assert server.requests[0].prompt == "Plan: refund"


def test_anthropic_tool_use() -> None:
    """A forced tool gets the plan as tool_use input."""
    with FakePlannerServer() as server:
        body = {
            **CHAT,
            "tools": [{"name": "submit_plan"}],
            "tool_choice": {"type": "tool", "name": "submit_plan"},
        }
        code, _, raw = _post(server.anthropic_base_url + "/v1/messages", body)
        block = json.loads(raw)["content"][0]
        assert code == 200 and block["type"] == "tool_use" and "tasks" in block["input"]


@pytest.mark.parametrize(
    ("kind", "code"),
    [("rate_limit", 429), ("server_error", 500), ("not_json", 200)],
)
def test_faults_then_recovery(kind: str, code: int) -> None:
    """A scripted fault answers once, then the server answers normally."""
    with FakePlannerServer() as server:
        server.fail(kind, retry_after=3)
        status, headers, raw = _post(server.openai_base_url + "/chat/completions", CHAT)
        assert status == code
        if kind == "rate_limit":
            assert headers["Retry-After"] == "3"
        if kind == "not_json":
            with pytest.raises(json.JSONDecodeError):
                json.loads(raw)
        assert _post(server.openai_base_url + "/chat/completions", CHAT)[0] == 200


def test_dropped_connection() -> None:
    """A drop closes the socket without any reply."""
    with FakePlannerServer() as server:
        server.fail("drop")
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            _post(server.openai_base_url + "/chat/completions", CHAT)


def test_unknown_path_and_stopped_server() -> None:
    """Unknown paths are 404; after stop() the port refuses connections."""
    server = FakePlannerServer().start()
    assert _post(server.url + "/v2/other", CHAT)[0] == 404
    url = server.openai_base_url
    server.stop()
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        _post(url + "/chat/completions", CHAT)
