"""Six more plan formats: ReWOO, T-Eval, LangGraph plan-and-execute, MetaGPT, OpenAI tool_calls
and Anthropic tool_use.

The examples in the classes below are hand-written (provenance: handwritten) after each
format's published documentation and examples (docs/formats.md names them, with the pinned
commits). The oracles below transcribe the upstream parsers; tests/plan/test_published_plans.py
judges the committed published plans (tests/data/published) with them. The last class reads
``../shared/data/plans-in-the-wild/formats-not-read``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness._errors import PlanLoadError
from harness.checks import check_plan
from harness.plan import FORMATS, Need, Plan, load_plan
from harness.plan._hugginggpt import looks_like_hugginggpt
from harness.plan._llmcompiler import looks_like_llmcompiler
from harness.plan._metagpt import looks_like_metagpt
from harness.plan._plan_and_execute import looks_like_numbered_steps, looks_like_steps
from harness.plan._rewoo import looks_like_rewoo
from harness.plan._teval import looks_like_teval, looks_like_teval_rewoo
from harness.plan._tool_calls import looks_like_anthropic_blocks, looks_like_openai_calls
from harness.plan._worfbench import looks_like_worfbench

REWOO = """Plan: Use Google to search for the 2024 Australian Open winner.
#E1 = Google[2024 Australian Open winner]
Plan: Retrieve the name of the 2024 Australian Open winner from the search results.
#E2 = LLM[What is the name of the 2024 Australian Open winner, given #E1]
Plan: Use Google to search for the hometown of the winner.
#E3 = Google[hometown of #E2]
"""

TEVAL = json.dumps(
    [
        {"id": 0, "name": "FilmTool.search_movie", "args": {"name": "Titanic"}, "prev": []},
        {"id": 1, "name": "FilmTool.get_director", "args": {"movie_id": "<id>"}, "prev": [0]},
        {"id": 2, "name": "FinishAction", "args": {"answer": "..."}, "prev": [1]},
    ]
)

TEVAL_REWOO = """Plan 1: Search the movie.
Dependency 1: []
Action 1: #E1 = FilmTool.search_movie(name="Titanic")
Plan 2: Find its director.
Dependency 2: [1]
Action 2: #E2 = FilmTool.get_director(movie_id=#E1)
"""

STEPS = json.dumps(
    {"steps": ["Identify the current winner of the Australia Open.", "Find the hometown."]}
)

NUMBERED_STEPS = "1. Look up the 2024 Australian Open winner\n2. Find the hometown of that winner\n"

METAGPT = """```json
[
    {"task_id": "1", "dependent_task_ids": [], "instruction": "Load the dataset",
     "task_type": "data preprocessing"},
    {"task_id": "2", "dependent_task_ids": ["1"], "instruction": "Train a model",
     "task_type": "model train"}
]
```"""

OPENAI = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
)

ANTHROPIC = json.dumps(
    {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "I will check both."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "P"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {"tz": "JST"}},
        ],
        "stop_reason": "tool_use",
    }
)

EXAMPLES = {
    "rewoo": REWOO,
    "teval": TEVAL,
    "teval-rewoo": TEVAL_REWOO,
    "plan_and_execute": STEPS,
    "plan_and_execute-numbered": NUMBERED_STEPS,
    "metagpt": METAGPT,
    "openai_tool_calls": OPENAI,
    "anthropic_tool_use": ANTHROPIC,
}


class TestReWOO:
    def test_steps_evidence_and_arguments(self) -> None:
        plan = load_plan(REWOO)
        assert plan.task_ids == ("E1", "E2", "E3")
        assert plan.task("E2").depends_on == ("E1",)
        assert plan.task("E2").needs == (Need("#E1", "E1"),)
        assert plan.task("E3").capabilities == ("Google",)
        assert plan.task("E1").description.startswith("Use Google to search")
        arguments = plan.document["tasks"][1]["arguments"]  # type: ignore[index]
        assert arguments == {
            "input": {
                "$concat": [
                    "What is the name of the 2024 Australian Open winner, given ",
                    {"$result": "E1"},
                ]
            }
        }
        assert plan.document["tasks"][2]["arguments"] == {  # type: ignore[index]
            "input": {"$concat": ["hometown of ", {"$result": "E2"}]}
        }
        assert check_plan(plan).violations == ()

    def test_langgraph_same_line_form(self) -> None:
        """LangGraph's tutorial prompt writes the step on its Plan: line."""
        text = (
            "Plan: Solve with Wolfram Alpha. #E1 = WolframAlpha[Solve x + 2 = 7]\n"
            "Plan: Find out x. #E2 = LLM[What is x, given #E1]\n"
        )
        plan = load_plan(text)
        assert plan.task_ids == ("E1", "E2")
        assert plan.task("E1").description == "Solve with Wolfram Alpha."
        assert plan.task("E2").depends_on == ("E1",)

    def test_reference_to_a_later_step_is_read_too_late(self) -> None:
        text = "Plan: a\n#E1 = LLM[use #E2]\nPlan: b\n#E2 = Google[x]\n"
        report = check_plan(load_plan(text))
        assert [v.check for v in report.errors] == ["needs_earlier_output"]

    def test_evidence_ten_and_later_is_noted(self) -> None:
        """ReWOO's PWS drops #E10 and later ('No evidence found'): the schema check says so."""
        steps = "".join(f"Plan: p{k}\n#E{k} = Google[q{k}]\n" for k in range(1, 11))
        report = check_plan(load_plan(steps, format="rewoo"))
        [warning] = [v for v in report.warnings if v.check == "schema"]
        assert warning.path == "/tasks/9/rewoo_note" and "#E10" in warning.message


