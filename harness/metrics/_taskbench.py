"""TaskBench's plan metrics, one sample at a time: what ``taskbench/evaluate.py`` counts.

Definitions follow microsoft/JARVIS ``taskbench/evaluate.py:evaluate`` (see docs/metrics.md for
the pinned commit). Per sample the script builds *sets*: the tool names of the nodes, the
``(source, target)`` links and the ``task-argname`` / ``task-argname-value`` strings, plus the
*sequence* of tool names for the edit distance. How links and arguments are read depends on the
domain's dependency type:

* ``resource`` (huggingface, multimedia): ``_`` in tool names becomes a space; a ``<node-k>``
  argument is a link from node k (its source is k's name with spaces, its target the node's raw
  name) and the argument ``{output type of k: name of k}``; any other argument is
  ``{content type: text}`` (image / audio / video by file extension, else text);
  ``task_links`` is ignored.
* ``temporal`` (dailylifeapis): links are ``task_links``; arguments are ``{name, value}``.

The corpus figures (micro / macro node F1, binary link and argument F1, edit distance) pool
these samples: see ``harness.metrics._corpus``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harness._identity import IdentityCache

__all__ = [
    "DEPENDENCY_TYPES",
    "DependencyType",
    "TaskbenchGold",
    "TaskbenchSample",
    "ToolCatalogue",
    "UnscorableError",
    "read_taskbench_gold",
    "set_f1",
    "taskbench_sample",
]

DependencyType = Literal["resource", "temporal"]
DEPENDENCY_TYPES: tuple[DependencyType, ...] = ("resource", "temporal")
_MEDIA = (
    ("image", ("jpg", "png", "jpeg", "gif", "bmp", "tiff", "svg", "ico")),
    ("audio", ("mp3", "wav", "wma", "ogg", "aac", "flac", "aiff", "au")),
    ("video", ("mp4", "avi", "mov", "flv", "wmv", "mkv", "webm", "m4v", "mpg", "mpeg")),
)


class UnscorableError(ValueError):
    """A TaskBench plan the official script would drop or crash on (the message says why).

    Attributes:
        side: ``gold`` or ``prediction``: which of the two is unusable.
    """

    def __init__(self, message: str, *, side: str) -> None:
        super().__init__(message)
        self.side = side


@dataclass(frozen=True, slots=True)
class ToolCatalogue:
    """The tools of a TaskBench domain (``tool_desc.json``), in file order."""

    names: tuple[str, ...]
    """Tool ids; node F1 counts only these, macro F1 averages over all of them."""
    output_types: Mapping[str, str] = field(default_factory=dict)
    """First ``output-type`` of each tool (``none`` when it lists none), for resource mode."""
    _numbers: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Computed once: a run scores every sample against the same catalogue.
        object.__setattr__(self, "_numbers", {n: i + 1 for i, n in enumerate(self.names)})

    @classmethod
    def from_registry(cls, registry: Any) -> ToolCatalogue:
        """The catalogue of a ``harness.registry.Registry`` (a ``tool_desc.json`` loads as one:
        capability names in file order, ``output-type`` as outputs)."""
        caps = list(registry.capabilities)
        return cls(
            tuple(dict.fromkeys(c.name for c in caps)),
            {c.name: (c.outputs[0] if c.outputs else "none") for c in caps},
        )

    def numbers(self) -> Mapping[str, int]:
        """Each tool's number for the edit distance, from 1 in file order (0 is unknown)."""
        return self._numbers


