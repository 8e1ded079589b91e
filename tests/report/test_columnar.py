"""The report's column-wise paths give what the row-by-row ones give, on awkward runs.

Each fast path of ``planeval report`` (check sets, the tag table, the failing cases, the HTML
case grid, results.csv, junit.xml) is checked here against a plain row-by-row version of the
same thing, on seeded random runs written in code (provenance: handwritten generator): ids
with commas, quotes, markup and line breaks, several or no tags, warnings, missing latency,
token counts of every kind, repeated and out-of-order samples.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from harness.report import load_run, render_junit, summarize
from harness.report._aggregate import _tags, _tags_exploded
from harness.report._failing_md import run_failing_cases
from harness.report._html_data import _case_payload_by_row, case_payload
from harness.report._junit import _a, _x, write_csv
from harness.report._load import LoadedRun
from harness.run import failing_cases

STATUSES = ["pass", "fail", "unparseable", "missing", "stale", "error"]
CHECKS = ["schema", "acyclic", "deps_resolve", "isolated_task", "known_capabilities"]


def _run(tmp_path: Path, seed: int, *, plain: bool, repeats: bool = False) -> Path:
    rng = random.Random(seed)
    models = ["m-a", "m-b"] if plain else ["m-a", 'm,"b"', "m<c>&"]
    lines = []
    for c in range(30):
        case = f"c_{c}" if plain or c % 4 else rng.choice([f'c {c}, "q"', f"c<{c}>", f"c\n{c}"])
        tags = rng.choice([[], ["t1"], ["t1", "t,2"], ["ü"], None])
        for model in models:
            samples = list(range(rng.randint(1, 4)))
            if repeats:
                samples += [0]
                rng.shuffle(samples)
            for k in samples:
                status = rng.choice(STATUSES)
                parsed = status in ("pass", "fail")
                checks = (
                    {x: rng.choice(["pass", "pass", "skip"]) for x in CHECKS} if parsed else None
                )
                violations = []
                if parsed and rng.random() < 0.3:
                    checks["isolated_task"] = "warn"
                    violations.append(
                        {"check": "isolated_task", "severity": "warning", "message": "<w>"}
                    )
                if status == "fail":
                    checks[rng.choice(CHECKS[:3])] = "fail"
                    violations.append({"check": "acyclic", "task": "t0", "message": "a & b\x01"})
                tokens = rng.choice(
                    [None, {"input": 7, "output": 2}, {"input": 9.5, "cached_input": 3}, {}]
                )
                lines.append(
                    json.dumps(
                        {
                            "suite": "s",
                            "case": case,
                            "model": model,
                            "sample": k,
                            "status": status,
                            "checks": checks,
                            "violations": violations,
                            "task_count": rng.choice([None, 3]),
                            "latency_ms": rng.choice([None, 0, 12, 1234.5]),
                            "tokens": tokens,
                            "tags": tags,
                            "detail": None if parsed else rng.choice([None, 'why, "x"\nnext']),
                            "recording": rng.choice([None, "a,b.json", "r.json"]),
                            "plan": {"tasks": [{"id": "t0"}]} if parsed else None,
                            "answer": rng.choice([None, "text"]),
                        }
                    )
                )
    run = tmp_path / f"run-{seed}-{plain}-{repeats}"
    run.mkdir()
    (run / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = {"format_version": 1, "run_id": run.name, "suite": "s", "samples": 4}
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


RUNS = [(1, True, False), (2, False, False), (3, True, True), (4, False, True)]


@pytest.fixture(params=RUNS, ids=lambda p: f"seed{p[0]}-{'plain' if p[1] else 'odd'}-ids")
def loaded(request: pytest.FixtureRequest, tmp_path: Path) -> LoadedRun:
    seed, plain, repeats = request.param
    return load_run(_run(tmp_path, seed, plain=plain, repeats=repeats))


def test_check_sets_name_each_rows_checks(loaded: LoadedRun) -> None:
    sets = loaded.check_sets
    for row, i in zip(loaded.rows, sets.ids.tolist(), strict=True):
        checks = row.checks or {}
        assert (sets.names[i], sets.outcomes[i]) == (tuple(checks), tuple(checks.values()))


def test_tag_table_is_the_exploded_one(loaded: LoadedRun) -> None:
    fast, slow = _tags(loaded), _tags_exploded(loaded)
    assert fast.equals(slow) and fast.index.equals(slow.index)
    assert list(fast.dtypes) == list(slow.dtypes)


def test_failing_cases_are_those_of_the_rows(loaded: LoadedRun) -> None:
    assert run_failing_cases(loaded) == failing_cases(loaded.rows)


@pytest.mark.parametrize("budget", [0, 300, 5_000_000])
def test_case_grid_is_the_row_by_row_one(loaded: LoadedRun, budget: int) -> None:
    s = summarize(loaded)
    prompts = {"c_1": "prompt <1>", "c_2": "x" * 200}
    assert case_payload(s, prompts, budget) == _case_payload_by_row(s, prompts, budget)


def _csv_by_row(run: LoadedRun) -> str:
    def cell(x: Any) -> Any:
        return "" if x is None or x != x else x

    def joined(checks: dict[str, str] | None, outcome: str) -> str:
        return ";".join(k for k, v in (checks or {}).items() if v == outcome)

    out = io.StringIO()
    writer = csv.writer(out)
    f = run.frame
    writer.writerow(
        [
            "suite",
            "case",
            "model",
            "sample",
            "status",
            "failed_checks",
            "warned_checks",
            "violations",
            "task_count",
            "latency_ms",
            "tokens_input",
            "tokens_output",
            "tags",
            "detail",
            "recording",
        ]
    )
    for i, r in enumerate(run.rows):
        tin, tout = f["tokens_in"].iloc[i], f["tokens_out"].iloc[i]
        writer.writerow(
            [
                r.suite,
                r.case,
                r.model,
                r.sample,
                r.status,
                joined(r.checks, "fail"),
                joined(r.checks, "warn"),
                len(r.violations or ()),
                cell(r.task_count),
                cell(f["latency_ms"].iloc[i]),
                "" if tin != tin else int(tin),
                "" if tout != tout else int(tout),
                ";".join(map(str, r.tags or ())),
                r.detail or "",
                r.recording or "",
            ]
        )
    return out.getvalue()


def test_csv_is_what_the_csv_writer_writes(loaded: LoadedRun, tmp_path: Path) -> None:
    write_csv(loaded, tmp_path / "results.csv")
    written = (tmp_path / "results.csv").read_bytes().decode("utf-8")
    assert written == _csv_by_row(loaded)


def _junit_by_row(run: LoadedRun) -> str:
    by_model: dict[str, list[Any]] = defaultdict(list)
    for row in run.rows:
        by_model[row.model].append(row)
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', f"<testsuites name={_a('planeval s')}>"]
    for model, rows in by_model.items():
        n = Counter(r.status for r in rows)
        classname = _a("s." + model)
        parts.append(
            f'<testsuite name={classname} tests="{len(rows)}" '
            f'failures="{n["fail"] + n["unparseable"]}" '
            f'errors="{n["missing"] + n["stale"] + n["error"]}" skipped="0">'
        )
        for r in rows:
            head = (
                f"<testcase classname={classname} name={_a(f'{r.case}[{r.model}-s{r.sample}]')} "
                f'time="{(r.latency_ms or 0) / 1000:.3f}"'
            )
            if r.status == "pass":
                parts.append(head + "/>")
                continue
            if r.status == "fail":
                errors = [v for v in r.violations or [] if v.get("severity", "error") == "error"]
                first = errors[0] if errors else {"check": "?", "message": "failed"}
                msg = (
                    f"{len(errors)} violation(s); "
                    f"first: [{first.get('check')}] {first.get('message')}"
                )
                text = "\n".join(
                    f"[{v.get('check')}"
                    + ("" if v.get("severity", "error") == "error" else f" ({v.get('severity')})")
                    + f"] {v.get('task') + ': ' if v.get('task') else ''}{v.get('message')} "
                    f"({v.get('path', '')})"
                    for v in r.violations or []
                )
                body = f'<failure type="violations" message={_a(msg)}>{_x(text)}</failure>'
            elif r.status == "unparseable":
                msg = r.detail or "no plan could be read from the answer"
                body = f'<failure type="unparseable" message={_a(msg)}>{_x(msg)}</failure>'
            else:
                msg = r.detail or r.status
                body = f"<error type={_a(r.status)} message={_a(msg)}>{_x(msg)}</error>"
            parts.append(f"{head}>{body}</testcase>")
        parts.append("</testsuite>")
    parts.append("</testsuites>\n")
    return "\n".join(parts)


def test_junit_is_the_row_by_row_one(loaded: LoadedRun) -> None:
    assert render_junit(loaded) == _junit_by_row(loaded)
