"""Build the folder of fetched real plans that tests/plan/test_fetched_plans.py reads.

The plans are public material from other projects' repositories and are not committed; this
script extracts them from local clones (full history) of those repositories:

    python tests/data/build_fetched_plans.py OUT \\
        --langgraph CLONE --langgraphjs CLONE --metagpt CLONE
    PLANEVAL_FETCHED_PLANS=OUT pytest tests/plan/test_fetched_plans.py

``CLONE`` is a git directory (a clone or a bare mirror) of langchain-ai/langgraph,
langchain-ai/langgraphjs and geekan/MetaGPT. Every version of the files below in the history is
read; a plan seen in several versions is kept once, named by the newest commit holding it:

* langgraph ``docs/cassettes/rewoo_*`` and ``plan-and-execute_*`` (VCR cassettes: YAML, or
  base64 of msgpack, zlib-compressed for ``.msgpack.zlib``; needs the ``msgpack`` package);
* langgraph ``docs/docs/tutorials/{rewoo,plan-and-execute}/*.ipynb`` and
  ``examples/{rewoo,plan-and-execute}/*.ipynb``, langgraphjs
  ``examples/{rewoo,plan-and-execute}/*.ipynb`` (cell outputs);
* MetaGPT ``tests/data/rsp_cache.json``.

OUT gets ``<format>/<nn>.<ext>`` files and ``MANIFEST.json``.
"""

from __future__ import annotations

import argparse
import ast
import base64
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tokenize
import zlib
from pathlib import Path
from typing import Any

import yaml

REWOO_NOTEBOOKS = ("docs/docs/tutorials/rewoo/rewoo.ipynb", "examples/rewoo/rewoo.ipynb")
PLAN_AND_EXECUTE_NOTEBOOKS = (
    "docs/docs/tutorials/plan-and-execute/plan-and-execute.ipynb",
    "examples/plan-and-execute/plan-and-execute.ipynb",
)
JS_PLAN_AND_EXECUTE_NOTEBOOK = "examples/plan-and-execute/plan-and-execute.ipynb"
JS_REWOO_NOTEBOOK = "examples/rewoo/rewoo.ipynb"
JSON_CONTENT = re.compile(r'"content": ("(?:[^"\\]|\\.)*")')
ANSI = re.compile(r"\x1b\[\d+m")


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def versions(repo: Path, path: str) -> list[tuple[str, bytes]]:
    """(commit, content) of every stored version of ``path``, newest first."""
    out = []
    for commit in git(repo, "log", "--all", "--format=%H", "--", path).decode().split():
        try:
            out.append((commit, git(repo, "show", f"{commit}:{path}")))
        except subprocess.CalledProcessError:
            continue  # deleted in that commit, or the blob is absent
    return out


def paths(repo: Path, pattern: str) -> list[str]:
    names = git(repo, "log", "--all", "--name-only", "--format=", "--", pattern).decode()
    return sorted({n for n in names.split("\n") if n})


def cassette(path: str, raw: bytes) -> list[dict[str, Any]]:
    """The interactions of a VCR cassette in any of the three encodings LangGraph used."""
    if ".msgpack" in path:
        try:
            import msgpack  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            sys.exit("reading LangGraph's msgpack cassettes needs: pip install msgpack")
        data = base64.b64decode(raw)
        if path.endswith(".zlib"):
            data = zlib.decompress(data)
        doc = msgpack.unpackb(data, raw=False, strict_map_key=False)
    else:
        doc = yaml.safe_load(raw)
    interactions: list[dict[str, Any]] = doc["interactions"]
    return interactions


def response_json(interaction: dict[str, Any]) -> dict[str, Any] | None:
    """The OpenAI chat completion an interaction answered, or None for any other call."""
    if "api.openai.com" not in interaction["request"]["uri"]:
        return None
    body = interaction["response"]["body"]
    text: Any = body.get("string") if isinstance(body, dict) else body
    if isinstance(text, bytes):
        if text[:2] == b"\x1f\x8b":
            text = gzip.decompress(text)
        text = text.decode("utf-8")
    value: dict[str, Any] = json.loads(text)
    return value


