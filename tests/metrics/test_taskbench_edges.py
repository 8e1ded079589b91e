"""TaskBench samples at their edges: every file extension's content type, the split of a gold
without ``type``, the exact reasons a sample cannot be scored, argument forms, and the stored
form of a sample. Every record here is handwritten."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest

from harness.metrics import ToolCatalogue, UnscorableError, taskbench_sample
from harness.registry import Registry


def resource_arg_names(argument: Any) -> frozenset[str]:
    gold = {"task_nodes": [{"task": "T", "arguments": [argument]}]}
    return taskbench_sample(gold, gold, dependency="resource").gold_arg_names


EXTENSIONS = [
    *(("image", e) for e in ("jpg", "png", "jpeg", "gif", "bmp", "tiff", "svg", "ico")),
    *(("audio", e) for e in ("mp3", "wav", "wma", "ogg", "aac", "flac", "aiff", "au")),
    *(
        ("video", e)
        for e in ("mp4", "avi", "mov", "flv", "wmv", "mkv", "webm", "m4v", "mpg", "mpeg")
    ),
]


class TestContentType:
    @pytest.mark.parametrize(("kind", "ext"), EXTENSIONS)
    def test_each_extension_names_its_kind(self, kind: str, ext: str) -> None:
        """get_content_type's lists: a file name with the extension is that kind of input."""
        assert resource_arg_names(f"example.{ext}") == {f"T-{kind}"}

    @pytest.mark.parametrize(
        ("text", "kind"),
        [
            ("notes.txt", "text"),
            ("a photo of a cat", "text"),
            ("'clip.mp4'", "video"),
            ("song.mp3 over photo.png", "image"),  # image is looked for first
            ("JPG", "text"),  # the extension needs its dot
        ],
    )
    def test_other_texts(self, text: str, kind: str) -> None:
        assert resource_arg_names(text) == {f"T-{kind}"}


