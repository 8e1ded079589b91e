"""The public surface: explicit sorted exports, records matching their schema, no SDK on replay."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

import harness
import harness.providers
import harness.recording
import harness.run
import harness.suite
import harness.testing
from harness.run import ResultRow
from tests.cli_helpers import replayed_run_script


@pytest.mark.parametrize(
    "module",
    [harness.suite, harness.providers, harness.recording, harness.run, harness.testing],
)
def test_exports_are_sorted_and_complete(module: object) -> None:
    """Each package's __all__ is sorted (constants, classes, functions) and names only what
    it defines."""
    names = module.__all__  # type: ignore[attr-defined]

    def group(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert names == sorted(names, key=group)
    assert all(hasattr(module, name) for name in names)


def test_results_row_schema_matches_the_record() -> None:
    """results-row.schema.json describes exactly the fields of ResultRow and requires all but
    ``answer`` (added later: older runs lack it)."""
    path = Path(harness.__file__).parent / "schemas" / "results-row.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    names = sorted(f.name for f in fields(ResultRow))
    assert sorted(schema["properties"]) == names
    assert sorted([*schema["required"], "answer"]) == names


def test_replay_needs_neither_the_sdks_nor_vcrpy(tmp_path: Path) -> None:
    """Replaying a cassette imports no SDK and not vcrpy (extras stay optional, startup fast)."""
    cassette_dir = tmp_path / "plan_fixtures" / "demo" / "gold" / "c1"
    cassette_dir.mkdir(parents=True)
    body = {"choices": [{"message": {"content": json.dumps({"tasks": [{"id": "a"}]})}}]}
    (cassette_dir / "sample-0.yaml").write_text(
        "interactions:\n- request: {method: POST, uri: 'https://x/v1', body: null, headers: {}}\n"
        f"  response:\n    status: {{code: 200, message: OK}}\n    headers: {{}}\n"
        f"    body: {{string: {json.dumps(json.dumps(body))}}}\nversion: 1\n",
        encoding="utf-8",
    )
    script = f"""
import sys
from harness.testing import make_project
from harness.suite import load_suite
from harness.run import run_suite
path = make_project(__import__("pathlib").Path({str(tmp_path)!r}),
                    models=[{{"id": "gold", "provider": "dataset"}}])
result = run_suite(load_suite(path))
print(result.rows[0].status, result.rows[0].task_count)
heavy = ("openai", "anthropic", "vcr", "httpx", "httpx2")
print(sorted(m for m in sys.modules if m.split(".")[0] in heavy))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    status, imported = done.stdout.strip().splitlines()
    assert status == "pass 1" and imported == "[]"


def test_a_replayed_run_leaves_the_batch_machinery_unimported(tmp_path: Path) -> None:
    """``planeval run`` of recordings imports nothing of ``harness.batch`` (the vendors'
    batch APIs, only for ``--batch``): the runner names its type for the checker alone."""
    script = (
        replayed_run_script(tmp_path)
        + """
print(sorted(m for m in sys.modules if m.startswith("harness.batch")))
"""
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "exit 0" in done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
