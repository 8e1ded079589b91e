"""The argument checks: ``arguments_valid``, ``argument_refs_resolve`` and ``dataflow_types``.

* ``arguments_valid``: a task's literal arguments satisfy its tool's parameter schema (the
  registry's compiled validator, built once per tool per registry). A reference stands for
  "some value of the producer's output type": it is not judged here; whether that type fits the
  parameter is ``dataflow_types``'s question. Runs only on plans that pass arguments somewhere
  (a format without arguments is not a plan with missing arguments), and only against tools that
  declare a schema.
* ``argument_refs_resolve``: each reference names another task of the plan that runs before the
  consumer (a strict ancestor through ``depends_on``; with ``needs: imply_deps`` the reference is
  itself the dependency, so it only must not close a cycle). A reference a ``needs`` entry of the
  same task already names is left to the ``needs`` checks: one fact, one violation.
* ``dataflow_types``: where a whole reference fills a parameter, the producer's declared output
  types (TaskBench ``output-type``, or the JSON type of an MCP ``outputSchema``) meet the
  parameter's declared type (``x-planeval-type``, or its JSON ``type``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from harness.plan import Ref, Template, references
from harness.registry import Capability, Registry
from harness.registry._formats import DATA_TYPE

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

    from harness.plan import Task

__all__ = ["ArgumentChecks", "argument_edges", "uncovered_references"]

_PLACEHOLDER = object()
"""What a reference is replaced by before jsonschema validates (errors at its place are
dropped)."""
_OPAQUE: tuple[type, ...] = (Ref, Template)
_NESTED = frozenset({Template, dict, list})
"""Reference values pass the fast schema predicate's property checks."""

Add = Callable[[str, str | None, str, str], None]


class ArgumentChecks:
    """The three argument checks over one plan (the structural checker supplies the graph)."""

    def __init__(
        self,
        tasks: tuple[Task, ...],
        index: Mapping[str, int],
        registry: Registry | None,
        add: Add,
        severity_of_dataflow: str,
    ) -> None:
        self.tasks = tasks
        self.index = index
        self.registry = registry
        self.add = add
        self.dataflow_severity = severity_of_dataflow
        self.tools: list[Capability | None] = []
        if registry is not None:
            self.tools = [_tool(registry, task) for task in tasks]
        self._uncovered: list[tuple[int, tuple[tuple[str, Ref, bool], ...]]] | None = None

    # --- arguments_valid ----------------------------------------------------------------------

    def valid(self) -> bool:
        """Run ``arguments_valid``; False when it does not apply (skipped)."""
        registry = self.registry
        if registry is None or not any(
            t is not None and t.parameters is not None for t in self.tools
        ):
            return False
        compiled = {
            id(t): registry.schema_checks(t, _OPAQUE) for t in set(self.tools) if t is not None
        }
        # the fast predicate first, over all tasks at once; jsonschema only for the rest
        doubtful = []
        for i, (task, tool) in enumerate(zip(self.tasks, self.tools, strict=True)):
            checks = compiled.get(id(tool))
            if checks is not None and (checks[0] is None or not checks[0](task.arguments)):
                doubtful.append(i)
        for i in doubtful:
            task, tool = self.tasks[i], self.tools[i]
            assert tool is not None
            validator = compiled[id(tool)][1]  # type: ignore[index]
            view, places = _literal_view(task.arguments)
            errors = list(validator.iter_errors(view))
            if not errors:
                continue
            seen: set[tuple[str, str]] = set()
            for error in errors:
                path = list(error.absolute_path)
                if any(path[: len(p)] == p for p in places):
                    continue  # at or inside a reference: some value of the producer's type
                for pointer, message in _explain(error, task, tool, i):
                    if (pointer, message) not in seen:
                        seen.add((pointer, message))
                        self.add("arguments_valid", task.id, pointer, message)
        return True

    # --- argument_refs_resolve ----------------------------------------------------------------

    def refs(
        self,
        said: set[tuple[int, str]],
        runs_before: Callable[[list[tuple[int, int]]], list[bool]],
        nearest: Callable[[str], str],
    ) -> None:
        """Run ``argument_refs_resolve``.

        Args:
            said: ``(consumer, producer id)`` pairs the needs checks already reported or that a
                need of the consumer names (those stay with the needs checks).
            runs_before: for ``(consumer, producer)`` pairs, whether the producer may run
                before the consumer under the suite's needs rule.
            nearest: a "did you mean" suffix for an unknown task id.
        """
        queries: list[tuple[int, int, str, str]] = []
        for i, refs in self.uncovered(said):
            task = self.tasks[i]
            for pointer, ref, _ in refs:
                where = f"/tasks/{i}/arguments{pointer}"
                name = _parameter(pointer)
                p = self.index.get(ref.task)
                if ref.task == task.id:
                    self.add(
                        "argument_refs_resolve",
                        task.id,
                        where,
                        f"argument {name!r} of task {task.id!r} refers to the task's own result",
                    )
                elif p is None:
                    self.add(
                        "argument_refs_resolve",
                        task.id,
                        where,
                        f"argument {name!r} of task {task.id!r} refers to the result of "
                        f"{ref.task!r}, which is not a task of the plan{nearest(ref.task)}",
                    )
                else:
                    queries.append((i, p, where, name))
        if not queries:
            return
        answers = runs_before([(c, p) for c, p, _, _ in queries])
        for (c, p, where, name), ok in zip(queries, answers, strict=True):
            if not ok:
                consumer, producer = self.tasks[c].id, self.tasks[p].id
                self.add(
                    "argument_refs_resolve",
                    consumer,
                    where,
                    f"argument {name!r} of task {consumer!r} refers to the result of "
                    f"{producer!r}, which does not run before it; add {producer!r} to its "
                    "depends_on (directly or through a dependency)",
                )

    def links(self, said: set[tuple[int, str]]) -> list[tuple[int, int]]:
        """``(consumer, producer)`` positions that references link and no need names."""
        out = []
        for i, refs in self.uncovered(said):
            for _, ref, _ in refs:
                p = self.index.get(ref.task)
                if p is not None and p != i:
                    out.append((i, p))
        return out

    def uncovered(
        self, said: set[tuple[int, str]]
    ) -> list[tuple[int, tuple[tuple[str, Ref, bool], ...]]]:
        """Per task, the references that no need of the task names (found once; a task whose
        arguments hold only references its needs name, the adapters' case, costs one pass over
        its argument values)."""
        if self._uncovered is None:
            self._uncovered = uncovered_references(self.tasks, said)
        return self._uncovered

    # --- dataflow_types -----------------------------------------------------------------------

    def dataflow(self) -> bool:
        """Run ``dataflow_types``; False when no capability declares an output type (skipped:
        there is nothing to compare)."""
        registry = self.registry
        if registry is None or not registry.declares_outputs:
            return False
        for i, task in enumerate(self.tasks):
            tool = self.tools[i]
            if tool is None or tool.parameters is None or not task.arguments:
                continue
            for pointer, ref, whole in _references(task):
                p = self.index.get(ref.task)
                if not whole or p is None or p == i:
                    continue
                producer = self.tools[p]
                wanted = _parameter_schema(tool.parameters, pointer)
                if producer is None or wanted is None:
                    continue
                mismatch = _mismatch(producer, wanted)
                if mismatch is None:
                    continue
                given, expected = mismatch
                name = _parameter(pointer)
                self.add(
                    "dataflow_types",
                    task.id,
                    f"/tasks/{i}/arguments{pointer}",
                    f"argument {name!r} of task {task.id!r} ({tool.name}) expects {expected}, "
                    f"but it is given the result of {ref.task!r} ({producer.name}), which is "
                    f"{given}",
                )
        return True