@dataclass(frozen=True, slots=True)
class TaskbenchSample:
    """What one prediction contributes to TaskBench's figures, against its gold."""

    gold_nodes: frozenset[str]
    pred_nodes: frozenset[str]
    """Tool names of the catalogue (other names add nothing to node counts)."""
    gold_links: frozenset[tuple[str, str]]
    pred_links: frozenset[tuple[str, str]]
    gold_arg_names: frozenset[str]
    pred_arg_names: frozenset[str]
    gold_arg_values: frozenset[str]
    pred_arg_values: frozenset[str]
    ed_ratio: float
    """Levenshtein ratio of the tool-number sequences (1.0 for two empty sequences)."""
    split: str
    """single, chain or dag (the gold's ``type``)."""
    n_tools: int
    """Number of gold nodes."""
    notes: tuple[str, ...] = ()

    def as_metrics(self) -> dict[str, float]:
        """Per-sample values (``taskbench.node_f1``, ...); an F1 over two empty sets is left
        out rather than guessed."""
        values = {
            "taskbench.node_f1": set_f1(self.gold_nodes, self.pred_nodes),
            "taskbench.link_f1": set_f1(self.gold_links, self.pred_links),
            "taskbench.argument_name_f1": set_f1(self.gold_arg_names, self.pred_arg_names),
            "taskbench.argument_value_f1": set_f1(self.gold_arg_values, self.pred_arg_values),
            "taskbench.edit_distance": 1.0 - self.ed_ratio,
        }
        return {k: v for k, v in values.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        """JSON form, as stored in a results row (sets as sorted lists)."""
        return {
            "split": self.split,
            "n_tools": self.n_tools,
            "nodes": [sorted(self.gold_nodes), sorted(self.pred_nodes)],
            "links": [sorted(map(list, self.gold_links)), sorted(map(list, self.pred_links))],
            "arg_names": [sorted(self.gold_arg_names), sorted(self.pred_arg_names)],
            "arg_values": [sorted(self.gold_arg_values), sorted(self.pred_arg_values)],
            "ed_ratio": self.ed_ratio,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskbenchSample:
        """Inverse of ``to_dict``."""

        def pair(key: str) -> tuple[frozenset[Any], frozenset[Any]]:
            gold, pred = data[key]
            if key == "links":
                return frozenset(map(tuple, gold)), frozenset(map(tuple, pred))
            return frozenset(gold), frozenset(pred)

        return cls(
            *pair("nodes"),
            *pair("links"),
            *pair("arg_names"),
            *pair("arg_values"),
            ed_ratio=float(data["ed_ratio"]),
            split=str(data["split"]),
            n_tools=int(data["n_tools"]),
        )


def set_f1(gold: frozenset[Any], pred: frozenset[Any]) -> float | None:
    """F1 of two sets; None when both are empty."""
    if not gold and not pred:
        return None
    hits = len(gold & pred)
    return 2 * hits / (len(gold) + len(pred))


def taskbench_sample(
    pred: Mapping[str, Any],
    gold: Mapping[str, Any] | TaskbenchGold,
    *,
    dependency: DependencyType,
    catalogue: ToolCatalogue | None = None,
) -> TaskbenchSample:
    """One prediction (``{"task_nodes", "task_links"}``) against its gold record.

    Without a catalogue every tool name counts as known and numbers follow first appearance.
    ``gold`` may be read beforehand (``read_taskbench_gold``), to score many predictions
    against it.

    Raises:
        UnscorableError: the prediction is one the official script drops ("Parsing Error") or
            crashes on; the message names the field. The gold is read first, so an unusable
            gold raises (``side="gold"``) whatever the prediction.
        ValueError: a read gold of another dependency type.
    """
    if isinstance(gold, TaskbenchGold):
        if gold.dependency != dependency:
            raise ValueError(f"the gold was read as {gold.dependency}, not {dependency}")
    else:
        gold = read_taskbench_gold(gold, dependency)
    notes = list(gold.notes)
    last = list(gold.carry)
    gold_view = gold.view
    pred_view = _view(pred, dependency, "prediction", notes, last)
    if catalogue is None:
        names = dict.fromkeys([*gold_view.names, *pred_view.names])
        catalogue = ToolCatalogue(tuple(names))
        gold_side = gold.against(catalogue, cache=False)
    else:
        gold_side = gold.against(catalogue)
    numbers = catalogue.numbers()  # its keys are the known tool names
    ratio = _levenshtein_ratio([numbers.get(n, 0) for n in pred_view.names], gold_side.numbers)
    pred_names, pred_values = pred_view.argument_keys(catalogue)
    return TaskbenchSample(
        gold_nodes=gold_side.nodes,
        pred_nodes=frozenset(n for n in pred_view.names if n in numbers),
        gold_links=gold.links,
        pred_links=frozenset(pred_view.links),
        gold_arg_names=gold_side.arg_names,
        pred_arg_names=frozenset(pred_names),
        gold_arg_values=gold_side.arg_values,
        pred_arg_values=frozenset(pred_values),
        ed_ratio=ratio,
        split=gold.split,
        n_tools=len(gold_view.names),
        notes=tuple(notes),
    )


def read_taskbench_gold(gold: Mapping[str, Any], dependency: DependencyType) -> TaskbenchGold:
    """A gold record read as ``taskbench_sample`` reads it, once for any number of predictions.

    Raises:
        UnscorableError: (``side="gold"``) the official script would drop or crash on it.
    """
    notes: list[str] = []
    last: list[Any] = []
    view = _view(gold, dependency, "gold", notes, last)
    split = gold.get("type")
    return TaskbenchGold(
        view=view,
        dependency=dependency,
        notes=tuple(notes),
        carry=tuple(last),
        split=split if isinstance(split, str) else infer_split(view),
        links=frozenset(view.links),
    )


@dataclass(frozen=True, slots=True)
class _GoldAgainstCatalogue:
    """The parts of a gold's figures that depend on the tool catalogue."""

    nodes: frozenset[str]
    numbers: list[int]
    arg_names: frozenset[str]
    arg_values: frozenset[str]


@dataclass(frozen=True, slots=True)
class TaskbenchGold:
    """A gold record as ``taskbench_sample`` reads it (``read_taskbench_gold``): what every
    prediction is scored against. Treat it as immutable."""

    view: _View
    dependency: DependencyType
    notes: tuple[str, ...]
    """What reading the gold noted (an unusable argument counted again, ...)."""
    carry: tuple[Any, ...]
    """Resource mode: the argument converted last, which the official loop carries into the
    prediction's nodes (its ``new_argument``)."""
    split: str
    """single, chain or dag: the gold's ``type``, else inferred (``infer_split``)."""
    links: frozenset[tuple[Any, Any]]
    _by_catalogue: IdentityCache[ToolCatalogue, _GoldAgainstCatalogue] = field(
        default_factory=lambda: IdentityCache(8), init=False, repr=False, compare=False
    )

    def against(self, catalogue: ToolCatalogue, *, cache: bool = True) -> _GoldAgainstCatalogue:
        """Node set, tool numbers and argument keys under ``catalogue`` (kept per catalogue
        object: a run scores every sample of a case against one)."""
        if not cache:
            return self._against(catalogue)
        return self._by_catalogue.get(catalogue, self._against)

    def _against(self, catalogue: ToolCatalogue) -> _GoldAgainstCatalogue:
        numbers = catalogue.numbers()
        names, values = self.view.argument_keys(catalogue)
        return _GoldAgainstCatalogue(
            nodes=frozenset(n for n in self.view.names if n in numbers),
            numbers=[numbers.get(n, 0) for n in self.view.names],
            arg_names=frozenset(names),
            arg_values=frozenset(values),
        )


@dataclass(slots=True)
class _View:
    names: list[str]
    links: list[tuple[str, str]]
    arguments: list[list[tuple[str, Any]]]
    """Per node: (name, value) pairs; in resource mode the name is a content type or, for a
    ``<node-k>`` reference, ``("@ref", k's name)`` resolved against the catalogue later."""

    def argument_keys(self, catalogue: ToolCatalogue) -> tuple[list[str], list[str]]:
        """``task-name`` and ``task-name-value`` of every argument, in order (the strings the
        official script puts in its argument-name and argument-value sets)."""
        output_types = catalogue.output_types
        names, values = [], []
        for task, args in zip(self.names, self.arguments, strict=True):
            for name, value in args:
                if name == "@ref":
                    name = output_types.get(value, "other")
                names.append(f"{task}-{name}")
                values.append(f"{task}-{name}-{value}")
        return names, values


def _view(
    record: Mapping[str, Any], dependency: str, who: str, notes: list[str], last: list[Any]
) -> _View:
    nodes = record.get("task_nodes")
    if not isinstance(nodes, list):
        raise UnscorableError(f"the {who} has no 'task_nodes' list", side=who)
    raw_names = []
    for index, node in enumerate(nodes):
        task = node.get("task") if isinstance(node, dict) else None
        if not isinstance(task, str):
            raise UnscorableError(f"{who} node {index} has no string 'task'", side=who)
        raw_names.append(task)
    if dependency == "resource":
        return _resource_view(nodes, raw_names, who, notes, last)
    arguments = []
    prediction = who == "prediction"
    for index, node in enumerate(nodes):
        args = node.get("arguments", []) if prediction else node.get("arguments")
        pairs: list[tuple[str, Any]] = []
        if isinstance(args, dict | str) and not args:
            # the script loops over an empty object or text without reading an argument
            arguments.append(pairs)
            continue
        if isinstance(args, list):
            for a in args:
                if not (isinstance(a, dict) and "name" in a and "value" in a):
                    break
                pairs.append((a["name"], a["value"]))
            else:
                arguments.append(pairs)
                continue
        raise UnscorableError(
            f"{who} node {index}: arguments must be {{name, value}} objects", side=who
        )
    links = record.get("task_links")
    edges: list[tuple[Any, Any]] = []
    if isinstance(links, list):
        for x in links:
            if not (isinstance(x, dict) and "source" in x and "target" in x):
                break
            source, target = x["source"], x["target"]
            edges.append(
                (
                    source if type(source) is str else _hashable(source),
                    target if type(target) is str else _hashable(target),
                )
            )
        else:
            return _View(raw_names, edges, arguments)
    raise UnscorableError(f"the {who} has no 'task_links' list of {{source, target}}", side=who)


def _resource_view(
    nodes: list[dict[str, Any]], raw_names: list[str], who: str, notes: list[str], last: list[Any]
) -> _View:
    """``last`` holds the argument converted most recently: the official loop reuses it when an
    argument cannot be converted (its ``except: pass`` keeps the previous ``new_argument``), and
    it carries from the gold's nodes into the prediction's."""
    names = [n.replace("_", " ") for n in raw_names]
    links: list[tuple[str, str]] = []
    arguments: list[list[tuple[str, Any]]] = []
    for index, node in enumerate(nodes):
        if who == "gold" and "arguments" not in node:
            # the script reads a gold node's node["arguments"]: a KeyError drops the sample
            raise UnscorableError(f"gold node {index} has no 'arguments'", side=who)
        args = _resource_arguments(node.get("arguments", []), who, index, notes)
        out: list[tuple[str, Any]] = []
        for position, argument in enumerate(args):
            try:
                parsed = _resource_argument(argument, index, names)
            except (ValueError, TypeError, IndexError, AttributeError) as exc:
                if not last:
                    raise UnscorableError(
                        f"{who} node {index} argument {position} is unusable ({exc}) and no "
                        "argument precedes it",
                        side=who,
                    ) from None
                notes.append(
                    f"{who} node {index} argument {position} is unusable ({exc}): the previous "
                    "argument counts again, as in the official script"
                )
                out.append(last[0])
                continue
            if parsed is None:  # a node citing itself: no link, no argument
                continue
            if parsed[0] == "@ref":
                links.append((parsed[1], raw_names[index]))
            last[:] = [parsed]
            out.append(parsed)
        arguments.append(out)
    return _View(names, links, arguments)


def _resource_arguments(args: Any, who: str, index: int, notes: list[str]) -> list[Any]:
    """A node's ``arguments`` as the official loop (``for argument in arguments``) walks them:
    a list item by item, an object by its keys, text character by character; anything else
    makes the script drop the sample."""
    if isinstance(args, list):
        return args
    if isinstance(args, dict | str):
        if args:
            shape = "an object: its keys" if isinstance(args, dict) else "text: its characters"
            notes.append(
                f"{who} node {index}: 'arguments' is {shape} count as arguments, as in the "
                "official script"
            )
        return list(args)
    raise UnscorableError(
        f"{who} node {index}: 'arguments' is {type(args).__name__}, not a list", side=who
    )


def _resource_argument(argument: Any, index: int, names: list[str]) -> tuple[str, Any] | None:
    if isinstance(argument, dict):
        if not argument:
            raise IndexError("an empty object")  # the script's list(argument.values())[0]
        argument = next(iter(argument.values()))
    if isinstance(argument, list):
        argument = " ".join(argument)
    if not isinstance(argument, str):
        raise TypeError(f"not text: {argument!r}")
    if "<node-" in argument:
        start = argument.index("<node-") + 6
        ref = int(argument[start : argument.index(">")])
        if ref == index:
            return None
        return ("@ref", names[ref])
    return (content_type(argument), argument)


def content_type(text: str) -> str:
    """``get_content_type``: image / audio / video when a known extension appears, else text."""
    text = text.strip("'")
    for kind, extensions in _MEDIA:
        if any("." + ext in text for ext in extensions):
            return kind
    return "text"


def infer_split(view: _View) -> str:
    """single / chain / dag for a gold without TaskBench's ``type``: one node is single, links
    forming one path through every node are a chain, anything else a dag."""
    if len(view.names) <= 1:
        return "single"
    links = set(view.links)
    if len(links) != len(view.names) - 1:
        return "dag"
    # A path: no tool is the source of two links, nor the target of two.
    sources, targets = {a for a, _ in links}, {b for _, b in links}
    return "chain" if len(sources) == len(targets) == len(links) else "dag"


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _hashable(value: Any) -> Any:
    if type(value) in _PLAIN or isinstance(value, str | int | float | bool | type(None)):
        return value
    return repr(value)


def _levenshtein_ratio(a: Sequence[int], b: Sequence[int]) -> float:
    """``Levenshtein.ratio`` on sequences: ``2 * LCS / (len(a) + len(b))``, 1.0 when both are
    empty (the indel distance normalized by the summed lengths).

    The LCS length is computed bit-parallel (Hyyrö's form of Allison and Dix): bit j of ``row``
    is 1 while ``b[j]`` is still unmatched, and each symbol of ``a`` updates all of them with
    one addition; the LCS is the number of bits cleared."""
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    where: dict[int, int] = {}
    for j, symbol in enumerate(b):
        where[symbol] = where.get(symbol, 0) | (1 << j)
    full = (1 << len(b)) - 1
    row = full
    for symbol in a:
        matched = row & where.get(symbol, 0)
        row = ((row + matched) | (row - matched)) & full
    return 2 * (len(b) - row.bit_count()) / total
