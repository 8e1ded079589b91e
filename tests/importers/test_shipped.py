"""The shipped suites and recordings are exactly what the importers make from ../shared/data.

CI runs from a fresh clone with ``shared/`` beside the project; when it is absent these tests
fail with a message that says so (the ``shared_data`` fixture), they are never skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.importers import import_ruby_vcr, import_worfbench

from ._helpers import PROJECT, files_under

AGENTIC_DESCRIPTION = (
    "The agentic Ruby gem's planner prompt (minerva-sky/agentic at 99a9167, MIT License, "
    "Copyright (c) 2024 Valentino Stoll) and the real gpt-4o-2024-08-06 answer to it, recorded "
    "on 2025-05-29 in the gem's VCR cassette plan_ruby_coding_agent.yml."
)
WORFBENCH_DOMAINS = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")
SHIPPED_SUITES = {"agentic-ruby", *(f"worfbench-{d}" for d in WORFBENCH_DOMAINS)}


def _reimport(shared_data: Path, root: Path) -> None:
    """The commands that made the shipped suites (docs/importing.md lists them too)."""
    for domain in WORFBENCH_DOMAINS:
        import_worfbench(shared_data / "worfbench" / f"{domain}.json", root=root)
    import_ruby_vcr(
        shared_data / "agentic" / "plan_ruby_coding_agent.yml",
        root=root,
        suite="agentic-ruby",
        description=AGENTIC_DESCRIPTION,
    )


def _normalised(path: Path) -> Any:
    """File content, with the import time and harness version of a recording blanked."""
    if path.suffix != ".json":
        return path.read_text(encoding="utf-8")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("provenance", {}).get("source") == "import:worfbench":
        data["provenance"]["recorded_at"] = "<import time>"
    data["provenance"]["harness_version"] = "<version>"
    return data


@pytest.fixture(scope="module")
def reimported(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    root = tmp_path_factory.mktemp("reimport")
    _reimport(shared_data, root)
    return root


def _shipped_files(root: Path) -> set[Path]:
    files = set()
    for top in ("evals", "plan_fixtures"):
        for rel in files_under(root / top):
            name = rel.parts[0] if top == "plan_fixtures" else rel.stem
            if name in SHIPPED_SUITES:
                files.add(Path(top) / rel)
    return files


class TestShipped:
    def test_every_imported_suite_is_reproduced_here(self) -> None:
        """Every suite whose recordings came from an import is one this test re-imports
        (other suites, hand-written or live-recorded, are not this test's business)."""
        imported = {
            path.parts[len(PROJECT.parts) + 1]
            for path in (PROJECT / "plan_fixtures").rglob("sample-*.json")
            if json.loads(path.read_text(encoding="utf-8"))["provenance"]["source"].startswith(
                "import:"
            )
        }
        assert imported == SHIPPED_SUITES

    def test_reimport_gives_the_same_files(self, reimported: Path) -> None:
        """Re-importing from ../shared/data writes exactly the shipped files."""
        assert _shipped_files(reimported) == _shipped_files(PROJECT)

    def test_reimport_gives_the_same_content(self, reimported: Path) -> None:
        """Every shipped file matches its re-import (up to import time and version)."""
        differing = [
            rel
            for rel in sorted(_shipped_files(reimported))
            if _normalised(reimported / rel) != _normalised(PROJECT / rel)
        ]
        assert differing == [], f"re-import differs from shipped files: {differing[:5]}"

    def test_every_worfbench_item_is_shipped(self, shared_data: Path) -> None:
        """No domain is capped: each item of each WorfBench file has a gold recording."""
        for domain in WORFBENCH_DOMAINS:
            items = json.loads((shared_data / "worfbench" / f"{domain}.json").read_text())
            folder = PROJECT / "plan_fixtures" / f"worfbench-{domain}" / "worfbench-gold"
            assert {p.name for p in folder.iterdir()} == {i["id"] for i in items}


class TestShippedReplay:
    @pytest.mark.parametrize("name", sorted(SHIPPED_SUITES))
    def test_every_recording_replays_offline(self, name: str) -> None:
        """Each shipped case replays a fresh recording with a plan in it (none missing, stale
        or unparseable), without a network or an API key."""
        from harness.run import evaluate_one
        from harness.suite import load_suite

        suite = load_suite(PROJECT / "evals" / f"{name}.yaml")
        statuses = {
            f"{case.id}[{model.id}-s{k}]": evaluate_one(suite, case, model, k).status
            for case in suite.cases
            for model in suite.models
            for k in range(suite.samples)
        }
        unusable = {item: s for item, s in statuses.items() if s not in ("pass", "fail")}
        assert unusable == {}
        assert len(statuses) == len(suite.cases) * len(suite.models) * suite.samples
