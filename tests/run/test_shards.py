"""Shards: deterministic balanced slices, recordings that never collide, and `merge`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness.report import load_run
from harness.run import Shard, merge_runs, parse_shard, run_suite
from harness.suite import load_suite
from harness.testing import FakePlannerServer, make_project

PLANNER = Path(__file__).parent / "data" / "planner.py"
KEY = {"OPENAI_API_KEY": "sk-test"}


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=KEY)
    return result.exit_code, result.stdout, result.stderr


def _rows(run_dir: Path) -> list[dict[str, object]]:
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _project(tmp_path: Path, server: FakePlannerServer | None = None) -> Path:
    models: list[dict[str, object]] = [
        {"id": "script", "provider": "command", "command": f"{sys.executable} {PLANNER}"}
    ]
    if server is not None:
        models.append(
            {
                "id": "gpt",
                "provider": "openai",
                "model": "gpt-fake",
                "base_url": server.openai_base_url,
            }
        )
    cases = [{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(7)]
    cases.append({"id": "bad", "goal": "ramble on"})
    return make_project(tmp_path, models=models, cases=cases, extra={"samples": 2})


class TestShard:
    def test_balanced_disjoint_and_complete(self) -> None:
        """Every item in exactly one shard; sizes differ by at most one."""
        items = list(range(100))
        parts = [Shard(i, 7).select(items) for i in range(1, 8)]
        assert sorted(x for part in parts for x in part) == items
        assert max(map(len, parts)) - min(map(len, parts)) <= 1

    @pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "2"])
    def test_bad_specs(self, text: str) -> None:
        """Anything but i/n with 1 <= i <= n is refused with the --shard spelling."""
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(text)


class TestMergeEqualsSingleRun:
    def test_three_shards_merged_equal_one_run_row_for_row(self, tmp_path: Path) -> None:
        """Shards 1/3, 2/3, 3/3 merged give the single run's rows, in its order."""
        path = _project(tmp_path)
        code, _, err = _cli("run", str(path), "--live", "--out", str(tmp_path / "recorded"))
        assert code == 1, err  # the rambling case is unparseable
        suite = load_suite(path)
        single = run_suite(suite, out=tmp_path / "single")
        shards = [
            run_suite(suite, out=tmp_path / f"shard{i}", shard=Shard(i, 3)) for i in (1, 2, 3)
        ]
        assert sorted(len(s.rows) for s in shards) == [5, 5, 6]
        merged = merge_runs([s.run_dir for s in reversed(shards)], tmp_path / "merged")
        strip = lambda rows: rows  # noqa: E731 - replayed rows are equal byte for byte
        assert strip(_rows(merged.run_dir)) == strip(_rows(single.run_dir))
        manifest = json.loads((merged.run_dir / "run.json").read_text())
        assert manifest["counts"] == single.manifest.counts
        assert manifest["shard"] is None and len(manifest["merged_from"]) == 3
        assert load_run(merged.run_dir).manifest.counts == single.manifest.counts
        code, _, err = _cli("gate", str(merged.run_dir), "--min-pass-rate", "0.5")
        assert code == 0, err  # the gate reads the merged run like any run

    def test_live_shards_write_disjoint_recordings(
        self, tmp_path: Path, server: FakePlannerServer
    ) -> None:
        """Three live shards record every sample exactly once between them."""
        path = _project(tmp_path, server)
        written: list[set[str]] = []
        for i in (1, 2, 3):
            out = tmp_path / f"s{i}"
            code, _, err = _cli("run", str(path), "--live", "--shard", f"{i}/3", "--out", str(out))
            assert code in (0, 1), err  # 1: a shard holding the rambling case
            written.append({str(r["recording"]) for r in _rows(out) if r["recording"]})
        assert not (written[0] & written[1]) and not (written[1] & written[2])
        assert not (written[0] & written[2])
        assert sum(map(len, written)) == 2 * 8 * 2
        assert len(server.requests) == 8 * 2  # the openai model's samples, once each
        code, out, err = _cli(
            "merge", *(str(tmp_path / f"s{i}") for i in (3, 1, 2)), "--out", str(tmp_path / "m")
        )
        assert code == 0, err and "merged 32 rows from 3 run(s)" in out
        replay = run_suite(load_suite(path), out=tmp_path / "replay")
        merged = _rows(tmp_path / "m")
        assert [(r["model"], r["case"], r["sample"], r["status"]) for r in merged] == [
            (r.model, r.case, r.sample, r.status) for r in replay.rows
        ]