class TestTEval:
    def test_json_plan(self) -> None:
        plan = load_plan(TEVAL)
        assert plan.task_ids == ("0", "1", "2")
        assert plan.task("2").depends_on == ("1",)
        assert plan.task("0").capabilities == ("FilmTool.search_movie",)
        assert plan.document["tasks"][0]["arguments"] == {"name": "Titanic"}  # type: ignore[index]
        assert check_plan(plan).violations == ()

    def test_json_plan_needs_integer_ids(self) -> None:
        """T-Eval's format_load rejects an answer whose ids are not integers."""
        with pytest.raises(PlanLoadError, match="'id' must be an integer"):
            load_plan('[{"id": "a", "name": "x", "args": {}}]', format="teval")

    def test_rewoo_type(self) -> None:
        plan = load_plan(TEVAL_REWOO)
        assert plan.task_ids == ("0", "1")
        assert plan.task("1").depends_on == ("0",)
        assert plan.task("1").capabilities == ("FilmTool.get_director",)
        assert plan.document["tasks"][1]["arguments"] == {  # type: ignore[index]
            "movie_id": {"$result": "0"}
        }
        assert check_plan(plan).violations == ()

    def test_rewoo_type_counts_must_agree(self) -> None:
        text = TEVAL_REWOO.replace("Plan 2: Find its director.\n", "")
        with pytest.raises(PlanLoadError, match="1 Plan, 2 Dependency and 2 Action lines"):
            load_plan(text)


