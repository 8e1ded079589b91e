"""The fast lane for TaskBench JSON Lines: one record line straight to a ``Plan``.

A TaskBench ``data.json`` holds thousands of small records; reading each through the general
path (strict JSON with a Python hook per object, a canonical dict, ``Plan.from_dict``) costs
several times the JSON parse. This lane reads the common record in one pass and builds the
same ``Plan`` the general path builds (a test holds the two to equal results). Whenever a
record is anything but plain (a duplicate key, NaN, a tool-name citation, a citation or link
naming no node, a prediction's ``result``, an unexpected shape), it returns None and the
general path reads the line, with its exact messages.

Duplicate keys are found without a Python hook: objects are decoded as lists of pairs (the
``list`` hook runs in C), and each is turned into a dict whose length must equal the pairs'.
"""

from __future__ import annotations

import json
from typing import Any

from harness.plan._arguments import new_ref, value_from_matches
from harness.plan._links import resolve_links
from harness.plan._model import Plan, new_need, new_plan, new_task
from harness.plan._taskbench import _INDEX_CITATION, _NAME_CITATION, _value
from harness.plan._taskbench import NODE_KEYS as _NODE_KEYS

__all__ = ["fast_taskbench_plan"]

_KNOWN = frozenset({"id", "task_nodes", "task_links", "user_request", "type", "task_steps"})
_STR = {str}
_IDS = [f"node-{k}" for k in range(64)]
_ARG_NAMES = [f"arg{k}" for k in range(16)]


class _Unusual(Exception):
    """The record needs the general path."""


def _reject(name: str) -> Any:
    raise _Unusual(name)


_DECODER = json.JSONDecoder(object_pairs_hook=list, parse_constant=_reject)


def fast_taskbench_plan(line: str) -> Plan | None:
    """The plan of one TaskBench record line, or None when the general path must read it."""
    try:
        pairs = _DECODER.decode(line)
        return _plan(pairs)
    except (_Unusual, ValueError, RecursionError, TypeError, AttributeError, KeyError):
        return None


def _object(value: Any) -> dict[str, Any]:
    """A decoded object (a list of pairs) as a dict; _Unusual for anything else or a
    repeated key."""
    if type(value) is not list or (value and type(value[0]) is not tuple):
        raise _Unusual
    obj = dict(value)
    if len(obj) != len(value):
        raise _Unusual
    return obj


