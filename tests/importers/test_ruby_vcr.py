"""``planeval import ruby-vcr``: the agentic gem's cassettes as a suite and a recording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.importers import ImportResult, import_ruby_vcr
from harness.recording import ResponseFile, prompt_hash

from ._helpers import files_under

SENTINEL_KEY = "sk-test-SENTINEL-0123456789abcdef"
SENTINEL_ORG = "org-SENTINELorg42"
SENTINEL_COOKIE = "SENTINELcookie-value-98765"
PLAN = {"tasks": [{"description": "Write code", "agent": {"name": "Dev"}}]}


def _interaction(
    content: str = json.dumps(PLAN),
    *,
    body: str | None = None,
    goal: str = "Ship a gem",
    date: str = "Thu, 29 May 2025 02:35:39 GMT",
) -> dict[str, Any]:
    request = {
        "messages": [
            {"role": "system", "content": "You are an expert project planner."},
            {"role": "user", "content": f"Goal: {goal}\n\nBreak this goal down into tasks."},
        ],
        "model": "gpt-4o-2024-08-06",
        "temperature": 0.7,
        "response_format": {"type": "json_schema"},
    }
    answer = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 17, "completion_tokens": 42},
    }
    return {
        "request": {
            "method": "post",
            "uri": f"https://api.openai.com/v1/chat/completions?api_key={SENTINEL_KEY}",
            "body": {"encoding": "UTF-8", "string": json.dumps(request)},
            "headers": {
                "Authorization": [f"Bearer {SENTINEL_KEY}"],
                "Openai-Organization": [SENTINEL_ORG],
                "Cookie": [f"session={SENTINEL_COOKIE}"],
            },
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {
                "Date": [date],
                "Openai-Organization": [SENTINEL_ORG],
                "Set-Cookie": [f"__cf_bm={SENTINEL_COOKIE}; path=/; HttpOnly"],
                "Openai-Processing-Ms": ["812"],
            },
            "body": {"encoding": "UTF-8", "string": json.dumps(answer) if body is None else body},
        },
        "recorded_at": date,
    }


def _cassette(tmp_path: Path, interactions: Any, name: str = "plan_demo.yml") -> Path:
    path = tmp_path / "cassettes" / name
    path.parent.mkdir(exist_ok=True)
    data = {"http_interactions": interactions, "recorded_with": "VCR 6.3.1"}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


class TestGemCassette:
    """The agentic gem's real cassette (../shared/data/agentic)."""

    @pytest.fixture
    def imported(self, tmp_path: Path, shared_data: Path) -> Path:
        cassette = shared_data / "agentic" / "plan_ruby_coding_agent.yml"
        import_ruby_vcr(cassette, root=tmp_path, suite="agentic-ruby")
        return tmp_path

    def test_recording_carries_the_request_model_params_and_date(self, imported: Path) -> None:
        """Model and parameters come from the request body, recorded_at from the Date header."""
        path = imported / "plan_fixtures/agentic-ruby/gpt-4o-2024-08-06"
        answer = ResponseFile.read(path / "create-a-ruby-coding-agent/sample-0.json")
        assert answer.provenance.source == "import:ruby-vcr"
        assert answer.provenance.model == "gpt-4o-2024-08-06"
        assert answer.provenance.params["temperature"] == 0.7
        assert "response_format" not in answer.provenance.params
        assert answer.provenance.recorded_at == "2025-05-29T02:35:39Z"
        assert answer.tokens == {"input": 172, "output": 662}
        assert len(json.loads(answer.response)["tasks"]) == 7

    def test_only_the_planner_call_is_imported(self, imported: Path) -> None:
        """The cassette's second call (the report format) is not a plan and is left out."""
        recordings = list((imported / "plan_fixtures").rglob("sample-*.json"))
        assert len(recordings) == 1

    def test_template_reproduces_the_gem_prompt(self, imported: Path, shared_data: Path) -> None:
        """Filling {goal} with the case's goal gives back the gem's system and user messages."""
        suite = yaml.safe_load((imported / "evals/agentic-ruby.yaml").read_text())
        template = (imported / "evals/prompts/agentic-ruby.md").read_text(encoding="utf-8")
        cassette = yaml.safe_load((shared_data / "agentic/plan_ruby_coding_agent.yml").read_text())
        sent = json.loads(cassette["http_interactions"][0]["request"]["body"]["string"])
        system, user = (m["content"] for m in sent["messages"])
        assert suite["cases"] == [
            {"id": "create-a-ruby-coding-agent", "goal": "Create a Ruby coding agent",
             "tags": ["ruby-vcr"]}
        ]  # fmt: skip
        assert template.replace("{goal}", suite["cases"][0]["goal"]) == f"{system}\n\n{user}\n"
        recording = next((imported / "plan_fixtures").rglob("sample-0.json"))
        assert ResponseFile.read(recording).provenance.prompt_hash == prompt_hash(template)
        assert suite["models"][0]["model"] == "gpt-4o-2024-08-06"
        assert suite["models"][0]["provider"] == "openai"

    def test_no_cookie_or_organization_reaches_disk(self, imported: Path) -> None:
        """The cassette's cookies, organization id and token placeholder are nowhere on disk."""
        for path in imported.rglob("*"):
            if path.is_file():
                text = path.read_bytes()
                for secret in (b"user-dup9zcwkwpbrgftk7mms7ssr", b"__cf_bm", b"_cfuvid",
                               b"OPENAI_ACCESS_TOKEN", b"Bearer"):  # fmt: skip
                    assert secret not in text, (path, secret)
                assert b"<REDACTED>" not in text, path  # and nothing innocent was redacted


