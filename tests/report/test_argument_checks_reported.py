"""The argument checks reach every report: summary.md's check table, report.html's data and
compare's check deltas. Rows are synthetic runs (provenance: handwritten) whose plans, outcomes
and violations come from the real checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.checks import check_plan
from harness.compare import compare_runs
from harness.plan import Plan
from harness.registry import Registry
from harness.report import load_run, write_report
from tests.report._synthetic import make_run

REGISTRY = Registry.from_data(
    [
        {"name": "read", "input_schema": {"type": "object"}, "output_schema": {"type": "string"}},
        {
            "name": "write",
            "input_schema": {
                "type": "object",
                "properties": {"text": {"type": "string"}, "mode": {"enum": ["append", "replace"]}},
                "required": ["text"],
            },
        },
    ]
)


def _plan(mode: str) -> dict[str, Any]:
    return {
        "tasks": [
            {"id": "fetch", "capabilities": ["read"], "arguments": {"path": "a.txt"}},
            {
                "id": "use",
                "capabilities": ["write"],
                "depends_on": ["fetch"],
                "arguments": {"text": {"$result": "fetch"}, "mode": mode},
            },
        ]
    }


def _run(folder: Path, modes: list[str]) -> Path:
    """A synthetic run whose samples carry these plans, checked for real."""
    run = make_run(folder, {("m", "c1"): "p" * len(modes)})
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row, mode in zip(rows, modes, strict=True):
        plan = _plan(mode)
        report = check_plan(Plan.from_dict(plan), registry=REGISTRY)
        row.update(
            plan=plan,
            answer=json.dumps(plan),
            checks=report.outcomes,
            violations=[v.to_dict() for v in report.violations],
            status="pass" if report.ok else "fail",
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def test_summary_and_html_show_arguments_valid(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", ["append", "overwrite", "overwrite"])
    files = write_report(run)
    summary = files.summary_md.read_text()
    table = summary.split("### Checks that fail most")[1]
    assert "`arguments_valid`" in table
    assert "2 / 3" in table
    page = files.report_html.read_text()
    assert "arguments_valid" in page
    assert "/tasks/1/arguments/mode" in page  # the pointer the task table highlights


def test_compare_reports_the_check_delta(tmp_path: Path) -> None:
    base = load_run(_run(tmp_path / "base", ["append", "append"]))
    cand = load_run(_run(tmp_path / "cand", ["overwrite", "append"]))
    deltas = compare_runs(base, cand).check_deltas.set_index("check")
    row = deltas.loc["arguments_valid"]
    assert (row["base_rate"], row["cand_rate"], row["delta"]) == (0.0, 0.5, 0.5)
    assert deltas.loc["argument_refs_resolve"]["delta"] == 0.0
