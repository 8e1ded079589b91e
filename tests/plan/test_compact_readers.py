"""HuggingGPT and LLMCompiler readers at their edges: which answers are recognised, how odd ids,
``dep`` values and arguments are read, and what the refusal says (provenance: handwritten).

Each case here was a surviving mutant of ``harness/plan/_hugginggpt.py`` or
``harness/plan/_llmcompiler.py`` (issue 14); the common cases are in test_compact_formats.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness._errors import NoPlanFoundError, PlanLoadError
from harness.plan import Need, Plan, load_plan


def _hugginggpt(*tasks: dict[str, Any], fmt: str = "auto") -> Plan:
    return load_plan(json.dumps(list(tasks)), format=fmt)


class TestHuggingGPTDetection:
    def test_a_list_without_any_dep_is_not_taken_for_hugginggpt(self) -> None:
        """Without "dep" the list is just JSON: auto refuses it as not a plan object."""
        with pytest.raises(PlanLoadError, match="expected a JSON object, got a list"):
            _hugginggpt({"task": "a", "id": 0}, {"task": "b", "id": 1})

    def test_one_dep_is_enough(self) -> None:
        plan = _hugginggpt({"task": "a", "id": 0}, {"task": "b", "id": 1, "dep": [0]})
        assert plan.task_ids == ("0", "1") and plan.task("1").depends_on == ("0",)

    def test_an_item_without_task_is_not_taken_for_hugginggpt(self) -> None:
        with pytest.raises(PlanLoadError, match="expected a JSON object, got a list"):
            _hugginggpt({"task": "a", "id": 0, "dep": [-1]}, {"id": 1, "dep": [0]})

    def test_an_empty_list_is_not_a_plan(self) -> None:
        with pytest.raises(PlanLoadError, match="expected a JSON object, got a list"):
            load_plan("[]")


class TestHuggingGPTRefusals:
    def test_an_object_is_refused_at_the_root_with_the_expected_shape(self) -> None:
        with pytest.raises(PlanLoadError) as raised:
            load_plan('{"task": "a"}', format="hugginggpt")
        error = raised.value
        assert str(error).startswith("<text>: /: a HuggingGPT plan is a JSON list of tasks")
        assert error.hint == 'expected [{"task": ..., "id": 0, "dep": [-1], "args": {...}}]'

    @pytest.mark.parametrize("item", [5, {"id": 1}, {"task": 3}], ids=["number", "no-task", "int"])
    def test_a_bad_task_is_named_by_its_position(self, item: Any) -> None:
        text = json.dumps([{"task": "a", "id": 0, "dep": [-1]}, item])
        with pytest.raises(PlanLoadError) as raised:
            load_plan(text, format="hugginggpt")
        assert str(raised.value) == (
            "<text>: /1: a HuggingGPT task must be an object with a string 'task'"
        )


class TestHuggingGPTFields:
    def test_ids_that_are_not_usable_fall_back_to_the_position(self) -> None:
        """true, 1.5, null and a blank string are not ids: the task's position is."""
        plan = _hugginggpt(
            {"task": "a", "id": True, "dep": -1},
            {"task": "b", "id": 1.5, "dep": -1},
            {"task": "c", "id": "  ", "dep": -1},
            {"task": "d", "dep": -1},
            {"task": "e", "id": "five", "dep": -1},
            {"task": "f", "id": 7, "dep": -1},
        )
        assert plan.task_ids == ("0", "1", "2", "3", "five", "7")

    def test_dep_as_one_value_or_null(self) -> None:
        """A bare 0 is dep [0]; null and -1 are no dependency."""
        plan = _hugginggpt(
            {"task": "a", "id": 0, "dep": None},
            {"task": "b", "id": 1, "dep": 0},
            {"task": "c", "id": 2, "dep": -1},
            {"task": "d", "id": 3, "dep": "1"},
        )
        assert [t.depends_on for t in plan.tasks] == [(), ("0",), (), ("1",)]

    def test_dep_entries_that_name_no_task_are_dropped_and_repeats_kept_once(self) -> None:
        plan = _hugginggpt(
            {"task": "a", "id": 0, "dep": [-1]},
            {"task": "b", "id": 1, "dep": [True, 1.5, "-1", " 0 ", 0, "", None]},
        )
        assert plan.task("1").depends_on == ("0",)

    def test_arguments_as_a_list_are_named_by_position(self) -> None:
        plan = _hugginggpt(
            {"task": "a", "id": 0, "dep": [-1]},
            {"task": "b", "id": 1, "dep": [-1]},
            {
                "task": "c",
                "id": 2,
                "dep": [0, 1],
                "args": [5, "plain", "<GENERATED>-0 and <GENERATED-1>"],
            },
        )
        assert plan.task("2").needs == (Need("arg2", "0"), Need("arg2", "1"))

    def test_arguments_that_are_neither_list_nor_object_read_nothing(self) -> None:
        plan = _hugginggpt(
            {"task": "a", "id": 0, "dep": [-1]},
            {"task": "b", "id": 1, "dep": [0], "args": "<GENERATED>-0"},
        )
        assert plan.task("1").needs == ()

    def test_a_non_text_argument_reads_nothing(self) -> None:
        plan = _hugginggpt(
            {"task": "a", "id": 0, "dep": [-1]},
            {"task": "b", "id": 1, "dep": [0], "args": {"n": 0, "text": "GENERATED"}},
        )
        assert plan.task("1").needs == ()

    def test_the_tool_is_the_description_and_the_capability(self) -> None:
        task = _hugginggpt({"task": "image-to-text", "id": 0, "dep": [-1]}).task("0")
        assert task.description == "image-to-text"
        assert task.capabilities == ("image-to-text",)


