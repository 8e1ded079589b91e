"""The TaskBench record lane (``read_taskbench_record`` + ``check_taskbench_record``) gives what
the general path gives: the same plan, the same violations (messages, pointers, order), the
same outcomes, and the same ``planeval check`` output in every ``--format``.

Differential: on the real TaskBench gold and prediction files beside the checkout, on
generated records (hypothesis: repeated tools, cycles, redundant edges, self-citations,
tool-name citations, links naming no node, repeated keys, escapes, unknown keys), and on the
benchmark's own records. Where the lane does not answer it must say so (None), never answer
differently.
"""

from __future__ import annotations

import copy
import io
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness._cli import check as check_cli
from harness.checks import (
    CheckReport,
    CheckVerdict,
    Expectations,
    FileResult,
    _taskbench_lane,
    check_plan,
    iter_check_files,
    iter_check_verdicts,
)
from harness.checks._taskbench_lane import base_outcomes, check_taskbench_record
from harness.plan import iter_plan_file
from harness.plan._taskbench_fast import fast_taskbench_plan
from harness.plan._taskbench_record import TaskBenchRecord, read_taskbench_record
from tests.cli_helpers import run_cli

EXPECTATIONS = (
    Expectations(),
    Expectations(min_tasks=2, max_tasks=3),
    Expectations(max_tasks=1),
    Expectations(needs="imply_deps"),
)


def _same_as_general(line: str) -> bool:
    """Assert the lane agrees with ``check_plan`` on the fast lane's plan for ``line``; True
    when the lane answered for at least one expectation."""
    record = read_taskbench_record(line)
    if record is None:
        return False
    plan = fast_taskbench_plan(line)
    assert plan is not None, f"the record lane took a line the fast lane refuses: {line}"
    assert record.plan() == plan
    positions = [
        [int(d.removeprefix("node-")) for d in t.depends_on if d != t.id] for t in plan.tasks
    ]
    assert record.deps == positions  # the graph the checks (and their memo) read
    answered = False
    for expect in EXPECTATIONS:
        report = check_taskbench_record(record, expect, base_outcomes(expect))
        if report is None:
            continue
        answered = True
        reference = check_plan(plan, expect=expect)
        assert report.violations == reference.violations, (line, expect)
        assert report.outcomes == reference.outcomes, (line, expect)
        assert (report.task_count, report.ok) == (reference.task_count, reference.ok)
        assert report.plan == plan
        assert report.to_dict() == reference.to_dict()
    return answered


# --- real data ---------------------------------------------------------------------------------


def _real_lines(shared_data: Path) -> list[str]:
    folder = shared_data / "taskbench"
    files = sorted((folder / "gold_sample").glob("*.jsonl"))
    files += sorted((folder / "predictions_minimax").glob("*.jsonl"))
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    assert len(lines) >= 86
    return lines


def test_real_taskbench_records_get_the_general_paths_report(shared_data: Path) -> None:
    answered = sum(_same_as_general(line) for line in _real_lines(shared_data))
    assert answered >= 60  # the lane is the one that reads real records, not a bystander


# --- generated records ------------------------------------------------------------------------

TOOLS = ["A", "B", "C", "D", "E"]


