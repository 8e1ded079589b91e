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
* Every other text (prose, ``Thought:``, code fences) is ignored. Arguments are kept as text.
"""

from __future__ import annotations

import re
from typing import Any

from harness._errors import NoPlanFoundError

__all__ = ["llmcompiler_to_dict", "looks_like_llmcompiler"]

_ACTION = re.compile(r"(\d+)\. (\w+)\((.*)\)")
"""``ACTION_PATTERN`` of LLMCompiler's output parser, without its optional ``#comment`` tail
(which never changes what the first three groups match)."""
_REFERENCE = re.compile(r"\$\{?(\d+)\}?")
"""``ID_PATTERN``: ``$1`` or ``${1}``."""


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
        tasks.append(
            {
                "id": str(number),
                "description": f"{tool}({args.strip()})",
                "capabilities": [tool],
                "depends_on": deps,
                "needs": needs,
            }
        )
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
