"""prompts.json as the report reads it: indexed, a prompt read when asked for, the same
mapping ``json.loads`` gives, whatever the ids and prompts hold."""

from __future__ import annotations

import json
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.report._load import read_prompts
from harness.run import PROMPTS_FILE
from harness.run._runner import _write_prompts


@dataclass
class _Case:
    id: str
    prompt: str


@dataclass
class _Suite:
    """What ``_write_prompts`` reads of a suite: its cases and each one's prompt."""

    cases: list[_Case]

    def render_prompt(self, case: _Case) -> str:
        return case.prompt


AWKWARD = [
    _Case("plain", "Plan the trip."),
    _Case('quote " and ": colon', 'She said: "go", then left.\n{"tasks": []}'),
    _Case("unicode ü \u2028 line sep", "Übersicht\u2028next\r\nline\ttab \\ backslash"),
    _Case("", "empty id"),
    _Case("dup", "first"),
    _Case("dup", "last wins, as with json.loads"),
    _Case("}", "}"),
]


def test_the_runs_file_reads_as_json_loads_reads_it(tmp_path: Path) -> None:
    _write_prompts(tmp_path, _Suite(AWKWARD))  # type: ignore[arg-type]
    whole = json.loads((tmp_path / PROMPTS_FILE).read_text(encoding="utf-8"))
    prompts = read_prompts(tmp_path)
    assert not isinstance(prompts, dict)  # indexed, not held
    assert dict(prompts.items()) == whole and list(prompts) == list(whole)
    assert prompts.get("dup") == "last wins, as with json.loads"
    assert prompts.get("no such case") is None


def test_a_large_file_is_not_held(tmp_path: Path) -> None:
    """2,000 prompts of 20 kB (40 MB): reading the index and three prompts allocates a small
    fraction of the file (json.loads of it allocated more than the file)."""
    cases = [_Case(f"c{i}", f"{i} " + "tool list " * 2_000) for i in range(2_000)]
    _write_prompts(tmp_path, _Suite(cases))  # type: ignore[arg-type]
    size = (tmp_path / PROMPTS_FILE).stat().st_size
    tracemalloc.start()
    try:
        prompts = read_prompts(tmp_path)
        got = [prompts.get(c) for c in ("c0", "c1999", "c7")]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == [cases[0].prompt, cases[1999].prompt, cases[7].prompt]
    assert peak < size / 20, f"peak {peak} bytes for a {size}-byte prompts.json"


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"a": "A", "b": "B"}),  # one line (older runs, other tools)
        json.dumps({"a": "A", "b": "B"}, indent=2),
        "{\n}\n",
    ],
)
def test_other_layouts_are_read_whole(tmp_path: Path, text: str) -> None:
    (tmp_path / PROMPTS_FILE).write_text(text, encoding="utf-8")
    assert dict(read_prompts(tmp_path).items()) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        '{\n"a": "A",\n"b": "B"\n',  # cut short: no closing brace
        '{\n"a": "A"\n}\n{"b": 1}\n',  # text after the document
        "{\nnot json\n}\n",
        "[1, 2]",
    ],
)
def test_a_damaged_file_shows_no_prompt(tmp_path: Path, text: str) -> None:
    (tmp_path / PROMPTS_FILE).write_text(text, encoding="utf-8")
    assert dict(read_prompts(tmp_path).items()) == {}


def test_an_entry_that_is_not_a_string_reads_as_absent(tmp_path: Path) -> None:
    (tmp_path / PROMPTS_FILE).write_text('{\n"a": "A",\n"b": 3\n}\n', encoding="utf-8")
    prompts = read_prompts(tmp_path)
    assert prompts.get("a") == "A" and prompts.get("b") is None
