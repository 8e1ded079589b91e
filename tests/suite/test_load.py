"""Loading eval suites: the schema, id rules, the files a suite names, prompt rendering."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from harness._errors import SuiteError
from harness.suite import find_root, load_suite, suite_schema
from harness.testing import make_project

REGISTRY = {"capabilities": [{"name": "payments", "version": "2.1", "description": "Pay"}]}


class TestLoadSuite:
    def test_reads_every_key(self, tmp_path: Path) -> None:
        """A full suite file becomes a Suite with models, cases and expectations."""
        path = make_project(
            tmp_path,
            models=[
                {
                    "id": "gpt",
                    "provider": "openai",
                    "model": "gpt-4o-mini",
                    "params": {"temperature": 0.7},
                },
                {"id": "rb", "provider": "command", "command": "bundle exec agentic plan"},
            ],
            cases=[
                {
                    "id": "refund",
                    "goal": "Refund",
                    "task_count": {"min": 4, "max": 8},
                    "required_capabilities": ["payments"],
                    "tags": ["refunds"],
                }
            ],
            registry=REGISTRY,
            extra={
                "expect": {"task_count": {"min": 2, "max": 12}, "needs": "imply_deps"},
                "samples": 3,
                "plan_format": "canonical",
                "description": "d",
            },
        )
        suite = load_suite(path)
        assert suite.name == "demo" and suite.samples == 3 and suite.description == "d"
        assert suite.root == tmp_path
        assert [m.id for m in suite.models] == ["gpt", "rb"]
        assert suite.models[0].params == {"temperature": 0.7}
        assert suite.models[1].command == "bundle exec agentic plan"
        case = suite.cases[0]
        assert (case.min_tasks, case.max_tasks, case.tags) == (4, 8, ("refunds",))
        expect = suite.expectations_for(case)
        assert (expect.min_tasks, expect.max_tasks, expect.needs) == (4, 8, "imply_deps")
        assert expect.required_capabilities == ("payments",)
        assert suite.registry is not None and suite.registry.names

    def test_prompt_keeps_json_braces(self, tmp_path: Path) -> None:
        """{goal} and {capabilities} are replaced; other braces stay (no str.format)."""
        path = make_project(
            tmp_path,
            prompt='Return {"tasks": []} for {goal}. Tools:\n{capabilities}\n{other}',
            registry=REGISTRY,
        )
        suite = load_suite(path)
        text = suite.render_prompt(suite.cases[0])
        assert text.startswith('Return {"tasks": []} for Refund a damaged order. Tools:\n')
        assert "payments@2.1: Pay" in text and text.endswith("{other}")

    def test_goal_text_is_not_substituted_again(self, tmp_path: Path) -> None:
        """A goal that contains '{capabilities}' is inserted verbatim."""
        path = make_project(tmp_path, cases=[{"id": "c", "goal": "say {capabilities}"}])
        suite = load_suite(path)
        assert suite.render_prompt(suite.cases[0]).rstrip().endswith("say {capabilities}")

    def test_prompt_hash_follows_the_template(self, tmp_path: Path) -> None:
        """Changing the template changes the suite's prompt hash."""
        first = load_suite(make_project(tmp_path, prompt="A {goal}")).prompt_hash
        second = load_suite(make_project(tmp_path, prompt="B {goal}")).prompt_hash
        assert first.startswith("sha256:") and first != second


