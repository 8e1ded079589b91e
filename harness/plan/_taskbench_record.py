"""The quickest lane for TaskBench JSON Lines: a record line decoded into typed structs and
read as a graph of node positions, without building a ``Plan``.

``fast_taskbench_plan`` builds the same ``Plan`` the general path builds, at several times the
cost of the JSON parse. Checking a 100,000-line file needs less: the structural checks of a
plain TaskBench record only look at its node count, tools and dependency edges. This lane
decodes the line with msgspec into structs (faster than ``json.loads`` into dicts), reads the
edges exactly as ``fast_taskbench_plan`` does (same citation and link rules, ``resolve_links``
itself), and keeps the line: the ``Plan`` is built from it only when someone asks
(``TaskBenchRecord.plan``).

The lane takes a strict subset of what ``fast_taskbench_plan`` takes (a test holds the two
equal on real and generated records): only the keys TaskBench writes (``msgspec`` refuses any
other), string or ``{"name", "value"}`` arguments, no tool-name citation. Anything else (None)
goes to ``fast_taskbench_plan`` and the general path as before.

Repeated keys: msgspec keeps the last of two equal keys, where the general path refuses the
record. A line without a ``\\u`` escape spells every key literally, so each key's count in the
line's text is at least the number of times it is used; a count above that (a repeated key, or
a string that happens to equal a key's name) sends the line to the other lanes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from harness.plan._links import resolve_links
from harness.plan._model import Plan
from harness.plan._taskbench import _INDEX_CITATION, _NAME_CITATION
from harness.plan._taskbench_fast import fast_taskbench_plan

__all__ = ["TaskBenchRecord", "read_taskbench_record"]

_UNSET: Any = msgspec.UNSET


class _Argument(msgspec.Struct, forbid_unknown_fields=True, gc=False, frozen=True):
    name: str
    value: str


class _Node(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    task: str
    arguments: list[str | _Argument] | msgspec.UnsetType | None = msgspec.UNSET


class _Link(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    source: str
    target: str


class _Record(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    task_nodes: list[_Node]
    id: str | int | msgspec.UnsetType | None = msgspec.UNSET
    task_links: list[_Link] | msgspec.UnsetType | None = msgspec.UNSET
    user_request: str | msgspec.UnsetType | None = msgspec.UNSET
    type: str | msgspec.UnsetType | None = msgspec.UNSET
    task_steps: list[str] | msgspec.UnsetType | None = msgspec.UNSET


_decode = msgspec.json.Decoder(_Record).decode
_CITATIONS: dict[object, int] = {f"<node-{k}>": k for k in range(256)}
_cited = _CITATIONS.get
"""The position an argument that is exactly one citation cites, else None (an ``_Argument``
is hashable and equal to no str): one lookup for the usual argument of a record whose tools
are all different (the others go through the rules below, as ``fast_taskbench_plan``)."""
_HUGE = 10**4000
"""Ints from here on have more digits than ``json.loads`` reads (4,300)."""


class TaskBenchRecord:
    """A plain TaskBench record line, read as node positions and dependency edges.

    ``deps[k]`` lists the positions node k depends on, in the order of
    ``fast_taskbench_plan``'s ``depends_on`` (citations in argument order, then links).
    """

    __slots__ = ("deps", "line", "on_itself", "plan_id", "tools")

    def __init__(
        self,
        line: str,
        plan_id: str | None,
        tools: list[str],
        deps: list[list[int]],
        on_itself: bool,
    ) -> None:
        self.line = line
        """The record's line (the plan is built from it on demand)."""
        self.plan_id = plan_id
        """The record's ``id`` as the plan's ``plan_id`` (None when it has none)."""
        self.tools = tools
        """Each node's tool, by position (task k is ``node-k``)."""
        self.deps = deps
        """Each node's dependencies other than itself, as positions."""
        self.on_itself = on_itself
        """True when a node cites its own output or a link joins a node to itself (the plan
        then says so in a need or a ``depends_on`` entry that ``deps`` leaves out)."""

    def plan(self) -> Plan:
        """The record's ``Plan``, as ``fast_taskbench_plan`` builds it."""
        plan = fast_taskbench_plan(self.line)
        if plan is None:  # this lane takes a subset of what that lane takes
            raise RuntimeError(f"the TaskBench fast lanes disagree on the line {self.line!r}")
        return plan


