"""A run keeps nothing per case beyond its last few: the caches of scoring stay bounded."""

from __future__ import annotations

import json
from pathlib import Path

from tests.importers._helpers import worfbench_item

CASES = 1100
"""More distinct cases than any bound below but ``RECENT_CASES``' (and more than the 1,024
workflows ``WORKFLOWS_KEPT`` allows); each has 8 node texts of its own (8,800 in all, more
than ``TEXTS_KEPT``)."""


def _gold(k: int) -> str:
    nodes = "".join(f"{n}: Step {n} of task {k}\n" for n in range(1, 9))
    edges = " ".join(f"({a},{a + 1})" for a in range(1, 8))
    return f"Node:\n{nodes}Edge: (START,1) {edges} (8,END)"


def test_scoring_caches_stay_bounded_over_many_distinct_cases(tmp_path: Path) -> None:
    """A run of 1,100 distinct WorfBench plans (each its case's gold, recorded as its answer)
    scores every row, and afterwards the per-case caches hold at most their bounds: memory
    does not grow with the cases of a run."""
    from harness.importers import import_worfbench
    from harness.metrics._matchers import TEXTS_KEPT, normalize_text
    from harness.metrics._worfbench import WORKFLOWS_KEPT, _gold_texts, parse_worfbench
    from harness.run import _metrics, run_suite
    from harness.suite import load_suite

    tools = "api_list:[{'name': 'search', 'description': 'Find it'}]"
    items = [worfbench_item(f"t{k}", f"Task {k}.", tools, _gold(k)) for k in range(CASES)]
    data = tmp_path / "data.json"
    data.write_text(json.dumps(items), encoding="utf-8")
    result = import_worfbench(data, root=tmp_path / "proj", suite="many")
    run_suite(load_suite(result.suite_path), out=tmp_path / "run")

    rows = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == CASES
    assert all(r["metrics"]["worfbench.f1_graph"] == 1.0 for r in rows)
    assert len(_metrics._REFERENCES._entries) <= _metrics.RECENT_CASES == 64
    assert len(_metrics._CATALOGUES._entries) <= _metrics.RECENT_CASES
    assert parse_worfbench.cache_info().currsize <= WORKFLOWS_KEPT == 1024
    assert _gold_texts.cache_info().currsize <= WORKFLOWS_KEPT
    assert normalize_text.cache_info().currsize <= TEXTS_KEPT == 8192