class TestResourceArguments:
    def test_an_object_argument_is_read_by_its_first_value(self) -> None:
        assert resource_arg_names({"image": "cat.wav", "other": "x.png"}) == {"T-audio"}

    def test_a_list_argument_is_joined_with_spaces(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": [["a", "b.wav"]]}]}
        got = taskbench_sample(gold, gold, dependency="resource")
        assert got.gold_arg_values == {"T-audio-a b.wav"}

    def test_a_citation_of_a_node_past_nine(self) -> None:
        """``<node-10>`` is node 10, not node 1."""
        nodes = [{"task": f"tool_{k}", "arguments": []} for k in range(11)]
        nodes.append({"task": "last", "arguments": ["<node-10>"]})
        got = taskbench_sample({"task_nodes": nodes}, {"task_nodes": nodes}, dependency="resource")
        assert got.gold_links == {("tool 10", "last")}

    def test_an_unusable_first_argument_is_unscorable(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": []}]}
        pred = {"task_nodes": [{"task": "T", "arguments": [5]}]}
        with pytest.raises(UnscorableError) as caught:
            taskbench_sample(pred, gold, dependency="resource")
        assert str(caught.value) == (
            "prediction node 0 argument 0 is unusable (not text: 5) and no argument precedes it"
        )
        assert caught.value.side == "prediction"

    def test_the_gold_s_last_argument_carries_into_the_prediction(self) -> None:
        """The official loop keeps its last converted argument from the gold's nodes."""
        gold = {"task_nodes": [{"task": "T", "arguments": ["x.png"]}]}
        pred = {"task_nodes": [{"task": "T", "arguments": [5]}]}
        got = taskbench_sample(pred, gold, dependency="resource")
        assert got.pred_arg_values == {"T-image-x.png"}
        assert got.notes == (
            "prediction node 0 argument 0 is unusable (not text: 5): the previous argument "
            "counts again, as in the official script",
        )

    def test_every_argument_after_an_unusable_one_is_read(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": ["x.png"]}]}
        pred = {"task_nodes": [{"task": "T", "arguments": [5, "y.mp3"]}]}
        got = taskbench_sample(pred, gold, dependency="resource")
        assert got.pred_arg_values == {"T-image-x.png", "T-audio-y.mp3"}

    def test_an_unusable_gold_argument_is_noted(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": ["x.png", None]}]}
        got = taskbench_sample(gold, gold, dependency="resource")
        assert got.notes[0] == (
            "gold node 0 argument 1 is unusable (not text: None): the previous argument counts "
            "again, as in the official script"
        )

    def test_an_argument_citing_two_nodes_reads_the_first(self) -> None:
        nodes = [
            {"task": "a", "arguments": []},
            {"task": "b", "arguments": []},
            {"task": "c", "arguments": ["<node-0> and <node-1>"]},
        ]
        got = taskbench_sample({"task_nodes": nodes}, {"task_nodes": nodes}, dependency="resource")
        assert got.gold_links == {("a", "c")} and got.notes == ()

    def test_text_arguments_are_read_character_by_character(self) -> None:
        """The official loop walks a string: each character is a text argument."""
        gold = {"task_nodes": [{"task": "T", "arguments": ["x.png"]}]}
        pred = {"task_nodes": [{"task": "T", "arguments": "ab"}]}
        got = taskbench_sample(pred, gold, dependency="resource")
        assert got.pred_arg_names == {"T-text"}
        assert got.pred_arg_values == {"T-text-a", "T-text-b"}
        assert got.notes == (
            "prediction node 0: 'arguments' is text: its characters count as arguments, as in "
            "the official script",
        )

    def test_object_arguments_are_read_by_their_keys(self) -> None:
        """GNN4TaskPlan multimedia/mistral-7b id 24799612 writes {"name": "query", "value": ""}:
        the official loop walks the keys, each a text argument."""
        gold = {"task_nodes": [{"task": "Image Search", "arguments": ["cats"]}]}
        pred = {"task_nodes": [{"task": "Image Search", "arguments": {"name": "q", "value": ""}}]}
        got = taskbench_sample(pred, gold, dependency="resource")
        assert got.pred_arg_values == {"Image Search-text-name", "Image Search-text-value"}
        assert got.as_metrics()["taskbench.argument_name_f1"] == 1.0

    def test_an_empty_object_argument_repeats_the_previous_one(self) -> None:
        """``[{}]`` (resource domains): ``list({}.values())[0]`` fails inside the script's
        try, so the previous argument counts again; it used to raise out of scoring."""
        gold = {"task_nodes": [{"task": "T", "arguments": ["x.png"]}]}
        pred = {"task_nodes": [{"task": "T", "arguments": [{}]}]}
        got = taskbench_sample(pred, gold, dependency="resource")
        assert got.pred_arg_values == {"T-image-x.png"}
        assert "prediction node 0 argument 0 is unusable (an empty object)" in got.notes[0]

    def test_an_empty_object_argument_with_nothing_before_it_is_dropped(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": [{}]}]}
        with pytest.raises(UnscorableError) as caught:
            taskbench_sample(gold, gold, dependency="resource")
        assert caught.value.side == "gold"

    def test_arguments_that_are_a_number(self) -> None:
        """A number cannot be walked: the script drops the sample."""
        gold = {"task_nodes": [{"task": "T", "arguments": 5}]}
        with pytest.raises(UnscorableError) as caught:
            taskbench_sample(gold, gold, dependency="resource")
        assert str(caught.value) == "gold node 0: 'arguments' is int, not a list"
        assert caught.value.side == "gold"

    def test_temporal_empty_object_or_text_arguments_are_no_arguments(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": []}], "task_links": []}
        for empty in ({}, ""):
            pred = {"task_nodes": [{"task": "T", "arguments": empty}], "task_links": []}
            got = taskbench_sample(pred, gold, dependency="temporal")
            assert got.pred_arg_names == frozenset() and got.pred_nodes == {"T"}

    def test_temporal_object_arguments_are_dropped(self) -> None:
        """Temporal mode reads ``argument['name']`` of each key: a TypeError, the sample is
        dropped."""
        gold = {"task_nodes": [{"task": "T", "arguments": []}], "task_links": []}
        pred = {"task_nodes": [{"task": "T", "arguments": {"name": "q"}}], "task_links": []}
        with pytest.raises(UnscorableError):
            taskbench_sample(pred, gold, dependency="temporal")

    def test_a_predicted_node_without_arguments_has_none(self) -> None:
        gold = {"task_nodes": [{"task": "T", "arguments": ["x.png"]}]}
        got = taskbench_sample({"task_nodes": [{"task": "T"}]}, gold, dependency="resource")
        assert got.pred_arg_names == frozenset() and got.pred_nodes == {"T"}

    def test_a_gold_node_without_arguments_drops_the_sample(self) -> None:
        """The script reads ``node["arguments"]`` of gold nodes (``.get`` of predicted ones):
        a KeyError, "Parsing Error", the sample is ignored."""
        gold = {"task_nodes": [{"task": "T"}]}
        with pytest.raises(UnscorableError) as caught:
            taskbench_sample(gold, gold, dependency="resource")
        assert caught.value.side == "gold"


def temporal(names: list[str], links: list[tuple[Any, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "task_nodes": [{"task": n, "arguments": [{"name": "q", "value": n}]} for n in names],
        "task_links": [{"source": a, "target": b} for a, b in links],
        **extra,
    }


class TestSplit:
    @pytest.mark.parametrize(
        ("names", "links", "split"),
        [
            ([], [], "single"),
            (["a"], [], "single"),
            (["a", "b"], [], "dag"),
            (["a", "b", "c"], [("a", "b"), ("b", "c")], "chain"),
            (["a", "b", "c"], [("a", "b"), ("a", "b"), ("b", "c")], "chain"),  # a set of links
            (["a", "b", "c"], [("a", "b"), ("a", "c")], "dag"),  # a fork
            (["a", "b", "c"], [("a", "c"), ("b", "c")], "dag"),  # a join
            (["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")], "dag"),
        ],
    )
    def test_a_gold_without_type(self, names: list[str], links: list[Any], split: str) -> None:
        gold = temporal(names, links)
        assert taskbench_sample(gold, gold, dependency="temporal").split == split

    def test_a_gold_type_is_taken_as_written(self) -> None:
        gold = temporal(["a"], [], type="dag")
        assert taskbench_sample(gold, gold, dependency="temporal").split == "dag"
        odd = temporal(["a"], [], type=3)
        assert taskbench_sample(odd, odd, dependency="temporal").split == "single"


class TestUnscorable:
    @pytest.mark.parametrize(
        ("pred", "gold", "message", "side"),
        [
            ({"task_nodes": []}, {"nodes": []}, "the gold has no 'task_nodes' list", "gold"),
            ({"task_nodes": [{"task": "a"}, {"task": 3}]}, temporal(["a"], []),
             "prediction node 1 has no string 'task'", "prediction"),
            ({"task_nodes": ["a"]}, temporal(["a"], []),
             "prediction node 0 has no string 'task'", "prediction"),
            ({"task_nodes": [], "task_links": []},
             {"task_nodes": [{"task": "a"}], "task_links": []},
             "gold node 0: arguments must be {name, value} objects", "gold"),
            ({"task_nodes": [{"task": "a", "arguments": [{"name": "q"}]}], "task_links": []},
             temporal(["a"], []),
             "prediction node 0: arguments must be {name, value} objects", "prediction"),
            ({"task_nodes": [], "task_links": [{"source": "a"}]}, temporal(["a"], []),
             "the prediction has no 'task_links' list of {source, target}", "prediction"),
            ({"task_nodes": [], "task_links": None}, temporal(["a"], []),
             "the prediction has no 'task_links' list of {source, target}", "prediction"),
        ],
        ids=["no-nodes", "task-not-text", "node-not-object", "gold-no-arguments",
             "half-argument", "half-link", "links-not-a-list"],
    )  # fmt: skip
    def test_the_reason_and_the_side(
        self, pred: dict[str, Any], gold: dict[str, Any], message: str, side: str
    ) -> None:
        with pytest.raises(UnscorableError) as caught:
            taskbench_sample(pred, gold, dependency="temporal")
        assert (str(caught.value), caught.value.side) == (message, side)

    def test_a_prediction_node_without_arguments_has_none(self) -> None:
        """Only the gold must list arguments; a predicted node without them has none."""
        pred = {"task_nodes": [{"task": "a"}], "task_links": []}
        got = taskbench_sample(pred, temporal(["a"], []), dependency="temporal")
        assert got.pred_arg_names == frozenset() and got.gold_arg_names == {"a-q"}


class TestStoredForm:
    def test_link_ends_that_are_not_text(self) -> None:
        """A number stays a number; a list (unhashable) is kept as its repr; at either end."""
        gold = temporal(["a", "b"], [(3, "b"), (["a"], "b"), ("a", 4), ("a", ["b"])])
        got = taskbench_sample(gold, gold, dependency="temporal")
        assert got.gold_links == {(3, "b"), ("['a']", "b"), ("a", 4), ("a", "['b']")}

    def test_link_ends_built_in_python_keep_their_value(self) -> None:
        """A record built in code with a str enum as a tool name links by the name's value."""

        class Tool(StrEnum):
            A = "a"

        gold = temporal(["a", "b"], [(Tool.A, "b")])
        got = taskbench_sample(gold, gold, dependency="temporal")
        assert got.gold_links == {("a", "b")}

    def test_two_empty_plans_have_no_edit_distance(self) -> None:
        empty = {"task_nodes": [], "task_links": []}
        got = taskbench_sample(empty, empty, dependency="temporal")
        assert got.ed_ratio == 1.0 and got.as_metrics() == {"taskbench.edit_distance": 0.0}

    def test_unknown_tools_are_one_symbol_apart_from_the_catalogue(self) -> None:
        """Every tool outside the catalogue is symbol 0 in the edit distance: two unknown
        tools are equal there, and an unknown one never equals the first catalogue tool."""
        catalogue = ToolCatalogue(("search", "email"))

        def ratio(pred: list[str], gold: list[str]) -> float:
            return taskbench_sample(
                temporal(pred, []), temporal(gold, []), dependency="temporal", catalogue=catalogue
            ).ed_ratio

        assert ratio(["fly"], ["swim"]) == 1.0
        assert ratio(["search"], ["swim"]) == 0.0
        assert ratio(["swim"], ["search"]) == 0.0

    def test_to_dict_and_back(self) -> None:
        gold = temporal(["a", "b"], [("a", "b")], type="chain")
        pred = temporal(["b", "x"], [("b", "x")])
        got = taskbench_sample(pred, gold, dependency="temporal")
        stored = got.to_dict()
        assert stored == {
            "split": "chain",
            "n_tools": 2,
            "nodes": [["a", "b"], ["b", "x"]],
            "links": [[["a", "b"]], [["b", "x"]]],
            "arg_names": [["a-q", "b-q"], ["b-q", "x-q"]],
            "arg_values": [["a-q-a", "b-q-b"], ["b-q-b", "x-q-x"]],
            "ed_ratio": 0.5,
        }
        assert type(got).from_dict(stored) == got

    def test_metrics_leave_out_an_f1_of_two_empty_sets(self) -> None:
        gold = {"task_nodes": [{"task": "a", "arguments": []}], "task_links": []}
        got = taskbench_sample(gold, gold, dependency="temporal").as_metrics()
        assert got == {"taskbench.node_f1": 1.0, "taskbench.edit_distance": 0.0}


class TestCatalogue:
    def test_from_a_registry(self) -> None:
        """Names in file order, once each; each tool's first output, ``none`` without one."""
        registry = Registry.from_data({"capabilities": [
            {"name": "caption", "outputs": ["text", "image"]},
            {"name": "speak"},
        ]})  # fmt: skip
        catalogue = ToolCatalogue.from_registry(registry)
        assert catalogue.names == ("caption", "speak")
        assert dict(catalogue.output_types) == {"caption": "text", "speak": "none"}
        assert dict(catalogue.numbers()) == {"caption": 1, "speak": 2}

    def test_a_citation_names_the_cited_tool_s_output_type(self) -> None:
        """Resource mode: ``<node-k>`` is an argument of k's output type, ``other`` when the
        catalogue does not know the tool."""
        gold = {"task_nodes": [
            {"task": "caption", "arguments": ["a.png"]},
            {"task": "speak", "arguments": ["<node-0>"]},
            {"task": "mystery", "arguments": []},
            {"task": "echo", "arguments": ["<node-2>"]},
        ]}  # fmt: skip
        catalogue = ToolCatalogue(("caption", "speak", "echo"), {"caption": "text"})
        got = taskbench_sample(gold, gold, dependency="resource", catalogue=catalogue)
        assert got.gold_arg_names == {"caption-image", "speak-text", "echo-other"}
        assert got.n_tools == 4 and got.gold_nodes == {"caption", "speak", "echo"}