@st.composite
def record_lines(draw: st.DrawFn) -> str:
    """One TaskBench record line: a random graph cited and linked as TaskBench writes it; in
    one case out of three with the irregularities real files have."""
    plain = draw(st.integers(0, 2)) > 0
    n = draw(st.integers(0 if not plain else 1, 7))
    pool = TOOLS if plain else [*TOOLS, "A", ""]
    tools = [draw(st.sampled_from(pool)) for _ in range(n)]
    rank = draw(st.permutations(range(n)))  # plain graphs are DAGs in this order
    nodes: list[dict[str, Any]] = []
    edges: list[tuple[int, int]] = []
    for k in range(n):
        if plain:
            earlier = [c for c in range(n) if rank[c] < rank[k]]
            count = draw(st.integers(0, 3)) if earlier else 0
            cited = [draw(st.sampled_from(earlier)) for _ in range(count)]
        else:
            cited = [draw(st.integers(0, n)) for _ in range(draw(st.integers(0, 3)))]
        edges += [(c, k) for c in cited if c < n]
        args: list[Any] = []
        for c in cited:
            form = draw(st.integers(0, 9 if not plain else 6))
            if form <= 3:
                args.append(f"<node-{c}>")
            elif form == 4:
                args.append(f"image: <node-{c}> and <output-of-node-{c}>")
            elif form == 5:
                args.append({"name": draw(st.sampled_from(["image", "", "text"])),
                             "value": f"<node-{c}>"})  # fmt: skip
            elif form == 6:
                args.append({"name": "date", "value": "2024-01-01"})
            elif form == 7:
                args.append(draw(st.sampled_from(["x.jpg", "A", " B ", "<node-A>", "<x>"])))
            else:
                args.append(draw(st.sampled_from([["a", "<node-0>"], 3, None, {"name": "q"}])))
        if not args and draw(st.booleans()):
            args.append("example.jpg")
        node: dict[str, Any] = {"task": tools[k]}
        shape = draw(st.integers(0, 5))
        if shape or plain:
            node["arguments"] = args if shape > 0 or plain else None
        nodes.append(node)
    record: dict[str, Any] = {}
    if draw(st.booleans()):
        ids = ["r1", 7, " s "] if plain else ["r1", "", True, None, 2.5]
        record["id"] = draw(st.sampled_from(ids))
    record["task_nodes"] = nodes
    names = sorted(set(tools)) or ["A"]
    if draw(st.integers(0, 4)):
        links = [{"source": tools[u], "target": tools[v]} for u, v in edges]
        for _ in range(draw(st.integers(0, 2 if plain else n + 1))):  # links beyond the edges
            source = draw(st.sampled_from(names if plain else [*names, "Z"]))
            links.append({"source": source, "target": draw(st.sampled_from(names))})
        record["task_links"] = draw(st.permutations(links))
    extras: tuple[tuple[str, list[Any]], ...] = (
        ("user_request", ["find it", "é", None]),
        ("type", ["dag", "chain", None]),
        ("task_steps", [["Step 1: x"], [], None]),
    )
    if not plain:
        extras += (("user_request", [3]), ("task_steps", [[1]]), ("sampled", [1]))
    for key, values in extras:
        if draw(st.integers(0, 3)) == 0:
            record[key] = draw(st.sampled_from(values))
    line = json.dumps(record, ensure_ascii=draw(st.booleans()))
    twist = draw(st.integers(0, 9)) if not plain else 9
    if twist == 0 and '"task": ' in line:  # a repeated key, as real broken files have
        line = line.replace('"task": ', '"task": "A", "task": ', 1)
    elif twist == 1 and '"source": ' in line:
        line = line.replace('"source": ', '"source": "A", "source": ', 1)
    elif twist == 2:
        line = line.replace('"id": ', '"id": "x", "id": ', 1)
    elif twist == 3:
        line = line.replace('"task"', '"\\u0074ask"', 1)  # a key spelled with an escape
    elif twist == 4:
        line = line.replace(", ", " ,\t")
    return line


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_lines())
def test_generated_records_get_the_general_paths_report(line: str) -> None:
    _same_as_general(line)


@pytest.mark.parametrize(
    ("arguments", "read"),
    [
        (["<node-0>", "<node-0>"], True),  # one producer cited twice: one dependency
        (["<node-00>"], True),  # not the lookup's spelling: read by the rules, as the fast lane
        (["<node-\u0660>"], True),  # an Arabic-Indic zero: int() reads it
        (["<node-2>"], True),  # the node itself (read; its report is the general path's)
        (["<node-3>"], False),  # no such node: the other lanes word it
        (["<node-300>"], False),
        (["<node-1>", "x", "<node-0>"], True),
        ([{"name": "image", "value": "<node-0>"}, "<node-1>"], True),
        ([{"name": "<node-0>", "value": "<node-1>"}], True),
    ],
)
def test_each_spelling_of_a_citation_gets_the_general_paths_report(
    arguments: list[Any], read: bool
) -> None:
    nodes = [
        {"task": "A", "arguments": ["x"]},
        {"task": "B", "arguments": ["<node-0>"]},
        {"task": "C", "arguments": arguments},
    ]
    for tools in ("ABC", "ABA"):  # tools all different (the lookup), and one repeated
        named = [{**node, "task": tool} for node, tool in zip(nodes, tools, strict=True)]
        line = json.dumps({"id": "1", "task_nodes": named}, ensure_ascii=False)
        assert (read_taskbench_record(line) is not None) is read
        _same_as_general(line)