class TestSecrets:
    def test_sentinel_credentials_never_reach_disk(self, tmp_path: Path) -> None:
        """Key, organization and cookie values appear in no written file, even when echoed."""
        echoed = json.dumps({"tasks": [{"description": f"Use {SENTINEL_KEY} for {SENTINEL_ORG}"}]})
        root = tmp_path / "proj"
        import_ruby_vcr(_cassette(tmp_path, [_interaction(echoed)]), root=root)
        written = [p for p in root.rglob("*") if p.is_file()]
        assert written
        for path in written:
            data = path.read_bytes()
            for secret in (SENTINEL_KEY, SENTINEL_ORG, SENTINEL_COOKIE):
                assert secret.encode() not in data, (path, secret)
        recording = next(root.rglob("sample-0.json"))
        assert "<REDACTED>" in ResponseFile.read(recording).response


def _first_recording(root: Path, result: ImportResult) -> Path:
    """Sample 0 of the first case."""
    case = result.first_cases[0]
    return root / "plan_fixtures" / result.suite / result.model / case / "sample-0.json"


class TestShapes:
    def test_several_answers_for_one_goal_are_samples(self, tmp_path: Path) -> None:
        """Two planner calls with the same goal become samples 0 and 1 of one case."""
        path = _cassette(tmp_path, [_interaction(), _interaction()])
        result = import_ruby_vcr(path, root=tmp_path, suite="s", case="ship")
        suite = yaml.safe_load((tmp_path / "evals/s.yaml").read_text())
        assert suite["samples"] == 2
        assert result.recording_count == 2
        folder = tmp_path / "plan_fixtures" / "s" / result.model / "ship"
        assert sorted(p.name for p in folder.iterdir()) == ["sample-0.json", "sample-1.json"]

    def test_plans_in_prose_are_answers_too(self, tmp_path: Path) -> None:
        """An answer with the plan in a ```json fence counts as a planner answer, verbatim."""
        fenced = "Here is the plan:\n```json\n" + json.dumps(PLAN) + "\n```"
        result = import_ruby_vcr(_cassette(tmp_path, [_interaction(fenced)]), root=tmp_path)
        assert ResponseFile.read(_first_recording(tmp_path, result)).response == fenced

    def test_default_names_come_from_file_and_goal(self, tmp_path: Path) -> None:
        """Without --suite/--case the suite is the file stem and the case the goal's slug."""
        result = import_ruby_vcr(_cassette(tmp_path, [_interaction()]), root=tmp_path)
        assert (result.suite, result.first_cases) == ("plan_demo", ("ship-a-gem",))
        assert (result.case_count, result.more_cases) == (1, 0)

    def test_ruby_binary_bodies_are_read(self, tmp_path: Path) -> None:
        """Ruby VCR's !binary (base64) bodies decode like plain strings."""
        import base64

        interaction = _interaction()
        raw = interaction["response"]["body"]["string"].encode()
        path = tmp_path / "bin.yml"
        text = yaml.safe_dump({"http_interactions": [interaction]})
        text = text.replace(
            "string: '{\"choices", "string: !binary |-\n        XX\n      old: '{\"choices", 1
        )
        text = text.replace("XX", base64.b64encode(raw).decode())
        assert "!binary" in text
        path.write_text(text)
        result = import_ruby_vcr(path, root=tmp_path, suite="b")
        assert json.loads(ResponseFile.read(_first_recording(tmp_path, result)).response) == PLAN


class TestBadInput:
    @pytest.mark.parametrize(
        ("interactions", "message"),
        [
            ([], "has no http_interactions"),  # an empty cassette
            ("nope", "has no http_interactions"),  # not a list
            (
                [_interaction(body="<html>502 Bad Gateway</html>")],
                "response body is not valid JSON",
            ),
            (
                [_interaction(content="Sure! Here are some tasks.")],
                "no interaction in the cassette",
            ),
        ],
    )
    def test_one_line_exit_2_nothing_written(
        self, cli: Any, tmp_path: Path, interactions: Any, message: str
    ) -> None:
        """Unusable cassettes: one line, exit 2, no file written."""
        root = tmp_path / "proj"
        root.mkdir()
        path = _cassette(tmp_path, interactions)
        result = cli("import", "ruby-vcr", str(path), "--root", str(root))
        assert result.exit_code == 2
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert files_under(root) == set()

    def test_not_yaml(self, cli: Any, tmp_path: Path) -> None:
        """A file that is not YAML is named with its line."""
        path = tmp_path / "x.yml"
        path.write_text("http_interactions: [\n  - {a: 1\n")
        result = cli("import", "ruby-vcr", str(path), "--root", str(tmp_path))
        assert result.exit_code == 2
        assert "not valid YAML" in result.stderr

    def test_bad_case_id(self, cli: Any, tmp_path: Path) -> None:
        """--case must be usable as a folder name."""
        path = _cassette(tmp_path, [_interaction()])
        result = cli("import", "ruby-vcr", str(path), "--case", "../up", "--root", str(tmp_path))
        assert result.exit_code == 2
        assert "not usable as a file name" in result.stderr
        assert not (tmp_path / "evals").exists()

    def test_success_line(self, cli: Any, tmp_path: Path) -> None:
        """The command says what it wrote and exits 0."""
        result = cli("import", "ruby-vcr", str(_cassette(tmp_path, [_interaction()])),
                     "--root", str(tmp_path))  # fmt: skip
        assert result.exit_code == 0
        assert "ship-a-gem" in result.stdout
