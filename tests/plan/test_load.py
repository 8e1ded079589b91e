"""Loading plans: canonical JSON, the gem's formats, adapters, and every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import plan as plan_api
from harness._errors import NoPlanFoundError, PlanLoadError
from harness.plan import Need, Plan, load_plan, load_plan_file

CANONICAL = {
    "plan_id": "orders-2026-11",
    "goal": "Refund a damaged order",
    "tasks": [
        {
            "id": "fetch_email",
            "description": "Fetch the customer's email",
            "agent": {"name": "Inbox reader", "description": "...", "instructions": "..."},
            "capabilities": ["email_read"],
            "depends_on": [],
            "needs": [],
        },
        {
            "id": "extract_order",
            "description": "Extract order",
            "capabilities": ["structured_extraction@1.0"],
            "depends_on": ["fetch_email"],
            "needs": [{"name": "email", "task": "fetch_email"}],
            "on_failure": "skip_dependents",
        },
    ],
}


class TestPublicSurface:
    def test_all_is_sorted_and_complete(self) -> None:
        """The package exports exactly its sorted __all__."""
        assert plan_api.__all__ == sorted(plan_api.__all__)
        public = {n for n in dir(plan_api) if not n.startswith("_")}
        assert set(plan_api.__all__) <= public


class TestCanonical:
    def test_design_example_loads(self) -> None:
        """The design document's example plan (docs/design.md) loads with its ids, edges, needs and
        on_failure."""
        plan = load_plan(json.dumps(CANONICAL))
        assert plan.plan_id == "orders-2026-11"
        assert plan.task_ids == ("fetch_email", "extract_order")
        second = plan.task("extract_order")
        assert second.depends_on == ("fetch_email",)
        assert second.needs == (Need("email", "fetch_email"),)
        assert second.on_failure == "skip_dependents"
        assert plan.tasks[0].agent is not None and plan.tasks[0].agent["name"] == "Inbox reader"

    def test_needs_mapping_form(self) -> None:
        """``needs`` as a mapping name -> task id means the same as the list form."""
        plan = load_plan({"tasks": [{"id": "a"}, {"id": "b", "needs": {"email": "a"}}]})
        assert plan.task("b").needs == (Need("email", "a"),)

    def test_flat_plan_gets_positional_ids(self) -> None:
        """A flat plan without ids (the gem's older planner) gets task_1, task_2 and no edges."""
        plan = load_plan({"tasks": [{"description": "one"}, {"description": "two"}]})
        assert plan.task_ids == ("task_1", "task_2")
        assert plan.positional_ids
        assert all(not t.depends_on for t in plan.tasks)

    def test_round_trip_keeps_unknown_keys(self) -> None:
        """Keys the model does not know survive to_dict()."""
        doc = {"tasks": [{"id": "a", "priority": 3}], "owner": "ops"}
        out = Plan.from_dict(doc).to_dict()
        assert out["owner"] == "ops" and out["tasks"][0]["priority"] == 3

    def test_identity_ignores_descriptions(self) -> None:
        """Without plan_id, the identity digest changes with task ids, not descriptions."""
        a = Plan.from_dict({"goal": "g", "tasks": [{"id": "x", "description": "old"}]})
        b = Plan.from_dict({"goal": "g", "tasks": [{"id": "x", "description": "new"}]})
        c = Plan.from_dict({"goal": "g", "tasks": [{"id": "y"}]})
        assert a.identity == b.identity != c.identity
        assert a.content_hash != b.content_hash


class TestText:
    def test_json_in_a_fence(self) -> None:
        """The plan inside a ```json fence in prose is found."""
        text = "Sure!\n```json\n" + json.dumps(CANONICAL) + "\n```\nAnything else?"
        assert load_plan(text).task_ids == ("fetch_email", "extract_order")

    def test_json_in_prose_without_fence(self) -> None:
        """The first complete JSON object that looks like a plan is taken, not other objects."""
        text = 'Config {"x": 1} first, then the plan: ' + json.dumps(CANONICAL) + " done."
        assert load_plan(text).plan_id == "orders-2026-11"

    def test_trailing_prose_after_json(self) -> None:
        """JSON followed by chatter still loads in auto mode."""
        assert load_plan(json.dumps(CANONICAL) + "\n\nHope this helps!").plan_id

    def test_no_plan_in_text(self) -> None:
        """Text without a plan is NoPlanFoundError, naming the source."""
        with pytest.raises(NoPlanFoundError, match="no plan found"):
            load_plan("I cannot help with that.", source="answer.txt")

    def test_chat_completion_envelope(self) -> None:
        """A chat-completion body whose message content is the plan loads."""
        body = {"choices": [{"message": {"role": "assistant", "content": json.dumps(CANONICAL)}}]}
        assert load_plan(json.dumps(body)).task_ids == ("fetch_email", "extract_order")

    def test_anthropic_tool_use_envelope(self) -> None:
        """An Anthropic message whose tool_use input is the plan loads."""
        body = {"type": "message", "content": [{"type": "tool_use", "input": CANONICAL}]}
        assert load_plan(json.dumps(body)).plan_id == "orders-2026-11"


class TestRealData:
    def test_gem_cassette(self, shared_data: Path) -> None:
        """The agentic gem's real gpt-4o cassette yields its flat 7-task plan."""
        plan = load_plan(shared_data / "agentic" / "plan_ruby_coding_agent.yml")
        assert len(plan.tasks) == 7 and plan.positional_ids
        assert plan.tasks[0].description.startswith("Define the requirements")
        assert plan.tasks[0].agent is not None

    @pytest.mark.parametrize(
        ("domain", "count"),
        [
            ("toolbench", 114),
            ("toolalpaca", 93),
            ("seal_tools", 223),
            ("wikihow", 262),
            ("intercodesql", 500),
        ],
    )
    def test_worfbench_data_files(self, shared_data: Path, domain: str, count: int) -> None:
        """Every workflow of a WorfBench data file loads, labelled FILE#<id>."""
        path = shared_data / "worfbench" / f"{domain}.json"
        results = load_plan_file(path)
        assert len(results) == count
        assert all(isinstance(p, Plan) for _, p in results)
        assert results[0][0].startswith(f"{path}#{domain}")

    def test_worfbench_edges(self) -> None:
        """Edge (i,j) means j depends on i; START and END are markers, not tasks."""
        text = "Node:\n1: Find\n2: Read\n3: Write\nEdge: (START,1) (1,2) (1,3) (2,3) (3,END)"
        plan = load_plan(text, format="worfbench")
        assert plan.task_ids == ("1", "2", "3")
        assert plan.task("3").depends_on == ("1", "2")
        assert plan.task("1").depends_on == ()

    def test_taskbench_nodes_and_links(self, shared_data: Path) -> None:
        """TaskBench nodes become tasks with their tool as capability; links become edges."""
        doc = {
            "user_request": "Extract audio, then transcribe it",
            "task_nodes": [
                {"task": "Audio Extractor", "arguments": ["example.mp4"]},
                {"task": "Audio-to-Text", "arguments": ["<node-0>"]},
            ],
            "task_links": [{"source": "Audio Extractor", "target": "Audio-to-Text"}],
        }
        plan = load_plan(json.dumps(doc), format="taskbench")
        assert plan.task("node-1").depends_on == ("node-0",)
        assert plan.task("node-1").needs == (Need("arg0", "node-0"),)
        assert plan.task("node-0").capabilities == ("Audio Extractor",)


class TestBadInput:
    """Each unusable input is one PlanLoadError naming the source and the location."""

    @pytest.mark.parametrize(
        ("content", "message", "location"),
        [
            (b"", "empty", None),  # an empty file
            (b"  \n ", "empty", None),  # only whitespace
            (b'{"tasks": []}\xff', "not UTF-8", "line 1"),  # bytes that are not UTF-8
            (b"[1, 2]", "expected a JSON object", "/"),  # JSON that is not an object
            (b'{"tasks": {"a": 1}}', "'tasks' must be a list", "/tasks"),
            (b'{"tasks": [1]}', "a task must be a JSON object", "/tasks/0"),
            (b'{"tasks": [{"id": ""}]}', "non-empty string", "/tasks/0/id"),
            (b'{"tasks": [{"id": 7}]}', "non-empty string", "/tasks/0/id"),
            (b'{"tasks": [{"id": "a", "x": NaN}]}', "NaN is not valid JSON", "line 1 column 29"),
            (b'{"tasks": [], "n": Infinity}', "Infinity is not valid JSON", "line 1"),
            (b'{"tasks": [{"id": "a", "id": "b"}]}', "duplicate key 'id'", "/tasks/0"),
            (b'{"tasks": [', "invalid JSON", "line 1 column 12"),
        ],
    )
    def test_unusable(
        self, tmp_path: Path, content: bytes, message: str, location: str | None
    ) -> None:
        path = tmp_path / "plan.json"
        path.write_bytes(content)
        with pytest.raises(PlanLoadError) as info:
            load_plan(path)
        assert message in info.value.what
        assert info.value.source == str(path)
        if location is not None:
            assert info.value.location is not None and info.value.location.startswith(location)

    def test_bom_is_accepted(self, tmp_path: Path) -> None:
        """A UTF-8 BOM is accepted and dropped."""
        path = tmp_path / "bom.json"
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps(CANONICAL).encode())
        assert load_plan(path).plan_id == "orders-2026-11"

    def test_deep_nesting(self) -> None:
        """JSON nested 100,000 levels is a clear error, not a RecursionError."""
        text = '{"tasks": ' + "[" * 100_000 + "]" * 100_000 + "}"
        with pytest.raises(PlanLoadError, match="nested too deeply") as info:
            load_plan(text)
        assert info.value.location and "deeper than" in info.value.location

    def test_fifty_megabytes(self, tmp_path: Path) -> None:
        """A 50 MB file is refused before it is read, with the way to raise the limit."""
        path = tmp_path / "big.json"
        with path.open("wb") as fh:
            fh.truncate(50 * 1024 * 1024)
        with pytest.raises(PlanLoadError, match="over the") as info:
            load_plan(path)
        assert "--max-bytes" in (info.value.hint or "")

    def test_missing_file_and_directory(self, tmp_path: Path) -> None:
        """A missing path and a directory each get their own message."""
        with pytest.raises(PlanLoadError, match="no such file"):
            load_plan(tmp_path / "nope.json")
        with pytest.raises(PlanLoadError, match="directory"):
            load_plan(tmp_path)

    def test_unknown_format(self) -> None:
        """An unknown format is refused with the list of formats."""
        with pytest.raises(PlanLoadError, match="unknown plan format") as info:
            load_plan("{}", format="yaml")
        assert "canonical" in (info.value.hint or "")

    def test_json_object_without_tasks(self) -> None:
        """A JSON object that is no plan says which keys it has."""
        with pytest.raises(NoPlanFoundError, match="keys: 'a', 'b'"):
            load_plan('{"a": 1, "b": 2}')

    def test_one_line_messages(self, tmp_path: Path) -> None:
        """Errors print as one line: source, location, what, hint."""
        path = tmp_path / "p.json"
        path.write_text('{"tasks": [{"id": "a", "id": "b"}]}')
        with pytest.raises(PlanLoadError) as info:
            load_plan(path)
        line = info.value.one_line()
        assert "\n" not in line
        assert line.startswith(f"{path}: /tasks/0: duplicate key 'id'")