def test_the_lane_refuses_what_it_cannot_answer_for() -> None:
    plain = '{"id": "1", "task_nodes": [{"task": "A", "arguments": ["x"]}, {"task": "B", "arguments": ["<node-0>"]}]}'  # noqa: E501
    assert read_taskbench_record(plain) is not None
    refused = [
        plain.replace('"task": "A"', '"task": "A", "task": "C"'),  # repeated key
        plain.replace('"task": "A"', '"\\u0074ask": "A"'),  # a key spelled with an escape
        plain.replace('"id": "1"', '"id": "1", "extra": 1'),  # a key TaskBench does not write
        plain.replace('"x"', '"B"'),  # a tool-name citation
        plain.replace('"<node-0>"', '"<node-5>"'),  # a citation naming no node
        plain.replace('"id": "1"', '"id": NaN'),
        plain.replace('"<node-0>"', '"<node-' + "1" * 5000 + '>"'),  # more digits than int reads
        plain.replace('"<node-0>"', '"see <node-' + "1" * 5000 + '>"'),
    ]
    for line in refused:
        assert read_taskbench_record(line) is None, line
    record = read_taskbench_record(plain.replace('"<node-0>"', '"<node-1>"'))  # cites itself
    assert record is not None and record.on_itself
    assert check_taskbench_record(record, Expectations(), base_outcomes(Expectations())) is None
    cyclic = read_taskbench_record(
        plain.replace('"x"', '"<node-1>"')  # a cycle: check_plan names it
    )
    assert cyclic is not None
    assert check_taskbench_record(cyclic, Expectations(), base_outcomes(Expectations())) is None


def test_a_lane_report_pickles_and_copies_as_the_report_it_stands_for() -> None:
    line = '{"id": "1", "task_nodes": [{"task": "A"}, {"task": "B", "arguments": ["x"]}]}'
    record = read_taskbench_record(line)
    assert record is not None
    report = check_taskbench_record(record, Expectations(), base_outcomes(Expectations()))
    assert report is not None and report.violations  # two isolated tasks: a flat list
    plan = fast_taskbench_plan(line)
    assert plan is not None
    for other in (pickle.loads(pickle.dumps(report)), copy.deepcopy(report), copy.copy(report)):
        assert type(other) is CheckReport
        assert other == check_plan(plan)


# --- whole files, every output format ---------------------------------------------------------


