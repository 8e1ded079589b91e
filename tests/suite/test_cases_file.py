"""Suites of any size: cases in a JSON Lines file beside the suite (``cases_file``).

All inputs are hand-written (provenance: handwritten).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness._errors import RunFormatError, SuiteError
from harness.suite import StreamedCases, load_suite
from harness.testing import make_project
from tests.cli_helpers import run_cli

CASES = [
    {"id": "c1", "goal": "Refund a damaged order", "tags": ["refunds"]},
    {"id": "c2", "goal": "Ship a replacement", "task_count": {"min": 1, "max": 4}},
]


def _suite_with_file(tmp_path: Path, lines: str | bytes, **extra: Any) -> Path:
    """A suite whose cases live in ``evals/demo.cases.jsonl``."""
    path = make_project(tmp_path, cases=CASES)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["cases"]
    data["cases_file"] = "demo.cases.jsonl"
    data.update(extra)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    cases = path.parent / "demo.cases.jsonl"
    if isinstance(lines, str):
        cases.write_text(lines, encoding="utf-8")
    else:
        cases.write_bytes(lines)
    return path


def _jsonl(*cases: Any) -> str:
    return "".join((c if isinstance(c, str) else json.dumps(c)) + "\n" for c in cases)


class TestCasesFile:
    def test_same_suite_as_inline_cases(self, tmp_path: Path) -> None:
        """A cases file gives the suite the cases it would have had inline."""
        inline = load_suite(make_project(tmp_path / "a", cases=CASES))
        streamed = load_suite(_suite_with_file(tmp_path / "b", _jsonl(*CASES, "")))
        assert streamed.cases == inline.cases
        assert streamed.prompt_hash == inline.prompt_hash

    def test_kept_cases_are_the_cases_the_load_read(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """``keep_cases=True`` (``pytest --planeval``, which makes an item of every case):
        the same cases, held as a tuple, and the file is read once, not again when they are
        iterated."""
        import harness._size
        import harness.suite._cases_file as cases_file

        path = _suite_with_file(tmp_path, _jsonl(*CASES))
        streamed = tuple(load_suite(path).cases)
        opened: list[Path] = []
        real = harness._size.open_for_reading  # what the cases file module reads with

        def counting(where: Path) -> Any:
            opened.append(where)
            return real(where)

        monkeypatch.setattr(cases_file, "open_for_reading", counting)
        kept = load_suite(path, keep_cases=True)
        assert isinstance(kept.cases, tuple)
        assert kept.cases == streamed and list(kept.cases) == list(kept.cases)
        assert opened == [path.parent / "demo.cases.jsonl"]

    def test_a_pipe_nobody_writes_to_is_an_empty_cases_file(self, tmp_path: Path) -> None:
        """A named pipe as the cases file is read without waiting for a writer (it was a
        hang): it holds no case, one clear error. Run in a thread with a deadline, so a
        regression fails instead of hanging the suite."""
        import os
        import threading

        path = _suite_with_file(tmp_path, "")
        cases = path.parent / "demo.cases.jsonl"
        cases.unlink()
        os.mkfifo(cases)
        outcome: list[BaseException | None] = []

        def load() -> None:
            try:
                load_suite(path)
                outcome.append(None)
            except BaseException as exc:
                outcome.append(exc)

        worker = threading.Thread(target=load, daemon=True)
        worker.start()
        worker.join(timeout=30)
        if worker.is_alive():  # unblock the reader so the thread ends, then fail
            with open(os.open(cases, os.O_WRONLY | os.O_NONBLOCK), "wb"):
                pass
            pytest.fail("loading a suite whose cases file is a pipe hung")
        assert isinstance(outcome[0], SuiteError), outcome

    def test_no_size_limit_on_the_whole_file(self, tmp_path: Path) -> None:
        """The limit bounds each line (a case): a cases file far over it loads."""
        many = [{"id": f"case-{i:05d}", "goal": f"Goal number {i}"} for i in range(3000)]
        path = _suite_with_file(tmp_path, _jsonl(*many))
        assert (path.parent / "demo.cases.jsonl").stat().st_size > 100_000
        suite = load_suite(path, max_bytes=1000)
        assert len(suite.cases) == 3000

    @pytest.mark.parametrize(
        ("lines", "message", "location"),
        [
            # not JSON: the line is named
            (_jsonl(CASES[0], "{oops"), "not a JSON line", "line 2"),
            # a JSON value that is not an object
            (_jsonl(CASES[0], [1, 2]), "a case is a JSON object, got list", "line 2"),
            # breaks the case schema: the schema's words
            (_jsonl(CASES[0], "", {"id": "c3"}), "'goal' is a required property", "line 3"),
            # the same id twice
            (_jsonl(CASES[0], CASES[0]), "duplicate case id 'c1' (also at line 1)", "line 2"),
            # a band upside down
            (
                _jsonl({"id": "c", "goal": "g", "task_count": {"min": 5, "max": 2}}),
                "task_count min 5 is above max 2",
                "line 1",
            ),
            # nothing at all
            ("\n\n", "the cases file holds no case", None),
        ],
    )
    def test_a_bad_line_is_one_error_naming_it(
        self, tmp_path: Path, lines: str, message: str, location: str | None
    ) -> None:
        """Every problem is one SuiteError naming the cases file and the line."""
        path = _suite_with_file(tmp_path, lines)
        with pytest.raises(SuiteError) as caught:
            load_suite(path)
        assert message in caught.value.what
        assert caught.value.source == str(path.parent / "demo.cases.jsonl")
        assert caught.value.location == location

    def test_a_line_over_the_limit_is_refused_in_bounded_reads(self, tmp_path: Path) -> None:
        """A huge line is named with its size, not read whole."""
        path = _suite_with_file(tmp_path, _jsonl(CASES[0], {"id": "big", "goal": "x" * 5000}))
        with pytest.raises(SuiteError, match=r"the line is 4\.9 KiB, over the 2 KiB limit"):
            load_suite(path, max_bytes=2048)

    def test_missing_file(self, tmp_path: Path) -> None:
        path = _suite_with_file(tmp_path, _jsonl(*CASES))
        (path.parent / "demo.cases.jsonl").unlink()
        with pytest.raises(SuiteError, match="no such cases file"):
            load_suite(path)

    @pytest.mark.parametrize("both", [True, False])
    def test_cases_or_cases_file_not_both_nor_neither(self, tmp_path: Path, both: bool) -> None:
        """The suite says plainly which of the two keys it needs."""
        path = _suite_with_file(tmp_path, _jsonl(*CASES), **({"cases": CASES} if both else {}))
        if not both:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            del data["cases_file"]
            path.write_text(yaml.safe_dump(data), encoding="utf-8")
        with pytest.raises(SuiteError, match="not both" if both else "a suite needs 'cases'"):
            load_suite(path)

    def test_run_reads_the_cases_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``planeval run`` on such a suite runs every case of the file."""
        path = _suite_with_file(tmp_path, _jsonl(*CASES))
        result = run_cli(capsys, "run", str(path), "--out", str(tmp_path / "run"))
        rows = (tmp_path / "run" / "results.jsonl").read_text(encoding="utf-8").splitlines()
        assert sorted(json.loads(r)["case"] for r in rows) == ["c1", "c2"]
        assert result.code == 3  # no recordings: every row is missing, and the run says so