class TestNotebookInputs:
    def test_dict_envelope(self) -> None:
        """A parsed chat-completion body (a dict) loads like its JSON text."""
        body = {"choices": [{"message": {"content": json.dumps(CANONICAL)}}]}
        assert load_plan(body).plan_id == "orders-2026-11"

    def test_str_that_names_a_file(self, tmp_path: Path) -> None:
        """A file name passed as str gets a hint to pass a Path."""
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(CANONICAL))
        with pytest.raises(NoPlanFoundError) as info:
            load_plan(str(path))
        assert "Path(" in (info.value.hint or "")
        assert load_plan(path).plan_id == "orders-2026-11"


def test_loaded_task_equals_constructed_task() -> None:
    """The fast construction path gives exactly the object Task(...) gives, every field."""
    from harness.plan import Task

    doc = {
        "id": "b",
        "description": "d",
        "capabilities": ["c"],
        "depends_on": ["a"],
        "needs": {"x": "a"},
        "on_failure": "continue",
        "agent": {"name": "n"},
        "k": 1,
    }
    loaded = Plan.from_dict({"tasks": [{"id": "a"}, doc]}).task("b")
    built = Task("b", "d", ("c",), ("a",), (Need("x", "a"),), "continue", {"name": "n"}, {"k": 1})
    assert loaded == built
    assert (loaded.agent, loaded.extra) == (built.agent, built.extra)
    assert repr(loaded) == repr(built)