class TestLLMCompilerDetection:
    def test_one_action_without_join_is_not_detected(self) -> None:
        """A lone numbered line is as likely prose as a plan: auto finds no plan."""
        with pytest.raises(NoPlanFoundError, match="no plan found in the text"):
            load_plan('1. search("x")')

    def test_one_action_and_join_is_detected(self) -> None:
        assert load_plan('1. search("x")\n2. join()').task_ids == ("1", "2")

    def test_two_actions_are_detected(self) -> None:
        assert load_plan('1. search("x")\n2. search("y")').task_ids == ("1", "2")

    def test_join_alone_is_detected(self) -> None:
        """One action that is join(): an LLMCompiler plan of the join task alone."""
        assert load_plan("Thought: nothing to do\n1. join()").task_ids == ("1",)

    def test_detection_reads_the_first_200000_characters(self) -> None:
        """Auto-detection looks for actions in the first 200,000 characters only: a second
        action whose closing parenthesis is character 200,001 is not seen, one character
        earlier it is."""
        head, tail = '1. search("x")\n', '\n2. search("y")'
        padding = 200_000 - len(head) - len(tail) + 1
        late = head + "p" * padding + tail
        assert late.rindex(")") == 200_000
        with pytest.raises(NoPlanFoundError):
            load_plan(late)
        assert load_plan(head + "p" * (padding - 1) + tail).task_ids == ("1", "2")

    def test_join_alone_is_the_join_task(self) -> None:
        """The planner decided to answer at once: join() is its one task, not an error."""
        plan = load_plan("1. join()", format="llmcompiler")
        assert [(t.id, t.description, t.depends_on) for t in plan.tasks] == [("1", "join()", ())]

    def test_the_refusal_shows_the_expected_lines(self) -> None:
        with pytest.raises(NoPlanFoundError) as raised:
            load_plan("no actions here", format="llmcompiler")
        assert str(raised.value) == (
            "<text>: no LLMCompiler actions in the text. "
            'Expected numbered lines like 1. search("query") ending with join()'
        )


class TestLLMCompilerLines:
    def test_spacing_end_marker_and_comments(self) -> None:
        """LLMCompiler's ACTION_PATTERN wants ``N. tool(``: ``1 .  search (`` is no action;
        what follows the last ``)`` of a line is ignored."""
        text = '  1 .  search ( "x" )   # why\n2. math("$1 + ${1}")  <END_OF_PLAN>  # done\n'
        plan = load_plan(text, format="llmcompiler")
        assert plan.task_ids == ("2",)
        assert plan.task("2").description == 'math("$1 + ${1}")'
        assert plan.task("2").depends_on == ("1",)  # one dependency for two references
        assert plan.task("2").needs == (Need("$1", "1"), Need("${1}", "1"))

    def test_a_reference_to_the_task_itself_is_a_need_not_a_dependency(self) -> None:
        plan = load_plan('1. search("x")\n2. math("$2")\n3. join()')
        assert plan.task("2").depends_on == ()
        assert plan.task("2").needs == (Need("$2", "2"),)
