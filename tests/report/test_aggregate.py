"""Aggregation: pass rates, intervals, labels, checks, tags; missing / stale / error kept apart."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from harness.report import load_run, summarize
from harness.stats import ClusterSums, cluster_wilson, wilson_interval
from tests.report._synthetic import make_run


@pytest.fixture
def summary(tmp_path: Path):  # type: ignore[no-untyped-def]
    run = make_run(
        tmp_path / "r",
        {
            ("a", "c1"): "ppp",  # stable-pass
            ("a", "c2"): "pfu",  # flaky; unparseable counts as a failure
            ("a", "c3"): "fff",  # stable-fail
            ("b", "c1"): "pmp",  # missing sample not counted
            ("b", "c2"): "sse",  # nothing counted
            ("b", "c3"): "ppp",
        },
    )
    return summarize(load_run(run))


def test_pass_rate_counts_only_pass_fail_unparseable(summary) -> None:  # type: ignore[no-untyped-def]
    """Model a: 4 of 9 pass; model b: 5 of 5 (missing, stale and error are not failures)."""
    a, b = summary.models.loc["a"], summary.models.loc["b"]
    assert (a["passed"], a["counted"]) == (4, 9)
    assert a["rate"] == pytest.approx(4 / 9)
    clustered = cluster_wilson(ClusterSums.of_cases([3, 1, 0], [3, 3, 3]))
    assert (a["low"], a["high"]) == pytest.approx((clustered[0][0], clustered[1][0]))
    wilson = wilson_interval(4, 9)  # samples of a case agree: wider than 9 independent draws
    assert a["low"] < wilson[0] and a["high"] > wilson[1]
    assert (b["passed"], b["counted"]) == (5, 5)
    assert (b["missing"], b["stale"], b["error"]) == (1, 2, 1)
    assert a["parse_rate"] == pytest.approx(8 / 9)


def test_case_labels(summary) -> None:  # type: ignore[no-untyped-def]
    """stable-pass, flaky, stable-fail; a pair with nothing counted is 'no data'."""
    labels = summary.cases["label"]
    assert labels[("c1", "a")] == "stable-pass"
    assert labels[("c2", "a")] == "flaky"
    assert labels[("c3", "a")] == "stable-fail"
    assert labels[("c2", "b")] == "no data"
    assert summary.cases.loc[("c2", "b"), "stale"] == 2


def test_pass_at_k_and_pass_hat_k(summary) -> None:  # type: ignore[no-untyped-def]
    """Over model a's three cases with 3 samples: pass@3 = 2/3, pass^3 = 1/3."""
    a = summary.models.loc["a"]
    assert a["k"] == 3
    assert a["pass_at_k"] == pytest.approx(2 / 3)
    assert a["pass_hat_k"] == pytest.approx(1 / 3)


def test_check_failure_rates(summary) -> None:  # type: ignore[no-untyped-def]
    """acyclic fails on a's 4 failing parsed plans out of 8; skipped checks are not counted."""
    r = summary.checks.loc[("acyclic", "a")]
    assert (r["failed"], r["evaluated"]) == (4, 8)
    assert "known_capabilities" not in summary.checks.index.get_level_values("check")


def test_tags_and_totals(summary) -> None:  # type: ignore[no-untyped-def]
    """Tag rates pool the tag's rows; totals keep the not-counted rows visible."""
    t = summary.tags.loc[("t1", "b")]
    assert (t["passed"], t["counted"], t["not_counted"]) == (5, 5, 4)
    total = summary.total
    assert (total["passed"], total["counted"], total["missing"], total["stale"]) == (9, 14, 1, 2)
    assert len(summary.not_counted) == 4


def test_latency_and_tokens(summary) -> None:  # type: ignore[no-untyped-def]
    """Token totals sum what was recorded; latency percentiles ignore rows without latency."""
    a = summary.models.loc["a"]
    assert a["tokens_in"] == 80  # 8 parsed rows x 10
    assert not math.isnan(a["latency_p95"])


def test_one_sample_per_case_gives_wilson(tmp_path: Path) -> None:
    """With one sample per case the per-model interval is Wilson's on the pooled counts."""
    run = make_run(tmp_path / "r", {("a", f"c{i}"): x for i, x in enumerate("ppfpfpp")})
    a = summarize(load_run(run)).models.loc["a"]
    assert (a["low"], a["high"]) == pytest.approx(wilson_interval(5, 7))