class TestPlanAndExecute:
    def test_steps_run_in_order(self) -> None:
        plan = load_plan(STEPS)
        assert plan.task_ids == ("step_1", "step_2")
        assert plan.task("step_2").depends_on == ("step_1",)
        assert check_plan(plan).violations == ()

    def test_replanner_action(self) -> None:
        plan = load_plan('{"action": {"steps": ["Research the hometown of Jannik Sinner."]}}')
        assert [t.description for t in plan.tasks] == ["Research the hometown of Jannik Sinner."]

    def test_numbered_steps(self) -> None:
        plan = load_plan(NUMBERED_STEPS)
        assert plan.task("step_2").description == "Find the hometown of that winner"
        assert plan.task("step_2").depends_on == ("step_1",)

    def test_one_numbered_line_is_no_plan(self) -> None:
        with pytest.raises(PlanLoadError, match="no plan found"):
            load_plan("1. I cannot help with that.")

    def test_numbered_reasons_in_prose_are_no_plan_under_auto(self) -> None:
        """A refusal with numbered reasons never passes as a plan; forcing the format reads it."""
        text = "I cannot plan this because:\n1. the goal is vague\n2. no tools fit\n"
        with pytest.raises(PlanLoadError, match="no plan found"):
            load_plan(text)
        assert len(load_plan(text, format="plan_and_execute").tasks) == 2


class TestMetaGPT:
    def test_fenced_task_list(self) -> None:
        plan = load_plan(METAGPT)
        assert plan.task_ids == ("1", "2")
        assert plan.task("2").depends_on == ("1",)
        assert plan.task("1").capabilities == ("data preprocessing",)
        assert plan.task("2").description == "Train a model"
        assert check_plan(plan).violations == ()

    def test_plan_model_with_goal_and_a_cycle(self) -> None:
        """MetaGPT's Plan model: {goal, tasks}; a dependency cycle fails acyclic."""
        text = json.dumps(
            {
                "goal": "g",
                "tasks": [
                    {"task_id": "1", "instruction": "search", "dependent_task_ids": ["2"]},
                    {"task_id": "2", "instruction": "summarize", "dependent_task_ids": ["1"]},
                ],
            }
        )
        plan = load_plan(text)
        assert plan.goal == "g"
        assert [v.check for v in check_plan(plan).errors] == ["acyclic"]

    def test_metagpt_keys_that_are_no_plan_are_reported(self) -> None:
        text = '[{"task_id": "1", "instruction": "x", "is_finished": true}]'
        [warning] = check_plan(load_plan(text)).warnings
        assert warning.path == "/tasks/0/is_finished"

    def test_rolezero_commands_append_tasks_and_keep_the_other_commands(self) -> None:
        """Each Plan.append_task is a task, in order; the other commands (``end`` has no args)
        are kept under metagpt:commands, not dropped (handwritten, RoleZero's shape)."""
        text = (
            "I will plan.\n```json\n"
            + json.dumps(
                [
                    {
                        "command_name": "Plan.append_task",
                        "args": {"task_id": "1", "dependent_task_ids": [], "instruction": "PRD"},
                    },
                    {"command_name": "TeamLeader.publish_message", "args": {"content": "go"}},
                    {
                        "command_name": "Plan.append_task",
                        "args": {
                            "task_id": "2",
                            "dependent_task_ids": ["1"],
                            "instruction": "Design",
                        },
                    },
                    {"command_name": "end"},
                ]
            )
            + "\n```"
        )
        plan = load_plan(text)
        assert plan.task_ids == ("1", "2")
        assert plan.task("2").depends_on == ("1",)
        assert plan.task("2").description == "Design"
        kept = plan.extra["metagpt:commands"]
        assert [c["command_name"] for c in kept] == ["TeamLeader.publish_message", "end"]
        assert check_plan(plan).ok
        assert load_plan(text, format="metagpt").tasks == plan.tasks

    def test_a_published_rolezero_answer_appends_to_a_plan_it_does_not_hold(self) -> None:
        """geekan/MetaGPT @ 571301cefc1cd966e216df33b277ec49fa4a9a4d, tests/data/rsp_cache.json,
        answer 422 (https://github.com/geekan/MetaGPT/blob/571301cefc1cd966e216df33b277ec49fa4a9a4d/tests/data/rsp_cache.json),
        MIT, provenance published, the fenced block quoted: task 2 cites task 1 of the plan
        MetaGPT holds, so on its own it fails deps_resolve (as _append_task asserts)."""
        text = (
            "Since there are no further tasks in the current plan, I will append a new task.\n\n"
            '```json\n[\n    {\n        "command_name": "Plan.append_task",\n'
            '        "args": {\n            "task_id": "2",\n'
            '            "dependent_task_ids": ["1"],\n'
            '            "instruction": "Develop a strategy or plan to achieve the defined '
            'objectives for the test goal.",\n            "assignee": "Zero"\n        }\n'
            "    }\n]\n```"
        )
        plan = load_plan(text)
        assert plan.task_ids == ("2",)
        report = check_plan(plan)
        assert [v.check for v in report.errors] == ["deps_resolve"]
        assert [v.path for v in report.warnings] == ["/tasks/0/assignee"]

    def test_one_command_object_and_a_commands_key(self) -> None:
        """RoleZero reads a dict as [dict], or its 'commands' list."""
        command = {
            "command_name": "Plan.append_task",
            "args": {"task_id": "1", "dependent_task_ids": [], "instruction": "x"},
        }
        assert load_plan(json.dumps(command)).task_ids == ("1",)
        assert load_plan(json.dumps({"commands": [command, {"command_name": "end"}]})).task_ids == (
            "1",
        )

    def test_commands_without_a_task_are_no_plan(self) -> None:
        text = json.dumps([{"command_name": "RoleZero.reply_to_human", "args": {"content": "hi"}}])
        with pytest.raises(PlanLoadError, match="expected a JSON object, got a list"):
            load_plan(text)
        with pytest.raises(PlanLoadError, match=r"without a 'Plan\.append_task'"):
            load_plan(text, format="metagpt")

    def test_a_command_task_without_a_string_id_is_named_where_it_is(self) -> None:
        text = json.dumps(
            [{"command_name": "Plan.append_task", "args": {"task_id": 1, "instruction": "x"}}]
        )
        with pytest.raises(PlanLoadError) as caught:
            load_plan(text, format="metagpt")
        assert caught.value.location == "/0/args/task_id"


