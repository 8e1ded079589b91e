"""LLMCompiler plans: numbered tool calls, ``$k`` references, ``join()`` at the end.

Read as LLMCompiler's own planner output parser reads them (SqueezeAILab/LLMCompiler at
a00c9d35507507da70e8c637eee64efc8c1857ae, ``src/llm_compiler/output_parser.py``; LangGraph's
LLMCompiler tutorial copies its patterns)::

    Thought: optional reasoning, ignored
    1. search("Ronaldo number of kids")
    2. math("$1 * 2")
    3. join()<END_OF_PLAN>

* An action is a match of ``(\\d+)\\. (\\w+)\\((.*)\\)`` anywhere in the text (``ACTION_PATTERN``):
  a number, a dot, one space, the tool, and its arguments up to the **last** ``)`` on the line;
  whatever follows that ``)`` (a quote, ``<END_OF_PLAN>``, a note) is ignored. ``N`` is the
  task id, ``tool`` its capability, ``tool(arguments)`` its description.
* ``$k`` or ``${k}`` in the arguments reads the output of task k (``ID_PATTERN``): a need on
  task k and, when k is an earlier number, a dependency (``default_dependency_rule``).
  LLMCompiler only waits for earlier tasks, so a reference to the task itself or a later one is
  a need that ``self_dependency`` or ``needs_earlier_output`` reports, and a reference to a task
  that does not exist is reported by ``needs_resolve`` (and ``deps_resolve`` when it is earlier).
* ``join()`` is the last task: LLMCompiler makes it depend on every number before it
  (``_get_dependencies_from_graph``). planeval writes that as a dependency on each task no other
  task depends on (the same order, without the edges ``redundant_dependency`` would report) and
  on each earlier number that is no task (``deps_resolve``: LLMCompiler would wait for it
  forever). ``join`` is no tool, so it has no capability. Nothing after ``join()`` is read (the
  parser stops there); a plan without ``join()`` is read to its last action.
* Every other text (prose, ``Thought:``, code fences) is ignored.
* The call's arguments, when they are Python literals (strings, numbers, ``None``, ``True``,
  lists, dicts) and references, become the task's ``arguments``: positional ones as ``arg0``,
  ``arg1``, ..., keyword ones by name; ``$k`` alone is a reference to task k's result, inside a
  string it makes a ``$concat``. A call whose arguments are anything else (``...``, an
  expression) has no ``arguments``; its text stays in the description.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from harness._errors import NoPlanFoundError
from harness.plan._arguments import Ref, arguments_to_json, split_references

__all__ = ["llmcompiler_to_dict", "looks_like_llmcompiler"]

_ACTION = re.compile(r"(\d+)\. (\w+)\((.*)\)")
"""``ACTION_PATTERN`` of LLMCompiler's output parser, without its optional ``#comment`` tail
(which never changes what the first three groups match)."""
_REFERENCE = re.compile(r"\$\{?(\d+)\}?")
"""``ID_PATTERN``: ``$1`` or ``${1}``."""
_MARKER = re.compile(r"__planeval_result_(\d+)__")


def looks_like_llmcompiler(text: str) -> bool:
    """True when the text has a ``join()`` action or at least two numbered actions."""
    actions = _ACTION.findall(text, 0, 200_000)
    return len(actions) >= 2 or any(name == "join" for _, name, _ in actions)


def llmcompiler_to_dict(text: str, *, source: str) -> dict[str, Any]:
    """An LLMCompiler plan (numbered actions up to ``join()``) as a canonical plan.

    Raises:
        NoPlanFoundError: the text has no numbered action.
    """
    tasks: list[dict[str, Any]] = []
    for match in _ACTION.finditer(text):
        number, tool, args = int(match.group(1)), match.group(2), match.group(3)
        if tool == "join":
            tasks.append(_join(number, tasks))
            break
        needs: list[dict[str, str]] = []
        deps: list[str] = []
        for ref in _REFERENCE.finditer(args):
            k = int(ref.group(1))
            needs.append({"name": ref.group(0), "task": str(k)})
            if 1 <= k < number and str(k) not in deps:  # range(1, idx), as LLMCompiler
                deps.append(str(k))
        task: dict[str, Any] = {
            "id": str(number),
            "description": f"{tool}({args.strip()})",
            "capabilities": [tool],
            "depends_on": deps,
            "needs": needs,
        }
        arguments = _arguments(args)
        if arguments:
            task["arguments"] = arguments_to_json(arguments)
        tasks.append(task)
    if not tasks:
        raise NoPlanFoundError(
            "no LLMCompiler actions in the text",
            source=source,
            hint='expected numbered lines like 1. search("query") ending with join()',
        )
    return {"tasks": tasks}


def _join(number: int, tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """The join task: after every earlier task, written through the tasks nobody waits for."""
    earlier = [t for t in tasks if int(t["id"]) < number]
    awaited = {dep for t in earlier for dep in t["depends_on"]}
    ids = {t["id"] for t in earlier}
    deps = [t["id"] for t in earlier if t["id"] not in awaited]
    deps += [str(k) for k in range(1, number) if str(k) not in ids]
    return {"id": str(number), "description": "join()", "depends_on": list(dict.fromkeys(deps))}


def _arguments(text: str) -> dict[str, Any]:
    """The call's arguments as values (``{}`` when they are not literals and references)."""
    if not text:
        return {}
    source = _REFERENCE.sub(lambda m: f"__planeval_result_{int(m.group(1))}__", text)
    try:
        call = ast.parse(f"f({source})", mode="eval").body
        assert isinstance(call, ast.Call)
        values = {f"arg{i}": _literal(node) for i, node in enumerate(call.args)}
        for keyword in call.keywords:
            if keyword.arg is None:  # **kwargs
                return {}
            values[keyword.arg] = _literal(keyword.value)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return values


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        match = _MARKER.fullmatch(node.id)
        if match is None:
            raise ValueError(node.id)
        return Ref(match.group(1))
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return split_references(node.value, _MARKER, lambda m: m.group(1))
        if node.value is None or isinstance(node.value, bool | int | float):
            return node.value
        raise ValueError(node.value)
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise ValueError(key)
            out[key.value] = _literal(value)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    raise ValueError(ast.dump(node))
