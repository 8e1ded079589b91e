"""``planeval import taskbench``: TaskBench-format data as a suite with gold recordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.importers import import_taskbench
from harness.recording import ResponseFile, prompt_hash
from harness.run import run_suite
from harness.suite import load_suite

from ._helpers import files_under, imported_cases

# Hand-written TaskBench-format data (provenance: handwritten), one resource and one temporal
# domain, shaped like TaskBench's data.json and tool_desc.json.
RESOURCE_TOOLS = {
    "nodes": [
        {"id": "Text-to-Image", "desc": "Draws text.", "input-type": ["text"],
         "output-type": ["image"]},
        {"id": "Image Captioning", "desc": "Describes an image.", "input-type": ["image"],
         "output-type": ["text"]},
    ]
}  # fmt: skip
TEMPORAL_TOOLS = {
    "nodes": [
        {"id": "get_weather", "desc": "Weather of a city.",
         "parameters": [{"name": "location", "type": "string", "desc": "city"}]},
        {"id": "send_sms", "desc": "Sends a text.",
         "parameters": [{"name": "text", "type": "string", "desc": "body"}]},
    ]
}  # fmt: skip


def _record(
    record_id: str, request: str | None = "Draw a cat, then describe it."
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": record_id,
        "type": "chain",
        "task_steps": ["Step 1: draw", "Step 2: describe"],
        "task_nodes": [
            {"task": "Text-to-Image", "arguments": ["a cat"]},
            {"task": "Image Captioning", "arguments": ["<node-0>"]},
        ],
        "task_links": [{"source": "Text-to-Image", "target": "Image Captioning"}],
    }
    if request is not None:
        record["user_request"] = request
    return record


def _write(
    tmp_path: Path, records: list[Any], tools: dict[str, Any] = RESOURCE_TOOLS
) -> tuple[Path, Path]:
    folder = tmp_path / "data_demo"
    folder.mkdir(exist_ok=True)
    data = folder / "data.json"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    tool_desc = folder / "tool_desc.json"
    tool_desc.write_text(json.dumps(tools, indent=2), encoding="utf-8")
    return data, tool_desc


def _suite(root: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((root / "evals" / f"{name}.yaml").read_text())
    return loaded


class TestImport:
    def test_requests_are_goals_and_gold_is_a_dataset_model(self, tmp_path: Path) -> None:
        """Each record is a case whose goal is its user_request; the model is dataset 'gold'."""
        data, tools = _write(tmp_path, [_record("1"), _record("2", "Draw a dog.")])
        result = import_taskbench(data, tools=tools, root=tmp_path / "p")
        suite = _suite(tmp_path / "p", "taskbench-demo")
        assert result.suite == "taskbench-demo" and result.first_cases == ("1", "2")
        assert (result.case_count, result.recording_count) == (2, 2)
        cases = imported_cases(tmp_path / "p", "taskbench-demo")
        assert [c["goal"] for c in cases] == ["Draw a cat, then describe it.", "Draw a dog."]
        assert cases[0]["tags"] == ["taskbench", "demo", "chain"]
        assert suite["plan_format"] == "taskbench"
        assert suite["models"] == [{"id": "gold", "provider": "dataset", "model": "gold"}]
        assert result.model == "gold"

    def test_gold_plan_is_recorded_with_provenance(self, tmp_path: Path) -> None:
        """The recording holds the record's plan keys (not its request or id) and its origin."""
        data, tools = _write(tmp_path, [_record("7")])
        root = tmp_path / "p"
        import_taskbench(data, tools=tools, root=root, suite="tb")
        answer = ResponseFile.read(root / "plan_fixtures/tb/gold/7/sample-0.json")
        plan = json.loads(answer.response)
        assert list(plan) == ["task_steps", "task_nodes", "task_links"]
        assert plan["task_nodes"][1] == {"task": "Image Captioning", "arguments": ["<node-0>"]}
        assert answer.provenance.source == "import:taskbench"
        assert answer.provenance.origin == "taskbench/data.json#7"
        template = (root / "evals/prompts/tb.md").read_text(encoding="utf-8")
        assert answer.provenance.prompt_hash == prompt_hash(template)

    def test_resource_prompt_is_taskbench_own(self, tmp_path: Path) -> None:
        """Tools with input-type: TaskBench's resource prompt with its tool list and {goal}."""
        data, tools = _write(tmp_path, [_record("1")])
        import_taskbench(data, tools=tools, root=tmp_path, suite="tb")
        template = (tmp_path / "evals/prompts/tb.md").read_text(encoding="utf-8")
        assert template.startswith("# TASK LIST #:\n" + json.dumps(RESOURCE_TOOLS["nodes"][0]))
        assert "tag '<node-j>' (start from 0)" in template
        assert template.endswith("# USER REQUEST #: {goal}\nnow please generate your result "
                                 "in a strict JSON format:\n# RESULT #:")  # fmt: skip

    def test_temporal_prompt_lists_parameter_names(self, tmp_path: Path) -> None:
        """Tools without input-type: the temporal prompt; parameters by name, as TaskBench."""
        record = {
            "id": "1",
            "user_request": "Text me the weather in Oslo.",
            "task_nodes": [
                {"task": "get_weather", "arguments": [{"name": "location", "value": "Oslo"}]},
                {"task": "send_sms", "arguments": [{"name": "text", "value": "get_weather"}]},
            ],
            "task_links": [{"source": "get_weather", "target": "send_sms"}],
        }
        data, tools = _write(tmp_path, [record], TEMPORAL_TOOLS)
        import_taskbench(data, tools=tools, root=tmp_path, suite="tb")
        template = (tmp_path / "evals/prompts/tb.md").read_text(encoding="utf-8")
        assert '"parameters": ["location"]' in template
        assert "The task links (task_links) should reflect the temporal" in template

    def test_registry_is_the_tool_list(self, tmp_path: Path) -> None:
        """tool_desc.json is the suite's registry, kept as it is."""
        data, tools = _write(tmp_path, [_record("1")])
        import_taskbench(data, tools=tools, root=tmp_path, suite="tb")
        suite = load_suite(tmp_path / "evals/tb.yaml")
        assert suite.registry is not None
        assert [c.name for c in suite.registry.capabilities] == [
            "Text-to-Image",
            "Image Captioning",
        ]

    def test_requests_file_supplies_missing_goals(self, tmp_path: Path) -> None:
        """--requests gives the goal of records without user_request (the shared gold sample)."""
        data, tools = _write(tmp_path, [_record("1", None), _record("2", "Own goal.")])
        requests = tmp_path / "user_requests.json"
        requests.write_text(
            json.dumps({"id": "1", "user_request": "From the requests file."})
            + "\n"
            + json.dumps({"id": "2", "user_request": "Not used."})
            + "\n",
            encoding="utf-8",
        )
        import_taskbench(data, tools=tools, root=tmp_path, suite="tb", requests=requests)
        goals = [c["goal"] for c in imported_cases(tmp_path, "tb")]
        assert goals == ["From the requests file.", "Own goal."]

    def test_limit_keeps_the_first_records(self, tmp_path: Path) -> None:
        """--limit N imports the first N records and says so."""
        data, tools = _write(tmp_path, [_record(str(i)) for i in range(5)])
        result = import_taskbench(data, tools=tools, root=tmp_path, suite="tb", limit=2)
        suite = _suite(tmp_path, "tb")
        assert [c["id"] for c in imported_cases(tmp_path, "tb")] == ["0", "1"]
        assert result.skipped == 3
        assert "the first 2 of 5" in suite["description"]

    def test_reimporting_unchanged_data_changes_no_file(self, tmp_path: Path) -> None:
        """A second import of the same data writes the same bytes."""
        data, tools = _write(tmp_path, [_record("1"), _record("2")])
        import_taskbench(data, tools=tools, root=tmp_path / "p", suite="tb")
        before = {p: (tmp_path / "p" / p).read_bytes() for p in files_under(tmp_path / "p")}
        import_taskbench(data, tools=tools, root=tmp_path / "p", suite="tb")
        after = {p: (tmp_path / "p" / p).read_bytes() for p in files_under(tmp_path / "p")}
        assert after == before

    def test_imported_suite_replays_and_checks(self, tmp_path: Path) -> None:
        """planeval run replays the gold recordings offline: a sound plan passes, a plan with
        a link to a missing node fails."""
        broken = _record("2")
        broken["task_links"].append({"source": "Image Captioning", "target": "Step 3"})
        data, tools = _write(tmp_path, [_record("1"), broken])
        import_taskbench(data, tools=tools, root=tmp_path, suite="tb")
        result = run_suite(load_suite(tmp_path / "evals/tb.yaml"), out=tmp_path / "run")
        statuses = {row.case: row.status for row in result.rows}
        assert statuses == {"1": "pass", "2": "fail"}