class TestToolCalls:
    def test_every_openai_call_is_a_task(self) -> None:
        """All calls, not only the first one's arguments; parallel calls are independent."""
        plan = load_plan(OPENAI)
        assert plan.task_ids == ("call_1", "call_2")
        assert plan.task("call_2").depends_on == ()
        assert plan.document["tasks"][1]["arguments"] == {"city": "Tokyo"}  # type: ignore[index]
        assert [v.check for v in check_plan(plan).violations] == ["isolated_task"]

    def test_bare_tool_calls_array_and_message(self) -> None:
        calls = json.loads(OPENAI)["choices"][0]["message"]
        assert load_plan(json.dumps(calls["tool_calls"])).task_ids == ("call_1", "call_2")
        assert load_plan(json.dumps(calls)).task_ids == ("call_1", "call_2")

    def test_arguments_that_are_no_json_object_are_kept_and_reported(self) -> None:
        calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]
        report = check_plan(load_plan(json.dumps(calls)))
        assert [v.path for v in report.warnings] == ["/tasks/0/arguments_text"]

    def test_a_plan_delivered_through_a_tool_is_that_plan(self) -> None:
        """A call whose arguments hold a plan (structured output) stays that plan."""
        body = json.loads(OPENAI)
        body["choices"][0]["message"]["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "submit_plan", "arguments": '{"tasks": [{"id": "a"}]}'},
            }
        ]
        assert load_plan(json.dumps(body)).task_ids == ("a",)
        forced = load_plan(json.dumps(body), format="openai_tool_calls")
        assert forced.task_ids == ("call_1",)

    def test_every_anthropic_tool_use_block_is_a_task(self) -> None:
        plan = load_plan(ANTHROPIC)
        assert plan.task_ids == ("toolu_1", "toolu_2")
        assert plan.task("toolu_2").capabilities == ("get_time",)
        assert plan.document["tasks"][1]["arguments"] == {"tz": "JST"}  # type: ignore[index]

    def test_forcing_tool_use_on_a_list_without_one_is_unusable(self) -> None:
        """Not an empty plan that fails has_tasks: the input holds no tool_use block at all."""
        with pytest.raises(PlanLoadError, match="no tool_use content block"):
            load_plan(TEVAL, format="anthropic_tool_use")

    def test_bare_content_blocks(self) -> None:
        blocks = json.loads(ANTHROPIC)["content"]
        assert load_plan(json.dumps(blocks)).task_ids == ("toolu_1", "toolu_2")