class TestStreamedRun:
    """A suite with a cases file is run from the file, one case at a time."""

    MODELS = (
        {"id": "first", "provider": "dataset"},
        {"id": "second", "provider": "dataset"},
    )

    def _pair(self, tmp_path: Path) -> tuple[Path, Path]:
        """The same suite twice: cases inline, and in a cases file; with recordings."""
        from harness.testing import sound_plan, write_response

        cases = [{"id": f"c{i}", "goal": f"Goal {i}", "tags": ["t"]} for i in range(7)]
        paths = []
        for name, inline in (("inline", True), ("file", False)):
            root = tmp_path / name
            path = make_project(root, models=self.MODELS, cases=cases, extra={"samples": 2})
            if not inline:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
                del data["cases"]
                data["cases_file"] = "demo.cases.jsonl"
                path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
                (path.parent / "demo.cases.jsonl").write_text(_jsonl(*cases), encoding="utf-8")
            for i in range(0, 7, 2):  # every other case answered, some badly
                for sample in range(2):
                    text = json.dumps(sound_plan()) if (i + sample) % 3 else "no plan"
                    write_response(root, "demo", "first", f"c{i}", text, sample=sample)
            paths.append(path)
        return paths[0], paths[1]

    @staticmethod
    def _rows(run: Path) -> list[dict[str, Any]]:
        rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
        for row in rows:
            row.pop("latency_ms", None)
        return rows

    @pytest.mark.parametrize("shard", [None, "2/3"])
    def test_same_rows_and_output_as_inline_cases(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], shard: str | None
    ) -> None:
        """Rows, prompts.json, run.json's counts, the printed table and the exit code are
        those of the same suite with its cases inline (whole run and a shard)."""
        inline, streamed = self._pair(tmp_path)
        assert isinstance(load_suite(streamed).cases, StreamedCases)
        outputs = []
        for path in (inline, streamed):
            run = path.parent.parent / "run"
            extra = ["--shard", shard] if shard else []
            result = run_cli(capsys, "run", str(path), "--out", str(run), *extra)
            manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
            outputs.append(
                (
                    result.code,
                    # compared without whitespace: a long temporary path wraps where its length says
                    _folded(result.out).replace(str(run), "RUN"),
                    _folded(result.err).replace(str(run), "RUN").replace(str(path), "SUITE"),
                    self._rows(run),
                    (run / "prompts.json").read_text(encoding="utf-8"),
                    manifest["counts"],
                    manifest["cases"],
                    manifest.get("case_ids"),
                )
            )
        assert outputs[0] == outputs[1]
        assert outputs[1][0] == 3  # unanswered cases are missing
        assert len(outputs[1][3]) == (9 if shard else 28)

    def test_a_cases_file_changed_after_the_load_is_refused(self, tmp_path: Path) -> None:
        """The run reads the file again: a file rewritten since the load (whose checks no
        longer hold for it) is one clear error, before any run folder is made."""
        from harness.run import run_suite

        _inline, path = self._pair(tmp_path)
        suite = load_suite(path)
        assert len(suite.cases) == 7
        assert [c.id for c in suite.cases] == [f"c{i}" for i in range(7)]
        (path.parent / "demo.cases.jsonl").write_text(_jsonl(*CASES, *CASES), encoding="utf-8")
        with pytest.raises(SuiteError, match="changed after the suite was loaded"):
            run_suite(suite, out=tmp_path / "run")
        assert not (tmp_path / "run").exists()

    @pytest.mark.parametrize("after", [1, 4], ids=["before-prompts", "during-rows"])
    @pytest.mark.parametrize("mode", ["none", "once"])
    def test_a_cases_file_changed_during_the_run_leaves_it_interrupted(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, after: int
    ) -> None:
        """A cases file rewritten after the check at the run's start (1: before prompts.json
        is written; 4: once the first model's walk began, rows are being written) stops the
        run with the SuiteError (replay and live), and run.json says interrupted, with no
        finish time and the counts of the rows written: nothing looks complete."""
        from harness.gate import completeness
        from harness.report import load_run
        from harness.run import run_suite

        _inline, path = self._pair(tmp_path)
        suite = load_suite(path)
        cases_file = path.parent / "demo.cases.jsonl"
        check = StreamedCases.check_unchanged
        calls = []

        def check_then_rewrite(cases: StreamedCases) -> None:
            check(cases)
            calls.append(None)
            if len(calls) == after:
                cases_file.write_text(_jsonl(*CASES[:3]), encoding="utf-8")

        monkeypatch.setattr(StreamedCases, "check_unchanged", check_then_rewrite)
        with pytest.raises(SuiteError, match="changed after the suite was loaded"):
            run_suite(suite, out=tmp_path / "run", record_mode=mode)
        manifest = json.loads((tmp_path / "run" / "run.json").read_text())
        assert manifest["interrupted"] is True and manifest["finished_at"] is None
        results = tmp_path / "run" / "results.jsonl"
        written = len(results.read_text().splitlines()) if results.exists() else 0
        assert written < 28 and sum(manifest["counts"].values()) == written
        if not written:  # stopped before any row: no run to judge at all
            with pytest.raises(RunFormatError, match=r"results\.jsonl"):
                load_run(tmp_path / "run")
            return
        state = completeness(load_run(tmp_path / "run"))
        assert state.interrupted and not state.complete

    def test_indexing_reads_up_to_the_case(self, tmp_path: Path) -> None:
        """``suite.cases[i]`` and slices give what a tuple of the cases gives."""
        _inline, path = self._pair(tmp_path)
        cases = load_suite(path).cases
        whole = tuple(cases)
        assert cases[3] == whole[3] and cases[-1] == whole[-1] and cases[1:4] == whole[1:4]
        with pytest.raises(IndexError):
            cases[7]


def _folded(text: str) -> str:
    """``text`` without its whitespace: where a line wraps depends on how long the temporary
    path is, and a path can wrap in its middle (paths here hold no spaces)."""
    return "".join(text.split())