class TestMergeRefusals:
    @pytest.fixture
    def shards(self, tmp_path: Path) -> tuple[Path, list[Path]]:
        path = _project(tmp_path)
        _cli("run", str(path), "--live", "--out", str(tmp_path / "recorded"))
        suite = load_suite(path)
        dirs = [
            run_suite(suite, out=tmp_path / f"shard{i}", shard=Shard(i, 3)).run_dir
            for i in (1, 2, 3)
        ]
        return path, dirs

    def test_missing_shard_is_named(self, tmp_path: Path, shards: tuple[Path, list[Path]]) -> None:
        """Two of three shards: exit 2 naming 2/3 and the command that makes it."""
        _, dirs = shards
        code, _, err = _cli("merge", str(dirs[0]), str(dirs[2]), "--out", str(tmp_path / "m"))
        assert code == 2 and "shard(s) 2/3 missing" in err and "--shard 2/3" in err
        assert not (tmp_path / "m").exists()

    def test_overlap_is_refused(self, tmp_path: Path, shards: tuple[Path, list[Path]]) -> None:
        """The same shard twice, or a full run with a shard, overlaps."""
        path, dirs = shards
        code, _, err = _cli("merge", *map(str, dirs), str(dirs[1]), "--out", str(tmp_path / "m"))
        assert code == 2 and "overlap: shard 2/3 is given twice" in err
        full = run_suite(load_suite(path), out=tmp_path / "full").run_dir
        other = run_suite(load_suite(path), out=tmp_path / "full2").run_dir
        code, _, err = _cli("merge", str(full), str(other), "--out", str(tmp_path / "m"))
        assert code == 2 and "overlap: case" in err

    def test_other_prompt_is_refused(self, tmp_path: Path, shards: tuple[Path, list[Path]]) -> None:
        """A shard made under another prompt cannot join."""
        path, dirs = shards
        prompt = path.parent / "demo.prompt.md"
        prompt.write_text(prompt.read_text() + "\nBe brief.\n")
        again = run_suite(load_suite(path), out=tmp_path / "again", shard=Shard(3, 3)).run_dir
        code, _, err = _cli("merge", str(dirs[0]), str(dirs[1]), str(again))
        assert code == 2 and "different prompt" in err

    def test_other_suite_is_refused(self, tmp_path: Path, shards: tuple[Path, list[Path]]) -> None:
        """Runs of two suites are refused, naming both."""
        _, dirs = shards
        other = _project(tmp_path / "other")
        text = other.read_text().replace("suite: demo", "suite: other")
        other.write_text(text)
        run = run_suite(load_suite(other), out=tmp_path / "o", shard=Shard(3, 3)).run_dir
        code, _, err = _cli("merge", str(dirs[0]), str(dirs[1]), str(run))
        assert code == 2 and "different suite" in err

    def test_a_deleted_row_is_refused_with_the_item(
        self, tmp_path: Path, shards: tuple[Path, list[Path]]
    ) -> None:
        """A shard's row deleted: the merge lacks one (model, case, sample) item; exit 2 with
        the item named and nothing written; --allow-partial writes it, run.json says so, and
        gate and baseline refuse it (exit 3)."""
        _, dirs = shards
        lines = (dirs[1] / "results.jsonl").read_text().splitlines(keepends=True)
        gone = json.loads(lines[0])
        (dirs[1] / "results.jsonl").write_text("".join(lines[1:]))
        out = tmp_path / "m"
        code, _, err = _cli("merge", *map(str, dirs), "--out", str(out))
        item = f"{gone['model']} / {gone['case']} / sample {gone['sample']}"
        assert code == 2 and "of 16 (model, case, sample) items: 1 missing" in err, err
        assert item in err and "--allow-partial" in err
        assert not out.exists()
        code, _, err = _cli("merge", *map(str, dirs), "--out", str(out), "--allow-partial")
        assert code == 0 and "a partial merge (1 items missing, 0 foreign)" in err
        manifest = json.loads((out / "run.json").read_text())
        assert manifest["partial"] == {"missing": 1, "foreign": 0}
        for args in (["gate", str(out)], ["baseline", str(out), "--out", str(tmp_path / "b.json")]):
            code, _, err = _cli(*args)
            assert code == 3, (args, err)
            assert "merged with --allow-partial (1 missing, 0 foreign items)" in err
        assert not (tmp_path / "b.json").exists()

    def test_an_unmerged_shard_is_never_a_baseline(
        self, tmp_path: Path, shards: tuple[Path, list[Path]]
    ) -> None:
        """Shard 1/3 alone: baseline and gate refuse it (exit 3) and say to merge the shards;
        it used to pass `gate --min-pass-rate 0` and become a baseline of a third of the
        suite."""
        _, dirs = shards
        out = tmp_path / "b.json"
        code, _, err = _cli("baseline", str(dirs[0]), "--out", str(out))
        assert code == 3 and "the run is shard 1/3 of its suite" in err
        assert "planeval merge" in err and not out.exists()
        code, _, err = _cli("gate", str(dirs[0]), "--min-pass-rate", "0")
        assert code == 3 and "shard 1/3" in err
