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
* Every other line (prose, ``Thought:``, code fences) is ignored. Arguments are kept as text; a
  call must fit on one line.
"""

from __future__ import annotations

import re
from typing import Any

from harness._errors import NoPlanFoundError

__all__ = ["llmcompiler_to_dict", "looks_like_llmcompiler"]

_ACTION = re.compile(
    r"^[ \t]*(\d+)[ \t]*\.[ \t]*(\w+)[ \t]*\((.*)\)[ \t]*(?:<END_OF_PLAN>)?[ \t]*(?:#.*)?$",
    re.MULTILINE,
)
_REFERENCE = re.compile(r"\$\{?(\d+)\}?")


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
        tasks.append(
            {
                "id": str(number),
                "description": f"{tool}({args})",
                "capabilities": [tool],
                "depends_on": deps,
                "needs": needs,
            }
        )
    if not tasks and not joined:
        raise NoPlanFoundError(
            "no LLMCompiler actions in the text",
            source=source,
            hint='expected numbered lines like 1. search("query") ending with join()',
        )
    return {"tasks": tasks}