def read_taskbench_record(line: str) -> TaskBenchRecord | None:
    """The record of one TaskBench line, or None when another lane must read it."""
    try:
        return _read(line)
    except ValueError:  # a citation of more digits than int() reads: the fast lane words it
        return None


def _read(line: str) -> TaskBenchRecord | None:
    if "\\" in line:
        return None  # an escape could spell a key: the quote count below would not hold
    try:
        record = _decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    nodes = record.task_nodes
    size = len(nodes)
    # Strings the decoded record holds (keys and string values): without a backslash every
    # '"' of the line opens or closes a string, so a line with more (a repeated key) differs.
    strings = 1 + 3 * size
    raw_id = record.id
    if raw_id is not _UNSET:
        strings += 2 if type(raw_id) is str else 1
    goal, kind, steps = record.user_request, record.type, record.task_steps
    if goal is not _UNSET:
        strings += 2 if goal is not None else 1
    if kind is not _UNSET:
        strings += 2 if kind is not None else 1
    if steps is not _UNSET:
        strings += 1 + len(steps) if isinstance(steps, list) else 1
    tools = [node.task for node in nodes]
    index = {tool: k for k, tool in enumerate(tools)}  # the last node of each tool
    repeats = len(index) < size
    where: dict[str, list[int]] = {}  # each tool's nodes, when a tool repeats
    if repeats:
        for k, tool in enumerate(tools):
            where.setdefault(tool, []).append(k)
    deps: list[list[int]] = []
    fixed: list[tuple[int, int]] = []  # as in fast_taskbench_plan, for resolve_links
    cited: set[tuple[int, int]] = set()
    on_itself = False
    for k, node in enumerate(nodes):
        mine: list[int] = []
        deps.append(mine)
        arguments = node.arguments
        if arguments is _UNSET:
            strings -= 1
            continue
        if not arguments:
            continue
        strings += len(arguments)
        for arg in arguments:
            if not repeats:
                producer = _cited(arg)
                if producer is not None:  # one whole citation (the usual argument)
                    if producer >= size:
                        return None
                    if producer == k:
                        on_itself = True
                    elif producer not in mine:
                        mine.append(producer)
                    continue
            if type(arg) is str:
                text = arg
            else:
                text = arg.value  # type: ignore[union-attr]
                strings += 3
            if "<" not in text:
                named = text.strip()
                if named in index and (index[named] != k or (repeats and where[named] != [k])):
                    return None  # a tool-name citation: a need only, that links resolve
                continue
            producers: tuple[int, ...]
            if text[:6] == "<node-" and text[-1] == ">" and text[6:-1].isdecimal():
                producers = (int(text[6:-1]),)  # the whole argument is one citation
            else:
                producers = tuple(int(m.group(1)) for m in _INDEX_CITATION.finditer(text))
                if not producers:
                    if _NAME_CITATION.search(text):
                        return None
                    continue
            for producer in producers:
                if producer >= size:
                    return None
                if repeats:
                    cited.add((producer, k))
                if producer == k:
                    on_itself = True
                    continue
                if repeats:
                    fixed.append((producer, k))
                if producer not in mine:
                    mine.append(producer)
    links = record.task_links
    if links is not _UNSET:
        strings += 1
    if line.count('"') != 2 * (strings + 4 * len(links) if links else strings):
        return None
    if links and repeats:
        wanted = []
        for link in links:
            if link.source not in where or link.target not in where:
                return None
            wanted.append((link.source, link.target))
        for producer, consumer in resolve_links(wanted, where, cited, fixed):
            if producer == consumer:
                on_itself = True
            elif producer not in deps[consumer]:
                deps[consumer].append(producer)
    elif links:  # one node per tool: each link is its one pair (as resolve_links reads it)
        for link in links:
            source, target = index.get(link.source), index.get(link.target)
            if source is None or target is None:
                return None
            if source == target:
                on_itself = True
            elif source not in deps[target]:
                deps[target].append(source)
    if type(raw_id) is int:
        if not -_HUGE < raw_id < _HUGE:
            return None  # json.loads refuses an int this long: the other lanes say so
        plan_id: str | None = str(raw_id)
    else:
        plan_id = raw_id if type(raw_id) is str else None
    return TaskBenchRecord(line, plan_id, tools, deps, on_itself)
