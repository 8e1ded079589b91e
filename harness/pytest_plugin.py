"""pytest plugin: eval suites as test items.

``pytest --planeval evals/`` collects every suite file under the given paths and turns each
case x model x sample into one test item, ``evals/x.yaml::case-id[model-id-s0]``. An item
replays its recording (``harness.run.evaluate_one``, record mode ``none`` unless
``--planeval-record-mode`` says otherwise) and:

* passes when the plan passes the structural checks;
* fails when an error-severity check fails or the answer holds no plan, with the violations
  as the failure message;
* is an *error*, not a failure, when the recording is missing or stale or the provider failed:
  nothing is known about the plan then, and the message gives the command that re-records it.

Without ``--planeval`` the plugin collects nothing, so installing planeval changes no other
test run. Registered through the ``pytest11`` entry point ``planeval``.
"""

from __future__ import annotations

import gc
import re
import shlex
from collections import Counter, defaultdict
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from harness.run import ResultRow
    from harness.suite import Case, ModelSpec, Suite

__all__ = ["PassRates", "PlanFailure", "RecordingProblem", "SuiteFile", "SuiteItem"]

RECORD_MODES = ("none", "once", "new_episodes", "all")
_SUITE_KEY = re.compile(r"^suite:[ \t]*\S", re.MULTILINE)
_PROBLEMS = ("missing", "stale", "error")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("planeval", "planeval eval suites")
    group.addoption(
        "--planeval",
        action="store_true",
        default=False,
        help="collect eval suites (YAML files with a 'suite:' key) under the given paths: "
        "one test per case x model x sample",
    )
    group.addoption(
        "--planeval-record-mode",
        choices=RECORD_MODES,
        default="none",
        help="none (default: replay only, never the network), once, new_episodes or all",
    )
    group.addoption(
        "--planeval-fixtures",
        default=None,
        metavar="DIR",
        help="recordings folder (default: plan_fixtures/ of the suite's project)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("planeval", default=False):
        config.pluginmanager.register(PassRates(), "planeval-pass-rates")
        config.pluginmanager.register(FrozenCollection(config), "planeval-frozen-collection")


class FrozenCollection:
    """Keeps what collection built out of the cyclic garbage collector's scans until the
    session's last cleanup.

    The suites, their cases and one item per case x model x sample live for the whole session;
    every full collection during the run would walk them all again (measured: about 18% of the
    plugin's CPU on the 1,192 WorfBench items). ``gc.freeze`` after a collection of the young
    generations moves the survivors to the permanent generation. They are given back
    (``gc.unfreeze``) by a cleanup registered at configure time, before pytest's own: pytest's
    cleanups run last-in first-out, so its two full collections at the end of the session
    (``unraisableexception``) still skip them, and nothing stays frozen once ``pytest.main``
    returns.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.frozen = False
        config.add_cleanup(self.unfreeze)

    def pytest_collection_finish(self) -> None:
        from harness._gc import freeze_survivors

        # The young generations only: what collection built is there, while the oldest holds
        # every module imported so far, which a full collection would walk once more for
        # nothing (about 25 ms of CPU; its few cycles of garbage go after the unfreeze).
        freeze_survivors(1)
        self.frozen = True

    def unfreeze(self) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not parent.config.getoption("planeval"):
        return None
    if file_path.suffix not in (".yaml", ".yml") or not _is_suite(file_path):
        return None
    collector: SuiteFile = SuiteFile.from_parent(parent, path=file_path)
    return collector


def _is_suite(path: Path) -> bool:
    """A suite file has a top-level ``suite:`` key (registries and other YAML do not)."""
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        return False
    return _SUITE_KEY.search(head) is not None


class SuiteFile(pytest.File):
    """One suite file: its items are the suite's case x model x sample."""

    def collect(self) -> Iterator[SuiteItem]:
        from harness.suite import load_suite

        suite = load_suite(self.path, keep_cases=True)  # every case becomes an item anyway
        for case in suite.cases:
            for model in suite.models:
                for sample in range(suite.samples):
                    yield SuiteItem.from_parent(
                        self,
                        name=f"{case.id}[{model.id}-s{sample}]",
                        suite=suite,
                        case=case,
                        model=model,
                        sample=sample,
                    )

    def repr_failure(  # type: ignore[override]  # Collector drops Node's ``style``
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> Any:
        from harness._errors import InputError

        if isinstance(excinfo.value, InputError):
            return excinfo.value.one_line()  # a malformed suite: one line, not a traceback
        return super().repr_failure(excinfo)


class SuiteItem(pytest.Item):
    """One case x model x sample of a suite."""

    def __init__(
        self,
        *,
        suite: Suite,
        case: Case,
        model: ModelSpec,
        sample: int,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case
        self.model = model
        self.sample = sample
        self.row: ResultRow | None = None
        # -k matches tags and the model id as well as the item's name.
        self.extra_keyword_matches.update({*case.tags, model.id})

    def setup(self) -> None:
        from harness._errors import InputError
        from harness.run import evaluate_one

        config = self.config
        fixtures = config.getoption("planeval_fixtures")
        self.user_properties += [
            ("planeval_suite", self.suite.name),
            ("planeval_model", self.model.id),
        ]
        try:
            row = evaluate_one(
                self.suite,
                self.case,
                self.model,
                self.sample,
                record_mode=config.getoption("planeval_record_mode"),
                fixtures=Path(fixtures) if fixtures else None,
                metrics=False,  # an item passes or fails on the checks; no score is shown
                keep_plan=False,  # nor is the parsed plan
            )
        except InputError as exc:  # live mode without an SDK, key or command
            self.user_properties.append(("planeval_status", "error"))
            raise RecordingProblem(exc.one_line()) from None
        self.row = row
        self.user_properties.append(("planeval_status", row.status))
        if row.recording:
            self.user_properties.append(("planeval_recording", row.recording))
        if row.status in _PROBLEMS:
            raise RecordingProblem(self._describe_problem(row))

    def runtest(self) -> None:
        row = self.row
        assert row is not None, "setup did not run"
        if row.status not in ("pass",):
            raise PlanFailure(_describe_failure(row))

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        if isinstance(excinfo.value, PlanFailure | RecordingProblem):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def _repr_failure_py(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        # pytest formats setup errors with this private method, building a full traceback
        # (slow: it parses the sources) that pytest_runtest_makereport below then replaces.
        if isinstance(excinfo.value, RecordingProblem):
            return str(excinfo.value)
        return super()._repr_failure_py(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.suite.name}: {self.name}"

    def _describe_problem(self, row: ResultRow) -> str:
        detail = f": {row.detail}" if row.detail else ""
        head = f"{row.status} recording for {self.case.id} x {self.model.id} sample {self.sample}"
        return f"{head}{detail}\n{self._rerecord_hint(row)}"

    def _rerecord_hint(self, row: ResultRow) -> str:
        if row.status == "error":
            return "the provider failed (infrastructure, not the plan); run again later"
        if self.model.provider == "dataset":
            return (
                f"model {self.model.id} is a dataset (imported answers): it cannot be "
                "re-recorded; re-import it with `planeval import ...`"
            )
        # The command `planeval run` prints for its missing and stale samples.
        argv = ["planeval", "run", _relative(self.suite.path, self.config.rootpath)]
        argv += ["--record-mode", "new_episodes", "--model", self.model.id]
        fixtures = self.config.getoption("planeval_fixtures")
        if fixtures:
            argv += ["--fixtures", str(fixtures)]
        return f"re-record with: {shlex.join(argv)}"


class PassRates:
    """Tallies item statuses (from the reports, so it works under xdist) and prints the pass
    rate per suite and model at the end of the session, as ``planeval run`` counts them."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if report.when == "teardown" and "planeval_status" in props:
            key = (str(props.get("planeval_suite")), str(props.get("planeval_model")))
            self.counts[key][str(props["planeval_status"])] += 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.counts:
            return
        terminalreporter.section("planeval pass rates")
        for (suite, model), counts in sorted(self.counts.items()):
            counted = sum(counts[s] for s in ("pass", "fail", "unparseable"))
            rate = f"{counts['pass'] / counted:.0%}" if counted else "-"
            others = ", ".join(f"{s} {counts[s]}" for s in ("unparseable", *_PROBLEMS) if counts[s])
            line = f"{suite} x {model}: {counts['pass']}/{counted} pass ({rate})"
            terminalreporter.write_line(line + (f"; {others}" if others else ""))


class PlanFailure(Exception):
    """A plan failed an error-severity check, or the answer held no plan."""


class RecordingProblem(Exception):
    """Nothing to judge: the recording is missing or stale, or the provider failed."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if (
        isinstance(item, SuiteItem)
        and call.excinfo is not None
        and isinstance(call.excinfo.value, RecordingProblem)
    ):
        report.longrepr = str(call.excinfo.value)  # one message, not a traceback of setup()
    return report


def _describe_failure(row: ResultRow) -> str:
    if row.status == "unparseable":
        return f"unparseable: no plan in the answer: {row.detail or 'nothing found'}"
    errors = [v for v in row.violations if v.get("severity") == "error"]
    lines = [f"{len(errors)} violation(s) of error severity:"]
    for v in row.violations:
        where = f" [{v['task']}]" if v.get("task") else ""
        lines.append(f"  {v.get('check')} ({v.get('severity')}){where}: {v.get('message')}")
    return "\n".join(lines)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
