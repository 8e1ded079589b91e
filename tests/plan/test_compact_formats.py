"""HuggingGPT and LLMCompiler plans: reading, auto-detection and what the checks make of them.

Plans in the classes below are hand-written (provenance: handwritten); the last class reads
the published HuggingGPT demo answers in place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness._cli.main import app
from harness._errors import NoPlanFoundError, PlanLoadError
from harness.checks import check_files, check_plan
from harness.plan import FORMATS, Need, load_plan

HUGGINGGPT = (
    '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "e.jpg"}}, '
    '{"task": "text-to-speech", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}}]'
)


def _errors(text: str, fmt: str = "auto") -> set[str]:
    return {v.check for v in check_plan(load_plan(text, format=fmt)).errors}


class TestHuggingGPT:
    def test_dep_and_generated_arguments(self) -> None:
        plan = load_plan(HUGGINGGPT)
        assert plan.task_ids == ("0", "1")
        assert plan.task("0").depends_on == ()  # -1 means none
        assert plan.task("1").depends_on == ("0",)
        assert plan.task("1").needs == (Need("text", "0"),)
        assert plan.task("1").capabilities == ("text-to-speech",)
        assert check_plan(plan).ok

    def test_both_generated_forms(self) -> None:
        text = (
            '[{"task": "a", "id": 0, "dep": [-1], "args": {}}, {"task": "b", "id": 1, '
            '"dep": [0], "args": {"x": "<GENERATED-0>", "y": "<GENERATED>-0"}}]'
        )
        assert load_plan(text).task("1").needs == (Need("x", "0"), Need("y", "0"))

    def test_without_minus_one(self) -> None:
        """dep [] (no -1) also means no dependency."""
        text = (
            '[{"task": "a", "id": 0, "dep": [], "args": {}}, '
            '{"task": "b", "id": 1, "dep": [0], "args": {}}]'
        )
        plan = load_plan(text)
        assert plan.task("0").depends_on == () and plan.task("1").depends_on == ("0",)

    def test_generated_without_dep_fails_needs_earlier_output(self) -> None:
        """dep [-1] but args read task 0: the plan says two different things."""
        text = HUGGINGGPT.replace('"dep": [0]', '"dep": [-1]')
        assert _errors(text) == {"needs_earlier_output"}

    def test_dep_on_missing_task(self) -> None:
        assert _errors(HUGGINGGPT.replace('"dep": [0]', '"dep": [5]')) == {
            "deps_resolve",
            "needs_earlier_output",
        }

    def test_bare_list_in_model_text(self) -> None:
        plan = load_plan(f"Here is the plan:\n{HUGGINGGPT}\nThat is all.")
        assert plan.task_ids == ("0", "1")

    def test_inside_a_chat_completion(self) -> None:
        body = {"choices": [{"message": {"role": "assistant", "content": HUGGINGGPT}}]}
        assert load_plan(json.dumps(body)).task_ids == ("0", "1")

    def test_explicit_format(self) -> None:
        assert load_plan(HUGGINGGPT, format="hugginggpt").task_ids == ("0", "1")
        with pytest.raises(PlanLoadError, match="a HuggingGPT plan is a JSON list"):
            load_plan('{"tasks": []}', format="hugginggpt")


LLMCOMPILER = """Thought: look it up, then double it.
1. search("Ronaldo number of kids")
2. math("$1 * 2")
3. join()
<END_OF_PLAN>
"""


class TestLLMCompiler:
    def test_actions_references_and_join(self) -> None:
        plan = load_plan(LLMCOMPILER)
        assert plan.task_ids == ("1", "2", "3")  # join() is the last task, after all others
        assert plan.task("3").depends_on == ("2",)
        assert plan.task("3").capabilities == ()  # join is no tool
        assert plan.task("2").depends_on == ("1",)
        assert plan.task("2").needs == (Need("$1", "1"),)
        assert plan.task("1").capabilities == ("search",)
        assert plan.task("2").description == 'math("$1 * 2")'
        assert check_plan(plan).ok

    def test_braced_reference(self) -> None:
        plan = load_plan('1. search("x")\n2. math("${1} + 1")\n3. join()')
        assert plan.task("2").needs == (Need("${1}", "1"),)
        assert check_plan(plan).ok

    def test_surrounding_prose_and_fences(self) -> None:
        text = f"Sure! Here is my plan:\n```\n{LLMCOMPILER}```\nHope it helps."
        assert load_plan(text).task_ids == ("1", "2", "3")

    def test_reference_to_a_later_step(self) -> None:
        """LLMCompiler waits only for earlier steps: $3 in step 2 is read too late."""
        text = '1. search("x")\n2. math("$3")\n3. search("y")\n4. join()'
        plan = load_plan(text)
        assert plan.task("2").depends_on == ()
        (violation,) = check_plan(plan).errors
        assert violation.check == "needs_earlier_output"
        assert "'2' needs '$3' from '3'" in violation.message

    def test_reference_to_a_missing_step(self) -> None:
        text = '1. search("x")\n3. math("$2")\n4. join()'
        assert _errors(text) == {"deps_resolve", "needs_resolve"}

    def test_reference_to_itself(self) -> None:
        assert _errors('1. search("x")\n2. math("$2")\n3. join()') == {"self_dependency"}

    def test_no_join_reads_every_action(self) -> None:
        plan = load_plan('1. search("x")\n2. math("$1 * 2")', format="llmcompiler")
        assert plan.task_ids == ("1", "2")
        assert check_plan(plan).ok

    def test_nothing_after_join_is_read(self) -> None:
        text = '1. search("x")\n2. join()\n3. search("a second plan")'
        assert load_plan(text).task_ids == ("1", "2")

    def test_join_followed_by_end_of_plan(self) -> None:
        """LLMCompiler's own prompts write '4. join()<END_OF_PLAN>' on one line."""
        text = (
            "1. search('a')\n2. search('b')\n3. math('x', ['$1', '$2'])\n"
            "4. join()<END_OF_PLAN>\n5. search('c')"
        )
        plan = load_plan(text)
        assert plan.task_ids == ("1", "2", "3", "4")
        assert plan.task("3").depends_on == ("1", "2")
        assert plan.task("4").depends_on == ("3",)

    def test_text_without_actions(self) -> None:
        with pytest.raises(NoPlanFoundError, match="no LLMCompiler actions"):
            load_plan("I could not make a plan.", format="llmcompiler")


