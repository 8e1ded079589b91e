"""Agents that ship with planeval, and loading an agent named ``module:callable``."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from harness._errors import InputError
from harness.execute._context import Agent, TaskContext, inline_agent, reads

__all__ = ["AgentLoadError", "check_agent", "demo_agent", "load_agent"]


class AgentLoadError(InputError):
    """An ``--agent`` reference that does not name a callable."""


_DEMO_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode
"""``json.dumps(..., sort_keys=True, ensure_ascii=False, default=str)``, built once."""


@reads("task", "inputs")  # never the goal: a goal edit keeps its outputs
@inline_agent  # pure computation, microseconds: no worker thread needed
def demo_agent(context: TaskContext) -> dict[str, Any]:
    """A deterministic agent: the output is a digest of the task and its inputs.

    The same task with the same inputs always gives the same output; change the task (its
    description, capabilities, any key) or an upstream output and the digest changes, so a
    resume can be checked against an uninterrupted run without calling a model.
    """
    task = context.task
    material = _DEMO_ENCODE({"task": task.to_dict(), "inputs": dict(context.inputs)})
    digest = hashlib.sha256(material.encode()).hexdigest()
    return {"task": task.id, "digest": "sha256:" + digest[:32], "inputs": sorted(context.inputs)}


def load_agent(reference: str) -> Agent:
    """The callable named by ``module:attribute`` or ``path/to/file.py:attribute``.

    The current directory is importable, as for ``python -m``. An attribute that is a
    class or factory is not called: name the agent callable itself.

    Raises:
        AgentLoadError: the module cannot be imported or has no such callable.
    """
    module_name, sep, attribute = reference.rpartition(":")
    if not sep or not module_name or not attribute:
        raise AgentLoadError(
            f"--agent must be module:callable, got {reference!r}",
            hint="for example --agent harness.execute:demo_agent",
        )
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            module = _import_file(Path(module_name))
        else:
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except (ImportError, OSError) as exc:
        raise AgentLoadError(
            f"cannot import the agent module {module_name!r}: {exc}",
            hint="check the module path, or use path/to/file.py:callable",
        ) from None
    except Exception as exc:  # the module itself is broken: a syntax error, a failing import
        raise AgentLoadError(
            f"cannot import the agent module {module_name!r}: {type(exc).__name__}: {exc}",
            hint="fix the module (running it with python shows the traceback)",
        ) from None
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part, None)
        if target is None:
            names = [n for n in dir(module) if not n.startswith("_")]
            raise AgentLoadError(
                f"module {module_name!r} has no {attribute!r}",
                hint="callables there: " + ", ".join(names[:12]),
            )
    if not callable(target):
        raise AgentLoadError(f"{reference!r} is not callable")
    agent: Agent = target
    return agent


def check_agent(agent: Agent) -> None:
    """Run an agent's ``preflight`` (an optional attribute: a callable without arguments that
    raises when the agent cannot work, a missing model name or API key), before any task.

    Raises:
        AgentLoadError: the preflight raised (CLI exit 2); nothing has run.
    """
    preflight = getattr(agent, "preflight", None)
    if not callable(preflight):
        return
    try:
        preflight()
    except Exception as exc:
        raise AgentLoadError(
            f"the agent cannot run: {exc}",
            hint="fix its configuration, then run again (no task was started)",
        ) from None


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise ImportError(f"no such file: {path}")
    name = "planeval_agent_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