_JSON_DETECTORS = {
    "hugginggpt": looks_like_hugginggpt,
    "teval": looks_like_teval,
    "metagpt": looks_like_metagpt,
    "openai_tool_calls": looks_like_openai_calls,
    "anthropic_tool_use": looks_like_anthropic_blocks,
    "plan_and_execute": looks_like_steps,
}
_TEXT_DETECTORS = {
    "worfbench": looks_like_worfbench,
    "teval": looks_like_teval_rewoo,
    "rewoo": looks_like_rewoo,
    "llmcompiler": looks_like_llmcompiler,
    "plan_and_execute": looks_like_numbered_steps,
}


def _json_views(text: str) -> list[Any]:
    """The JSON values a detector may see: the value, its message, its tool calls/blocks."""
    match = re.search(r"[\[{]", text)
    if match is None:
        return []
    try:
        value = json.loads(text[match.start() :].rstrip("`\n"))
    except ValueError:
        return []
    views = [value]
    if isinstance(value, dict):
        message = (value.get("choices") or [{}])[0].get("message", {})
        views += [message.get("tool_calls"), value.get("content"), value.get("tasks")]
    return views


class TestFormatNames:
    def test_suite_schema_lists_every_format(self) -> None:
        from harness.schemas import load_schema

        enum = load_schema("suite")["properties"]["plan_format"]["enum"]
        assert enum == list(FORMATS)


class TestDetection:
    @pytest.mark.parametrize("name", list(EXAMPLES))
    def test_each_example_is_detected_as_its_format_only(self, name: str) -> None:
        """Exactly one detector claims each example, and auto reads it as that format."""
        fmt = name.split("-")[0]
        text = EXAMPLES[name]
        claims = {f for v in _json_views(text) for f, d in _JSON_DETECTORS.items() if d(v)}
        if not claims:
            claims = {f for f, d in _TEXT_DETECTORS.items() if d(text)}
        assert claims == {fmt}
        auto, forced = load_plan(text), load_plan(text, format=fmt)
        assert auto.to_dict() == forced.to_dict()

    @pytest.mark.parametrize("name", list(EXAMPLES))
    def test_other_formats_refuse_or_read_otherwise(self, name: str) -> None:
        """Forcing another of the new formats never reads the example the same way."""
        fmt = name.split("-")[0]
        text = EXAMPLES[name]
        own = load_plan(text, format=fmt).to_dict()
        for other in FORMATS[7:]:
            if other == fmt:
                continue
            try:
                read = load_plan(text, format=other).to_dict()
            except PlanLoadError:
                continue
            assert read != own, other

    def test_cli_names_the_formats(self, tmp_path: Path) -> None:
        from typer.testing import CliRunner

        from harness._cli.main import app

        path = tmp_path / "plan.txt"
        path.write_text(REWOO, encoding="utf-8")
        result = CliRunner().invoke(app, ["check", "--plan-format", "rewoo", str(path)])
        assert result.exit_code == 0, result.stdout
        assert set(FORMATS[7:]) == {
            "rewoo",
            "teval",
            "plan_and_execute",
            "metagpt",
            "openai_tool_calls",
            "anthropic_tool_use",
        }


# --- published files -------------------------------------------------------------------------