def uncovered_references(
    tasks: tuple[Task, ...], said: set[tuple[int, str]]
) -> list[tuple[int, tuple[tuple[str, Ref, bool], ...]]]:
    """Per task, the references that no need of the task names (``said``: ``(task position,
    producer id)`` of every need). A task whose arguments hold only references its needs name,
    the adapters' case, costs one pass over its argument values."""
    out = []
    for i, task in enumerate(tasks):
        arguments = task.arguments
        if not arguments:
            continue
        for value in arguments.values():
            cls = value.__class__
            if (cls is Ref and (i, value.task) not in said) or cls in _NESTED:
                refs = tuple(r for r in _references(task) if (i, r[1].task) not in said)
                if refs:
                    out.append((i, refs))
                break
    return out


def argument_edges(task: Task, index: Mapping[str, int]) -> list[int]:
    """The positions of the tasks whose results a task's arguments read (known ids only)."""
    if not task.arguments:
        return []
    return [index[ref.task] for _, ref, _ in _references(task) if ref.task in index]


def _tool(registry: Registry, task: Task) -> Capability | None:
    """The capability a task's arguments go to: its first that resolves (with a schema, if
    any has one)."""
    found = None
    for ref in task.capabilities:
        capability = registry.resolve(ref)
        if capability is not None:
            if capability.parameters is not None or capability.output_types:
                return capability
            found = found or capability
    return found


def _references(task: Task) -> tuple[tuple[str, Ref, bool], ...]:
    """The references in a task's arguments (a reference as a whole value is the common case,
    read without walking)."""
    found: list[tuple[str, Ref, bool]] = []
    for name, value in task.arguments.items():
        kind = value.__class__
        if kind is Ref:
            found.append(("/" + _escape(name), value, True))
        elif kind is Template or kind is dict or kind is list:
            found.extend(references(value, "/" + _escape(name)))
    return tuple(found)


