"""LLMCompiler plans: numbered tool calls, ``$k`` references, ``join()`` at the end.

The grammar planeval accepts (the planner format of SqueezeAILab/LLMCompiler, also used by
LangGraph's LLMCompiler tutorial), one action per line::

    Thought: optional reasoning, ignored
    1. search("Ronaldo number of kids")
    2. math("$1 * 2")          # a comment after the call is ignored
    3. join()<END_OF_PLAN>

* An action is ``N. tool(arguments)`` at the start of a line (leading spaces allowed, then
  optionally ``<END_OF_PLAN>`` and a ``# comment``); ``N`` is
  the task id, ``tool`` (letters, digits, ``_``) its capability, the whole call its description.
* ``$k`` or ``${k}`` in the arguments reads the output of task k: a need on task k, and, when
  k is an earlier number, a dependency too. LLMCompiler only waits for earlier tasks, so a
  reference to the task itself or a later one is a need that ``self_dependency`` or
  ``needs_earlier_output`` reports, and a reference to a task that does not exist is reported
  by ``needs_resolve`` (and ``deps_resolve`` when it is an earlier number).
* ``join()`` ends the plan: it is the joiner step, not a task, and nothing after it is read. A
  plan without ``join()`` is read to its last action line.
* Every other line (prose, ``Thought:``, code fences) is ignored. A call must fit on one line.
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

_ACTION = re.compile(
    r"^[ \t]*(\d+)[ \t]*\.[ \t]*(\w+)[ \t]*\((.*)\)[ \t]*(?:<END_OF_PLAN>)?[ \t]*(?:#.*)?$",
    re.MULTILINE,
)
_REFERENCE = re.compile(r"\$\{?(\d+)\}?")
_MARKER = re.compile(r"__planeval_result_(\d+)__")


def looks_like_llmcompiler(text: str) -> bool:
    """True when the text has a ``join()`` action or at least two numbered actions."""
    actions = _ACTION.findall(text, 0, 200_000)
    return len(actions) >= 2 or any(name == "join" for _, name, _ in actions)


def llmcompiler_to_dict(text: str, *, source: str) -> dict[str, Any]:
    """An LLMCompiler plan (numbered actions up to ``join()``) as a canonical plan.

    Raises:
        NoPlanFoundError: the text has no numbered action line.
    """
    tasks: list[dict[str, Any]] = []
    joined = False
    for match in _ACTION.finditer(text):
        number, tool, args = int(match.group(1)), match.group(2), match.group(3).strip()
        if tool == "join":
            joined = True
            break
        needs: list[dict[str, str]] = []
        deps: list[str] = []
        for ref in _REFERENCE.finditer(args):
            k = int(ref.group(1))
            needs.append({"name": ref.group(0), "task": str(k)})
            if k < number and str(k) not in deps:
                deps.append(str(k))
        task: dict[str, Any] = {
            "id": str(number),
            "description": f"{tool}({args})",
            "capabilities": [tool],
            "depends_on": deps,
            "needs": needs,
        }
        arguments = _arguments(args)
        if arguments:
            task["arguments"] = arguments_to_json(arguments)
        tasks.append(task)
    if not tasks and not joined:
        raise NoPlanFoundError(
            "no LLMCompiler actions in the text",
            source=source,
            hint='expected numbered lines like 1. search("query") ending with join()',
        )
    return {"tasks": tasks}


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