class TestBadInput:
    @pytest.mark.parametrize(
        ("content", "message"),
        [
            ("", "is empty"),
            ('{"id": "1", "task_nodes": []}\nnot json\n', "line 2"),  # a torn line
            ('{"id": "1", "user_request": "x"}\n{"id": "2"}\n', "'task_nodes' list"),
            ('[{"user_request": "x", "task_nodes": []}]', "no 'id'"),
            ('{"id": "1", "task_nodes": []}\n{"id": "2", "task_nodes": []}\n', "no 'user_request'"),
            ('{"id": "../x", "user_request": "x", "task_nodes": []}', "not usable as a file name"),
            (
                '{"id": "1", "user_request": "x", "task_nodes": []}\n'
                '{"id": "1", "user_request": "y", "task_nodes": []}\n',
                "repeated: 1",
            ),
        ],
    )
    def test_one_line_exit_2_nothing_written(
        self, cli: Any, tmp_path: Path, content: str, message: str
    ) -> None:
        """Unusable data: one line on stderr naming the problem, exit 2, nothing written."""
        data, tools = _write(tmp_path, [])
        data.write_text(content, encoding="utf-8")
        root = tmp_path / "proj"
        root.mkdir()
        result = cli("import", "taskbench", str(data), "--tools", str(tools), "--root", str(root))
        assert result.exit_code == 2
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert files_under(root) == set()

    def test_malformed_tool_list(self, cli: Any, tmp_path: Path) -> None:
        """A tool_desc.json that is not a registry is refused before anything is written."""
        data, tools = _write(tmp_path, [_record("1")])
        tools.write_text('{"nodes": [{"desc": "no id"}]}', encoding="utf-8")
        result = cli(
            "import", "taskbench", str(data), "--tools", str(tools), "--root", str(tmp_path / "p")
        )
        assert result.exit_code == 2
        assert str(tools) in result.stderr
        assert not (tmp_path / "p").exists()

    def test_cli_reports_what_it_wrote(self, cli: Any, tmp_path: Path) -> None:
        """Exit 0 and one line naming the suite file and the recordings folder."""
        data, tools = _write(tmp_path, [_record("1"), _record("2")])
        result = cli(
            "import", "taskbench", str(data), "--tools", str(tools), "--root", str(tmp_path / "p"),
            "--limit", "1",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert "imported 1 cases (1 left out by --limit)" in result.stdout


class TestSharedGoldSample:
    @pytest.mark.parametrize("domain", ["huggingface", "multimedia", "dailylifeapis"])
    def test_gold_plans_replay_with_their_real_defects(
        self, shared_data: Path, tmp_path: Path, domain: str
    ) -> None:
        """The public gold sample, imported with its requests, replays offline. Every gold plan
        passes (the temporal domain's links and the resource domains' <node-k> citations read
        alike) except two multimedia records whose citations are wrong in the data itself:
        46051366 cites <node-5> in a 5-node plan, 60932031 has Audio-to-Text cite the
        Text-to-Audio node that its chain feeds (a cycle)."""
        base = shared_data / "taskbench"
        result = import_taskbench(
            base / "gold_sample" / f"{domain}.jsonl",
            tools=base / f"{domain}_tool_desc.json",
            requests=base / f"{domain}_user_requests.jsonl",
            root=tmp_path,
        )
        run = run_suite(load_suite(result.suite_path), out=tmp_path / "run")
        assert len(run.rows) == {"huggingface": 21, "multimedia": 21, "dailylifeapis": 24}[domain]
        failed = {row.case for row in run.rows if row.status != "pass"}
        assert failed == ({"46051366", "60932031"} if domain == "multimedia" else set())


class TestStreamedRead:
    """Records are read one at a time, in two passes, never the whole file."""

    @pytest.mark.parametrize("shape", ["lines", "list"])
    def test_the_file_is_never_held_whole(self, tmp_path: Path, shape: str) -> None:
        """A 15 MB file of 150 large records (JSON Lines or a JSON list) imports with a
        Python peak well under the file's size (the old reader held its text and parse)."""
        import tracemalloc

        records = [{**_record(str(i)), "notes": "x" * 100_000} for i in range(150)]
        data, tools = _write(tmp_path, records)
        if shape == "list":
            data.write_text(json.dumps(records), encoding="utf-8")
        del records
        size = data.stat().st_size
        tracemalloc.start()
        try:
            result = import_taskbench(data, tools=tools, root=tmp_path / "p", suite="s")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert (result.case_count, result.recording_count) == (150, 150) and size > 15_000_000
        assert peak < size / 4, f"peak {peak} bytes for a {size}-byte file"
        assert imported_cases(tmp_path / "p", "s")[149]["id"] == "149"
