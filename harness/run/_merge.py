"""``merge``: shard runs of one suite and prompt joined into one run folder.

The merged run is what a single run of the whole suite would have written: the same rows in
the same order (model, case, sample), a run.json with the summed counts, the earliest start and
the latest finish. ``report``, ``compare`` and ``gate`` read it like any run.

Refused (``InputError``, nothing written): runs of different suites, prompts, models or
sample counts; a shard given twice or two runs holding the same row (an overlap); a missing
shard (named, with the command that makes it); an interrupted shard; and a merged run that is
not exactly its suite's (model, case, sample) items (a row deleted from a shard, a row of a
case the suite does not have), listed, unless ``allow_partial``: then run.json records
``"partial": {"missing": N, "foreign": M}`` and ``gate`` and ``baseline`` refuse the run.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness._atomic import atomic_path, atomic_write_text
from harness._errors import InputError, RunFormatError
from harness.run._items import ItemCheck, check_items, expected_items
from harness.run._records import FORMAT_VERSION, STATUSES, RunManifest

__all__ = ["MergeResult", "merge_runs"]


@dataclass(frozen=True, slots=True)
class MergeResult:
    """What ``merge_runs`` wrote."""

    run_dir: Path
    """The merged run folder."""
    manifest: RunManifest
    """Its run.json."""
    rows: int
    """Rows in its results.jsonl."""
    sources: tuple[Path, ...]
    """The runs merged, in shard order."""


@dataclass(slots=True)
class _Shard:
    path: Path
    manifest: RunManifest
    lines: list[tuple[tuple[str, str, int], str, str]]
    """(model, case, sample), status, raw line."""


def merge_runs(
    runs: Sequence[Path | str], out: Path | None = None, *, allow_partial: bool = False
) -> MergeResult:
    """Join shard runs into one run folder (default: beside the first, ``...-merged-...``).

    Args:
        runs: the shard run folders.
        out: the merged run folder.
        allow_partial: write a merge that is not exactly the suite's items, marked partial.

    Raises:
        InputError: the runs cannot be merged (see the module docstring); nothing is written.
    """
    if not runs:
        raise InputError("name the shard runs to merge", hint="planeval merge RUN RUN ...")
    shards = [_read(Path(p)) for p in runs]
    _same_run(shards)
    shards = _shard_order(shards)
    merged = _rows(shards)
    first = shards[0].manifest
    items = _items(shards, merged)
    partial = None
    if not items.exact:
        if not allow_partial:
            raise InputError(
                f"the shards do not make a complete run: {items.describe()}",
                hint="run the missing items again (--shard i/n, --record-mode new_episodes) "
                "and merge all shards, or pass --allow-partial to write a run that gate and "
                "baseline refuse",
            )
        partial = {"missing": len(items.missing), "foreign": len(items.foreign)}
    target = _target(Path(shards[0].path), first.suite, out)
    counts = Counter(status for _key, status, _line in merged)
    manifest = RunManifest(
        **{
            **first.to_dict(),
            "run_id": target.name,
            "started_at": min(s.manifest.started_at for s in shards),
            "finished_at": max(s.manifest.finished_at or "" for s in shards) or None,
            "counts": {s: counts.get(s, 0) for s in STATUSES},
            "record_mode": "+".join(dict.fromkeys(s.manifest.record_mode for s in shards)),
            "interrupted": False,
            "budget": _budget(shards),
            "shard": None,
            "merged_from": [s.manifest.run_id for s in shards],
            "partial": partial,
        }
    )
    target.mkdir(parents=True, exist_ok=True)
    with atomic_path(target / "results.jsonl") as tmp, tmp.open("w", encoding="utf-8") as sink:
        sink.writelines(line + "\n" for _key, _status, line in merged)
    text = json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(target / "run.json", text)
    return MergeResult(target, manifest, len(merged), tuple(s.path for s in shards))


def _read(path: Path) -> _Shard:
    if path.name in ("run.json", "results.jsonl"):
        path = path.parent
    try:
        data = json.loads((path / "run.json").read_text(encoding="utf-8"))
        manifest = RunManifest.from_dict(data)
    except FileNotFoundError:
        raise RunFormatError("not a run folder (no run.json)", source=str(path)) from None
    except (OSError, ValueError, TypeError) as exc:
        raise RunFormatError(f"unreadable run.json: {exc}", source=str(path)) from None
    if manifest.format_version != FORMAT_VERSION:
        raise RunFormatError(
            f"results format {manifest.format_version} is not the one this planeval reads "
            f"({FORMAT_VERSION})",
            source=str(path),
        )
    if manifest.interrupted or manifest.finished_at is None:
        raise InputError(
            "the run did not finish (interrupted or still running)",
            source=str(path),
            hint="run that shard again, then merge",
        )
    lines = []
    try:
        with (path / "results.jsonl").open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    key = (str(row["model"]), str(row["case"]), int(row["sample"]))
                    status = row["status"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise RunFormatError(
                        f"not a results row: {exc}",
                        source=str(path / "results.jsonl"),
                        location=f"line {number}",
                    ) from None
                if row.get("suite") != manifest.suite:
                    raise InputError(
                        f"a row of suite {row.get('suite')!r} in a run of {manifest.suite!r}",
                        source=str(path / "results.jsonl"),
                        location=f"line {number}",
                    )
                lines.append((key, status, line))
    except FileNotFoundError:
        raise RunFormatError("results.jsonl is missing", source=str(path)) from None
    return _Shard(path, manifest, lines)


def _same_run(shards: list[_Shard]) -> None:
    first = shards[0]
    checks = (
        ("suite", lambda m: m.suite, "shards of one suite"),
        ("prompt", lambda m: m.prompt_hash, "shards recorded under the same prompt"),
        ("models", lambda m: [x["id"] for x in m.models], "shards of the same --model choice"),
        ("samples", lambda m: m.samples, "shards with the same --samples"),
    )
    for what, get, hint in checks:
        for other in shards[1:]:
            if get(other.manifest) != get(first.manifest):
                mine, theirs = _short(get(first.manifest)), _short(get(other.manifest))
                raise InputError(
                    f"cannot merge runs of different {what}: {first.path} has {mine}, "
                    f"{other.path} has {theirs}",
                    hint=f"merge only {hint}",
                )


def _shard_order(shards: list[_Shard]) -> list[_Shard]:
    specs = [s.manifest.shard for s in shards]
    if all(spec is None for spec in specs):
        return shards  # plain runs: any disjoint split (the row check finds overlaps)
    if any(spec is None for spec in specs):
        plain = next(s.path for s in shards if s.manifest.shard is None)
        raise InputError(
            f"{plain} is not a shard run, the others are",
            hint="merge only runs made with --shard i/n",
        )
    counts = {spec["count"] for spec in specs if spec}
    if len(counts) > 1:
        raise InputError(
            f"the runs split the suite differently (--shard i/n with n = "
            f"{', '.join(map(str, sorted(counts)))})",
            hint="merge shards of one split",
        )
    count = counts.pop()
    seen: dict[int, Path] = {}
    for shard in shards:
        index = shard.manifest.shard["index"]  # type: ignore[index]
        if index in seen:
            raise InputError(
                f"overlap: shard {index}/{count} is given twice ({seen[index]} and {shard.path})",
                hint="merge each shard once",
            )
        seen[index] = shard.path
    missing = [i for i in range(1, count + 1) if i not in seen]
    if missing:
        names = ", ".join(f"{i}/{count}" for i in missing)
        suite = shards[0].manifest.suite_path
        raise InputError(
            f"shard(s) {names} missing: {len(seen)} of {count} given",
            hint=f"run them (planeval run {suite} --shard {missing[0]}/{count} ...), then merge "
            "all shards",
        )
    return sorted(shards, key=lambda s: s.manifest.shard["index"])  # type: ignore[index]


def _rows(shards: list[_Shard]) -> list[tuple[tuple[str, str, int], str, str]]:
    owner: dict[tuple[str, str, int], Path] = {}
    for shard in shards:
        for key, _status, _line in shard.lines:
            if key in owner:
                model, case, sample = key
                raise InputError(
                    f"overlap: case {case!r}, model {model!r}, sample {sample} is in both "
                    f"{owner[key]} and {shard.path}",
                    hint="merge runs that split the suite without overlap (--shard i/n)",
                )
            owner[key] = shard.path
    models = {m["id"]: i for i, m in enumerate(shards[0].manifest.models)}
    cases: dict[str, int] = {}
    for shard in shards:
        for case in shard.manifest.case_ids or ():
            cases.setdefault(case, len(cases))
    for shard in shards:
        for (_model, case, _sample), _status, _line in shard.lines:
            cases.setdefault(case, len(cases))
    merged = [row for shard in shards for row in shard.lines]
    merged.sort(key=lambda r: (models.get(r[0][0], len(models)), cases[r[0][1]], r[0][2]))
    return merged


def _items(shards: list[_Shard], merged: list[tuple[tuple[str, str, int], str, str]]) -> ItemCheck:
    """The merged rows against the suite's items: the models and samples of run.json, the
    case ids shard runs record (or, for plain runs, the cases seen, plus run.json's count)."""
    first = shards[0].manifest
    models = [str(m["id"]) for m in first.models]
    cases: list[str] = list(dict.fromkeys(c for s in shards for c in (s.manifest.case_ids or ())))
    if not cases:
        cases = list(dict.fromkeys(key[1] for key, _status, _line in merged))
    expected = expected_items(models, cases, int(first.samples or 1))
    check = check_items((key for key, _status, _line in merged), expected)
    if first.cases is not None and first.cases > len(cases):  # cases no row mentions
        unnamed = [("?", f"({first.cases - len(cases)} case(s) with no row)", 0)]
        check = ItemCheck(check.expected, check.missing + tuple(unnamed), (), check.foreign)
    return check


def _budget(shards: list[_Shard]) -> dict[str, Any] | None:
    stopped = [s.manifest.budget for s in shards if s.manifest.budget]
    if not stopped:
        return None
    reasons = [b.get("stopped") for b in stopped if b.get("stopped")]
    return {**stopped[0], "stopped": reasons[0] if reasons else None}


def _target(first: Path, suite: str, out: Path | None) -> Path:
    if out is None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        out = first.parent / f"{stamp}-{suite}-merged-{secrets.token_hex(2)}"
    if (out / "results.jsonl").exists() or (out / "run.json").exists():
        raise InputError(
            "the output folder already holds a run",
            source=str(out),
            hint="choose another --out folder; runs are never overwritten",
        )
    return out


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
