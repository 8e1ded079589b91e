"""``planeval import worfbench``: WorfBench gold workflows as a suite with recordings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.importers import GOLD_MODEL, import_worfbench
from harness.recording import ResponseFile, prompt_hash

from ._helpers import GOLD, files_under, imported_cases, worfbench_item, write_json

TOOLS = (
    "api_list:[{'name': 'search_flights', 'description': 'Find flights'}, "
    "{'name': 'book_flight', 'description': 'Book a flight', 'parameters': {}}]"
)
TABLES = (
    "The database tables and corresponding fields you can operate are: "
    "{'city': ['ID', 'Name'], 'country': ['Code', 'Name']}"
)
ACTIONS = "The action list you can take: ['Rinse the brush.\\n', 'Let it dry.\\n']"


def _file(tmp_path: Path, items: list[dict[str, Any]], name: str = "demo.json") -> Path:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    return write_json(data / name, items)


def _suite(root: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((root / "evals" / f"{name}.yaml").read_text())
    return loaded


def test_exports_are_sorted_and_complete() -> None:
    """The package exports exactly its sorted __all__."""
    import harness.importers as package

    # (names such as '@py_builtins' are pytest's: the pytest11 entry point makes pytest
    # rewrite the asserts of the whole harness package)
    public = sorted(n for n in vars(package) if n.isidentifier() and not n.startswith("_"))
    assert package.__all__ == sorted(package.__all__) == public


class TestImport:
    def test_cases_take_the_task_text_as_goal(self, tmp_path: Path) -> None:
        """Each item is a case whose goal is the user turn's task text, not the tool list."""
        path = _file(
            tmp_path,
            [
                worfbench_item("demo_1", "Fly to Oslo on Friday.", TOOLS, GOLD),
                worfbench_item("demo_2", "Fly back on Sunday.", TOOLS, GOLD),
            ],
        )
        result = import_worfbench(path, root=tmp_path / "proj")
        suite = _suite(tmp_path / "proj", "worfbench-demo")
        assert (result.case_count, result.first_cases) == (2, ("demo_1", "demo_2"))
        assert result.recording_count == 2
        assert [c["goal"] for c in imported_cases(tmp_path / "proj", "worfbench-demo")] == [
            "Fly to Oslo on Friday.",
            "Fly back on Sunday.",
        ]
        assert suite["plan_format"] == "worfbench"
        assert suite["models"] == [{"id": GOLD_MODEL, "provider": "dataset", "model": GOLD_MODEL}]

    def test_gold_answers_are_recorded_with_provenance(self, tmp_path: Path) -> None:
        """The assistant turn is the worfbench-gold recording, verbatim, with its origin."""
        path = _file(tmp_path, [worfbench_item("demo_1", "Fly to Oslo.", TOOLS, GOLD)])
        root = tmp_path / "proj"
        import_worfbench(path, root=root, suite="flights")
        recording = root / "plan_fixtures/flights/worfbench-gold/demo_1/sample-0.json"
        answer = ResponseFile.read(recording)
        template = (root / "evals/prompts/flights.md").read_text(encoding="utf-8")
        assert answer.response == GOLD
        assert answer.provenance.source == "import:worfbench"
        assert answer.provenance.model == GOLD_MODEL
        assert answer.provenance.origin == "worfbench/demo.json#demo_1"
        assert answer.provenance.prompt_hash == prompt_hash(template)

    def test_prompt_template_is_the_system_prompt_with_placeholders(self, tmp_path: Path) -> None:
        """The template starts with WorfBench's system prompt; each case fills in its own tool
        list (lead-in included) as {tool_list}."""
        path = _file(tmp_path, [worfbench_item("demo_1", "Fly to Oslo.", TOOLS, GOLD)])
        import_worfbench(path, root=tmp_path, suite="flights")
        template = (tmp_path / "evals/prompts/flights.md").read_text(encoding="utf-8")
        assert template.startswith("You are a helpful task planner.")
        assert "Task: {goal}\n{tool_list}" in template

    def test_tool_lists_become_one_registry(self, tmp_path: Path) -> None:
        """The union of the items' api_list names is the suite's registry."""
        other = "api_list:[{'name': 'hotel_search', 'description': 'Find hotels'}]"
        path = _file(
            tmp_path,
            [
                worfbench_item("demo_1", "Fly to Oslo.", TOOLS, GOLD),
                worfbench_item("demo_2", "Sleep in Oslo.", other, GOLD),
            ],
        )
        import_worfbench(path, root=tmp_path, suite="flights")
        assert _suite(tmp_path, "flights")["registry"] == "registries/flights.json"
        registry = json.loads((tmp_path / "evals/registries/flights.json").read_text())
        names = [c["name"] for c in registry["capabilities"]]
        assert names == ["search_flights", "book_flight", "hotel_search"]

    def test_database_tables_become_capabilities(self, tmp_path: Path) -> None:
        """intercodesql: each table is a capability, its fields in the description."""
        path = _file(tmp_path, [worfbench_item("sql_1", "Count the cities.", TABLES, GOLD)])
        import_worfbench(path, root=tmp_path, suite="sql")
        registry = json.loads((tmp_path / "evals/registries/sql.json").read_text())
        assert [c["name"] for c in registry["capabilities"]] == ["city", "country"]
        assert "ID, Name" in registry["capabilities"][0]["description"]

    def test_action_lists_give_no_registry(self, tmp_path: Path) -> None:
        """wikihow: free-text actions are not capabilities, so the suite has no registry."""
        path = _file(tmp_path, [worfbench_item("how_1", "How to Clean a Brush", ACTIONS, GOLD)])
        import_worfbench(path, root=tmp_path, suite="how")
        assert "registry" not in _suite(tmp_path, "how")
        assert not (tmp_path / "evals/registries").exists()
        template = (tmp_path / "evals/prompts/how.md").read_text(encoding="utf-8")
        assert "{capabilities}" not in template

    def test_attribution_in_description_and_license_note(self, tmp_path: Path) -> None:
        """The suite names WorfBench and its license; a LICENSE note sits beside the recordings."""
        path = _file(tmp_path, [worfbench_item("demo_1", "Fly.", TOOLS, GOLD)])
        (path.parent / "LICENSE").write_text("MIT License\n\nCopyright (c) 2024 ZJUNLP\n")
        import_worfbench(path, root=tmp_path, suite="flights")
        assert "zjunlp/WorfBench" in _suite(tmp_path, "flights")["description"]
        note = (tmp_path / "plan_fixtures/flights/LICENSE").read_text(encoding="utf-8")
        assert "zjunlp/WorfBench" in note
        assert "Copyright (c) 2024 ZJUNLP" in note

    def test_limit_keeps_the_first_items_and_says_so(self, tmp_path: Path) -> None:
        """--limit imports the first N items and the description tells the reader."""
        items = [worfbench_item(f"demo_{i}", f"Task {i}.", TOOLS, GOLD) for i in range(5)]
        result = import_worfbench(_file(tmp_path, items), root=tmp_path, suite="s", limit=2)
        suite = _suite(tmp_path, "s")
        assert [c["id"] for c in imported_cases(tmp_path, "s")] == ["demo_0", "demo_1"]
        assert (result.skipped, result.case_count, result.recording_count) == (3, 2, 2)
        assert "first 2 of 5" in suite["description"]
        assert sorted(p.name for p in (tmp_path / "plan_fixtures/s/worfbench-gold").iterdir()) == [
            "demo_0",
            "demo_1",
        ]

    def test_reimport_removes_recordings_of_dropped_cases(self, tmp_path: Path) -> None:
        """A re-import replaces the model's recordings, leaving none for cases now gone."""
        items = [worfbench_item(f"demo_{i}", f"Task {i}.", TOOLS, GOLD) for i in range(3)]
        path = _file(tmp_path, items)
        import_worfbench(path, root=tmp_path, suite="s")
        import_worfbench(path, root=tmp_path, suite="s", limit=1)
        assert [p.name for p in (tmp_path / "plan_fixtures/s/worfbench-gold").iterdir()] == [
            "demo_0"
        ]

    def test_reimporting_unchanged_data_changes_no_file(self, tmp_path: Path) -> None:
        """Import times are kept for answers that did not change: a re-import gives no diff."""
        path = _file(tmp_path, [worfbench_item("demo_1", "Fly.", TOOLS, GOLD)])
        import_worfbench(path, root=tmp_path / "p", suite="s")
        recording = tmp_path / "p/plan_fixtures/s/worfbench-gold/demo_1/sample-0.json"
        stamped = json.loads(recording.read_text())
        stamped["provenance"]["recorded_at"] = "2020-01-01T00:00:00Z"
        recording.write_text(json.dumps(stamped))
        import_worfbench(path, root=tmp_path / "p", suite="s")
        assert ResponseFile.read(recording).provenance.recorded_at == "2020-01-01T00:00:00Z"

    def test_sharegpt_turns_are_accepted(self, tmp_path: Path) -> None:
        """Items written as from/value turns (human/gpt) import the same way."""
        item = {
            "id": "g_1",
            "conversations": [
                {"from": "human", "value": "Task: Plan a picnic."},
                {"from": "gpt", "value": GOLD},
            ],
        }
        import_worfbench(_file(tmp_path, [item]), root=tmp_path, suite="g")
        assert imported_cases(tmp_path, "g")[0]["goal"] == "Plan a picnic."