def _bench_lines(count: int) -> list[str]:
    """Records as benchmarks/bench_formats.py writes them (repeated tools, redundant edges)."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    try:
        from bench_formats import record
    finally:
        sys.path.pop(0)
    rng = random.Random(25)
    return [json.dumps(record(index, rng)) for index in range(count)]


def _reference(path: Path, expect: Expectations) -> list[FileResult]:
    """Every plan of the file built and checked by ``check_plan`` (the general path)."""
    results = []
    for label, plan in iter_plan_file(path):
        if isinstance(plan, Exception):
            results.append(FileResult(label, None, plan.one_line().removeprefix(f"{label}: ")))
        else:
            results.append(FileResult(label, check_plan(plan, expect=expect), None))
    return results


def _printed(results: list[FileResult], output: str) -> str:
    stdout, sys.stdout = sys.stdout, io.StringIO()
    try:
        checked = [
            (r.path, r.error if r.report is None else CheckVerdict.of(r.report)) for r in results
        ]
        (check_cli._print_json if output == "json" else check_cli._print_text)(checked)
        return sys.stdout.getvalue()
    finally:
        sys.stdout = stdout


@pytest.fixture
def mixed_file(tmp_path: Path, shared_data: Path) -> Path:
    lines = _bench_lines(300) + _real_lines(shared_data)
    lines += [
        '{"id": "cyc", "task_nodes": [{"task": "A", "arguments": ["<node-1>"]}, '
        '{"task": "B", "arguments": ["<node-0>"]}]}',
        '{"id": "dup", "task_nodes": [{"task": "A", "task": "B"}]}',
        '{"id": "empty", "task_nodes": []}',
        "not json",
        '{"id": "7", "task_nodes": [{"task": "A"}, {"task": "B"}]}',
        '{"id": "é\\t1", "task_nodes": [{"task": "Ä", "arguments": ["x"]}, {"task": "B"}]}',
    ]
    random.Random(3).shuffle(lines)
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("expect", EXPECTATIONS[:2], ids=["default", "band"])
def test_a_file_checks_as_the_general_path_checks_it(
    mixed_file: Path, expect: Expectations
) -> None:
    results = list(iter_check_files([mixed_file], expect=expect))
    reference = _reference(mixed_file, expect)
    assert [r.path for r in results] == [r.path for r in reference]
    for got, want in zip(results, reference, strict=True):
        assert got.to_dict() == want.to_dict()
        if want.report is not None:
            assert isinstance(got.report, CheckReport)
            assert got.report.outcomes == want.report.outcomes
            assert got.report.plan == want.report.plan
    assert sum(isinstance(getattr(r.report, "_record", None), TaskBenchRecord) for r in results)


@pytest.mark.parametrize("memo", [1 << 14, 3], ids=["memo", "memo-cleared"])
@pytest.mark.parametrize("expect", EXPECTATIONS[:2], ids=["default", "band"])
def test_a_files_verdicts_are_the_general_paths(
    mixed_file: Path, expect: Expectations, memo: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records of one graph share one verdict (also after the memo is forgotten, here every
    three graphs); each is still the verdict check_plan gives that record's plan."""
    monkeypatch.setattr(_taskbench_lane, "_MEMO", memo)
    checked = list(iter_check_verdicts([mixed_file], expect=expect))
    reference = _reference(mixed_file, expect)
    assert [label for label, _ in checked] == [r.path for r in reference]
    for (_, got), want in zip(checked, reference, strict=True):
        if want.report is None:
            assert got == want.error
            continue
        assert isinstance(got, CheckVerdict)
        assert got.task_count == want.report.task_count
        assert got.ok == want.report.ok
        assert got.violations == want.report.violations
        assert got.outcomes == want.report.outcomes
    verdicts = [v for _, v in checked if isinstance(v, CheckVerdict)]
    if memo > len(verdicts):  # shared, not one per record
        assert len({id(v) for v in verdicts}) < len(verdicts)


@pytest.mark.parametrize("memo", [1 << 14, 2], ids=["memo", "memo-cleared"])
@pytest.mark.parametrize("output", ["text", "json"])
def test_check_prints_what_the_general_path_prints(
    mixed_file: Path,
    output: str,
    memo: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_taskbench_lane, "_MEMO", memo)
    monkeypatch.setattr(check_cli, "_MEMO", memo)
    result = run_cli(capsys, "check", str(mixed_file), "--format", output, "--min-tasks", "2")
    reference = _reference(mixed_file, Expectations(min_tasks=2))
    assert result.out == _printed(reference, output)
    assert result.code == 2  # the line that is not JSON is unusable
    if output == "json":  # the document json.dumps writes, as the json output always was
        document = {"plans": [r.to_dict() for r in reference]}
        assert result.out == json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    else:  # the file has plans of every verdict
        assert ": FAIL (" in result.out and ": unusable: " in result.out and "warning" in result.out


@pytest.mark.parametrize("output", ["text", "json"])
def test_batched_output_still_scrubs_credentials(tmp_path: Path, output: str) -> None:
    """Results are written 256 at a time: a credential the process knows (here a
    credential-named environment variable) is still replaced in every one of them."""
    secret = "tok-" + "".join(random.Random(output).choices("abcdefghijkmnpqrstuvwxyz", k=24))
    lines = [
        json.dumps({"id": f"{k}-{secret}" if k % 100 == 7 else str(k), "task_nodes": [
            {"task": "A", "arguments": ["x"]}, {"task": "B", "arguments": ["<node-0>"]}]})
        for k in range(700)
    ]  # fmt: skip
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "SERVICE_TOKEN": secret}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "check", str(path), "--format", output],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert secret not in done.stdout
    assert done.stdout.count("<REDACTED>") == 7
    verdicts = done.stdout.count(": ok (2 tasks)\n" if output == "text" else '"ok": true,')
    assert verdicts == 700
