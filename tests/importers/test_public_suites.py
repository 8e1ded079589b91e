"""The public benchmarks, imported from ../shared/data into a temporary project, replay offline.

Nothing made from the public data is committed: these tests import it the way CI and
docs/importing.md do, and skip (``shared_data``) when ``../shared/data`` is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.importers import import_ruby_vcr, import_worfbench
from harness.run import evaluate_one
from harness.suite import load_suite

WORFBENCH_DOMAINS = ("toolbench", "toolalpaca", "seal_tools", "wikihow", "intercodesql")
PUBLIC_SUITES = ("agentic-ruby", *(f"worfbench-{d}" for d in WORFBENCH_DOMAINS))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A project holding every public suite, made with the importers (as .ci/run does)."""
    root = tmp_path_factory.mktemp("public")
    for domain in WORFBENCH_DOMAINS:
        import_worfbench(shared_data / "worfbench" / f"{domain}.json", root=root)
    import_ruby_vcr(
        shared_data / "agentic" / "plan_ruby_coding_agent.yml", root=root, suite="agentic-ruby"
    )
    return root


class TestImportedPublicSuites:
    def test_every_worfbench_item_is_a_case(self, imported: Path, shared_data: Path) -> None:
        """No domain is capped: each item of each WorfBench file has a gold recording."""
        for domain in WORFBENCH_DOMAINS:
            items = json.loads((shared_data / "worfbench" / f"{domain}.json").read_text())
            folder = imported / "plan_fixtures" / f"worfbench-{domain}" / "worfbench-gold"
            assert {p.name for p in folder.iterdir()} == {i["id"] for i in items}

    @pytest.mark.parametrize("name", PUBLIC_SUITES)
    def test_every_recording_replays_offline(self, imported: Path, name: str) -> None:
        """Each imported case replays a fresh recording with a plan in it (none missing, stale
        or unparseable), without a network or an API key."""
        suite = load_suite(imported / "evals" / f"{name}.yaml")
        statuses = {
            f"{case.id}[{model.id}-s{k}]": evaluate_one(suite, case, model, k).status
            for case in suite.cases
            for model in suite.models
            for k in range(suite.samples)
        }
        unusable = {item: s for item, s in statuses.items() if s not in ("pass", "fail")}
        assert unusable == {}
        assert len(statuses) == len(suite.cases) * len(suite.models) * suite.samples