def _bad(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "in" / "bad.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


class TestBadInput:
    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ('{"tasks": []}', "expected a JSON list of items"),  # an object, not a list
            ("[not json", "not valid JSON"),  # torn file
            ("[]", "holds no items"),  # empty list
            ([{"id": "x"}], "no 'conversations' list"),  # not an item
            (  # the gold workflow is missing
                [worfbench_item("demo_1", "Fly.", TOOLS)],
                "no assistant turn",
            ),
            (  # an id that would escape the fixtures folder
                [worfbench_item("../evil", "Fly.", TOOLS, GOLD)],
                "not usable as a file name",
            ),
            (  # two items with one id
                [worfbench_item("d", "A.", TOOLS, GOLD), worfbench_item("d", "B.", TOOLS, GOLD)],
                "repeated: d",
            ),
        ],
    )
    def test_one_line_exit_2_nothing_written(
        self, cli: Any, tmp_path: Path, data: Any, message: str
    ) -> None:
        """Unusable input: one line on stderr, exit 2, and no file appears."""
        root = tmp_path / "proj"
        root.mkdir()
        result = cli("import", "worfbench", str(_bad(tmp_path, data)), "--root", str(root))
        assert result.exit_code == 2
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.output + result.stderr
        assert files_under(root) == set()

    def test_missing_file(self, cli: Any, tmp_path: Path) -> None:
        """A path that does not exist is a one-line error."""
        result = cli("import", "worfbench", str(tmp_path / "nope.json"), "--root", str(tmp_path))
        assert result.exit_code == 2
        assert "cannot read the file" in result.stderr

    def test_item_error_names_the_item(self, cli: Any, tmp_path: Path) -> None:
        """The error says which item is wrong."""
        items = [worfbench_item("ok_1", "A.", TOOLS, GOLD), worfbench_item("bad_2", "B.", TOOLS)]
        result = cli("import", "worfbench", str(_bad(tmp_path, items)), "--root", str(tmp_path))
        assert "item 1 (bad_2)" in result.stderr


