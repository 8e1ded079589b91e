"""The structural checks of docs/design.md, in one linear pass plus graph passes without recursion.

Tasks are addressed by their index in the plan; ids map to the first task that has them.
Reachability questions ("is p a strict ancestor of c?") are answered with ancestor bitsets
(Python ints) computed once in topological order, restricted to the nodes that are actually
asked about, so a 100,000-task plan is checked in well under a second.
"""

from __future__ import annotations

import difflib

from harness._gc import gc_paused
from harness.checks._arguments import ArgumentChecks, argument_edges, uncovered_references
from harness.checks._report import CHECKS, CheckReport, Expectations, Severity, Violation
from harness.checks._schema import plan_model_ok, schema_errors, unread_keys, workflow_ok
from harness.plan import Plan
from harness.plan._model import dependency_entries
from harness.registry import Registry, parse_reference

__all__ = ["check_plan"]

_EXACT_REDUNDANCY_LIMIT = 20_000
"""Plans up to this many tasks get an exact redundant_dependency check; larger ones are checked
for redundancy through paths of two edges (a dependency that is also a grandparent)."""
_SUGGESTION_LIMIT = 50
_GC_PAUSE_FROM = 1_000
"""Plans from this many tasks are checked with the garbage collector paused."""
_NO_EXPECTATIONS = Expectations()
_ALL_PASS = dict.fromkeys(CHECKS, "pass")
"""At most this many 'did you mean' suggestions per plan (difflib is linear in the ids)."""


def check_plan(
    plan: Plan, *, registry: Registry | None = None, expect: Expectations | None = None
) -> CheckReport:
    """Run every structural check on a plan.

    Args:
        plan: the plan to check.
        registry: capabilities the plan may use; without one, ``known_capabilities`` and
            ``required_capabilities`` are skipped.
        expect: the task-count band, required capabilities and needs policy.

    Returns:
        The report: violations in check order and each check's outcome.
    """
    if len(plan.tasks) < _GC_PAUSE_FROM:
        return _Checker(plan, registry, expect or _NO_EXPECTATIONS).run()
    with gc_paused():
        return _Checker(plan, registry, expect or _NO_EXPECTATIONS).run()