def _literal_view(arguments: Mapping[str, Any]) -> tuple[Any, list[list[Any]]]:
    """The arguments with each reference (and text with references) replaced by a placeholder
    (errors at its place are dropped), and the JSON paths of the placeholders."""
    places: list[list[Any]] = []

    def replace(value: Any, path: list[Any]) -> Any:
        if isinstance(value, Ref | Template):
            places.append(path)
            return _PLACEHOLDER
        if isinstance(value, dict):
            return {k: replace(v, [*path, k]) for k, v in value.items()}
        if isinstance(value, list):
            return [replace(v, [*path, k]) for k, v in enumerate(value)]
        return value

    if not any(isinstance(v, Ref | Template | dict | list) for v in arguments.values()):
        return arguments, places
    return {k: replace(v, [k]) for k, v in arguments.items()}, places


def _explain(
    error: ValidationError, task: Task, tool: Capability, i: int
) -> Iterator[tuple[str, str]]:
    """``(pointer, message)`` for one schema error: the parameter, what was expected, what was
    given."""
    path = list(error.absolute_path)
    base = f"/tasks/{i}/arguments"
    pointer = base + "".join("/" + _escape(str(p)) for p in path)
    where = f"task {task.id!r} ({tool.name})"
    instance = error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required" and isinstance(instance, dict):
        for name in error.validator_value:
            if name not in instance:
                inside = f" in {_parameter(pointer[len(base) :])!r}" if path else ""
                yield (
                    pointer,
                    f"{where} is missing the required parameter {name!r}{inside}; "
                    f"{_expected_of(schema, name)}",
                )
        return
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = list(schema.get("properties", {}) or {})
        for name in instance:
            if name not in known and not _pattern_known(schema, name):
                takes = ", ".join(repr(k) for k in known) or "no named parameters"
                yield (
                    f"{pointer}/{_escape(str(name))}",
                    f"{where} is given the parameter {name!r}, which {tool.name!r} does not "
                    f"take (it takes {takes})",
                )
        return
    name = _parameter(pointer[len(base) :]) if path else "(arguments)"
    given = _given(instance)
    if error.validator == "type":
        expected = _json_types(error.validator_value)
        message = f"parameter {name!r} of {where} must be {expected}, but is {given}"
    elif error.validator == "enum":
        choices = ", ".join(repr(v) for v in error.validator_value)
        message = f"parameter {name!r} of {where} must be one of {choices}, but is {given}"
    else:
        message = f"parameter {name!r} of {where}: {error.message}"
    yield pointer, message


def _expected_of(schema: Mapping[str, Any], name: str) -> str:
    spec = (schema.get("properties") or {}).get(name)
    if isinstance(spec, dict):
        kind = spec.get(DATA_TYPE) or spec.get("type")
        if kind:
            return f"expected {_json_types(kind)}"
    return "add it to the arguments"


def _pattern_known(schema: Mapping[str, Any], name: str) -> bool:
    import re

    patterns = schema.get("patternProperties") or {}
    return any(re.search(p, name) for p in patterns)


def _json_types(value: Any) -> str:
    if isinstance(value, list):
        return " or ".join(_article(str(v)) for v in value)
    return _article(str(value))


def _article(kind: str) -> str:
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def _given(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{text} (a boolean)"
    if isinstance(value, int | float):
        return f"{text} (a number)"
    if isinstance(value, str):
        return f"{text} (a string)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return text


def _parameter_schema(parameters: Mapping[str, Any], pointer: str) -> Mapping[str, Any] | None:
    """The schema of the value at ``pointer`` inside the arguments, following ``properties``
    and ``items`` (None when the schema does not say)."""
    schema: Any = parameters
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(schema, dict):
            return None
        if part.isdigit() and "items" in schema:
            schema = schema["items"]
        else:
            schema = (schema.get("properties") or {}).get(part)
    return schema if isinstance(schema, dict) else None


_NUMBERS = {"integer", "number"}


def _mismatch(producer: Capability, wanted: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(given, expected)`` when the producer's declared output cannot be what the parameter
    declares; None when they fit or either side declares nothing comparable."""
    data_type = wanted.get(DATA_TYPE)
    if isinstance(data_type, str) and producer.output_types:
        # case-blind: TaskBench's multimedia tool_desc.json writes both "image" and "Image"
        if data_type.casefold() in {t.casefold() for t in producer.output_types}:
            return None
        return " or ".join(producer.output_types), data_type
    json_type = wanted.get("type")
    output = producer.output_schema
    if json_type is None or output is None or output.get("type") is None:
        return None
    expected = set(json_type) if isinstance(json_type, list) else {json_type}
    given = set(output["type"]) if isinstance(output["type"], list) else {output["type"]}
    if "number" in expected:
        expected.add("integer")
    if expected & given:
        return None
    return _json_types(sorted(given)), _json_types(sorted(expected - {"integer"} or expected))


def _parameter(pointer: str) -> str:
    """The parameter a pointer inside the arguments is about (``/images/0`` -> ``images``)."""
    first = pointer.split("/")[1] if pointer.count("/") else ""
    return first.replace("~1", "/").replace("~0", "~")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
