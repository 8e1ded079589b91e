"""Published plans committed under tests/data/published/<format>/ (provenance: published; each
folder's SOURCE.md names the repository, commit, path and licence, and lists every file with
the verdict planeval gives it).

Each file is read end to end and judged against an oracle that transcribes the upstream reader
at its pinned commit: pydantic-ai's reading of OpenAI ``tool_calls`` and Anthropic ``tool_use``
(the project whose recordings these are), ReWOO's PWS, MetaGPT's CodeParser + ``json.loads``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.checks import check_plan
from harness.plan import Plan, load_plan
from tests.plan.test_more_formats import metagpt_oracle, rewoo_oracle

PUBLISHED = Path(__file__).parent.parent / "data" / "published"
ROW = re.compile(r"^\| (\S+\.(?:json|txt|md)) \| .+ \| (\d+) \| (.+) \|$")


def listed(fmt: str) -> dict[str, tuple[int, str]]:
    """{file: (tasks, verdict)} as the folder's SOURCE.md lists them."""
    rows = {}
    for line in (PUBLISHED / fmt / "SOURCE.md").read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows[match[1]] = (int(match[2]), match[3])
    return rows


def verdict(plan: Plan) -> str:
    """``ok`` or ``fail <checks>``, then ``; warn <checks>``: the form SOURCE.md writes."""
    report = check_plan(plan)
    fails = sorted(c for c, o in report.outcomes.items() if o == "fail")
    warns = sorted(c for c, o in report.outcomes.items() if o == "warn")
    text = "ok" if report.ok else "fail " + ", ".join(fails)
    return text + ("; warn " + ", ".join(warns) if warns else "")


def pydantic_ai_openai_calls(body: dict[str, Any]) -> list[tuple[str | None, str, dict[str, Any]]]:
    """pydantic-ai at 4fda389 (models/openai.py ``_process_response`` and messages.py
    ``args_as_dict(raise_if_invalid=True)``): every function tool call of the first choice, in
    order, as (id, name, arguments); empty or null arguments are ``{}``, a JSON text must hold
    an object."""
    calls = []
    for call in body["choices"][0]["message"]["tool_calls"]:
        raw = call["function"].get("arguments")
        if not raw:
            arguments: dict[str, Any] = {}
        elif isinstance(raw, dict):
            arguments = raw
        else:
            arguments = json.loads(raw)
            assert isinstance(arguments, dict)
        calls.append((call.get("id"), call["function"]["name"], arguments))
    return calls


def pydantic_ai_anthropic_calls(body: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """pydantic-ai at 4fda389 (models/anthropic.py): each ``tool_use`` block of the content, in
    order, as ToolCallPart(name, input, id)."""
    return [(b["id"], b["name"], b["input"]) for b in body["content"] if b["type"] == "tool_use"]


def _files(fmt: str) -> list[str]:
    return sorted(p.name for p in (PUBLISHED / fmt).iterdir() if p.name != "SOURCE.md")


@pytest.mark.parametrize("fmt", ["openai_tool_calls", "anthropic_tool_use", "rewoo", "metagpt"])
def test_source_lists_every_file_and_nothing_else(fmt: str) -> None:
    assert sorted(listed(fmt)) == _files(fmt)


@pytest.mark.parametrize("fmt", ["openai_tool_calls", "anthropic_tool_use"])
def test_at_least_twenty_published_answers_some_with_parallel_calls(fmt: str) -> None:
    rows = listed(fmt)
    assert len(rows) >= 20
    assert sum(1 for tasks, _ in rows.values() if tasks > 1) >= 5


@pytest.mark.parametrize("name", _files("openai_tool_calls"))
def test_openai_tool_calls_read_as_pydantic_ai_reads_them(name: str) -> None:
    path = PUBLISHED / "openai_tool_calls" / name
    oracle = pydantic_ai_openai_calls(json.loads(path.read_text(encoding="utf-8")))
    plan = load_plan(path, format="openai_tool_calls")
    assert [(t.capabilities, dict(t.arguments)) for t in plan.tasks] == [
        ((n,), a) for _, n, a in oracle
    ]
    # the call's id; a call without one is named by its position
    assert plan.task_ids == tuple(i or f"call_{k}" for k, (i, _, _) in enumerate(oracle, 1))
    assert all(t.depends_on == () for t in plan.tasks)
    assert load_plan(path).tasks == plan.tasks
    tasks, expected = listed("openai_tool_calls")[name]
    assert (len(plan.tasks), verdict(plan)) == (tasks, expected)


@pytest.mark.parametrize("name", _files("anthropic_tool_use"))
def test_anthropic_tool_use_read_as_pydantic_ai_reads_them(name: str) -> None:
    path = PUBLISHED / "anthropic_tool_use" / name
    oracle = pydantic_ai_anthropic_calls(json.loads(path.read_text(encoding="utf-8")))
    plan = load_plan(path, format="anthropic_tool_use")
    assert [(t.id, t.capabilities, dict(t.arguments)) for t in plan.tasks] == [
        (i, (n,), a) for i, n, a in oracle
    ]
    assert all(t.depends_on == () for t in plan.tasks)
    assert load_plan(path).tasks == plan.tasks
    tasks, expected = listed("anthropic_tool_use")[name]
    assert (len(plan.tasks), verdict(plan)) == (tasks, expected)


def test_the_malformed_openai_calls_are_read() -> None:
    """A call without ``id`` and a call whose ``arguments`` is null (both recorded from
    OpenAI-compatible APIs) are tasks, not load errors."""
    folder = PUBLISHED / "openai_tool_calls"
    no_id = load_plan(
        folder / "pydantic-ai__test_openai_test_compatible_api_with_tool_calls_without_id__0.json"
    )
    assert no_id.task_ids == ("call_1",)
    null_args = load_plan(
        folder / "pydantic-ai__test_openrouter_test_openrouter_tool_optional_parameters__0.json"
    )
    assert [(t.capabilities, dict(t.arguments)) for t in null_args.tasks] == [
        (("find_education_content",), {})
    ]


@pytest.mark.parametrize("name", _files("rewoo"))
def test_rewoo_few_shot_plans_read_as_pws_reads_them(name: str) -> None:
    text = (PUBLISHED / "rewoo" / name).read_text(encoding="utf-8")
    oracle = rewoo_oracle(text)
    plan = load_plan(text, format="rewoo")
    assert [f"#{i}" for i in plan.task_ids] == list(oracle)
    for task in plan.tasks:
        assert task.depends_on == tuple(v[1:] for v in oracle[f"#{task.id}"][1])
        call = oracle[f"#{task.id}"][0]
        # PWS: the tool is the text before the first "["; a call without one is no tool call
        assert task.capabilities == ((call.split("[", 1)[0],) if "[" in call else ())
    assert load_plan(text).tasks == plan.tasks
    assert (len(plan.tasks), verdict(plan)) == listed("rewoo")[name]


@pytest.mark.parametrize("name", _files("metagpt"))
def test_metagpt_cached_plans_read_as_metagpt_reads_them(name: str) -> None:
    text = (PUBLISHED / "metagpt" / name).read_text(encoding="utf-8")
    oracle = metagpt_oracle(text)
    plan = load_plan(text)
    assert plan.task_ids == tuple(t["task_id"] for t in oracle)
    for task, item in zip(plan.tasks, oracle, strict=True):
        assert list(task.depends_on) == item.get("dependent_task_ids", [])
        assert task.description == item["instruction"]
    assert (len(plan.tasks), verdict(plan)) == listed("metagpt")[name]