def rewoo_oracle(text: str) -> dict[str, tuple[str, list[str]]]:
    """ReWOO's PWS (billxbf/ReWOO at 9cd0283): {evidence: (tool call, evidences it reads that
    were computed before it)} as ``_parse_planner_evidences`` and ``_get_worker_evidences``."""
    evidences: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#") and line[1] == "E" and line[2].isdigit():
            e, tool_call = line.split("=", 1)
            e, tool_call = e.strip(), tool_call.strip()
            evidences[e] = tool_call if len(e) == 3 else "No evidence found"
    done: list[str] = []
    out = {}
    for e, tool_call in evidences.items():
        reads = []
        if "[" in tool_call:
            tool_input = tool_call.split("[", 1)[1][:-1]
            reads = [v for v in re.findall(r"#E\d+", tool_input) if v in done]
        out[e] = (tool_call, list(dict.fromkeys(reads)))
        done.append(e)
    return out


def metagpt_oracle(text: str) -> list[dict[str, Any]]:
    """MetaGPT's CodeParser.parse_code then json.loads (metagpt/utils/common.py)."""
    match = re.search(r"```.*?\s+(.*?)\n```", text, re.DOTALL)
    parsed = json.loads(match.group(1) if match else text)
    assert isinstance(parsed, list)
    return parsed


class TestPublishedFiles:
    @pytest.mark.parametrize(
        ("name", "tasks", "ok"),
        [
            ("anthropic_tool_use.json", 2, True),
            ("openai_tool_calls.json", 2, True),
            ("langgraph_pe.json", 2, True),
            ("numbered_steps.txt", 2, True),
            ("metagpt_bare.md", 2, True),
            ("metagpt_style.json", 2, False),
            ("rewoo.txt", 3, True),
            ("teval.json", 3, True),
        ],
    )
    def test_format_samples(self, shared_data: Path, name: str, tasks: int, ok: bool) -> None:
        plan = load_plan(shared_data / "plans-in-the-wild" / "formats-not-read" / name)
        assert isinstance(plan, Plan)
        assert len(plan.tasks) == tasks
        assert check_plan(plan).ok is ok


_JSON_SCALARS = st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=8)
_JSON = st.recursive(
    _JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "name",
                    "args",
                    "prev",
                    "task_id",
                    "instruction",
                    "dependent_task_ids",
                    "steps",
                    "action",
                    "type",
                    "input",
                    "function",
                    "arguments",
                    "tool_calls",
                    "content",
                    "role",
                    "choices",
                    "message",
                    "tasks",
                    "goal",
                    "task_type",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
_LINES = st.lists(
    st.sampled_from(
        [
            "Plan: p",
            "#E1 = Google[x]",
            "#E2 = LLM[#E1 and #E3]",
            "#E1 = nobracket",
            "#E",
            "Plan 1: a",
            "Dependency 1: [1, 2]",
            "Action 1: #E1 = T.f(a=#E1, b='x')",
            "Action 2: g(",
            "1. step one",
            "2) step two",
            "3. search(x)",
            "Node:",
            "(1,2)",
            "",
        ]
    ),
    max_size=8,
).map("\n".join)


class TestNeverCrashes:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(value=_JSON, fmt=st.sampled_from(["auto", *FORMATS[7:]]))
    def test_any_json_is_a_plan_or_one_load_error(self, value: Any, fmt: str) -> None:
        """Whatever JSON arrives, each reader gives a plan or a PlanLoadError, nothing else."""
        try:
            plan = load_plan(json.dumps(value), format=fmt)
        except PlanLoadError:
            return
        check_plan(plan)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=_LINES, fmt=st.sampled_from(["auto", *FORMATS[7:]]))
    def test_any_text_is_a_plan_or_one_load_error(self, text: str, fmt: str) -> None:
        try:
            plan = load_plan(text + "\n", format=fmt)
        except PlanLoadError:
            return
        check_plan(plan)
