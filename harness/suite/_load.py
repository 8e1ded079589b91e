"""Reading an eval suite file: YAML, the published schema, then the files it names."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import harness
from harness._errors import InputError, SuiteError
from harness._yaml import load_yaml_file, read_limited
from harness.checks import Expectations
from harness.recording import prompt_hash
from harness.registry import Registry, load_registry
from harness.suite._cases_file import StreamedCases, is_regular_file, read_cases_file
from harness.suite._context import MetricSettings, read_reference, tools_registry
from harness.suite._model import Case, ModelSpec, Suite

__all__ = ["find_root", "load_suite", "suite_schema"]


@cache
def suite_schema() -> dict[str, Any]:
    """The published JSON Schema of suite files (``planeval schema suite``)."""
    path = Path(harness.__file__).parent / "schemas" / "suite.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(suite_schema())


def find_root(suite_path: Path) -> Path:
    """The project root of a suite file.

    The nearest ancestor that has a ``pyproject.toml`` or a ``plan_fixtures/`` folder, else the
    parent of the suite file's folder (``evals/..``).
    """
    folder = suite_path.resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file() or (candidate / "plan_fixtures").is_dir():
            return candidate
    return folder.parent


def load_suite(
    path: Path | str, *, max_bytes: int | None = None, keep_cases: bool = False
) -> Suite:
    """Load and validate an eval suite.

    Args:
        path: the suite file (``evals/<suite>.yaml``).
        max_bytes: suite, prompt and registry files larger than this are refused (default:
            the limit in force, see ``harness._yaml.max_bytes_in_force``).
        keep_cases: keep the cases of a cases file as the load read them (a tuple), for a
            caller that holds every case anyway (``pytest --planeval`` makes an item of each);
            by default they are read again from the file each time they are iterated, so that
            a run's memory does not grow with them.

    Raises:
        SuiteError: the file is missing, is not YAML, breaks the schema, repeats an id, or
            names a prompt or registry file that cannot be read.
    """
    path = Path(path)
    source = str(path)
    data = load_yaml_file(
        path,
        max_bytes=max_bytes,
        error=SuiteError,
        what="suite file",
        missing_hint="pass the path of an evals/<suite>.yaml file",
    )
    _validate(data, source)
    base = path.parent
    cases: Sequence[Case]
    if "cases_file" in data:
        cases_path = base / data["cases_file"]
        raw_cases = read_cases_file(cases_path, max_bytes=max_bytes)
        if is_regular_file(cases_path) and not keep_cases:  # checked now, read again later
            count = sum(1 for _ in _cases(raw_cases, base, str(cases_path)))
            convert = functools.partial(_case, base=base, source=str(cases_path))
            cases = StreamedCases(cases_path, count, convert, max_bytes=max_bytes)
        else:  # kept, or a pipe (read once)
            cases = tuple(_cases(raw_cases, base, str(cases_path)))
    else:
        inline = ((f"/cases/{i}", case) for i, case in enumerate(data["cases"]))
        cases = tuple(_cases(inline, base, source))
    _no_duplicates(data["models"], "models", source)
    template_path = base / data["prompt"]
    template = _template(template_path, source, max_bytes)
    registry, registry_path = _registry(data, base, source, max_bytes)
    expect = data.get("expect", {})
    band = expect.get("task_count", {})
    return Suite(
        name=data["suite"],
        path=path,
        root=find_root(path),
        prompt_template=template,
        prompt_hash=prompt_hash(template),
        prompt_path=template_path,
        registry=registry,
        registry_path=registry_path,
        description=data.get("description", ""),
        plan_format=data.get("plan_format", "auto"),
        expect=Expectations(
            min_tasks=band.get("min"),
            max_tasks=band.get("max"),
            required_capabilities=tuple(expect.get("required_capabilities", ())),
            needs=expect.get("needs", "strict"),
            dataflow_types=expect.get("dataflow_types", "warning"),
        ),
        samples=data.get("samples", 1),
        prices_path=base / data["prices"] if "prices" in data else None,
        rate_limits={k: dict(v) for k, v in data.get("rate_limits", {}).items()},
        models=tuple(_model(m) for m in data["models"]),
        cases=cases,
        metrics=MetricSettings.from_data(data.get("metrics"), base),
    )


def _validate(data: Any, source: str) -> None:
    """The schema check, by the compiled validator (``_generate_validator``); jsonschema's
    best message is computed only for a suite that validator refuses."""
    from harness.suite._suite_validator import validate_suite

    try:
        validate_suite(data)  # type: ignore[no-untyped-call]
        return
    except Exception:  # JsonSchemaValueException, or a value the generated code cannot judge
        pass
    if isinstance(data, dict) and ("cases" in data) == ("cases_file" in data):
        raise SuiteError(
            "a suite lists its 'cases' or names a 'cases_file', not both"
            if "cases" in data
            else "a suite needs 'cases' (or 'cases_file', a JSON Lines file of cases)",
            source=source,
            location="/",
            hint="see `planeval schema suite` for the keys a suite file takes",
        )
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(data))
    if error is None:
        return
    pointer = "/" + "/".join(str(p) for p in error.absolute_path)
    what = error.message
    if error.validator == "type" and not error.absolute_path:
        what = f"a suite must be a YAML mapping of keys, got {type(data).__name__}"
    elif len(what) > 200:  # jsonschema quotes the whole offending value
        what = what[:200] + "..."
    if (
        error.validator == "pattern"
        and error.absolute_path
        and error.absolute_path[-1]
        in (
            "id",
            "suite",
        )
    ):
        what = (
            f"{error.instance!r} is not a usable id: ids become file names, so only letters, "
            "digits, '.', '_' and '-' are allowed (not '.' or '..')"
        )
    raise SuiteError(
        what,
        source=source,
        location=pointer,
        hint="see `planeval schema suite` for the keys a suite file takes",
    )


def _no_duplicates(items: list[dict[str, Any]], key: str, source: str) -> None:
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        if item["id"] in seen:
            raise SuiteError(
                f"duplicate {key[:-1]} id {item['id']!r} (also at /{key}/{seen[item['id']]})",
                source=source,
                location=f"/{key}/{index}/id",
            )
        seen[item["id"]] = index


def _cases(items: Iterable[tuple[str, dict[str, Any]]], base: Path, source: str) -> Iterator[Case]:
    """The cases, each checked as it comes (a cases file is read one line at a time): ids
    unique, task bands in order. ``items`` pairs each case with where it is (``/cases/3``
    in a suite, ``line 4`` in a cases file). Only the ids seen are kept."""
    seen: dict[str, str] = {}
    for index, (where, item) in enumerate(items):
        inline = where.startswith("/")
        if item["id"] in seen:
            raise SuiteError(
                f"duplicate case id {item['id']!r} (also at {seen[item['id']]})",
                source=source,
                location=f"{where}/id" if inline else where,
            )
        seen[item["id"]] = where
        band = item.get("task_count", {})
        if "min" in band and "max" in band and band["min"] > band["max"]:
            raise SuiteError(
                f"task_count min {band['min']} is above max {band['max']}",
                source=source,
                location=f"{where}/task_count" if inline else where,
            )
        yield _case(item, index, base, source)


def _template(path: Path, source: str, max_bytes: int | None) -> str:
    """The prompt template, read with the same size limit as the suite."""
    try:
        return read_limited(path, max_bytes=max_bytes, what="prompt template").decode("utf-8")
    except (InputError, UnicodeDecodeError) as exc:
        why = exc.what if isinstance(exc, InputError) else "not UTF-8"
        raise SuiteError(
            f"cannot read the prompt template {str(path)!r}: {why}",
            source=source,
            location="/prompt",
            hint="the path is relative to the suite file",
        ) from None


def _registry(
    data: dict[str, Any], base: Path, source: str, max_bytes: int | None
) -> tuple[Registry | None, Path | None]:
    if "registry" not in data:
        return None, None
    registry_path = base / data["registry"]
    try:
        return load_registry(registry_path, max_bytes=max_bytes), registry_path
    except InputError as exc:
        raise SuiteError(
            f"cannot use the registry: {exc.one_line()}", source=source, location="/registry"
        ) from None


def _model(data: dict[str, Any]) -> ModelSpec:
    return ModelSpec(
        id=data["id"],
        provider=data["provider"],
        model=data.get("model"),
        params=dict(data.get("params", {})),
        base_url=data.get("base_url"),
        command=data.get("command"),
        api_key_env=data.get("api_key_env"),
        structured_output=data.get("structured_output", True),
        timeout=float(data.get("timeout", 120.0)),
        retries=int(data.get("retries", 4)),
    )


def _case(data: dict[str, Any], index: int, base: Path, source: str) -> Case:
    band = data.get("task_count", {})
    context = dict(data.get("context", {}))
    tools = None
    if "tools" in context:
        try:
            tools = tools_registry(context.pop("tools"), source=f"{source}#/cases/{index}")
        except InputError as exc:
            raise SuiteError(
                f"unusable context.tools: {exc.what}",
                source=source,
                location=f"/cases/{index}/context/tools{exc.location or ''}",
            ) from None
    reference = data.get("reference")
    if "reference_file" in data:
        reference = read_reference(
            base, data["reference_file"], source=source, location=f"/cases/{index}/reference_file"
        )
    return Case(
        context={k: str(v) for k, v in context.items()},
        tools=tools,
        reference=reference,
        id=data["id"],
        goal=data["goal"],
        min_tasks=band.get("min"),
        max_tasks=band.get("max"),
        required_capabilities=tuple(data.get("required_capabilities", ())),
        tags=tuple(data.get("tags", ())),
    )