def _plain(value: Any) -> None:
    """Walk a value the plan does not use, only to refuse repeated keys inside it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is list:
            if item and type(item[0]) is tuple:
                stack.extend(_object(item).values())
            else:
                stack.extend(item)


def _plan(pairs: Any) -> Plan:
    record = _object(pairs)
    if not record.keys() <= _KNOWN:
        if "tasks" in record or "plan_id" in record:
            raise _Unusual  # canonical keys win in the general path; labels come from plan_id
        for key, value in record.items():
            if key not in _KNOWN:
                _plain(value)
    if "task_steps" in record:
        _plain(record["task_steps"])
    nodes = record["task_nodes"]
    if type(nodes) is not list:
        raise _Unusual
    objects = []
    for node in nodes:  # _object, inlined: this runs for every node of every record
        if type(node) is not list or not node or type(node[0]) is not tuple:
            raise _Unusual
        obj = dict(node)
        if len(obj) != len(node):
            raise _Unusual
        objects.append(obj)
    tools = [obj["task"] for obj in objects]
    if not set(map(type, tools)) <= _STR:
        raise _Unusual
    size = len(tools)
    where: dict[str, list[int]] = {}
    for k, tool in enumerate(tools):
        where.setdefault(tool, []).append(k)
    repeats = len(where) < size
    ids = _IDS[:size] if size <= len(_IDS) else [f"node-{k}" for k in range(size)]
    all_needs: list[tuple[Any, ...]] = []
    all_deps: list[list[str]] = []
    all_arguments: list[dict[str, Any]] = []
    refs: dict[int, Any] = {}  # node position -> its Ref, shared by every citation of it
    fixed: list[tuple[int, int]] = []
    cited: set[tuple[int, int]] = set()
    for k, obj in enumerate(objects):
        if not obj.keys() <= _NODE_KEYS:
            raise _Unusual  # a key TaskBench does not define: the general path carries it
        needs: list[Any] = []
        deps: list[str] = []
        values: dict[str, Any] = {}
        arguments = obj.get("arguments")
        if arguments is not None:
            if type(arguments) is not list or (arguments and type(arguments[0]) is tuple):
                raise _Unusual  # a mapping of arguments: the general path reads it
            for index, arg in enumerate(arguments):
                if type(arg) is str:
                    name, text, raw = "", arg, arg
                else:
                    name, text, raw = _argument(arg)
                key = name or (_ARG_NAMES[index] if index < 16 else f"arg{index}")
                if "<" not in text:
                    values[key] = raw
                    places = where.get(text.strip())
                    if places is not None and places != [k]:
                        raise _Unusual  # a tool-name citation
                    continue
                matches = list(_INDEX_CITATION.finditer(text))
                if raw is not text:
                    values[key] = _value(raw)
                elif len(matches) == 1 and matches[0].group(0) == text:  # "<node-k>": common
                    values[key] = _ref(refs, ids, int(matches[0].group(1)))
                else:  # the argument is this text: its value from the same matches
                    values[key] = value_from_matches(
                        text, matches, [_ref(refs, ids, int(m.group(1))) for m in matches]
                    )
                found = False
                for match in matches:
                    found = True
                    producer = int(match.group(1))
                    if producer >= size:
                        raise _Unusual
                    needs.append(new_need(key, ids[producer]))
                    if repeats:  # only link resolution among repeated tools reads these
                        cited.add((producer, k))
                    if producer != k:
                        if repeats:
                            fixed.append((producer, k))
                        if ids[producer] not in deps:
                            deps.append(ids[producer])
                if not found and _NAME_CITATION.search(text):
                    raise _Unusual
        all_needs.append(tuple(needs))
        all_deps.append(deps)
        all_arguments.append(values)
    _links(record.get("task_links"), where, cited, fixed, ids, all_deps)
    raw_id = record.get("id")
    plan_id = str(raw_id) if type(raw_id) is str or type(raw_id) is int else None
    goal = record.get("user_request")
    tasks = []
    for k in range(size):
        tool = tools[k]
        tasks.append(
            new_task(
                ids[k],
                tool,
                (tool,),
                tuple(all_deps[k]),
                all_needs[k],
                None,
                None,
                {},
                all_arguments[k],
            )
        )
    return new_plan(tuple(tasks), plan_id, goal if type(goal) is str else None)


def _ref(refs: dict[int, Any], ids: list[str], k: int) -> Any:
    """The shared ``Ref`` of node k (a citation beyond the plan leaves the fast lane later)."""
    ref = refs.get(k)
    if ref is None:
        ref = refs[k] = new_ref(ids[k] if k < len(ids) else f"node-{k}")
    return ref


def _argument(arg: Any) -> tuple[str, str, Any]:
    """``(name or "", text, value)`` of one argument; the general path's ``arg<i>`` names fill
    in."""
    if type(arg) is str:
        return "", arg, arg
    if type(arg) is list and arg and type(arg[0]) is tuple:
        obj = _object(arg)
        name, value = obj.get("name"), obj.get("value")
        if "name" not in obj or "value" not in obj or type(value) is not str:
            raise _Unusual
        if len(obj) > 2:
            for key, extra in obj.items():
                if key != "name" and key != "value":
                    _plain(extra)
        return (name if type(name) is str else "", value, value)
    if type(arg) is list and all(type(a) is str for a in arg):
        return "", " ".join(arg), arg
    return "", _nothing(arg), arg


def _nothing(arg: Any) -> str:
    """Numbers, booleans and null read as no text (as in the general path)."""
    if type(arg) is list:
        raise _Unusual
    return ""


def _links(
    raw: Any,
    where: dict[str, list[int]],
    cited: set[tuple[int, int]],
    fixed: list[tuple[int, int]],
    ids: list[str],
    all_deps: list[list[str]],
) -> None:
    if raw is None:
        return
    if type(raw) is not list:
        raise _Unusual
    wanted = []
    for link in raw:
        if type(link) is not list or not link or type(link[0]) is not tuple:
            raise _Unusual
        obj = dict(link)
        if len(obj) != len(link):
            raise _Unusual
        src, dst = obj.get("source"), obj.get("target")
        if type(src) is not str or type(dst) is not str or src not in where or dst not in where:
            raise _Unusual
        if len(obj) > 2:
            for key, extra in obj.items():
                if key != "source" and key != "target":
                    _plain(extra)
        wanted.append((src, dst))
    for producer, consumer in resolve_links(wanted, where, cited, fixed):
        deps = all_deps[consumer]
        if ids[producer] not in deps:
            deps.append(ids[producer])