class TestRejects:
    @pytest.mark.parametrize(
        "bad_id",
        [
            "../escape",  # path traversal
            "a/b",  # a folder separator
            "..",  # the parent folder itself
            "white space",
            "",
        ],
    )
    def test_case_ids_that_are_not_file_names(self, tmp_path: Path, bad_id: str) -> None:
        """Case ids become folder names: anything but [A-Za-z0-9._-]+ is refused."""
        path = make_project(tmp_path, cases=[{"id": bad_id, "goal": "g"}])
        with pytest.raises(SuiteError) as info:
            load_suite(path)
        assert info.value.location == "/cases/0/id"
        assert str(path) in info.value.one_line()

    def test_model_id_traversal(self, tmp_path: Path) -> None:
        """Model ids obey the same rule, with a message that says why."""
        path = make_project(tmp_path, models=[{"id": "../../etc", "provider": "dataset"}])
        with pytest.raises(SuiteError, match="ids become file names") as info:
            load_suite(path)
        assert info.value.location == "/models/0/id"

    @pytest.mark.parametrize(
        ("models", "location"),
        [
            ([{"id": "m", "provider": "gemini"}], "/models/0/provider"),  # unknown provider
            ([{"id": "m", "provider": "command"}], "/models/0"),  # command without command
            ([{"id": "m", "provider": "openai"}], "/models/0"),  # openai without model
        ],
    )
    def test_schema_violations_name_the_place(
        self, tmp_path: Path, models: list[dict[str, str]], location: str
    ) -> None:
        """A schema violation is one SuiteError with the JSON pointer of the bad value."""
        with pytest.raises(SuiteError) as info:
            load_suite(make_project(tmp_path, models=models))
        assert info.value.location == location

    def test_unknown_key(self, tmp_path: Path) -> None:
        """A misspelled top-level key is an error, not silently ignored."""
        with pytest.raises(SuiteError, match="sampels"):
            load_suite(make_project(tmp_path, extra={"sampels": 3}))

    def test_duplicate_case_ids(self, tmp_path: Path) -> None:
        """Two cases with one id would share recordings: refused."""
        path = make_project(tmp_path, cases=[{"id": "a", "goal": "x"}, {"id": "a", "goal": "y"}])
        with pytest.raises(SuiteError, match="duplicate case id 'a'") as info:
            load_suite(path)
        assert info.value.location == "/cases/1/id"

    def test_inverted_band(self, tmp_path: Path) -> None:
        """A task-count band with min above max is refused."""
        path = make_project(
            tmp_path, cases=[{"id": "a", "goal": "x", "task_count": {"min": 5, "max": 2}}]
        )
        with pytest.raises(SuiteError, match="min 5 is above max 2"):
            load_suite(path)

    def test_missing_prompt_file(self, tmp_path: Path) -> None:
        """A prompt path that is not there says so and points at /prompt."""
        path = make_project(tmp_path)
        (tmp_path / "evals" / "demo.prompt.md").unlink()
        with pytest.raises(SuiteError) as info:
            load_suite(path)
        assert info.value.location == "/prompt"

    def test_broken_registry(self, tmp_path: Path) -> None:
        """A malformed registry is reported as the suite's problem at /registry."""
        path = make_project(tmp_path, registry={"capabilities": "nope"})
        with pytest.raises(SuiteError) as info:
            load_suite(path)
        assert info.value.location == "/registry"

    def test_yaml_error_has_a_line(self, tmp_path: Path) -> None:
        """Broken YAML names the line."""
        path = tmp_path / "bad.yaml"
        path.write_text("suite: x\nmodels: [\n", encoding="utf-8")
        with pytest.raises(SuiteError) as info:
            load_suite(path)
        assert info.value.location is not None and info.value.location.startswith("line ")

    def test_missing_file(self, tmp_path: Path) -> None:
        """A suite path that does not exist is a SuiteError, not a traceback."""
        with pytest.raises(SuiteError, match="no such suite file"):
            load_suite(tmp_path / "nope.yaml")


class TestSchema:
    def test_schema_is_valid_draft_2020_12(self) -> None:
        """The published suite schema is itself a valid JSON Schema."""
        Draft202012Validator.check_schema(suite_schema())

    def test_id_pattern(self) -> None:
        """The schema's id rule accepts file-name-safe ids only."""
        validator = Draft202012Validator(suite_schema()["$defs"]["id"])
        assert validator.is_valid("gpt-4o-mini_v1.2")
        assert not any(validator.is_valid(i) for i in ("../x", ".", "..", "a b", "a\\b"))


def test_root_is_the_nearest_project_folder(tmp_path: Path) -> None:
    """The project root is the nearest ancestor with pyproject.toml or plan_fixtures/."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    nested = tmp_path / "evals" / "group" / "s.yaml"
    nested.parent.mkdir(parents=True)
    assert find_root(nested) == tmp_path
    bare = tmp_path / "x" / "evals" / "s.yaml"
    bare.parent.mkdir(parents=True)
    (tmp_path / "pyproject.toml").unlink()
    assert find_root(bare) == tmp_path / "x"


def test_a_file_that_is_not_a_mapping_gets_a_short_message(tmp_path: Path) -> None:
    """A YAML document that is not a mapping: one short line, not the whole file echoed."""
    path = tmp_path / "notes.yaml"
    path.write_text("just some words " * 200)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert "must be a YAML mapping" in info.value.what
    assert len(info.value.one_line()) < 300
