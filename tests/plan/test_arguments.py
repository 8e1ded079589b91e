"""Task arguments: canonical JSON with references kept as references, from every adapter.

Plans here are hand-written (provenance: handwritten) in each format's published shape.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from harness.checks import check_plan
from harness.plan import Plan, Ref, Template, load_plan


def _args(plan: Plan) -> list[dict[str, object]]:
    return [dict(t.arguments) for t in plan.tasks]


class TestCanonical:
    """The agreed contract: ``$result`` and ``$concat`` objects."""

    DOC: ClassVar[dict[str, Any]] = {
        "tasks": [
            {"id": "t1", "description": "fetch", "arguments": {"url": "https://x.test/a.png"}},
            {
                "id": "t2",
                "description": "caption",
                "depends_on": ["t1"],
                "arguments": {
                    "image": {"$result": "t1"},
                    "prompt": {"$concat": ["describe ", {"$result": "t1"}, " briefly"]},
                    "options": {"sizes": [1, {"$result": "t1"}], "lang": "en"},
                },
            },
        ]
    }

    def test_references_are_records_not_strings(self) -> None:
        """A $result object is a Ref, a $concat a Template, also inside lists and objects."""
        plan = Plan.from_dict(json.loads(json.dumps(self.DOC)))
        args = plan.tasks[1].arguments
        assert args["image"] == Ref("t1")
        assert args["prompt"] == Template(("describe ", Ref("t1"), " briefly"))
        assert args["options"] == {"sizes": [1, Ref("t1")], "lang": "en"}
        assert plan.tasks[0].arguments == {"url": "https://x.test/a.png"}

    def test_round_trip(self) -> None:
        """to_dict writes the arguments back exactly as read."""
        plan = Plan.from_dict(json.loads(json.dumps(self.DOC)))
        assert [t.get("arguments") for t in plan.to_dict()["tasks"]] == [
            t["arguments"] for t in self.DOC["tasks"]
        ]
        assert Plan.from_dict(plan.to_dict()) == plan

    def test_no_arguments_leaves_the_document_as_today(self) -> None:
        """A plan without arguments has none in to_dict (content hashes do not move)."""
        plan = Plan.from_dict({"tasks": [{"id": "a", "description": "x"}]})
        assert plan.tasks[0].arguments == {}
        assert "arguments" not in plan.to_dict()["tasks"][0]

    def test_malformed_reference_is_a_schema_violation(self) -> None:
        """{"$result": 3} is not a reference: kept as a literal, and the schema check says so."""
        plan = Plan.from_dict({"tasks": [{"id": "a", "arguments": {"x": {"$result": 3}}}]})
        assert plan.tasks[0].arguments == {"x": {"$result": 3}}
        report = check_plan(plan)
        assert [(v.check, v.path) for v in report.errors] == [
            ("schema", "/tasks/0/arguments/x/$result")
        ]

    def test_arguments_are_an_object_or_a_kept_list(self) -> None:
        """Text breaks the schema at /tasks/0/arguments; a list (TaskBench's own form, which
        canonical plans carried before arguments were read) is kept as it was, unchecked."""
        report = check_plan(Plan.from_dict({"tasks": [{"id": "a", "arguments": "x"}]}))
        assert [(v.check, v.path) for v in report.errors] == [("schema", "/tasks/0/arguments")]
        legacy = Plan.from_dict({"tasks": [{"id": "a", "arguments": ["inbox"]}]})
        assert legacy.tasks[0].arguments == {}
        assert legacy.tasks[0].to_dict()["arguments"] == ["inbox"]
        assert check_plan(legacy).ok


class TestTaskBench:
    """``<node-k>`` citations become references to ``node-k``."""

    RECORD: ClassVar[dict[str, Any]] = {
        "id": "7",
        "task_nodes": [
            {"task": "Image Downloader", "arguments": ["https://x.test/cat.png"]},
            {"task": "Image Editing", "arguments": ["<node-0>", "make it blue"]},
            {"task": "Image-to-Text", "arguments": ["caption of <node-1> please"]},
            {"task": "get_weather", "arguments": [{"name": "location", "value": "Paris"}]},
        ],
        "task_links": [{"source": "Image Downloader", "target": "Image Editing"}],
    }

    def test_positional_and_named_arguments(self) -> None:
        """Positional strings are arg0, arg1...; {name, value} objects keep their name."""
        plan = load_plan(json.dumps(self.RECORD), format="taskbench")
        assert _args(plan) == [
            {"arg0": "https://x.test/cat.png"},
            {"arg0": Ref("node-0"), "arg1": "make it blue"},
            {"arg0": Template(("caption of ", Ref("node-1"), " please"))},
            {"location": "Paris"},
        ]

    def test_json_lines_fast_lane_gives_the_same_arguments(self) -> None:
        """The JSON Lines reader (fast lane) and the single-record reader agree."""
        from harness.plan._taskbench_fast import fast_taskbench_plan

        line = json.dumps(self.RECORD)
        fast = fast_taskbench_plan(line)
        assert fast is not None
        assert _args(fast) == _args(load_plan(line, format="taskbench"))

    def test_citation_beyond_the_plan_is_still_a_reference(self) -> None:
        """<node-9> in a two-node plan is a reference to a missing task, not text."""
        record = {
            "task_nodes": [
                {"task": "A", "arguments": ["x"]},
                {"task": "B", "arguments": ["<node-9>"]},
            ]
        }
        plan = load_plan(json.dumps(record), format="taskbench")
        assert plan.tasks[1].arguments == {"arg0": Ref("node-9")}


class TestHuggingGPT:
    def test_generated_references(self) -> None:
        """<GENERATED>-k and <GENERATED-k> are references to task k."""
        text = json.dumps(
            [
                {"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "a.jpg"}},
                {"task": "text-to-speech", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}},
                {
                    "task": "translation",
                    "id": 2,
                    "dep": [0],
                    "args": {"text": "say <GENERATED-0> in French"},
                },
            ]
        )
        plan = load_plan(text, format="hugginggpt")
        assert _args(plan) == [
            {"image": "a.jpg"},
            {"text": Ref("0")},
            {"text": Template(("say ", Ref("0"), " in French"))},
        ]


class TestLLMCompiler:
    def test_keyword_positional_and_references(self) -> None:
        """Keyword arguments by name, positional as argN, $k and ${k} as references."""
        text = (
            '1. search(query="oldest parrot")\n'
            '2. search("parrot lifespan", 3)\n'
            '3. math(problem="${1} - $2", context=[$1, None])\n'
            "4. join()<END_OF_PLAN>\n"
        )
        plan = load_plan(text, format="llmcompiler")
        assert _args(plan) == [
            {"query": "oldest parrot"},
            {"arg0": "parrot lifespan", "arg1": 3},
            {"problem": Template((Ref("1"), " - ", Ref("2"))), "context": [Ref("1"), None]},
            {},  # join() is the last task, with no arguments
        ]

    def test_arguments_that_are_not_literals_are_left_out(self) -> None:
        """A call with an expression or ``...`` keeps its text only (no guessing)."""
        plan = load_plan("1. f(x + 1)\n2. g(a=1, ...)\n3. join()", format="llmcompiler")
        assert _args(plan) == [{}, {}, {}]  # the third is join()
        assert plan.tasks[0].description == "f(x + 1)"