class TestFormatNames:
    def test_every_format_is_named(self) -> None:
        assert set(FORMATS) >= {"auto", "taskbench", "hugginggpt", "llmcompiler", "worfbench"}

    @pytest.mark.parametrize(
        ("name", "text"),
        [
            ("hugginggpt", HUGGINGGPT),
            ("llmcompiler", LLMCOMPILER),
            ("taskbench", '{"task_nodes": [{"task": "A"}], "task_links": []}'),
            ("canonical", '{"tasks": [{"id": "a"}]}'),
            ("worfbench", "Node:\n1: Find\nEdge: (START,1) (1,END)"),
        ],
    )
    def test_cli_reads_each_format_by_name_and_by_detection(
        self, tmp_path: Path, name: str, text: str
    ) -> None:
        path = tmp_path / "answer.txt"
        path.write_text(text, encoding="utf-8")
        for fmt in (name, "auto"):
            result = CliRunner().invoke(app, ["check", "--plan-format", fmt, str(path)])
            assert result.exit_code == 0, result.stdout
            assert f"{path}: ok" in result.stdout


class TestPublishedHuggingGPTAnswers:
    """HuggingGPT's own demo answers (microsoft/JARVIS), read in place."""

    def test_broken_answers_are_unusable_with_the_position(self, shared_data: Path) -> None:
        folder = shared_data / "hugginggpt"
        results = {
            Path(r.path).name: r
            for r in check_files(sorted(folder.glob("hugginggpt_answer_*.txt")))
        }
        assert len(results) == 6
        assert results["hugginggpt_answer_0.txt"].error == (
            "line 1 column 299: invalid JSON: Expecting ',' delimiter"
        )
        assert results["hugginggpt_answer_2.txt"].error == (
            "line 1 column 139: invalid JSON: Extra data"
        )
        for k in (1, 3, 4, 5):
            assert results[f"hugginggpt_answer_{k}.txt"].ok

    def test_demo_answer_reads_generated_forms(self, shared_data: Path) -> None:
        text = (shared_data / "hugginggpt" / "hugginggpt_answer_1.txt").read_text()
        plan = load_plan(text, format="hugginggpt")
        assert plan.task("3").needs == (Need("text", "0"),)  # <GENERATED-0>
        assert plan.task("2").needs == (Need("image", "1"),)  # <GENERATED>-1
