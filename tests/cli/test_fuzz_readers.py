"""Fuzzed inputs for every reader: a documented exit code and at most one error line, never a
traceback. Each test starts from a valid file and replaces one value anywhere in it with an
arbitrary one (wrong types, huge integers, deep nesting, strings where mappings belong), or
damages its text; hypothesis is seeded (``derandomize``) and bounded."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.testing import make_project, sound_plan, write_response
from tests.cli_helpers import Result, run_cli

EXIT_CODES = {0, 1, 2, 3, 4}
_HUGE = "HUGE-INTEGER-HERE"
_DIGITS = "9" * 5000
FUZZ = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.just(_HUGE),  # becomes an integer past Python's 4,300-digit int/str limit
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
) | st.integers(min_value=150, max_value=3000).map(lambda n: _nested(n))


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``doc`` a value can be replaced (the root included)."""
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _paths(value, (*prefix, index))
    return found


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(doc))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


@st.composite
def _mutations(draw: st.DrawFn, doc: Any) -> Any:
    places = _paths(doc)
    return _replace(doc, draw(st.sampled_from(places)), draw(_values))


def _damage(text: str) -> st.SearchStrategy[str]:
    """The text cut short, or with a few characters replaced."""
    cut = st.integers(0, len(text)).map(lambda n: text[:n])
    poke = st.tuples(st.integers(0, max(len(text) - 1, 0)), st.text(max_size=3)).map(
        lambda p: text[: p[0]] + p[1] + text[p[0] + 1 :]
    )
    return cut | poke


def _to_json(value: Any) -> str:
    try:
        return json.dumps(value).replace(f'"{_HUGE}"', _DIGITS)
    except (ValueError, RecursionError):  # too deep for json.dumps itself: write by hand
        return "[" * 3000 + "]" * 3000


def _to_yaml(value: Any) -> str:
    try:
        return yaml.safe_dump(value, sort_keys=False).replace(_HUGE, _DIGITS)
    except (ValueError, RecursionError):
        return "[" * 3000 + "]" * 3000


