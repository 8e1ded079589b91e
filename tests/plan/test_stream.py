"""Many-plan files read plan by plan: the same plans as a whole-file read, bounded per line.

All inputs are hand-written (provenance: handwritten).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import PlanLoadError
from harness._size import format_size
from harness.checks import check_files
from harness.plan import iter_plan_file, load_plan_file
from tests.cli_helpers import run_cli

RECORD = {
    "task_nodes": [{"task": "A", "arguments": ["x"]}, {"task": "B", "arguments": ["<node-0>"]}],
    "task_links": [{"source": "A", "target": "B"}],
}
CANONICAL = {"tasks": [{"id": "a"}, {"id": "b", "depends_on": ["a"]}]}
CYCLE = {"tasks": [{"id": "a", "depends_on": ["b"]}, {"id": "b", "depends_on": ["a"]}]}


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


def _jsonl(*records: Any) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def _pairs(loaded: Any) -> list[tuple[str, Any]]:
    """Labels with each plan's canonical dict or each error's line, for comparing readers."""
    return [
        (label, value.one_line() if isinstance(value, PlanLoadError) else value.to_dict())
        for label, value in loaded
    ]


FILES = {
    "taskbench lines": _jsonl({"id": 1, **RECORD}, {"id": 2, **RECORD}),
    "blank, broken and repeated lines": _jsonl(
        {"id": "x", **RECORD}, "", '{"task_nodes": [', {"id": "x", **RECORD}, CYCLE
    ),
    "bom and crlf": "\ufeff" + _jsonl(CANONICAL, CYCLE).replace("\n", "\r\n"),
    "a line that is not an object": _jsonl(CANONICAL, [1, 2], "7", CANONICAL),
    "a line holding a record list": _jsonl(CANONICAL, [CANONICAL, CYCLE]),
    "one plan": json.dumps(CANONICAL, indent=2),
    "a json array of records": json.dumps([{"id": "r", **RECORD}, CANONICAL]),
    "second line not json": json.dumps(CANONICAL) + "\nnot json\n" + json.dumps(CANONICAL),
    "prose": "Here is the plan:\n```json\n" + json.dumps(CANONICAL) + "\n```\n",
}


class TestSameAsWholeFile:
    @pytest.mark.parametrize("name", sorted(FILES))
    @pytest.mark.parametrize("fmt", ["auto", "canonical", "taskbench", "text"])
    def test_pairs_equal_load_plan_file(self, tmp_path: Path, name: str, fmt: str) -> None:
        """Streaming changes when plans are read, never which plans or labels come out."""
        path = _write(tmp_path / "plans.jsonl", FILES[name])
        try:
            whole = _pairs(load_plan_file(path, format=fmt))
        except PlanLoadError as exc:
            with pytest.raises(PlanLoadError) as streamed:
                list(iter_plan_file(path, format=fmt))
            assert streamed.value.one_line() == exc.one_line()
            return
        assert _pairs(iter_plan_file(path, format=fmt)) == whole


class TestBoundedPerLine:
    def test_a_file_over_the_limit_is_read_when_each_line_is_under_it(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The limit bounds what is held at once: a line, not the whole JSON Lines file."""
        path = _write(tmp_path / "data.json", _jsonl(*({"id": i, **RECORD} for i in range(50))))
        line = len(path.read_bytes().split(b"\n")[0]) + 1
        result = run_cli(capsys, "check", str(path), "--max-bytes", str(line * 2))
        assert result.code == 0, result.err
        assert "50 plans: 50 passed, 0 failed, 0 unusable" in result.out

    def test_a_line_over_the_limit_is_its_own_unusable_entry(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A huge line is skipped in bounded reads and named; the lines after it are read."""
        big = {"id": "big", **RECORD, "user_request": "x" * 5000}
        path = _write(
            tmp_path / "d.jsonl", _jsonl({"id": "a", **RECORD}, {"id": "b", **RECORD}, big, CYCLE)
        )
        result = run_cli(capsys, "check", str(path), "--max-bytes", "1000")
        assert result.code == 2
        size = format_size(len(path.read_bytes().split(b"\n")[2]) + 1)
        assert f"{path}#3: unusable: the line is {size}, over the 1000 bytes limit" in result.out
        assert f"{path}#4: FAIL" in result.out
        assert "4 plans: 2 passed, 1 failed, 1 unusable" in result.out

    def test_a_line_that_is_not_utf8_is_its_own_unusable_entry(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Bad bytes in line 3 cost that line only; the error names the byte and the line."""
        lines = _jsonl(CANONICAL, CANONICAL).encode() + b'{"tasks": [{"id": "\xff"}]}\n'
        path = _write(tmp_path / "d.jsonl", lines + _jsonl(CANONICAL).encode())
        result = run_cli(capsys, "check", str(path))
        assert result.code == 2
        offset = lines.index(b"\xff")
        assert f"#3: unusable: line 3: bytes that are not UTF-8 at byte {offset}" in result.out
        assert "4 plans: 3 passed, 0 failed, 1 unusable" in result.out


class TestOutput:
    @pytest.mark.parametrize("name", sorted(FILES))
    def test_json_is_the_documented_document(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
    ) -> None:
        """``--format json`` prints, byte for byte, the indented ``{"plans": [...]}``."""
        path = _write(tmp_path / "plans.jsonl", FILES[name])
        other = _write(tmp_path / "missing-next.json", json.dumps(CYCLE))
        result = run_cli(capsys, "check", str(path), str(other), "--format", "json")
        expected = {"plans": [r.to_dict() for r in check_files([path, other])]}
        assert result.out == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
        assert result.code == (2 if any(r.error for r in check_files([path])) else 1)
