"""Per-case context (template variables, tools) and reference plans in suite files."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import SuiteError
from harness.suite import load_suite
from harness.testing import make_project, sound_plan

PROMPT = 'Tools:\n{capabilities}\nHint: {hint}\nGoal: {goal}\nJSON: {"tasks": []}\n'
REGISTRY = {"capabilities": [{"name": "email_read"}, {"name": "payments"}]}


class TestContext:
    def test_case_tools_replace_the_registry_in_the_prompt(self, tmp_path: Path) -> None:
        """A case with tools renders them; a case without renders the suite registry; other
        context keys fill their placeholders; JSON braces stay."""
        cases = [
            {"id": "own", "goal": "Pay", "context": {"tools": ["refund_api"], "hint": "be brief"}},
            {"id": "plain", "goal": "Read"},
        ]
        suite = load_suite(make_project(tmp_path, cases=cases, prompt=PROMPT, registry=REGISTRY))
        own, plain = suite.cases
        assert "- refund_api" in suite.render_prompt(own)
        assert "email_read" not in suite.render_prompt(own)
        assert "Hint: be brief" in suite.render_prompt(own)
        assert "- email_read" in suite.render_prompt(plain)
        assert "Hint: {hint}" in suite.render_prompt(plain)  # no value: left as written
        assert '{"tasks": []}' in suite.render_prompt(plain)

    def test_known_capabilities_checks_against_the_case_tools(self, tmp_path: Path) -> None:
        """A plan using the suite registry's capability fails in a case that offers other tools."""
        from harness.run import run_suite
        from harness.testing import write_response

        cases = [{"id": "own", "goal": "Pay", "context": {"tools": ["refund_api"]}}]
        path = make_project(tmp_path, cases=cases, prompt=PROMPT, registry=REGISTRY)
        plan = sound_plan(tasks=1)
        plan["tasks"][0]["capabilities"] = ["payments"]
        import json

        write_response(tmp_path, "demo", "planner", "own", json.dumps(plan), template=PROMPT)
        row = run_suite(load_suite(path), out=tmp_path / "run").rows[0]
        assert row.checks["known_capabilities"] == "fail"

    def test_bad_tools_are_a_suite_error(self, tmp_path: Path) -> None:
        """A tool that is neither a name nor an object is reported with its location."""
        cases = [{"id": "own", "goal": "Pay", "context": {"tools": [{"description": "x"}]}}]
        with pytest.raises(SuiteError) as caught:
            load_suite(make_project(tmp_path, cases=cases, prompt=PROMPT))
        assert "/cases/0/context/tools" in caught.value.one_line()

    def test_cases_repeating_a_tool_list_each_name_their_own_case(self, tmp_path: Path) -> None:
        """Imported suites repeat tool lists: each case reads them as a registry of its own
        (its messages name the case), with the capabilities a fresh read gives; an empty
        name in a repeated list is still refused where it is."""
        from harness.registry import Registry

        tools = ["city", "country", "countrylanguage"]
        cases = [{"id": f"c{i}", "goal": "Query", "context": {"tools": tools}} for i in range(3)]
        suite = load_suite(make_project(tmp_path, cases=cases, prompt=PROMPT))
        fresh = Registry.from_data(tools, source="fresh").capabilities
        registries = [suite.registry_for(case) for case in suite.cases]
        assert all(r is not None and r.capabilities == fresh for r in registries)
        messages = [r.explain_unknown("zzz") for r in registries if r is not None]
        assert [m.rsplit("#", 1)[-1] for m in messages] == [
            f"/cases/{i} has no close name" for i in range(3)
        ]
        assert all(r is not None and r.resolve("city") == fresh[0] for r in registries)

        cases.append({"id": "bad", "goal": "Query", "context": {"tools": [*tools, ""]}})
        with pytest.raises(SuiteError) as caught:
            load_suite(make_project(tmp_path / "bad", cases=cases, prompt=PROMPT))
        assert "/cases/3/context/tools/3" in caught.value.one_line()


class TestReference:
    def test_inline_and_file_references(self, tmp_path: Path) -> None:
        """reference is kept as written; reference_file is read relative to the suite."""
        (tmp_path / "evals").mkdir()
        (tmp_path / "evals" / "gold.txt").write_text(
            "Node:\n1: a\nEdge: (START,1) (1,END)", "utf-8"
        )
        cases = [
            {"id": "inline", "goal": "A", "reference": {"tasks": [{"id": "a"}]}},
            {"id": "file", "goal": "B", "reference_file": "gold.txt"},
            {"id": "none", "goal": "C"},
        ]
        suite = load_suite(make_project(tmp_path, cases=cases))
        assert suite.cases[0].reference == {"tasks": [{"id": "a"}]}
        assert suite.cases[1].reference.startswith("Node:")  # type: ignore[union-attr]
        assert suite.cases[2].reference is None

    @pytest.mark.parametrize(
        ("case", "message"),
        [
            (
                {"id": "x", "goal": "A", "reference": "r", "reference_file": "f"},
                "should not be valid",
            ),
            (
                {"id": "x", "goal": "A", "reference_file": "nowhere.txt"},
                "cannot read the reference",
            ),
        ],
    )
    def test_unusable_reference(self, tmp_path: Path, case: dict[str, str], message: str) -> None:
        """Both forms at once, or a missing file: one SuiteError naming the case."""
        with pytest.raises(SuiteError) as caught:
            load_suite(make_project(tmp_path, cases=[case]))
        assert message in caught.value.one_line()
        assert "/cases/0" in caught.value.one_line()


def test_embedding_model_folder_beside_the_suite_is_found_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``embedding_model: models/enc`` names the folder beside the suite file, as
    ``reference_file`` does, when the run starts elsewhere; a model name stays a name."""
    beside = make_project(
        tmp_path / "a",
        extra={"metrics": {"matcher": "embeddings", "embedding_model": "models/enc"}},
    )
    (beside.parent / "models" / "enc").mkdir(parents=True)
    named = make_project(
        tmp_path / "b",
        extra={"metrics": {"matcher": "embeddings", "embedding_model": "all-mpnet-base-v2"}},
    )
    monkeypatch.chdir(tmp_path)
    assert load_suite(beside).metrics.embedding_model == str(beside.parent / "models" / "enc")
    assert load_suite(named).metrics.embedding_model == "all-mpnet-base-v2"