class _Checker:
    def __init__(self, plan: Plan, registry: Registry | None, expect: Expectations) -> None:
        self.plan = plan
        self.registry = registry
        self.expect = expect
        self.tasks = plan.tasks
        self.index: dict[str, int] = {}
        for i, task in enumerate(self.tasks):
            self.index.setdefault(task.id, i)
        self.found: dict[str, list[Violation]] = {}  # check -> violations, when any
        self.skipped: set[str] = set()
        self.suggestions_left = _SUGGESTION_LIMIT
        # Resolved dependency edges by task index (self-loops and unknown ids left out).
        self.deps: list[list[int]] = [[] for _ in self.tasks]
        self.order: list[int] = []
        links = plan.extra.get("links") if plan.extra else None
        self.links = links if isinstance(links, dict) else {}
        notes = self.links.get("notes")
        self.notes: dict[str, str] = notes if isinstance(notes, dict) else {}
        self.needs_said: set[tuple[int, str]] = set()  # (consumer, producer id) of each need
        self.argument_links: list[tuple[int, int]] = []  # (consumer, producer) not in needs
        # Task index -> its dependency entries as written (read once a task: a dense plan
        # reports up to one violation per edge, each naming its entry's pointer).
        self._entries: dict[int, list[tuple[str, str, int | None]]] = {}

    def run(self) -> CheckReport:
        self._schema()
        self._has_tasks()
        self._ids_and_edges()
        self._unresolved_links()
        self._acyclic()
        self._needs()
        self._task_count()
        self._capabilities()
        self._arguments()
        self._isolated()
        self._workflow()
        self._redundant()
        found = self.found
        outcomes = dict(_ALL_PASS)
        violations: tuple[Violation, ...] = ()
        if found:
            for check, violations_of_check in found.items():
                errs = any(v.severity == "error" for v in violations_of_check)
                outcomes[check] = "fail" if errs else "warn"
            violations = tuple(v for check in CHECKS if check in found for v in found[check])
        for check in self.skipped:
            outcomes[check] = "skip"
        return CheckReport(plan=self.plan, violations=violations, outcomes=outcomes)

    def _add(
        self,
        check: str,
        task: str | None,
        path: str,
        message: str,
        severity: Severity | None = None,
    ) -> None:
        if self.notes and path in self.notes:
            message = f"{message} (note: {self.notes[path]})"
        if severity is None:
            severity = self.expect.dataflow_types if check == "dataflow_types" else CHECKS[check]
        violation = Violation(check, severity, task, path, message)
        self.found.setdefault(check, []).append(violation)

    def _nearest_id(self, wrong: str) -> str:
        if self.suggestions_left <= 0:
            return ""
        self.suggestions_left -= 1
        near = difflib.get_close_matches(wrong, list(self.index), n=1, cutoff=0.6)
        return f"; did you mean {near[0]!r}?" if near else ""

    # --- checks ------------------------------------------------------------------------------

    def _schema(self) -> None:
        document = self.plan.document
        if document is None:
            if plan_model_ok(self.plan):
                return
            document = self.plan.to_dict()
        for pointer, message in schema_errors(document):
            self._add("schema", self._task_at(pointer), pointer, f"{message} (at {pointer})")
        for pointer, message in unread_keys(document):
            self._add("schema", self._task_at(pointer), pointer, message, "warning")

    def _has_tasks(self) -> None:
        if not self.tasks:
            self._add(
                "has_tasks",
                None,
                "/tasks",
                "the plan has no tasks: the planner answered with nothing to do; an empty "
                "plan is never a plan for a goal",
            )

    def _deps_key_pointer(self, i: int, dep: str) -> str:
        """The pointer of the key under which task i names dependency ``dep``."""
        deps = self.tasks[i].depends_on
        if dep not in deps:
            return f"/tasks/{i}/depends_on"
        pointer = self._dep_pointer(i, deps.index(dep))
        head, _, last = pointer.rpartition("/")
        return head if last.isdigit() else pointer

    def _dep_pointer(self, i: int, j: int) -> str:
        """The JSON pointer of task i's j-th dependency, under the key the plan wrote it."""
        document = self.plan.document
        raw = document.get("tasks") if document is not None else None
        if isinstance(raw, list) and i < len(raw) and isinstance(raw[i], dict):
            entries = self._entries.get(i)
            if entries is None:
                entries = self._entries[i] = dependency_entries(raw[i])
            if j < len(entries):
                _, key, position = entries[j]
                return f"/tasks/{i}/{key}" + ("" if position is None else f"/{position}")
        return f"/tasks/{i}/depends_on/{j}"

    def _task_at(self, pointer: str) -> str | None:
        parts = pointer.split("/")
        if len(parts) > 2 and parts[1] == "tasks" and parts[2].isdigit():
            i = int(parts[2])
            return self.tasks[i].id if i < len(self.tasks) else None
        return None

    def _ids_and_edges(self) -> None:
        index = self.index
        for i, task in enumerate(self.tasks):
            if index[task.id] != i:
                self._add(
                    "unique_ids",
                    task.id,
                    f"/tasks/{i}/id",
                    f"task id {task.id!r} is used again (first by /tasks/{index[task.id]}); "
                    "give each task its own id",
                )
            resolved = self.deps[i]
            for j, dep in enumerate(task.depends_on):
                if dep == task.id:
                    self._add(
                        "self_dependency",
                        task.id,
                        self._dep_pointer(i, j),
                        f"task {task.id!r} depends on itself; remove {dep!r} from depends_on",
                    )
                elif dep in index:
                    resolved.append(index[dep])
                else:
                    self._add(
                        "deps_resolve",
                        task.id,
                        self._dep_pointer(i, j),
                        f"task {task.id!r} depends on {dep!r}, which is not a task of the "
                        f"plan{self._nearest_id(dep)}",
                    )

    def _unresolved_links(self) -> None:
        """TaskBench links whose ends name no node (kept by the adapter under links)."""
        unresolved = self.links.get("unresolved")
        if not isinstance(unresolved, list):
            return
        tools = sorted({c for t in self.tasks for c in t.capabilities})
        known = ", ".join(repr(t) for t in tools[:8]) + (", ..." if len(tools) > 8 else "")
        for k, link in enumerate(unresolved):
            if not isinstance(link, dict):
                continue
            where = f"task_links[{link.get('index')}]"
            if link.get("problem"):
                message = f"{where} is unusable: {link['problem']}"
            else:
                missing = link.get("missing", [])
                names = " and ".join(repr(m) for m in missing)
                verb = "names" if len(missing) == 1 else "name"
                message = (
                    f"{where} links {link.get('source')!r} -> {link.get('target')!r}, but "
                    f"{names} {verb} no node of the plan (its tools: {known or 'none'}); "
                    "link tools the plan calls, or add the missing node"
                )
            self._add("deps_resolve", None, f"/links/unresolved/{k}", message)

    def _acyclic(self) -> None:
        """Kahn's algorithm; the tasks left over sit on or behind a cycle."""
        n = len(self.tasks)
        edges = self.deps
        if self.expect.needs == "imply_deps":
            edges = [list(d) for d in self.deps]
            for i, task in enumerate(self.tasks):
                for need in task.needs:
                    p = self.index.get(need.task)
                    if p is not None and p != i:
                        edges[i].append(p)
                for p in argument_edges(task, self.index):
                    if p != i:
                        edges[i].append(p)
        self.graph = edges
        dependents: list[list[int]] = [[] for _ in range(n)]
        pending = [0] * n
        for c, ds in enumerate(edges):
            pending[c] = len(ds)
            for d in ds:
                dependents[d].append(c)
        # The queue is the order itself: tasks are appended when ready and read in turn.
        order = [i for i in range(n) if not pending[i]]
        k = 0
        while k < len(order):
            for c in dependents[order[k]]:
                pending[c] -= 1
                if pending[c] == 0:
                    order.append(c)
            k += 1
        self.order = order
        self.dependents = dependents
        if len(order) == n:
            return
        left = {i for i in range(n) if pending[i] > 0}
        reported: set[int] = set()
        for start in sorted(left):
            if start in reported:
                continue
            cycle = self._walk_to_cycle(start, left)
            if cycle is None or reported.intersection(cycle):
                reported.update(cycle or ())
                continue
            reported.update(cycle)
            names = [self.tasks[i].id for i in cycle]
            first = cycle[0]
            self._add(
                "acyclic",
                names[0],
                self._deps_key_pointer(first, names[1 % len(names)]),
                f"dependency cycle: {' -> '.join([*names, names[0]])} (each depends on the "
                "next); remove one of these edges",
            )

    def _walk_to_cycle(self, start: int, left: set[int]) -> list[int] | None:
        """Follow dependencies inside the leftover set until a task repeats."""
        seen: dict[int, int] = {}
        path: list[int] = []
        x = start
        while x not in seen:
            seen[x] = len(path)
            path.append(x)
            nxt = next((d for d in self.graph[x] if d in left), None)
            if nxt is None:
                return None
            x = nxt
        return path[seen[x] :]

    def _needs(self) -> None:
        index = self.index
        strict = self.expect.needs == "strict"
        queries: list[tuple[int, int, str]] = []  # consumer, producer, pointer
        said = self.needs_said
        for i, task in enumerate(self.tasks):
            direct = set(self.deps[i])
            for j, need in enumerate(task.needs):
                said.add((i, need.task))
                where = f"/tasks/{i}/needs/{j}"
                if need.task == task.id:
                    self._add(
                        "self_dependency",
                        task.id,
                        where,
                        f"task {task.id!r} needs its own output ({need.name!r})",
                    )
                    continue
                p = index.get(need.task)
                if p is None:
                    self._add(
                        "needs_resolve",
                        task.id,
                        where,
                        f"task {task.id!r} needs {need.name!r} from {need.task!r}, which is "
                        f"not a task of the plan{self._nearest_id(need.task)}",
                    )
                elif strict and p not in direct:
                    queries.append((i, p, where))
        if not strict:
            return
        position = {x: k for k, x in enumerate(self.order)}
        hard: list[tuple[int, int, str]] = []
        for c, p, where in queries:
            if c not in position:
                continue  # on or behind a cycle: acyclic already fails the plan
            if p not in position or position[p] >= position[c]:
                self._needs_violation(c, p, where)
            else:
                hard.append((c, p, where))
        if hard:
            bits, bit_of = self._ancestor_bits({p for _, p, _ in hard})
            for c, p, where in hard:
                if not (bits[c] >> bit_of[p]) & 1:
                    self._needs_violation(c, p, where)

    def _needs_violation(self, c: int, p: int, where: str) -> None:
        consumer, producer = self.tasks[c].id, self.tasks[p].id
        need = next(n.name for n in self.tasks[c].needs if n.task == producer)
        self._add(
            "needs_earlier_output",
            consumer,
            where,
            f"task {consumer!r} needs {need!r} from {producer!r}, which does not run "
            f"before it; add {producer!r} to its depends_on (directly or through a "
            "dependency)",
        )

    def _ancestor_bits(self, targets: set[int]) -> tuple[list[int], dict[int, int]]:
        """For each task, an int whose bit k says target k is a strict ancestor."""
        bit_of = {t: k for k, t in enumerate(sorted(targets))}
        own = [0] * len(self.tasks)
        for t, k in bit_of.items():
            own[t] = 1 << k
        bits = [0] * len(self.tasks)
        graph = self.graph
        for x in self.order:
            acc = 0
            for d in graph[x]:
                acc |= bits[d] | own[d]
            bits[x] = acc
        return bits, bit_of

    def _task_count(self) -> None:
        low, high, n = self.expect.min_tasks, self.expect.max_tasks, len(self.tasks)
        if low is None and high is None:
            self.skipped.add("task_count_band")
            return
        band = f"[{low if low is not None else 0}, {high if high is not None else 'inf'}]"
        if (low is not None and n < low) or (high is not None and n > high):
            self._add(
                "task_count_band",
                None,
                "/tasks",
                f"the plan has {n} tasks, outside the expected band {band}",
            )

    def _capabilities(self) -> None:
        registry = self.registry
        if registry is None:
            self.skipped.update(("known_capabilities", "required_capabilities"))
            return
        used: set[str] = set()
        known: dict[str, bool] = {}  # plans repeat a few capabilities many times
        for i, task in enumerate(self.tasks):
            for j, ref in enumerate(task.capabilities):
                if ref not in known:
                    known[ref] = registry.resolve(ref) is not None
                    used.add(parse_reference(ref)[0])
                if not known[ref]:
                    self._add(
                        "known_capabilities",
                        task.id,
                        f"/tasks/{i}/capabilities/{j}",
                        registry.explain_unknown(ref),
                    )
        required = self.expect.required_capabilities
        if not required:
            self.skipped.add("required_capabilities")
        for name in required:
            if parse_reference(name)[0] not in used:
                self._add(
                    "required_capabilities",
                    None,
                    "/tasks",
                    f"no task uses the required capability {name!r}",
                )

    def _arguments(self) -> None:
        if not any(task.arguments for task in self.tasks):  # nothing to pay for without them
            self.skipped.update(("arguments_valid", "dataflow_types"))
            return
        registry = self.registry
        if registry is None or not registry.reads_arguments:
            # only argument_refs_resolve applies; the adapters' references are all needs too
            self.skipped.update(("arguments_valid", "dataflow_types"))
            if not uncovered_references(self.tasks, self.needs_said):
                return
        checks = ArgumentChecks(
            self.tasks, self.index, self.registry, self._add, self.expect.dataflow_types
        )
        if not checks.valid():
            self.skipped.add("arguments_valid")
        checks.refs(self.needs_said, self._runs_before, self._nearest_id)
        self.argument_links = checks.links(self.needs_said)
        if not checks.dataflow():
            self.skipped.add("dataflow_types")

    def _runs_before(self, pairs: list[tuple[int, int]]) -> list[bool]:
        """For each ``(consumer, producer)``: may the producer's result be read by the consumer?
        Strict: the producer is a strict ancestor through depends_on. imply_deps: reading it is
        the dependency, so only a producer that itself waits for the consumer is wrong. Tasks
        on or behind a cycle are acyclic's to report."""
        position = {x: k for k, x in enumerate(self.order)}
        strict = self.expect.needs == "strict"
        answers = [True] * len(pairs)
        asked: list[int] = []
        for k, (c, p) in enumerate(pairs):
            if c not in position or p not in position:
                continue
            if strict and position[p] >= position[c]:
                answers[k] = False
            elif strict or position[c] < position[p]:
                asked.append(k)
        if asked:
            targets = {pairs[k][1] if strict else pairs[k][0] for k in asked}
            bits, bit_of = self._ancestor_bits(targets)
            for k in asked:
                c, p = pairs[k]
                if strict:
                    answers[k] = bool((bits[c] >> bit_of[p]) & 1)
                else:
                    answers[k] = not (bits[p] >> bit_of[c]) & 1
        return answers

    def _isolated(self) -> None:
        n = len(self.tasks)
        if n < 2:
            return
        linked = [False] * n
        for c, ds in enumerate(self.graph):
            for d in ds:
                linked[c] = linked[d] = True
        for c, task in enumerate(self.tasks):
            for need in task.needs:
                p = self.index.get(need.task)
                if p is not None and p != c:
                    linked[c] = linked[p] = True
        for c, p in self.argument_links:
            linked[c] = linked[p] = True
        if not any(linked):
            self._add(
                "isolated_task",
                None,
                "/tasks",
                f"none of the {n} tasks depends on another: the plan has no dependency "
                "graph (a flat list?); add depends_on where order matters",
            )
            return
        for i, flag in enumerate(linked):
            if not flag:
                tid = self.tasks[i].id
                self._add(
                    "isolated_task",
                    tid,
                    f"/tasks/{i}",
                    f"task {tid!r} neither depends on nor feeds any other task; connect it "
                    "or drop it",
                )

    def _workflow(self) -> None:
        """WorfBench markers: edges into undeclared nodes, and tasks that never reach END."""
        workflow = self.plan.extra.get("workflow")
        if not isinstance(workflow, dict) or not workflow_ok(workflow):
            self.skipped.add("reaches_end")
            return
        for k, (src, dst) in enumerate(workflow.get("undeclared_edges", [])):
            self._add(
                "deps_resolve",
                None,
                f"/workflow/undeclared_edges/{k}",
                f"edge ({src},{dst}) names node {dst!r}, which the workflow never "
                "declares; declare it under Node: or drop the edge",
            )
        prose = workflow.get("prose_nodes", [])
        if prose:
            positions = [p["position"] for p in prose]
            self._add(
                "schema",
                None,
                "/workflow/prose_nodes",
                f"WorfBench's node_eval.py also reads {len(prose)} numbered line(s) outside the "
                f"Node: block as nodes (positions {_spans(positions)}, first: "
                f"{prose[0]['text'][:60]!r}); planeval does not make them tasks, but "
                "WorfBench's scores count them: keep numbered lines out of the prose",
                "warning",
            )
        end = [self.index[e] for e in workflow.get("end", []) if e in self.index]
        if not end or len(self.order) != len(self.tasks):
            self.skipped.add("reaches_end")
            return
        reaches = [False] * len(self.tasks)
        for e in end:
            reaches[e] = True
        for x in reversed(self.order):  # dependents come later in the order
            if not reaches[x] and any(reaches[c] for c in self.dependents[x]):
                reaches[x] = True
        for i, ok in enumerate(reaches):
            if not ok:
                tid = self.tasks[i].id
                self._add(
                    "reaches_end",
                    tid,
                    f"/tasks/{i}",
                    f"task {tid!r} never reaches END: no task on a path to END uses its "
                    f"result; add an edge from it or drop it",
                )

    def _redundant(self) -> None:
        if len(self.order) != len(self.tasks):
            return  # a cyclic graph has no meaningful transitive reduction
        deps = self.deps
        multi = [i for i, ds in enumerate(deps) if len(ds) > 1]
        if not multi:
            return
        if len(self.tasks) <= _EXACT_REDUNDANCY_LIMIT:
            bits, bit_of = self._ancestor_bits({d for i in multi for d in deps[i]})
            node_of = sorted(bit_of, key=bit_of.__getitem__)
            for c in multi:
                reach = 0  # every task reached through a dependency, bit per target
                for o in deps[c]:
                    reach |= bits[o]
                implied = 0
                for d in deps[c]:
                    implied |= reach & (1 << bit_of[d])
                if implied:
                    self._report_redundant(c, _first_through(deps[c], bits, implied, node_of))
            return
        for c in multi:
            ds = deps[c]
            grand = {g for o in ds for g in deps[o]}
            through = {}
            for d in ds:
                if d in grand:
                    through[d] = next(o for o in ds if o != d and d in deps[o])
            if through:
                self._report_redundant(c, through)

    def _report_redundant(self, c: int, through: dict[int, int]) -> None:
        """Report each depends_on entry of task c that another dependency already implies
        (``through``: the implied dependency -> the first dependency it is reached through)."""
        index = self.index
        for j, dep in enumerate(self.tasks[c].depends_on):
            via = through.get(index.get(dep, -1))
            if via is not None:
                self._redundant_violation(c, j, dep, via)

    def _redundant_violation(self, c: int, j: int, dep: str, via: int) -> None:
        tid, through = self.tasks[c].id, self.tasks[via].id
        self._add(
            "redundant_dependency",
            tid,
            self._dep_pointer(c, j),
            f"task {tid!r} depends on {dep!r} directly and also through {through!r}; the "
            f"direct edge can go",
        )


def _spans(numbers: list[int]) -> str:
    """``6-12`` for a run of consecutive numbers, ``2, 9`` otherwise."""
    if numbers == list(range(numbers[0], numbers[0] + len(numbers))) and len(numbers) > 1:
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))


def _first_through(
    deps: list[int], bits: list[int], implied: int, node_of: list[int]
) -> dict[int, int]:
    """For each dependency whose bit is in ``implied``: the first of ``deps`` it is a strict
    ancestor of. One AND per dependency: the bits still open are taken by the first ``o``
    whose ancestors hold them (O(k) big-int operations instead of k x k look-ups)."""
    through: dict[int, int] = {}
    left = implied
    for o in deps:
        hits = bits[o] & left
        if not hits:
            continue
        left ^= hits
        while hits:
            low = hits & -hits
            through[node_of[low.bit_length() - 1]] = o
            hits ^= low
        if not left:
            break
    return through
