"""What changed between two plans: tasks added, removed and changed (matched by id, else by
description), dependency and need edges added and removed, and violations that appeared or
disappeared.

Plans are the canonical JSON of result rows (``{"tasks": [{"id", "description",
"capabilities", "depends_on", "needs": [{"name", "task"}]}]}``); anything else is read as a
plan without tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PlanDiff", "diff_plans"]

Edge = tuple[str, str, str]
"""(from task, to task, ``depends_on`` | ``needs``)."""


@dataclass(frozen=True)
class PlanDiff:
    """The difference from a base plan to a candidate plan (ids on their own side)."""

    added: list[str] = field(default_factory=list)
    """Candidate task ids with no base counterpart."""
    removed: list[str] = field(default_factory=list)
    """Base task ids with no candidate counterpart."""
    changed: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """(base id, candidate id, fields that differ) of matched tasks that differ."""
    edges_added: list[Edge] = field(default_factory=list)
    """Candidate edges with no base counterpart (candidate ids)."""
    edges_removed: list[Edge] = field(default_factory=list)
    """Base edges with no candidate counterpart (base ids)."""
    violations_appeared: list[dict[str, Any]] = field(default_factory=list)
    """Candidate violations the base did not have."""
    violations_gone: list[dict[str, Any]] = field(default_factory=list)
    """Base violations the candidate no longer has."""

    @property
    def empty(self) -> bool:
        """Nothing changed at all."""
        return not (
            self.added
            or self.removed
            or self.changed
            or self.edges_added
            or self.edges_removed
            or self.violations_appeared
            or self.violations_gone
        )

    def to_dict(self) -> dict[str, Any]:
        """The diff as JSON."""
        return {
            "added": self.added,
            "removed": self.removed,
            "changed": [{"base": b, "cand": c, "fields": f} for b, c, f in self.changed],
            "edges_added": [list(e) for e in self.edges_added],
            "edges_removed": [list(e) for e in self.edges_removed],
            "violations_appeared": self.violations_appeared,
            "violations_gone": self.violations_gone,
        }

    def summary(self) -> str:
        """One line, e.g. ``tasks +1 (t4), -1 (old), ~1 (t2: depends_on); edges +1 t1->t4``."""
        parts = []
        tasks = []
        if self.added:
            tasks.append(f"+{len(self.added)} ({_few(self.added)})")
        if self.removed:
            tasks.append(f"-{len(self.removed)} ({_few(self.removed)})")
        if self.changed:
            shown = [f"{c}: {', '.join(f)}" for _, c, f in self.changed]
            tasks.append(f"~{len(self.changed)} ({_few(shown)})")
        if tasks:
            parts.append("tasks " + ", ".join(tasks))
        edges = []
        if self.edges_added:
            edges.append(f"+{len(self.edges_added)} ({_few([_edge(e) for e in self.edges_added])})")
        if self.edges_removed:
            removed = [_edge(e) for e in self.edges_removed]
            edges.append(f"-{len(self.edges_removed)} ({_few(removed)})")
        if edges:
            parts.append("edges " + ", ".join(edges))
        if self.violations_appeared:
            parts.append("new: " + _few([_viol(v) for v in self.violations_appeared], 2))
        if self.violations_gone:
            parts.append("gone: " + _few([_viol(v) for v in self.violations_gone], 2))
        return "; ".join(parts) if parts else "the plans are the same"


def _few(items: list[str], limit: int = 3) -> str:
    more = f", +{len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def _edge(e: Edge) -> str:
    return f"{e[0]}->{e[1]}" + (" (needs)" if e[2] == "needs" else "")


def _viol(v: dict[str, Any]) -> str:
    return f"[{v.get('check')}] {v.get('message', '')}"


def _tasks(plan: Any) -> list[dict[str, Any]]:
    tasks = plan.get("tasks") if isinstance(plan, dict) else None
    return (
        [t for t in tasks if isinstance(t, dict) and "id" in t] if isinstance(tasks, list) else []
    )


def _norm(text: Any) -> str:
    return " ".join(str(text or "").split()).casefold()


def _edges(task: dict[str, Any]) -> set[Edge]:
    me = str(task["id"])
    out = {(str(d), me, "depends_on") for d in task.get("depends_on") or []}
    needs = task.get("needs") or []
    sources = needs.values() if isinstance(needs, dict) else needs
    for n in sources:
        origin = n.get("task") if isinstance(n, dict) else n
        if origin is not None:
            out.add((str(origin), me, "needs"))
    return out


def _match(base: list[dict[str, Any]], cand: list[dict[str, Any]]) -> dict[str, str]:
    """base id -> candidate id: same id first, then same (normalised) description."""
    cand_ids = {str(t["id"]) for t in cand}
    pairs = {str(t["id"]): str(t["id"]) for t in base if str(t["id"]) in cand_ids}
    taken = set(pairs.values())
    free: dict[str, str] = {}
    for t in cand:
        cid = str(t["id"])
        if cid not in taken and _norm(t.get("description")):
            free.setdefault(_norm(t.get("description")), cid)
    for t in base:
        bid = str(t["id"])
        if bid in pairs:
            continue
        text = _norm(t.get("description"))
        match = free.pop(text, None) if text else None
        if match is not None:
            pairs[bid] = match
    return pairs


def _violation_key(v: dict[str, Any], mapping: dict[str, str]) -> tuple[str, str, str]:
    task = v.get("task")
    task = mapping.get(str(task), str(task)) if task is not None else ""
    message = str(v.get("message", ""))
    return (str(v.get("check")), task, message if not task else "")


def diff_plans(
    base_plan: Any,
    cand_plan: Any,
    base_violations: list[dict[str, Any]] | None = None,
    cand_violations: list[dict[str, Any]] | None = None,
) -> PlanDiff:
    """The difference from ``base_plan`` to ``cand_plan`` (either may be None)."""
    base, cand = _tasks(base_plan), _tasks(cand_plan)
    mapping = _match(base, cand)
    back = {c: b for b, c in mapping.items()}
    by_id = {str(t["id"]): t for t in cand}
    changed = []
    for t in base:
        bid = str(t["id"])
        if bid not in mapping:
            continue
        other = by_id[mapping[bid]]
        fields = [
            name
            for name in ("description", "capabilities")
            if _norm(t.get(name)) != _norm(other.get(name))
        ]
        mine = {(mapping.get(a, "?" + a), mapping.get(b, b), k) for a, b, k in _edges(t)}
        if {(a, k) for a, _, k in mine} != {(a, k) for a, _, k in _edges(other)}:
            fields.append("inputs")
        if fields or bid != mapping[bid]:
            changed.append((bid, mapping[bid], fields or ["id"]))
    base_edges = {e for t in base for e in _edges(t)}
    cand_edges = {e for t in cand for e in _edges(t)}
    mapped = {(mapping.get(a, "?" + a), mapping.get(b, "?" + b), k) for a, b, k in base_edges}
    bv, cv = base_violations or [], cand_violations or []
    bkeys = {_violation_key(v, mapping) for v in bv}
    ckeys = {_violation_key(v, {}) for v in cv}
    return PlanDiff(
        added=[str(t["id"]) for t in cand if str(t["id"]) not in back],
        removed=[str(t["id"]) for t in base if str(t["id"]) not in mapping],
        changed=changed,
        edges_added=sorted(cand_edges - mapped),
        edges_removed=sorted(
            e
            for e in base_edges
            if (mapping.get(e[0], "?" + e[0]), mapping.get(e[1], "?" + e[1]), e[2])
            not in cand_edges
        ),
        violations_appeared=[v for v in cv if _violation_key(v, {}) not in bkeys],
        violations_gone=[v for v in bv if _violation_key(v, mapping) not in ckeys],
    )
