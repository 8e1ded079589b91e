"""YAML inputs that used to crash or hang a command: each is now one line and exit 2."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from harness.testing import make_project
from tests.cli_helpers import Result, run_cli

PLAN = json.dumps({"tasks": [{"id": "a", "description": "Look up the order"}]})


def _one_line_exit_2(result: Result) -> str:
    assert result.code == 2, result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("planeval: error: "), result.err
    return lines[0]


class TestSuites:
    def test_nested_100000_deep(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A suite nested 100,000 deep is refused with the limit named."""
        path = make_project(tmp_path)
        path.write_text("suite: demo\ncases: " + "[" * 100_000 + "]" * 100_000 + "\n")
        line = _one_line_exit_2(run_cli(capsys, "run", str(path)))
        assert f"{path}: line 2 column " in line and "nested more than 100 levels deep" in line

    def test_20_mb_suite_is_refused_at_once(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A 20 MB suite is refused within 2 s, naming the limit and --max-bytes."""
        path = make_project(tmp_path)
        case = "  - {id: c, goal: " + "x" * 80 + "}\n"
        path.write_text(path.read_text() + "description: >\n" + case * 230_000)
        started = time.perf_counter()
        line = _one_line_exit_2(run_cli(capsys, "run", str(path)))
        assert time.perf_counter() - started < 2
        assert "over the 8 MiB limit" in line and "--max-bytes" in line

    def test_max_bytes_applies_to_the_suite(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """``run --max-bytes`` lowers (or raises) the limit for suites."""
        path = make_project(tmp_path)
        line = _one_line_exit_2(run_cli(capsys, "run", "--max-bytes", "50", str(path)))
        assert "over the" in line
        assert run_cli(capsys, "run", "--max-bytes", "100000", str(path)).code == 3  # missing

    def test_integer_of_5000_digits(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """An integer past Python's 4,300-digit limit is named, not a ValueError traceback."""
        path = make_project(tmp_path)
        path.write_text(path.read_text() + "samples: " + "9" * 5000 + "\n")
        line = _one_line_exit_2(run_cli(capsys, "run", str(path)))
        assert "an integer has more than 4300 digits" in line

    def test_python_tag(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A Python object tag is refused, never constructed."""
        path = make_project(tmp_path)
        path.write_text("suite: !!python/object/apply:os.getpid []\n")
        assert "is not allowed" in _one_line_exit_2(run_cli(capsys, "run", str(path)))


class TestCassettes:
    def test_check_a_cassette_whose_interactions_are_strings(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """``check`` on a Ruby VCR cassette whose entries are strings: no plan, exit 2."""
        path = tmp_path / "c.yml"
        path.write_text(yaml.safe_dump({"http_interactions": ["a", "b"]}))
        result = run_cli(capsys, "check", str(path))
        assert result.code == 2
        assert "no response body in the cassette holds a plan" in result.out

    def test_replay_of_a_malformed_cassette_is_an_error_row(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A recorded cassette whose interactions are strings: the row says why, no crash."""
        path = make_project(tmp_path, models=[{"id": "m", "provider": "openai", "model": "x"}])
        cassette = tmp_path / "plan_fixtures/demo/m/c1/sample-0.yaml"
        cassette.parent.mkdir(parents=True)
        cassette.write_text(yaml.safe_dump({"http_interactions": ["a"]}))
        out = tmp_path / "run"
        result = run_cli(capsys, "run", str(path), "--out", str(out))
        assert result.code == 4
        row = json.loads((out / "results.jsonl").read_text())
        assert row["status"] == "error"
        assert "an interaction is a str, not a mapping" in row["detail"]

    @pytest.mark.parametrize(
        ("part", "value", "message"),
        [
            ("request", "POST /v1", "the request is not a mapping"),
            ("request", ["a"], "the request is not a mapping"),
            ("response", 7, "the response is not a mapping"),
            ("request.headers", "Authorization: x", "the request headers are not a mapping"),
            ("response.headers", ["x"], "the response headers are not a mapping"),
        ],
    )
    def test_import_ruby_vcr_non_mapping_parts(
        self,
        capsys: pytest.CaptureFixture[str],
        tmp_path: Path,
        part: str,
        value: object,
        message: str,
    ) -> None:
        """``import ruby-vcr`` with a request, response or headers that is not a mapping."""
        interaction: dict[str, object] = {
            "request": {"method": "post", "uri": "https://x/v1/chat/completions", "headers": {}},
            "response": {"status": {"code": 200}, "headers": {}, "body": {"string": PLAN}},
        }
        head, _, tail = part.partition(".")
        if tail:
            target = interaction[head]
            assert isinstance(target, dict)
            target[tail] = value
        else:
            interaction[head] = value
        path = tmp_path / "c.yml"
        path.write_text(yaml.safe_dump({"http_interactions": [interaction]}))
        root = tmp_path / "root"
        line = _one_line_exit_2(
            run_cli(capsys, "import", "ruby-vcr", str(path), "--root", str(root))
        )
        assert message in line and "http_interactions[0]" in line
        assert not root.exists()
