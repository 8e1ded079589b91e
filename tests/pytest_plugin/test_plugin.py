"""``pytest --planeval evals/``: suites as test items, on small hand-written suites."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

# Imported here so that pytester's in-process runs (which drop the modules they import) do not
# import the runner and its dependencies again for every test.
import harness.run
import harness.suite  # noqa: F401
from harness.recording import Provenance, ResponseFile, prompt_hash

pytest_plugins = ["pytester"]

TEMPLATE = "Plan this goal as JSON tasks.\n\nGoal: {goal}\n"
GOOD = {"tasks": [{"id": "a", "description": "Fetch"},
                  {"id": "b", "description": "Use", "depends_on": ["a"]}]}  # fmt: skip
CYCLE = {"tasks": [{"id": "a", "description": "Chicken", "depends_on": ["b"]},
                   {"id": "b", "description": "Egg", "depends_on": ["a"]}]}  # fmt: skip
SUITE = """\
suite: demo
description: Hand-written cases for the pytest plugin tests
prompt: prompts/demo.md
plan_format: auto
samples: 1
models:
  - {id: handmade, provider: command, command: "cat"}
cases:
  - {id: good, goal: "Fetch and use", tags: [smoke]}
  - {id: cycle, goal: "Chicken and egg"}
  - {id: junk, goal: "Say something"}
  - {id: nothing, goal: "Never recorded"}
  - {id: old, goal: "Recorded under another prompt"}
"""


QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:benchmark")
"""Plugins the inner runs do without: hypothesis's costs seconds per in-process run, and a
pytest-benchmark installed beside us warns (an error here) when xdist is active."""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*QUIET, *args)


def _record(root: Path, suite: str, model: str, case: str, answer: str, *, digest: str) -> None:
    ResponseFile(
        provenance=Provenance(
            source="handwritten",
            model=model,
            prompt_hash=digest,
            recorded_at="2026-11-29T00:00:00Z",
            harness_version="test",
        ),
        response=answer,
    ).write(root / "plan_fixtures" / suite / model / case / "sample-0.json")


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A project with one suite: a passing, a failing, an unparseable, a missing and a stale
    case (all recordings hand-written)."""
    root = pytester.path
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "evals" / "prompts").mkdir(parents=True)
    (root / "evals" / "prompts" / "demo.md").write_text(TEMPLATE)
    (root / "evals" / "demo.yaml").write_text(SUITE)
    (root / "evals" / "registry.yaml").write_text("capabilities: [{name: fetch}]\n")
    digest = prompt_hash(TEMPLATE)
    _record(root, "demo", "handmade", "good", json.dumps(GOOD), digest=digest)
    _record(root, "demo", "handmade", "cycle", json.dumps(CYCLE), digest=digest)
    _record(root, "demo", "handmade", "junk", "I would rather not plan.", digest=digest)
    _record(root, "demo", "handmade", "old", json.dumps(GOOD), digest=prompt_hash("older"))
    return root