def notebook_outputs(raw: bytes) -> list[tuple[int, int, str]]:
    """(cell, output, text) of every text output of a notebook (none for broken JSON)."""
    try:
        notebook = json.loads(raw)
    except ValueError:
        return []
    out = []
    for c, cell in enumerate(notebook.get("cells", [])):
        for o, output in enumerate(cell.get("outputs", [])):
            text = output.get("text") or output.get("data", {}).get("text/plain") or ""
            text = "".join(text) if isinstance(text, list) else text
            if text:
                out.append((c, o, ANSI.sub("", text)))
    return out


def python_string_after(text: str, start: int) -> str | None:
    """The Python string literal right after ``start`` (a repr's value), if there is one."""
    tokens = tokenize.generate_tokens(io.StringIO(text[start:]).readline)
    for token in tokens:
        if token.type == tokenize.STRING:
            value = ast.literal_eval(token.string)
            return value if isinstance(value, str) else None
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT):
            return None
    return None


def python_literal_after(text: str, start: int) -> Any:
    """The bracketed Python literal right after ``start`` (a repr's list of tuples)."""
    depth = 0
    for i, ch in enumerate(text[start:]):
        depth += ch in "[("
        depth -= ch in "])"
        if depth == 0:
            try:
                return ast.literal_eval(text[start : start + i + 1])
            except (ValueError, SyntaxError):
                return None
    return None


class Folder:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.manifest: list[dict[str, Any]] = []
        self.seen: set[tuple[str, str]] = set()

    def put(self, fmt: str, ext: str, key: str, text: str, **meta: Any) -> None:
        if (fmt, key) in self.seen:
            return
        self.seen.add((fmt, key))
        number = sum(1 for m in self.manifest if m["format"] == fmt) + 1
        name = f"{fmt}/{number:02d}.{ext}"
        (self.out / fmt).mkdir(parents=True, exist_ok=True)
        (self.out / name).write_text(text, encoding="utf-8")
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.manifest.append({"format": fmt, "file": name, "sha256": sha, **meta})


def rewoo(folder: Folder, repo: Path) -> None:
    source = {"repo": "langchain-ai/langgraph"}
    for path in paths(repo, "docs/cassettes/rewoo_*"):
        for commit, raw in versions(repo, path):
            for k, interaction in enumerate(cassette(path, raw)):
                body = response_json(interaction)
                content = (body and body["choices"][0]["message"].get("content")) or ""
                if "#E" in content and "Plan" in content:
                    where = f"interaction {k}: response choices[0].message.content"
                    text = content.strip("\n")
                    folder.put(
                        "rewoo",
                        "txt",
                        text,
                        text,
                        **source,
                        commit=commit,
                        path=path,
                        where=where,
                        recorded_steps=None,
                    )
    found: dict[str, dict[str, Any]] = {}
    for path in REWOO_NOTEBOOKS:
        for commit, raw in versions(repo, path):
            for c, o, text in notebook_outputs(raw):
                if "#E" not in text:
                    continue
                starts = [m.end() for m in re.finditer(re.escape("'plan_string': "), text)]
                steps = [m.end() for m in re.finditer(re.escape("'steps': "), text)]
                for i, start in enumerate(starts):
                    plan = python_string_after(text, start)
                    recorded = python_literal_after(text, steps[i]) if i < len(steps) else None
                    if plan:
                        entry = found.setdefault(plan.strip("\n"), {})
                        entry.setdefault(
                            "meta", (commit, path, f"cell {c} output {o}: plan_string")
                        )
                        if recorded and not entry.get("recorded"):
                            entry["recorded"] = [list(s) for s in recorded]
                if not starts and text.lstrip().startswith("Plan") and "{'" not in text:
                    entry = found.setdefault(text.strip("\n"), {})
                    entry.setdefault("meta", (commit, path, f"cell {c} output {o}: printed answer"))
    for text, entry in found.items():
        commit, path, where = entry["meta"]
        folder.put(
            "rewoo",
            "txt",
            text,
            text,
            **source,
            commit=commit,
            path=path,
            where=where,
            recorded_steps=entry.get("recorded"),
        )