def _assert_clean(result: Result) -> None:
    """A documented exit code; unusable input (2) is at most one error line on stderr (``check``
    reports it on stdout). An exception that escaped a command would have failed the test
    already: ``run_cli`` calls it in-process."""
    assert result.code in EXIT_CODES, result
    assert "Traceback" not in result.err
    if result.code == 2:
        errors = [line for line in result.err.splitlines() if line.startswith("planeval: error")]
        assert len(errors) <= 1, result.err


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with one dataset model and one passing recorded case."""
    root = tmp_path_factory.mktemp("fuzz")
    make_project(root, registry={"capabilities": [{"name": "lookup"}]})
    write_response(root, "demo", "planner", "c1", json.dumps(sound_plan()))
    return root


@pytest.fixture(scope="module")
def run_dir(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "run"
    from harness._cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["run", str(project / "evals/demo.yaml"), "--out", str(out)])
    assert done.value.code == 0
    return out


def _new_dir(tmp_path: Path) -> Path:
    """A folder name not used by an earlier example."""
    return tmp_path / f"out-{uuid.uuid4().hex[:8]}"


def _fresh(project: Path, tmp_path: Path, name: str) -> Path:
    """A private copy of the project for one example."""
    target = tmp_path / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(project, target)
    return target


class TestPlanAndRegistry:
    @FUZZ
    @given(data=st.data())
    def test_plan_files(
        self, data: st.DataObject, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """``check PLAN`` with a mutated or damaged plan."""
        good = sound_plan()
        text = data.draw(_mutations(good).map(_to_json) | _damage(json.dumps(good)))
        path = tmp_path / "plan.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        _assert_clean(run_cli(capsys, "check", str(path)))

    @FUZZ
    @given(data=st.data())
    def test_registries(
        self, data: st.DataObject, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """``check --registry`` with a mutated YAML or JSON registry."""
        good = {"capabilities": [{"name": "lookup", "version": "1.2"}, "search"]}
        value = data.draw(_mutations(good))
        suffix = data.draw(st.sampled_from([".yaml", ".json"]))
        registry = tmp_path / f"r{suffix}"
        registry.write_text(_to_yaml(value) if suffix == ".yaml" else _to_json(value))
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps(sound_plan()))
        _assert_clean(run_cli(capsys, "check", "--registry", str(registry), str(plan)))


class TestSuiteAndRecordings:
    @FUZZ
    @given(data=st.data())
    def test_suites(
        self,
        data: st.DataObject,
        capsys: pytest.CaptureFixture[str],
        project: Path,
        tmp_path: Path,
    ) -> None:
        """``run SUITE`` with a mutated or damaged suite file."""
        root = _fresh(project, tmp_path, "p")
        suite = root / "evals/demo.yaml"
        good = yaml.safe_load(suite.read_text())
        text = data.draw(_mutations(good).map(_to_yaml) | _damage(suite.read_text()))
        suite.write_text(text, encoding="utf-8", errors="surrogatepass")
        _assert_clean(run_cli(capsys, "run", str(suite), "--out", str(_new_dir(tmp_path))))

    @FUZZ
    @given(data=st.data())
    def test_response_files(
        self,
        data: st.DataObject,
        capsys: pytest.CaptureFixture[str],
        project: Path,
        tmp_path: Path,
    ) -> None:
        """``run`` replaying a mutated response file."""
        root = _fresh(project, tmp_path, "p")
        recording = next((root / "plan_fixtures").rglob("sample-0.json"))
        good = json.loads(recording.read_text())
        recording.write_text(data.draw(_mutations(good).map(_to_json)))
        suite = root / "evals/demo.yaml"
        _assert_clean(run_cli(capsys, "run", str(suite), "--out", str(_new_dir(tmp_path))))

    @FUZZ
    @given(data=st.data())
    def test_cassettes(
        self,
        data: st.DataObject,
        capsys: pytest.CaptureFixture[str],
        project: Path,
        tmp_path: Path,
    ) -> None:
        """``run`` replaying a mutated vcrpy or Ruby VCR cassette."""
        root = _fresh(project, tmp_path, "p")
        suite = root / "evals/demo.yaml"
        doc = yaml.safe_load(suite.read_text())
        doc["models"] = [{"id": "planner", "provider": "openai", "model": "m"}]
        suite.write_text(yaml.safe_dump(doc))
        shutil.rmtree(root / "plan_fixtures/demo")
        key = data.draw(st.sampled_from(["interactions", "http_interactions"]))
        answer = {"choices": [{"message": {"content": json.dumps(sound_plan())}}]}
        good = {
            key: [
                {
                    "request": {
                        "method": "POST",
                        "uri": "http://x/v1",
                        "body": "{}",
                        "headers": {},
                    },
                    "response": {
                        "status": {"code": 200},
                        "headers": {"Content-Type": ["application/json"]},
                        "body": {"string": json.dumps(answer)},
                    },
                }
            ]
        }
        cassette = root / "plan_fixtures/demo/planner/c1/sample-0.yaml"
        cassette.parent.mkdir(parents=True)
        cassette.write_text(data.draw(_mutations(good).map(_to_yaml)))
        _assert_clean(run_cli(capsys, "run", str(suite), "--out", str(_new_dir(tmp_path))))


class TestRunFiles:
    @FUZZ
    @given(data=st.data())
    def test_results_and_run_json(
        self,
        data: st.DataObject,
        capsys: pytest.CaptureFixture[str],
        run_dir: Path,
        tmp_path: Path,
    ) -> None:
        """``report``, ``compare``, ``baseline`` and ``gate`` on a run with a mutated file."""
        target = tmp_path / "run"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(run_dir, target)
        which = data.draw(st.sampled_from(["results.jsonl", "run.json"]))
        path = target / which
        if which == "run.json":
            good = json.loads(path.read_text())
            path.write_text(data.draw(_mutations(good).map(_to_json) | _damage(path.read_text())))
        else:
            row = json.loads(path.read_text().splitlines()[0])
            line = data.draw(_mutations(row).map(_to_json) | _damage(json.dumps(row)))
            path.write_text(line + "\n")
        command = data.draw(st.sampled_from(["report", "compare", "baseline", "gate"]))
        args = {
            "report": ["report", str(target), "--out", str(tmp_path / "rep")],
            "compare": ["compare", str(run_dir), str(target)],
            "baseline": ["baseline", str(target), "--out", str(tmp_path / "b.json")],
            "gate": ["gate", str(target), "--min-pass-rate", "0.5"],
        }[command]
        _assert_clean(run_cli(capsys, *args))