class TestCollection:
    def test_items_have_readable_ids(self, pytester: pytest.Pytester, project: Path) -> None:
        """One item per case x model x sample, named suite-file::case[model-sN]."""
        result = _run(pytester, "--planeval", "evals/", "--collect-only", "-q")
        ids = [line for line in result.outlines if "::" in line]
        assert ids == [
            "evals/demo.yaml::good[handmade-s0]",
            "evals/demo.yaml::cycle[handmade-s0]",
            "evals/demo.yaml::junk[handmade-s0]",
            "evals/demo.yaml::nothing[handmade-s0]",
            "evals/demo.yaml::old[handmade-s0]",
        ]

    def test_samples_multiply_items(self, pytester: pytest.Pytester, project: Path) -> None:
        """samples: 2 gives s0 and s1 for each case and model."""
        suite = project / "evals" / "demo.yaml"
        suite.write_text(suite.read_text().replace("samples: 1", "samples: 2"))
        result = _run(pytester, "--planeval", "evals/", "--collect-only", "-q", "-k", "good")
        assert [x for x in result.outlines if "::" in x] == [
            "evals/demo.yaml::good[handmade-s0]",
            "evals/demo.yaml::good[handmade-s1]",
        ]

    def test_nothing_is_collected_without_the_flag(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """Installing planeval changes no other test run: YAML is ignored without --planeval."""
        result = _run(pytester, "evals/")
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED

    def test_malformed_suite_is_one_line(self, pytester: pytest.Pytester, project: Path) -> None:
        """A suite the loader refuses is a collection error with its one-line reason."""
        (project / "evals" / "broken.yaml").write_text("suite: broken\nprompt: nope.md\n")
        result = _run(pytester, "--planeval", "evals/broken.yaml")
        assert result.ret == pytest.ExitCode.INTERRUPTED
        result.stdout.fnmatch_lines(["*broken.yaml*"])
        assert "Traceback" not in result.stdout.str()


class TestOutcomes:
    def test_statuses_map_to_pass_fail_and_error(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """pass passes; fail and unparseable fail; missing and stale are errors."""
        result = _run(pytester, "--planeval", "evals/")
        result.assert_outcomes(passed=1, failed=2, errors=2)
        assert result.ret == pytest.ExitCode.TESTS_FAILED

    def test_failure_lists_the_violations(self, pytester: pytest.Pytester, project: Path) -> None:
        """A failing item's message names each violation's check and says what is wrong."""
        result = _run(pytester, "--planeval", "evals/", "-k", "cycle")
        result.assert_outcomes(failed=1)
        text = result.stdout.str()
        assert "acyclic (error)" in text
        assert "violation(s) of error severity" in text
        assert "Traceback" not in text and "def runtest" not in text

    def test_unparseable_says_no_plan(self, pytester: pytest.Pytester, project: Path) -> None:
        """An answer without a plan fails and says so."""
        result = _run(pytester, "--planeval", "evals/", "-k", "junk")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*unparseable: no plan in the answer*"])

    def test_missing_is_an_error_with_the_rerecord_command(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """A missing recording is an error (not a failure) that gives the exact command."""
        result = _run(pytester, "--planeval", "evals/", "-k", "nothing")
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(
            [
                "*missing recording for nothing x handmade sample 0*",
                "*re-record with: planeval run evals/demo.yaml --record-mode new_episodes "
                "--model handmade",
            ]
        )
        assert "def setup" not in result.stdout.str()

    def test_stale_is_an_error(self, pytester: pytest.Pytester, project: Path) -> None:
        """A recording made under another prompt is an error, with the command."""
        result = _run(pytester, "--planeval", "evals/", "-k", "old")
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(["*stale recording for old x handmade*", "*re-record with:*"])

    def test_dataset_models_cannot_be_rerecorded(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """For imported data the message says to re-import instead of a run command."""
        suite = project / "evals" / "demo.yaml"
        suite.write_text(
            suite.read_text().replace(
                '{id: handmade, provider: command, command: "cat"}',
                "{id: handmade, provider: dataset}",
            )
        )
        result = _run(pytester, "--planeval", "evals/", "-k", "nothing")
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(["*cannot be re-recorded; re-import it*"])

    def test_pass_rates_are_summed_up(self, pytester: pytest.Pytester, project: Path) -> None:
        """The session ends with the pass rate per suite and model, counted as planeval run
        counts (unparseable is a failure; missing and stale are shown apart)."""
        result = _run(pytester, "--planeval", "evals/")
        result.stdout.fnmatch_lines(
            [
                "*planeval pass rates*",
                "demo x handmade: 1/3 pass (33%); unparseable 1, missing 1, stale 1",
            ]
        )


class TestPytestFeatures:
    def test_k_selects_by_tag_and_name(self, pytester: pytest.Pytester, project: Path) -> None:
        """-k matches the case id and the case's tags."""
        _run(pytester, "--planeval", "evals/", "-k", "smoke").assert_outcomes(passed=1)
        _run(pytester, "--planeval", "evals/", "-k", "good or cycle").assert_outcomes(
            passed=1, failed=1
        )

    def test_x_stops_at_the_first_failure(self, pytester: pytest.Pytester, project: Path) -> None:
        """-x stops after the first failing item."""
        result = _run(pytester, "--planeval", "evals/", "-x")
        result.assert_outcomes(passed=1, failed=1)

    def test_junitxml_carries_failures_and_errors(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """--junitxml: failures hold the violations, errors the re-record command."""
        _run(pytester, "--planeval", "evals/", "--junitxml=out.xml")
        tree = ET.parse(project / "out.xml")
        cases = {c.get("name"): c for c in tree.iter("testcase")}
        assert set(cases) == {
            "good[handmade-s0]", "cycle[handmade-s0]", "junk[handmade-s0]",
            "nothing[handmade-s0]", "old[handmade-s0]",
        }  # fmt: skip
        failure = cases["cycle[handmade-s0]"].find("failure")
        assert failure is not None and "acyclic" in (failure.text or "")
        error = cases["nothing[handmade-s0]"].find("error")
        assert error is not None and "re-record with: planeval run" in (error.text or "")
        props = {p.get("name"): p.get("value") for p in cases["good[handmade-s0]"].iter("property")}
        assert props["planeval_status"] == "pass"

    def test_xdist_gives_the_same_outcomes(self, pytester: pytest.Pytester, project: Path) -> None:
        """pytest-xdist (-n 2) collects the same items on every worker and runs them."""
        result = pytester.runpytest_subprocess(
            *QUIET, "--planeval", "evals/", "-n", "2", "-p", "xdist"
        )
        result.assert_outcomes(passed=1, failed=2, errors=2)
        result.stdout.fnmatch_lines(["*re-record with: planeval run evals/demo.yaml*"])
        result.stdout.fnmatch_lines(["demo x handmade: 1/3 pass (33%); *"])


class TestRecordMode:
    def test_record_mode_once_records_the_missing_sample(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """--planeval-record-mode once calls the planner for the missing case and records it;
        the default mode then replays that recording."""
        planner = project / "planner.py"
        planner.write_text(f"import sys\nsys.stdin.read()\nprint({json.dumps(GOOD)!r})\n")
        suite = project / "evals" / "demo.yaml"
        command = shlex.join([sys.executable, str(planner)])
        suite.write_text(suite.read_text().replace('command: "cat"', f"command: {command!r}"))
        recorded = _run(pytester, "--planeval", "evals/", "-k", "nothing",
                        "--planeval-record-mode", "once")  # fmt: skip
        recorded.assert_outcomes(passed=1)
        assert (project / "plan_fixtures/demo/handmade/nothing/sample-0.json").is_file()
        _run(pytester, "--planeval", "evals/", "-k", "nothing").assert_outcomes(passed=1)

    def test_fixtures_folder_option(self, pytester: pytest.Pytester, project: Path) -> None:
        """--planeval-fixtures replays from another folder, and the hint passes it on."""
        shutil.move(project / "plan_fixtures", project / "elsewhere")
        result = _run(pytester, "--planeval", "evals/", "--planeval-fixtures", "elsewhere")
        result.assert_outcomes(passed=1, failed=2, errors=2)
        result.stdout.fnmatch_lines(["*--model handmade --fixtures elsewhere"])


class TestCost:
    def test_items_are_judged_without_scoring_the_references(
        self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An item passes or fails on the checks alone, so the researcher metrics (half of an
        item's grading on the WorfBench plans) are not computed: a suite whose cases carry
        reference plans gives the same outcomes, and no metric is scored."""
        import harness.run._metrics
        from tests.metrics.project import metric_run

        scored: list[str] = []
        real = harness.run._metrics.metric_columns

        def counting(suite: object, case: object, answer: str) -> dict[str, object]:
            scored.append(answer)
            return real(suite, case, answer)  # type: ignore[arg-type]

        run = metric_run(pytester.path, weaker=True)  # the boxes project: references in all
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        assert sum(r["metric_status"] == "scored" for r in rows) == 19  # `run` scores them
        monkeypatch.setattr(harness.run._metrics, "metric_columns", counting)
        result = _run(pytester, "--planeval", "evals/")
        result.assert_outcomes(passed=19, failed=1)  # c19's answer is prose
        assert scored == []

    def test_items_are_judged_without_keeping_the_plan(
        self, pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """No item shows its parsed plan, so none is turned into the row's ``plan`` dict (what
        ``planeval run`` writes into results.jsonl): the outcomes are the same without it."""
        from harness.plan import Plan

        dumped: list[object] = []
        real = Plan.to_dict

        def counting(plan: Plan) -> dict[str, object]:
            dumped.append(plan)
            return real(plan)

        monkeypatch.setattr(Plan, "to_dict", counting)
        result = _run(pytester, "--planeval", "evals/")
        result.assert_outcomes(passed=1, failed=2, errors=2)
        assert dumped == []

    def test_a_cases_file_is_read_once_for_the_items(
        self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A suite whose cases are in a cases file (every imported suite) becomes its items
        from the one read that loads and checks it, not from a second read of the file."""
        import harness._size
        import harness.suite._cases_file as cases_file
        from harness.testing import make_project, sound_plan, write_response

        cases = [{"id": f"c{i}", "goal": f"Refund order {i}"} for i in range(3)]
        suite = make_project(pytester.path, cases=cases)
        doc = yaml.safe_load(suite.read_text(encoding="utf-8"))
        del doc["cases"]
        doc["cases_file"] = "demo.cases.jsonl"
        suite.write_text(yaml.safe_dump(doc), encoding="utf-8")
        lines = "".join(json.dumps(c) + "\n" for c in cases)
        (suite.parent / "demo.cases.jsonl").write_text(lines, encoding="utf-8")
        for case in cases:
            write_response(pytester.path, "demo", "planner", case["id"], json.dumps(sound_plan()))
        opened: list[object] = []
        real = harness._size.open_for_reading  # what the cases file module reads with

        def counting(where: Path) -> object:
            opened.append(where)
            return real(where)

        monkeypatch.setattr(cases_file, "open_for_reading", counting)
        _run(pytester, "--planeval", "evals/").assert_outcomes(passed=3)
        assert len(opened) == 1

    def test_collected_items_are_kept_out_of_gc_scans_during_the_session(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """With --planeval, what collection built is frozen (``gc.freeze``) while the items
        run and still while pytest unconfigures (its end-of-session full collections skip
        it), and given back to the collector before ``pytest.main`` returns; without it,
        nothing is."""
        import gc

        pytester.makeconftest(
            """
            import gc
            FROZEN = []
            AT_UNCONFIGURE = []

            def pytest_runtest_setup(item):
                FROZEN.append(gc.get_freeze_count())

            def pytest_unconfigure(config):
                AT_UNCONFIGURE.append(gc.get_freeze_count())
            """
        )
        pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
        conftests: list[object] = []

        class Keep:
            def pytest_plugin_registered(self, plugin: object) -> None:
                if getattr(plugin, "FROZEN", None) is not None:
                    conftests.append(plugin)

        result = pytester.runpytest(
            *QUIET, "--planeval", "evals/", "test_plain.py", plugins=[Keep()]
        )
        result.assert_outcomes(passed=2, failed=2, errors=2)
        frozen = conftests[0].FROZEN  # type: ignore[attr-defined]
        assert len(frozen) == 6 and min(frozen) > 1000  # every item ran with the session frozen
        assert conftests[0].AT_UNCONFIGURE[0] > 1000  # type: ignore[attr-defined]
        assert gc.get_freeze_count() == 0  # given back at the end

        conftests.clear()
        pytester.runpytest(*QUIET, "test_plain.py", plugins=[Keep()]).assert_outcomes(passed=1)
        assert conftests[0].FROZEN == [0]  # type: ignore[attr-defined]

    def test_freezing_the_collection_does_not_walk_every_import_again(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """The freeze at the end of collection collects the young generations only: a full
        collection there walked every module imported so far once more for nothing."""
        pytester.makeconftest(
            """
            import gc
            import pytest
            GENERATIONS = []

            def _seen(phase, info):
                if phase == "start":
                    GENERATIONS.append(info["generation"])

            @pytest.hookimpl(tryfirst=True)
            def pytest_collection_finish(session):
                gc.callbacks.append(_seen)

            def pytest_runtest_setup(item):
                if _seen in gc.callbacks:
                    gc.callbacks.remove(_seen)
            """
        )
        conftests: list[object] = []

        class Keep:
            def pytest_plugin_registered(self, plugin: object) -> None:
                if getattr(plugin, "GENERATIONS", None) is not None:
                    conftests.append(plugin)

        result = pytester.runpytest(*QUIET, "--planeval", "evals/", plugins=[Keep()])
        result.assert_outcomes(passed=1, failed=2, errors=2)
        generations = conftests[0].GENERATIONS  # type: ignore[attr-defined]
        assert generations and max(generations) < 2


class TestImports:
    def test_a_replay_imports_no_cassette_http_or_live_machinery(
        self, pytester: pytest.Pytester, project: Path
    ) -> None:
        """Replaying response files loads neither the cassette machinery (vcrpy's glue, gzip,
        ssl), the HTTP providers and their SDKs, nor the live run's controls; a fresh process,
        as a user runs it."""
        heavy = (
            "vcr",
            "httpx",
            "openai",
            "anthropic",
            "harness.recording._cassette",
            "harness.providers._http",
            "harness.providers._command",
            "harness.providers._retry",
            "harness.run._live",
        )
        pytester.makeconftest(
            f"""
            import sys

            def pytest_unconfigure(config):
                heavy = {heavy!r}
                loaded = sorted(m for m in sys.modules if m.startswith(heavy))
                with open("imported.txt", "w") as fh:
                    fh.write(" ".join(loaded))
            """
        )
        result = pytester.runpytest_subprocess(*QUIET, "--planeval", "evals/")
        result.assert_outcomes(passed=1, failed=2, errors=2)
        assert (pytester.path / "imported.txt").read_text() == ""
