"""``flip_details``: each flip's shown samples (the worst of the (model, case), the first in the
file among equally bad ones), read back from results.jsonl alone: never a pass over every row
of either run."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from harness.compare import compare_runs, flip_details
from harness.report import load_run
from harness.report._scan import RowFile
from tests.report._synthetic import make_run

RANK = {"fail": 0, "unparseable": 1, "pass": 2, "error": 3, "stale": 4, "missing": 5}


def _outcomes(seed: int, models: tuple[str, ...]) -> dict[tuple[str, str], str]:
    rng = random.Random(seed)
    return {
        (m, f"c{i}"): "".join(rng.choice("ppppfumse") for _ in range(4))
        for i in range(60)
        for m in models
    }


def _shown_by_reading_every_row(run: Any, keys: dict[str, str], wanted: set[Any]) -> dict[Any, Any]:
    """The rule, by brute force: every row in file order, the first of the lowest rank kept."""
    shown: dict[Any, Any] = {}
    for row in run.rows:
        key = (keys.get(row.model), row.case)
        if key in wanted and (key not in shown or RANK[row.status] < RANK[shown[key].status]):
            shown[key] = row
    return shown


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("renamed", [False, True], ids=["same-model", "paired-models"])
def test_the_shown_rows_are_the_worst_samples(tmp_path: Path, seed: int, renamed: bool) -> None:
    """Over seeded runs (4 samples, every status, ties), each flip shows the rows the rule
    picks, with the same model pairing as the comparison."""
    cand_model = "n" if renamed else "m"
    base = load_run(make_run(tmp_path / "b", _outcomes(seed, ("m", "x"))))
    cand = load_run(make_run(tmp_path / "c", _outcomes(seed + 100, (cand_model, "x"))))
    c = compare_runs(base, cand, base_model="m", cand_model=cand_model)
    details = flip_details(c, limit=1000)
    assert len(details) >= 5
    key = "m -> n" if renamed else "m"
    wanted = {(d.flip.model, d.flip.case) for d in details}
    base_rows = _shown_by_reading_every_row(base, {"m": key}, wanted)
    cand_rows = _shown_by_reading_every_row(cand, {cand_model: key}, wanted)
    for d in details:
        at = (d.flip.model, d.flip.case)
        assert d.base_row == base_rows.get(at) and d.cand_row == cand_rows.get(at)


def test_only_the_flipped_pairs_rows_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With 60 cases x 2 models x 4 samples per run and a handful of flips, the rows read back
    are one per side per flip; no pass over the whole file (it read every row of both runs)."""
    base = load_run(make_run(tmp_path / "b", _outcomes(7, ("m", "x"))))
    cand = load_run(make_run(tmp_path / "c", _outcomes(8, ("m", "x"))))
    c = compare_runs(base, cand)
    read: list[int] = []
    lines = RowFile.lines

    def counted(self: RowFile, indices: Any) -> list[bytes]:
        read.append(len(indices))
        return lines(self, indices)

    def whole_pass(self: RowFile, rows: int = 0) -> Any:
        raise AssertionError("flip_details read every row of a run")

    monkeypatch.setattr(RowFile, "lines", counted)
    monkeypatch.setattr(RowFile, "blocks", whole_pass)
    details = flip_details(c, limit=5)
    assert len(details) == 5
    assert sum(read) == sum((d.base_row is not None) + (d.cand_row is not None) for d in details)
    assert sum(read) <= 10 < len(base.rows)