def rewoo_js(folder: Folder, js_repo: Path) -> None:
    """Planner answers printed by the LangGraph.js ReWOO notebook, in the versions that parse
    them with ``matchAll`` (the earlier ones called ``match`` and kept one step at most)."""
    for commit, raw in versions(js_repo, JS_REWOO_NOTEBOOK):
        if b"matchAll(regexPattern)" not in raw:
            continue
        for c, o, text in notebook_outputs(raw):
            answers = [m for m in JSON_CONTENT.findall(text)]
            found = [json.loads(a) for a in answers]
            if text.lstrip().startswith(("Plan", "To solve")) and "#E" in text:
                found.append(text)
            for answer in found:
                if "#E" in answer:
                    answer = answer.strip("\n")
                    folder.put(
                        "rewoo",
                        "txt",
                        answer,
                        answer,
                        repo="langchain-ai/langgraphjs",
                        commit=commit,
                        path=JS_REWOO_NOTEBOOK,
                        where=f"cell {c} output {o}: printed planner answer",
                        recorded_steps=None,
                        parser="langgraphjs",
                    )


def plan_and_execute(folder: Folder, repo: Path, js_repo: Path | None) -> None:
    for path in paths(repo, "docs/cassettes/plan-and-execute_*"):
        for commit, raw in versions(repo, path):
            for k, interaction in enumerate(cassette(path, raw)):
                body = response_json(interaction)
                if body is None:
                    continue
                message = body["choices"][0]["message"]
                calls = message.get("tool_calls") or []
                payload = calls[0]["function"]["arguments"] if calls else message.get("content")
                if not payload or not ('"steps"' in payload or '"action"' in payload):
                    continue
                key = json.dumps(message, sort_keys=True)
                folder.put(
                    "plan_and_execute",
                    "json",
                    key,
                    json.dumps(body, indent=1),
                    repo="langchain-ai/langgraph",
                    commit=commit,
                    path=path,
                    where=f"interaction {k}: response body",
                )
    printed = [
        (repo, "langchain-ai/langgraph", p, r"\{'plan': (\[.*?\])\}")
        for p in PLAN_AND_EXECUTE_NOTEBOOKS
    ]
    if js_repo is not None:
        printed.append(
            (
                js_repo,
                "langchain-ai/langgraphjs",
                JS_PLAN_AND_EXECUTE_NOTEBOOK,
                r"steps: (\[[^\]]*\])",
            )
        )
    for clone, name, path, pattern in printed:
        for commit, raw in versions(clone, path):
            for c, o, text in notebook_outputs(raw):
                for match in re.finditer(pattern, text, re.DOTALL):
                    try:
                        steps = ast.literal_eval(re.sub(r",\s*\]$", "]", match.group(1)))
                    except (ValueError, SyntaxError):
                        continue
                    if not all(isinstance(s, str) for s in steps):
                        continue
                    where = (
                        f"cell {c} output {o}: the parsed Plan.steps the notebook printed, "
                        'written back as {"steps": [...]}'
                    )
                    folder.put(
                        "plan_and_execute",
                        "json",
                        json.dumps(steps),
                        json.dumps({"steps": steps}, ensure_ascii=False),
                        repo=name,
                        commit=commit,
                        path=path,
                        where=where,
                        recorded_steps=steps,
                    )


def metagpt(folder: Folder, repo: Path) -> None:
    path = "tests/data/rsp_cache.json"
    for commit, raw in versions(repo, path):
        try:
            cache = json.loads(raw)
        except ValueError:
            continue
        for i, answer in enumerate(cache.values(), 1):
            if isinstance(answer, str) and '"task_id"' in answer and '"instruction"' in answer:
                folder.put(
                    "metagpt",
                    "md",
                    answer,
                    answer,
                    repo="geekan/MetaGPT",
                    commit=commit,
                    path=path,
                    where=f"answer {i} (value {i} in file order)",
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--langgraph", type=Path, required=True)
    parser.add_argument("--langgraphjs", type=Path)
    parser.add_argument("--metagpt", type=Path, required=True)
    args = parser.parse_args()
    if args.out.exists() and any(args.out.iterdir()):
        sys.exit(f"{args.out} is not empty: give a new folder")
    folder = Folder(args.out)
    rewoo(folder, args.langgraph)
    if args.langgraphjs is not None:
        rewoo_js(folder, args.langgraphjs)
    plan_and_execute(folder, args.langgraph, args.langgraphjs)
    metagpt(folder, args.metagpt)
    text = json.dumps(folder.manifest, indent=1, ensure_ascii=False)
    (args.out / "MANIFEST.json").write_text(text, encoding="utf-8")
    counts: dict[str, int] = {}
    for entry in folder.manifest:
        counts[entry["format"]] = counts.get(entry["format"], 0) + 1
    print(", ".join(f"{fmt}: {n}" for fmt, n in counts.items()))


if __name__ == "__main__":
    main()
