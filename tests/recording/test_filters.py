"""What never reaches a cassette: credentials, cookies, key-looking query parameters, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vcr.request import Request

from harness.plan import load_plan
from harness.providers import answer_from_body
from harness.recording import CassetteMiss, read_cassette, replay_response
from harness.recording._cassette import _keep_response, _strip_request


class TestRequestFilter:
    def test_credential_headers_are_dropped(self) -> None:
        """Authorization, x-api-key, api-key, org ids and cookies are removed; others kept."""
        headers = {
            "Authorization": "Bearer sk-1",
            "x-api-key": "k",
            "api-key": "k",
            "OpenAI-Organization": "org-1",
            "Cookie": "session=1",
            "Content-Type": "application/json",
            "x-stainless-os": "Linux",
        }
        request = Request("POST", "https://api.example.com/v1/chat", b"{}", headers)
        stripped = _strip_request(request)
        assert dict(stripped.headers) == {"Content-Type": "application/json"}
        assert request.headers["Authorization"] == "Bearer sk-1"  # the live request is intact

    @pytest.mark.parametrize(
        ("uri", "kept"),
        [
            ("https://h/v1/x?api_key=s3cret&model=a", "https://h/v1/x?model=a"),
            ("https://h/v1/x?key=s3cret", "https://h/v1/x"),  # Gemini-style ?key=
            ("https://h/v1/x?access_token=t&sig=z&page=2", "https://h/v1/x?page=2"),
            ("https://h/v1/x?api-version=2024-06-01", "https://h/v1/x?api-version=2024-06-01"),
        ],
    )
    def test_key_looking_query_parameters(self, uri: str, kept: str) -> None:
        """Query parameters whose names look like credentials are removed."""
        assert _strip_request(Request("GET", uri, None, {})).uri == kept


class TestResponseFilter:
    def _response(self, code: int, body: bytes, **headers: list[str]) -> dict[str, object]:
        return {
            "status": {"code": code, "message": ""},
            "headers": dict(headers),
            "body": {"string": body},
        }

    def test_keeps_json_answers_without_cookies(self) -> None:
        """A 200 JSON answer is kept, minus Set-Cookie and organisation headers."""
        kept = _keep_response(
            self._response(
                200,
                b'{"ok": 1}',
                **{"Set-Cookie": ["a=b"], "openai-organization": ["org"], "x-request-id": ["r1"]},
            )
        )
        assert kept is not None and kept["headers"] == {"x-request-id": ["r1"]}

    @pytest.mark.parametrize(
        ("code", "body"),
        [(429, b"{}"), (500, b"{}"), (200, b"<html>502 Bad Gateway</html>")],
    )
    def test_failures_are_not_recorded(self, code: int, body: bytes) -> None:
        """Rate limits, server errors and garbled bodies never become recordings."""
        assert _keep_response(self._response(code, body)) is None


class TestReplayMatching:
    def _cassette(self, tmp_path: Path, body: dict[str, object]) -> Path:
        path = tmp_path / "c.yaml"
        path.write_text(
            "interactions:\n- request:\n    method: POST\n    uri: https://h/v1/chat\n"
            f"    body: '{json.dumps(body)}'\n    headers: {{}}\n"
            "  response:\n    status: {code: 200, message: OK}\n    headers: {}\n"
            "    body: {string: '{\"answer\": 1}'}\nversion: 1\n",
            encoding="utf-8",
        )
        return path

    def test_json_bodies_match_as_data(self, tmp_path: Path) -> None:
        """Key order and spacing do not matter; the body's data does."""
        pairs = read_cassette(self._cassette(tmp_path, {"b": 2, "a": 1}))
        assert replay_response(pairs, ("POST", "https://h/v1/chat", {"a": 1, "b": 2})) == {
            "answer": 1
        }

    @pytest.mark.parametrize(
        ("expected", "differs"),
        [
            (("POST", "https://h/v1/chat", {"a": 2}), "body"),
            (("POST", "https://other/v1/chat", {"a": 1}), "uri"),
            (("GET", "https://h/v1/chat", {"a": 1}), "method"),
        ],
    )
    def test_a_miss_names_what_differs(
        self, tmp_path: Path, expected: tuple[str, str, dict[str, object]], differs: str
    ) -> None:
        """No match raises CassetteMiss naming the part that differs (vcrpy's habit)."""
        pairs = read_cassette(self._cassette(tmp_path, {"a": 1}))
        with pytest.raises(CassetteMiss, match=f"\\({differs} differ\\)"):
            replay_response(pairs, expected)

    def test_not_a_cassette(self, tmp_path: Path) -> None:
        """A YAML file without interactions is refused with a reason."""
        path = tmp_path / "x.yaml"
        path.write_text("hello: world\n", encoding="utf-8")
        with pytest.raises(ValueError, match="interactions"):
            read_cassette(path)


def test_ruby_vcr_cassettes_replay(shared_data: Path) -> None:
    """The real agentic gem cassette (Ruby VCR format) yields its recorded gpt-4o answer."""
    source = shared_data / "agentic" / "plan_ruby_coding_agent.yml"
    pairs = read_cassette(source)
    body = replay_response(pairs)
    assert body["model"].startswith("gpt-4o")
    plan = load_plan(answer_from_body(body).text)
    assert len(plan.tasks) >= 3 and plan.positional_ids  # the gem's flat plan