class TestAllOrNothing:
    def test_a_failed_reimport_puts_the_old_yaml_registry_back(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The YAML registry an earlier import wrote is removed only with a commit that lands:
        a failure on the last move puts it back with every other file as it was."""
        path = _file(tmp_path, [worfbench_item("demo_1", "Fly.", TOOLS, GOLD)])
        import_worfbench(path, root=tmp_path, suite="s")
        old = tmp_path / "evals" / "registries" / "s.yaml"
        old.write_text("capabilities: [search_flights]\n", encoding="utf-8")
        before = {p: (tmp_path / p).read_bytes() for p in files_under(tmp_path)}
        real_replace = os.replace

        moves: list[Path] = []
        failed: list[Any] = []

        def fail_on_the_suite(src: Any, dst: Any) -> None:
            moves.append(Path(src))
            if Path(dst) == tmp_path / "evals" / "s.yaml" and len(failed) == 0:
                failed.append(src)  # the new suite's move into place fails, once
                raise OSError(5, "Input/output error")
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", fail_on_the_suite)
        with pytest.raises(OSError, match="Input/output"):
            import_worfbench(path, root=tmp_path, suite="s")
        assert old in moves  # it had been moved aside
        assert {p: (tmp_path / p).read_bytes() for p in files_under(tmp_path)} == before

    def test_failure_while_moving_leaves_no_new_files(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A crash half-way through the final moves undoes the moves already made."""
        items = [worfbench_item(f"demo_{i}", f"Task {i}.", TOOLS, GOLD) for i in range(3)]
        path = _file(tmp_path, items)
        root = tmp_path / "proj"
        root.mkdir()
        (root / "keep.txt").write_text("mine")
        calls = {"n": 0}
        real_replace = os.replace

        def flaky_replace(src: Any, dst: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 3:
                raise OSError(28, "No space left on device")
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", flaky_replace)
        with pytest.raises(OSError, match="No space"):
            import_worfbench(path, root=root, suite="s")
        assert files_under(root) == {Path("keep.txt")}
        assert [p.name for p in root.iterdir()] == ["keep.txt"]

    def test_failure_while_staging_leaves_nothing(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Files are staged on disk as they are made (no import holds them all): a stop while
        the cases file is being written removes the staging folder, and nothing lands."""
        import harness.importers._worfbench as worfbench

        items = [worfbench_item(f"demo_{i}", f"Task {i}.", TOOLS, GOLD) for i in range(3)]
        path = _file(tmp_path, items)
        root = tmp_path / "proj"
        root.mkdir()
        (root / "keep.txt").write_text("mine")
        made = []
        real_case_doc = worfbench._case_doc

        def stop_at_the_second(item: Any, names: list[str], tags: list[str]) -> dict[str, Any]:
            made.append(item.id)
            if len(made) == 2:
                assert any(p.name.startswith(".planeval-import-") for p in root.iterdir())
                raise KeyboardInterrupt
            return real_case_doc(item, names, tags)

        monkeypatch.setattr(worfbench, "_case_doc", stop_at_the_second)
        with pytest.raises(KeyboardInterrupt):
            import_worfbench(path, root=root, suite="s")
        assert made == ["demo_0", "demo_1"]
        assert [p.name for p in root.iterdir()] == ["keep.txt"]

    def test_cli_says_so_in_one_line(
        self, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A write failure is one line and exit 2 on the command line, not a traceback."""
        path = _file(tmp_path, [worfbench_item("demo_1", "Fly.", TOOLS, GOLD)])

        def refuse(src: Any, dst: Any) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(os, "replace", refuse)
        result = cli("import", "worfbench", str(path), "--root", str(tmp_path / "p"))
        assert result.exit_code == 2
        assert "cannot write the import (Permission denied); nothing was written" in result.stderr
        assert not (tmp_path / "p").exists()

    def test_failed_reimport_keeps_the_previous_import(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """If a re-import fails part-way, the earlier suite and recordings are put back."""
        items = [worfbench_item(f"demo_{i}", f"Task {i}.", TOOLS, GOLD) for i in range(3)]
        path = _file(tmp_path, items)
        import_worfbench(path, root=tmp_path / "p", suite="s")
        before = {p: (tmp_path / "p" / p).read_bytes() for p in files_under(tmp_path / "p")}
        real_replace = os.replace
        calls = {"n": 0}

        def flaky_replace(src: Any, dst: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 5:
                raise KeyboardInterrupt
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", flaky_replace)
        with pytest.raises(KeyboardInterrupt):
            import_worfbench(path, root=tmp_path / "p", suite="s", limit=1)
        after = {p: (tmp_path / "p" / p).read_bytes() for p in files_under(tmp_path / "p")}
        assert after == before


class TestPerCaseContext:
    def test_each_case_renders_its_own_tools_and_scores_its_gold(self, tmp_path: Path) -> None:
        """Two items with different tool lists: each prompt shows only its own list, the case
        checks against its own tools, and its gold scores 1.0 against itself."""
        from harness.metrics import score_plan
        from harness.suite import load_suite

        other = "api_list:[{'name': 'hotel_search', 'description': 'Find hotels'}]"
        path = _file(
            tmp_path,
            [
                worfbench_item("demo_1", "Fly to Oslo.", TOOLS, GOLD),
                worfbench_item("demo_2", "Sleep in Oslo.", other, GOLD),
            ],
        )
        import_worfbench(path, root=tmp_path, suite="flights")
        suite = load_suite(tmp_path / "evals/flights.yaml")
        first, second = suite.cases
        assert "search_flights" in suite.render_prompt(first)
        assert "hotel_search" not in suite.render_prompt(first)
        assert "hotel_search" in suite.render_prompt(second)
        assert suite.registry_for(second).names == ("hotel_search",)  # type: ignore[union-attr]
        assert first.reference == GOLD
        result = score_plan(GOLD, first.reference)
        assert result.status == "scored"
        assert set(result.metrics.values()) == {1.0}


class TestCasesFile:
    @pytest.mark.parametrize("count", [1, 1001])
    def test_the_cases_go_to_a_cases_file_whatever_their_number(
        self, tmp_path: Path, count: int
    ) -> None:
        """Every imported suite names evals/<suite>.cases.jsonl (one case a line, read with
        json.loads, no 8 MiB wall) instead of listing its cases in the YAML; the suite loads
        them in file order."""
        from harness.suite import StreamedCases, load_suite

        items = [worfbench_item(f"w{i}", f"Task {i}", TOOLS, GOLD) for i in range(count)]
        result = import_worfbench(_file(tmp_path, items), root=tmp_path, suite="big")
        doc = _suite(tmp_path, "big")
        cases_file = tmp_path / "evals" / "big.cases.jsonl"
        assert "cases" not in doc
        assert doc["cases_file"] == "big.cases.jsonl"
        assert cases_file in result.files
        assert (result.case_count, result.recording_count) == (count, count)
        assert result.first_cases == tuple(f"w{i}" for i in range(min(count, 10)))  # a sample
        recordings = tmp_path / "plan_fixtures" / "big" / "worfbench-gold"
        assert recordings in result.files  # the folder, not one path per recording
        assert len(result.files) <= 6
        assert [c["id"] for c in imported_cases(tmp_path, "big")] == [f"w{i}" for i in range(count)]
        suite = load_suite(result.suite_path)
        assert isinstance(suite.cases, StreamedCases)
        assert [c.id for c in suite.cases] == [f"w{i}" for i in range(count)]
        assert suite.cases[-1].reference == GOLD

    def test_reimport_over_a_suite_with_inline_cases(self, tmp_path: Path) -> None:
        """A suite imported before cases files and JSON registries (its cases inline in the
        YAML, its registry YAML) still runs; a re-import replaces it with one naming a cases
        file and a JSON registry, with the same cases and the same rows, and leaves no other
        file behind (the YAML registry is removed)."""
        from harness.run import run_suite
        from harness.suite import load_suite

        items = [worfbench_item(f"w{i}", f"Task {i}", TOOLS, GOLD) for i in range(3)]
        path = _file(tmp_path, items)
        result = import_worfbench(path, root=tmp_path, suite="s")
        suite_file = result.suite_path
        old = yaml.safe_load(suite_file.read_text(encoding="utf-8"))
        old["cases"] = imported_cases(tmp_path, "s")  # the YAML an earlier import wrote
        del old["cases_file"]
        old["registry"] = "registries/s.yaml"
        suite_file.write_text(yaml.safe_dump(old, sort_keys=False), encoding="utf-8")
        (tmp_path / "evals" / "s.cases.jsonl").unlink()
        json_registry = tmp_path / "evals" / "registries" / "s.json"
        tools = json.loads(json_registry.read_text(encoding="utf-8"))
        (tmp_path / "evals" / "registries" / "s.yaml").write_text(yaml.safe_dump(tools))
        json_registry.unlink()
        inline = load_suite(suite_file)
        assert isinstance(inline.cases, tuple)
        inline_rows = run_suite(inline, keep_rows=True).rows
        before_files = files_under(tmp_path)

        import_worfbench(path, root=tmp_path, suite="s")
        new_files = {Path("evals/s.cases.jsonl"), Path("evals/registries/s.json")}
        assert files_under(tmp_path) == before_files - {Path("evals/registries/s.yaml")} | new_files
        assert "cases" not in _suite(tmp_path, "s")
        assert _suite(tmp_path, "s")["registry"] == "registries/s.json"
        again = load_suite(suite_file)

        def seen(case: Any) -> tuple[Any, ...]:  # a case's tools name where they were read
            tools = case.tools.names if case.tools else None
            return (case.id, case.goal, case.context, case.reference, case.tags, tools)

        assert [seen(c) for c in again.cases] == [seen(c) for c in inline.cases]
        assert run_suite(again, keep_rows=True).rows == inline_rows


class TestStreamedRead:
    """The file is read an item at a time, in two passes, never whole."""

    def test_the_file_is_never_held_whole(self, tmp_path: Path) -> None:
        """A 12 MiB file of 300 large items imports with a Python peak well under the file's
        size (the old reader held its text and its parse: more than twice the file)."""
        import tracemalloc

        items = [
            {**worfbench_item(f"w{i}", f"Task {i}.", TOOLS, GOLD), "notes": "x" * 40_000}
            for i in range(300)
        ]
        path = _file(tmp_path, items)
        del items
        size = path.stat().st_size
        tracemalloc.start()
        try:
            result = import_worfbench(path, root=tmp_path / "proj", suite="s")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert result.case_count == 300 and size > 12_000_000
        assert peak < size / 4, f"peak {peak} bytes for a {size}-byte file"

    def test_a_file_changed_between_the_passes_is_refused(
        self, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A file rewritten after the first pass (which checked it) is refused with one line,
        exit 2, and nothing is written: the second pass would write unchecked items."""
        from harness.importers import _worfbench

        items = [worfbench_item(f"w{i}", f"Task {i}.", TOOLS, GOLD) for i in range(3)]
        path = _file(tmp_path, items)
        finish = _worfbench._Survey.finish

        def rewrite_then_finish(survey: Any) -> str:
            write_json(path, [*items, worfbench_item("extra", "More.", TOOLS)])  # no gold
            return finish(survey)

        monkeypatch.setattr(_worfbench._Survey, "finish", rewrite_then_finish)
        root = tmp_path / "proj"
        root.mkdir()
        result = cli("import", "worfbench", str(path), "--root", str(root))
        assert result.exit_code == 2
        assert "the file changed during the import" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert files_under(root) == set()

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("[" * 100_000, "nested too deeply"),  # ijson's own builder would take gigabytes
            (  # whole items, then text after the list
                json.dumps([worfbench_item("a", "A.", TOOLS, GOLD)]) + " [1]",
                "not valid JSON: parse error: trailing garbage",
            ),
            ('[{"id": "a", "conversa', "not valid JSON"),  # cut short
            (b'[{"id": "\xff"}]', "not UTF-8 text"),
        ],
    )
    def test_damaged_lists_are_one_clear_error(
        self, cli: Any, tmp_path: Path, text: str | bytes, message: str
    ) -> None:
        path = tmp_path / "bad.json"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        root = tmp_path / "proj"
        root.mkdir()
        result = cli("import", "worfbench", str(path), "--root", str(root))
        assert result.exit_code == 2
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert files_under(root) == set()

    def test_a_pipe_is_read_once_and_imported(self, tmp_path: Path) -> None:
        """A named pipe cannot be read twice: it is read once (bounded) and both passes are
        made over what came through."""
        import threading
        import time

        items = [worfbench_item(f"w{i}", f"Task {i}.", TOOLS, GOLD) for i in range(3)]
        fifo = tmp_path / "items.json"
        os.mkfifo(fifo)
        text = json.dumps(items).encode()

        def feed() -> None:
            with open(fifo, "wb") as fh:
                fh.write(text)

        writer = threading.Thread(target=feed)
        writer.start()
        # A pipe with no writer yet reads as empty (bounded reads never wait for one): start
        # the import once the writer waits in open(), as a shell's writer already does.
        wchan = Path(f"/proc/self/task/{writer.native_id}/wchan")
        for _ in range(500):
            if not wchan.exists() or "partner" in wchan.read_text(errors="replace"):
                break
            time.sleep(0.01)
        try:
            result = import_worfbench(fifo, root=tmp_path / "proj", suite="p")
        finally:
            writer.join(timeout=10)
        assert result.first_cases == ("w0", "w1", "w2")
        assert result.recording_count == 3


class TestToolListsParsedOnce:
    def test_each_tool_list_is_parsed_once(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Parsing the tool lists is most of an import's time: each item's list is parsed
        once (its names kept in a scratch file for the second pass), not once per pass."""
        import ast

        items = [worfbench_item(f"demo_{i}", f"Task {i}.", TOOLS, GOLD) for i in range(5)]
        path = _file(tmp_path, items)
        parsed = []
        real = ast.literal_eval

        def counting(text: Any) -> Any:
            parsed.append(text)
            return real(text)

        monkeypatch.setattr(ast, "literal_eval", counting)
        import_worfbench(path, root=tmp_path / "proj", suite="s")
        assert len(parsed) == 5

    def test_each_case_keeps_its_own_tool_names_with_a_limit(self, tmp_path: Path) -> None:
        """The names read back in the second pass are each item's own, in order, also when
        --limit leaves items out."""
        items = [
            worfbench_item(
                f"demo_{i}",
                f"Task {i}.",
                f"api_list:[{{'name': 'tool_{i}'}}, {{'name': 'x'}}]",
                GOLD,
            )
            for i in range(4)
        ]
        path = _file(tmp_path, items)
        import_worfbench(path, root=tmp_path / "proj", suite="s", limit=3)
        cases = imported_cases(tmp_path / "proj", "s")
        assert [c["context"]["tools"] for c in cases] == [[f"tool_{i}", "x"] for i in range(3)]


class TestUnusableTmpdir:
    def test_tmpdir_that_is_a_file_is_one_clear_error(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """TMPDIR naming a file (a typo in a cluster's scratch path) is refused with one line
        and exit 2, naming TMPDIR; Python would quietly use /tmp instead. Nothing is written."""
        from tests.cli_helpers import run_cli

        path = _file(tmp_path, [worfbench_item("demo_1", "Task.", TOOLS, GOLD)])
        not_a_folder = tmp_path / "scratch"
        not_a_folder.write_text("")
        monkeypatch.setenv("TMPDIR", str(not_a_folder))
        result = run_cli(capsys, "import", "worfbench", str(path), "--root", str(tmp_path / "p"))
        assert result.code == 2
        assert len(result.err.strip().splitlines()) == 1
        assert "TMPDIR is not a folder" in result.err and str(not_a_folder) in result.err
        assert "Traceback" not in result.err
        assert not (tmp_path / "p").exists() or not files_under(tmp_path / "p")

    @pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can write any folder"
    )
    def test_tmpdir_that_is_not_writable_is_one_clear_error(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The same for a read-only TMPDIR, as the user runs it (its own process)."""
        from tests.cli_helpers import planeval_process

        path = _file(tmp_path, [worfbench_item("demo_1", "Task.", TOOLS, GOLD)])
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            monkeypatch.setenv("TMPDIR", str(locked))
            done = planeval_process("import", "worfbench", str(path), "--root", "p", cwd=tmp_path)
        finally:
            locked.chmod(0o700)
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1
        assert "TMPDIR is not writable" in done.stderr and "Traceback" not in done.stderr

    def test_tmpdir_that_is_missing_is_one_clear_error_of_its_own_process(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A TMPDIR that does not exist, as the user runs it: exit 2, one line, no
        traceback."""
        from tests.cli_helpers import planeval_process

        path = _file(tmp_path, [worfbench_item("demo_1", "Task.", TOOLS, GOLD)])
        monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
        done = planeval_process("import", "worfbench", str(path), "--root", "p", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert "TMPDIR does not exist" in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "p" / "evals").exists()
