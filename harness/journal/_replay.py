"""Replay: read a journal back into the state a resuming execution needs.

Tolerant mode skips damaged lines and reports each one (line number and reason); strict mode
raises ``JournalDamagedError`` naming the first. A torn last line (a crash mid-write) is kept
apart as ``state.torn_tail``. The agentic gem's journals replay with the same code: events it
does not write (``plan_started``, ``attempt``, ...) are simply absent.
"""

from __future__ import annotations

import json
import json.scanner
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, Literal
from zlib import crc32

from harness._errors import JournalError
from harness._gc import gc_paused
from harness.journal._events import GENESIS, TASK_EVENTS, checksum_state, link_of
from harness.journal._state import Damage, JournalDamagedError, ReplayState, TaskState

__all__ = ["MAX_LINE", "replay", "require_journal", "require_regular_file"]

ReplayMode = Literal["tolerant", "strict"]
_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_EXCERPT = 80
MAX_LINE = 64 << 20
"""Longest journal line replay reads (64 MiB); a longer one is damage, skipped unread."""
_CRC_INFIX = ',"crc32":"'
_CHECKSUM_MISMATCH = "checksum mismatch: the line changed after it was written (not restored)"
_CHECKSUM_MISSING_V2 = "no checksum, though its journal_version says every line has one"
_CHECKSUM_MISSING = "no checksum, though the lines before it have one (not restored)"
_LINK_INFIX = ',"prev":"'
_LINK_MISSING = "no chain link, though the lines before it have one (not restored)"
_LINK_MISSING_V3 = "no chain link, though its journal_version says every line has one"
_TASK_PREFIX = b'{"event":"task_'
"""How a task event's line starts (what planeval and the gem write): a damaged line that
still starts so was not a resume."""
_GAP = (
    "the chain of checksums breaks here: a line before it is missing, duplicated or out of "
    "order (its link is {found}, the line before passes {expected})"
)


class _Task:
    """Mutable per-task accumulator (frozen into ``TaskState`` when read).

    Defaults live on the class so that creating one sets a single attribute: a replay of a
    million events creates half a million of these.
    """

    status = "started"
    attempts = 0
    description: str | None = None
    output: Any = None
    duration: float | None = None
    error: str | None = None
    error_type: str | None = None
    retryable: bool | None = None
    blocked_by: str | None = None
    line = 0
    last = 0  # the line of its latest event, whatever it was
    sees: Any = None  # what its agent saw, from its success (see harness.execute)
    base = 0  # attempts before the last budget reset

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id

    def copy_as(self, task_id: str) -> _Task:
        other = _Task(task_id)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k != "task_id"})
        return other

    def freeze(self) -> TaskState:
        return TaskState(
            task_id=self.task_id,
            status=self.status,
            attempts=self.attempts,
            description=self.description,
            output=self.output,
            duration=self.duration,
            error=self.error,
            error_type=self.error_type,
            retryable=self.retryable,
            blocked_by=self.blocked_by,
            line=self.line,
            attempts_since_reset=max(0, self.attempts - self.base),
            sees=self.sees if type(self.sees) is dict else None,
        )


class _TaskStates(Mapping[str, TaskState]):
    """Task id -> ``TaskState``, frozen on first access (a million-event replay does not
    pay for records nobody reads)."""

    __slots__ = ("_frozen", "_raw")

    def __init__(self, raw: dict[str, _Task]) -> None:
        self._raw = raw
        self._frozen: dict[str, TaskState] = {}

    def __getitem__(self, task_id: str) -> TaskState:
        state = self._frozen.get(task_id)
        if state is None:
            state = self._frozen[task_id] = self._raw[task_id].freeze()
        return state

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._raw

    def __repr__(self) -> str:
        return f"<{len(self)} task states>"


def replay(path: str | Path, mode: ReplayMode = "tolerant") -> ReplayState:
    """Replay a journal file.

    Args:
        path: the journal (JSONL).
        mode: ``tolerant`` skips damaged lines and reports them in ``state.damage``;
            ``strict`` raises on the first.

    Raises:
        JournalError: the file cannot be read.
        JournalDamagedError: strict mode and a damaged line (the torn tail included).
    """
    if mode not in ("tolerant", "strict"):
        raise ValueError(f"mode must be 'tolerant' or 'strict', got {mode!r}")
    source = str(path)
    require_regular_file(path)
    with gc_paused():  # millions of cycle-free objects: collections would cost a third of it
        try:
            # Fast path: the whole file is valid UTF-8, so lines are decoded by the text layer.
            # The first invalid byte sends us back to the start, line by line in binary.
            with open(path, encoding="utf-8", errors="strict", newline="\n") as text:
                state = _Replayer(source).run(_bounded_lines(text))
        except UnicodeDecodeError:
            with open(path, "rb") as binary:
                state = _Replayer(source).run(_decoded_lines(_bounded_lines(binary)))
        except OSError as exc:
            raise JournalError(f"cannot read the journal: {exc.strerror}", source=source) from None
    if mode == "strict" and state.damage:
        raise JournalDamagedError(state.damage[0], state)
    return state


class _Replayer:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tasks: dict[str, _Task] = {}
        self.completed: dict[str, None] = {}
        self.damage: list[Damage] = []
        self.unknown: dict[str, int] = {}
        self.repairs: list[Mapping[str, Any]] = []
        self.plan_id: str | None = None
        self.plan_hash: str | None = None
        self.version: int | None = None
        self.status: str | None = None
        self.events = 0
        self.resumes = 0
        self.interruptions = 0
        self.torn: Damage | None = None
        self.checksummed = False  # a checksummed line was seen: every later one needs one
        self.chained = False  # a chained line was seen: every later one needs a link
        self.last_bad = -1  # the last damaged line (the chain is not checked right after it)
        self.suspect: dict[str, None] = {}
        self.lost: list[int] = []  # lines where an event may have been lost (not blank ones)
        self.wide: list[int] = []  # ... and where it may not have been a task event
        self.settled_at = 0  # the last plan_resumed: it decided what damage before it left
        self.fingerprints: dict[str, str] | None = None

    def run(self, lines: Iterable[str | bytes]) -> ReplayState:
        """Replay lines (``str``; ``bytes`` for a line that is not valid UTF-8)."""
        loads = json.loads
        scan = _SCAN
        tasks = self.tasks
        completed = self.completed
        task_event = self._task_event
        line_no = 0
        events = 0
        crc_infix = _CRC_INFIX
        link_infix = _LINK_INFIX
        # The link the next line must carry: the checksum field of a checksummed line (read
        # as it is checked); None after any other line, whose link is computed from
        # ``plain`` only if a chained line follows it (old journals never pay for it).
        expected: str | None = GENESIS
        plain: str | bytes | None = None
        chained = False
        for line in lines:
            line_no += 1
            if isinstance(line, bytes):
                expected, plain = None, line
                if type(line) is _Oversize:
                    self._damaged(line_no, _OVERSIZE_REASON, line)
                    continue
                if line[-1:] != b"\n":
                    self._torn(line, line_no)
                else:
                    self._damaged(line_no, _utf8_reason(line), line)
                continue
            if line[-1:] != "\n":
                self.events += events
                events = 0
                self._tail(line, line_no, expected if expected is not None else link_of(plain))
                break
            # The checksum (CRC-32 of the bytes before ,"crc32":"), checked before parsing.
            has_crc = False
            if line[-21:-11] == crc_infix and line[-3:] == '"}\n':
                want = expected
                expected = mine = line[-11:-3]
                try:
                    crc = crc32(line[:-21].encode())
                except UnicodeEncodeError:
                    crc = -1
                if f"{crc:08x}" != mine:
                    self._damaged(line_no, _CHECKSUM_MISMATCH, line)
                    continue
                self.checksummed = has_crc = True
                # The chain: ,"prev":"<link of the line before>" just before the checksum.
                if line[-39:-30] == link_infix:
                    if not chained:
                        chained = self.chained = True
                    if want is None:
                        want = link_of(plain)
                    if line[-30:-22] != want and self.last_bad != line_no - 1:
                        self._gap(line_no, line, line[-30:-22], want)
                elif chained:
                    self._damaged(line_no, _LINK_MISSING, line)
                    continue
            else:
                expected, plain = None, line
                if self.checksummed:
                    self._damaged(line_no, _CHECKSUM_MISSING, line)
                    continue
            try:
                # The C scanner parses the object; json.loads only when something follows it
                # (or it did not start), to validate exactly as json.loads would.
                try:
                    entry, end = scan(line, 0)
                except StopIteration:
                    end = -1
                if end != len(line) - 1:
                    entry = loads(line)
            except (ValueError, RecursionError) as exc:
                reason = f"not JSON ({_short(exc)})" if line.strip() else "blank line"
                self._damaged(line_no, reason, line)
                continue
            if type(entry) is not dict:
                self._damaged(line_no, f"not a JSON object (a {_kind(entry)})", line)
                continue
            # Subscripts in try blocks where a key is always there (cheaper than .get()), and
            # .get() where it may be missing (an exception per event would cost far more):
            # this loop runs once per event, a million times for a large journal.
            try:
                event = entry["event"]
                task_id = entry["task_id"]
            except KeyError:
                event = entry.get("event")
                task_id = None
            if type(event) is not str:
                self._damaged(line_no, "an object without a string 'event' field", line)
                continue
            if event not in TASK_EVENTS:
                if event == "plan_started" and not self.chained and _versioned(entry):
                    if not has_crc:
                        self._damaged(line_no, _CHECKSUM_MISSING_V2, line)
                        continue
                    if _versioned(entry, 3):
                        self._damaged(line_no, _LINK_MISSING_V3, line)
                        continue
                events += 1
                self._plan_event(event, entry, line_no)
                completed = self.completed  # a resume may replace it
                continue
            if type(task_id) is not str:
                why = f"a {event} event without a string task_id ({task_id!r})"
                self._damaged(line_no, why, line)
                continue
            events += 1
            task = tasks.get(task_id)
            if task is None:
                task = tasks[task_id] = _Task(task_id)
            task.last = line_no
            # The two events of every healthy attempt are handled inline.
            if event == "task_started":
                attempt = entry.get("attempt")  # the gem writes no attempt
                description = entry.get("description")
                if type(description) is str:
                    task.description = description
                if type(attempt) is int:
                    if attempt > task.attempts:
                        task.attempts = attempt
                else:
                    task.attempts += 1
                if task.status != "succeeded":
                    task.status = "started"
                    task.line = line_no
            elif event == "task_succeeded" and task.status != "succeeded":
                try:
                    output = entry["output"]
                    duration = entry["duration"]
                except KeyError:
                    output = entry.get("output")
                    duration = entry.get("duration")
                attempt = entry.get("attempt")
                description = entry.get("description")
                if type(description) is str:
                    task.description = description
                task.status = "succeeded"
                task.output = output
                task.sees = entry.get("sees")
                task.duration = duration if type(duration) is float else _number(duration)
                task.line = line_no
                if type(attempt) is int and attempt > task.attempts:
                    task.attempts = attempt
                elif task.attempts == 0:
                    task.attempts = 1
                completed[task_id] = None
            else:
                task_event(event, entry, task, line_no)
        self.events += events
        return self._state()

    def _task_event(self, event: str, entry: dict[str, Any], task: _Task, line_no: int) -> None:
        description = entry.get("description")
        if type(description) is str:
            task.description = description
        if event == "task_started":
            attempt = entry.get("attempt")
            if type(attempt) is int:
                task.attempts = max(task.attempts, attempt)
            else:
                task.attempts += 1
            if task.status != "succeeded":
                task.status = "started"
                task.line = line_no
            return
        if event == "task_succeeded":
            if task.status == "succeeded":
                if self.damage and entry.get("output") != task.output:
                    # A damaged line earlier may have been the resume that dropped the first
                    # success: which output is current cannot be told, so neither is trusted.
                    self.suspect[task.task_id] = None
                    self._damaged(
                        line_no,
                        f"a second task_succeeded for {task.task_id!r} with another output after"
                        " a damaged line: neither output is trusted, the task runs again",
                        "",
                    )
                    return
                self.damage.append(
                    Damage(
                        line_no,
                        f"duplicate task_succeeded for {task.task_id!r} (first at line "
                        f"{task.line}); the first output is kept",
                        "",
                    )
                )
                return
            task.status = "succeeded"
            task.output = entry.get("output")
            task.sees = entry.get("sees")
            task.duration = _number(entry.get("duration"))
            task.line = line_no
            task.attempts = max(task.attempts, _attempt(entry), 1)
            self.completed[task.task_id] = None
            return
        if event == "task_attempt_ended":
            return  # an abandoned attempt returned: it changes no status
        if task.status == "succeeded":
            return  # a late failure or block does not undo a success (the gem's rule)
        if event == "task_failed":
            task.status = "failed"
            task.error = _text(entry.get("error"))
            task.error_type = _text(entry.get("error_type"))
            retryable = entry.get("retryable")
            task.retryable = retryable if type(retryable) is bool else None
            task.duration = _number(entry.get("duration"))
            task.attempts = max(task.attempts, _attempt(entry), 1)
        else:  # task_blocked
            task.status = "blocked"
            blocked_by = entry.get("blocked_by")
            task.blocked_by = blocked_by if type(blocked_by) is str else None
        task.line = line_no

    def _plan_event(self, event: str, entry: dict[str, Any], line_no: int) -> None:
        plan_id = entry.get("plan_id")
        if event == "plan_started":
            self._identify(entry)
            version = entry.get("journal_version")
            self.version = version if type(version) is int else self.version
            self.status = "running"
        elif event == "plan_resumed":
            self._identify(entry)
            self.resumes += 1
            self.status = "running"
            self._restore(entry)
            self._settle(entry, line_no)
        elif event == "plan_completed":
            if type(plan_id) is str:
                self.plan_id = plan_id
            status = entry.get("status")
            self.status = status if type(status) is str else "completed"
        elif event == "plan_interrupted":
            self.interruptions += 1
            self.status = "interrupted"
        elif event == "journal_repaired":
            self.repairs.append({k: v for k, v in entry.items() if k != "event"})
        else:
            self.unknown[event] = self.unknown.get(event, 0) + 1

    def _identify(self, entry: dict[str, Any]) -> None:
        structure = entry.get("structure")
        if type(structure) is dict:
            tasks = structure.get("tasks")
            if type(tasks) is dict and all(type(v) is str for v in tasks.values()):
                self.fingerprints = tasks
        plan_id = entry.get("plan_id")
        if type(plan_id) is str:
            self.plan_id = plan_id
        plan_hash = entry.get("plan_hash")
        if type(plan_hash) is str:
            self.plan_hash = plan_hash

    def _restore(self, entry: dict[str, Any]) -> None:
        """Apply a resume: only the ``restored`` tasks keep their success."""
        reset = entry.get("reset_attempts")
        for task_id in reset if isinstance(reset, list) else ():
            task = self.tasks.get(task_id) if type(task_id) is str else None
            if task is not None:
                task.base = task.attempts
        restored = entry.get("restored")
        if not isinstance(restored, list):
            return
        renamed = entry.get("matched_by_description")
        renamed = renamed if isinstance(renamed, dict) else {}
        keep: dict[str, None] = {}
        for task_id in restored:
            if type(task_id) is not str:
                continue
            source_id = renamed.get(task_id, task_id)
            source = self.tasks.get(source_id) if type(source_id) is str else None
            if source is None or source.status != "succeeded":
                continue
            if source_id != task_id:
                self.tasks[task_id] = source.copy_as(task_id)
            keep[task_id] = None
        accepted = entry.get("accepted")  # --keep-outputs: the edit is accepted for good
        for task_id, sees in accepted.items() if isinstance(accepted, dict) else ():
            if task_id in keep and type(sees) is dict:
                self.tasks[task_id].sees = sees
        for task_id in list(self.completed):
            if task_id not in keep:
                self.tasks[task_id].status = "pending"
        self.completed = {tid: None for tid in self.completed if tid in keep}
        for task_id in keep:
            self.completed.setdefault(task_id, None)

    def _settle(self, entry: dict[str, Any], line_no: int) -> None:
        """A resume decided, from the journal it read, what damage before it left: the tasks
        it did not restore start afresh after it. Only a task with two different outputs that
        it did restore stays in doubt (the damage may have come after the resume was written,
        so which output it meant cannot be told); the next resume runs it again, once."""
        restored = entry.get("restored")
        kept = set(restored) if isinstance(restored, list) else set()
        self.suspect = {t: None for t in self.suspect if t in kept}
        self.settled_at = line_no

    def _tail(self, raw: str, line_no: int, link: str) -> None:
        """The last line has no newline: a complete event, or a torn one."""
        checksum = checksum_state(raw)
        linked = raw[-38:-29] == _LINK_INFIX
        unlinked = checksum == "ok" and not linked and self.chained
        if checksum == "bad" or (checksum == "none" and self.checksummed) or unlinked:
            entry = None
        else:
            found = raw[-29:-21] if linked and checksum == "ok" else link
            if found != link and self.last_bad != line_no - 1:
                self._gap(line_no, raw, found, link)
            try:
                entry = json.loads(raw)
            except ValueError:
                entry = None
        if type(entry) is dict and type(entry.get("event")) is str:
            # Only the newline is missing: keep the event (the writer completes the line).
            self.events += 1
            event = entry["event"]
            task_id = entry.get("task_id")
            if event in TASK_EVENTS and type(task_id) is str:
                task = self.tasks.get(task_id) or self.tasks.setdefault(task_id, _Task(task_id))
                task.last = line_no
                self._task_event(event, entry, task, line_no)
                return
            if event not in TASK_EVENTS:
                self._plan_event(event, entry, line_no)
                return
        if raw.strip():
            self._torn(raw, line_no)
        # else: trailing spaces only, nothing to report

    def _torn(self, raw: str | bytes, line_no: int) -> None:
        self.torn = Damage(line_no, "torn last line (a crash mid-write)", _excerpt(raw), torn=True)
        self.damage.append(self.torn)

    def _damaged(self, line_no: int, reason: str, raw: str | bytes) -> None:
        """A line that cannot be used: whatever event it held is lost (a blank line held
        none)."""
        self.last_bad = line_no
        if type(raw) is _Oversize or (raw.strip() if isinstance(raw, str) else raw):
            self.lost.append(line_no)
            head = raw[: len(_TASK_PREFIX)]
            if (head.encode(errors="replace") if isinstance(head, str) else head) != _TASK_PREFIX:
                self.wide.append(line_no)  # it may have been a resume
        self.damage.append(Damage(line_no, reason, _excerpt(raw)))

    def _gap(self, line_no: int, line: str, found: str, expected: str) -> None:
        """The line is whole, but the chain breaks before it: lines were lost or moved.

        The line itself is read (its checksum holds); what came before it is in doubt.
        """
        reason = _GAP.format(found=found, expected=expected)
        self.lost.append(line_no)
        self.wide.append(line_no)  # what was lost is gone: it may have been a resume
        self.damage.append(Damage(line_no, reason, _excerpt(line), gap=True))

    def _state(self) -> ReplayState:
        # Damage no resume has decided on yet: every task with an event at or after it is
        # unknown (the lost line may have been its success). Unless the lost line still
        # reads as a task event (a damaged line starting {"event":"task_), so is every
        # success journalled before it: the lost line may have been a resume (a --from) that
        # dropped it, followed only by other tasks' events. They run again, with the same
        # idempotency key; a resume after the damage decides it (``_settle``).
        open_damage = [line for line in self.lost if line > self.settled_at]
        if open_damage:
            first = open_damage[0]
            wide = any(line > self.settled_at for line in self.wide)
            for task in self.tasks.values():
                if task.last >= first or (wide and task.status == "succeeded"):
                    self.suspect.setdefault(task.task_id, None)
        for task_id in self.suspect:  # the journalled output stays readable, not restored
            self.completed.pop(task_id, None)
            self.tasks[task_id].status = "unknown"
        return ReplayState(
            suspect=tuple(self.suspect),
            task_fingerprints=self.fingerprints,
            path=self.source,
            plan_id=self.plan_id,
            plan_hash=self.plan_hash,
            journal_version=self.version,
            status=self.status,
            tasks=_TaskStates(self.tasks),
            completed=tuple(self.completed),
            events=self.events,
            unknown_events=dict(self.unknown),
            damage=tuple(sorted(self.damage, key=lambda d: d.line)),
            torn_tail=self.torn,
            resumes=self.resumes,
            interruptions=self.interruptions,
            repairs=tuple(self.repairs),
        )


def _versioned(entry: dict[str, Any], at_least: int = 2) -> bool:
    """True for a ``plan_started`` of journal version ``at_least`` or later (2: every line
    checksummed; 3: every line chained)."""
    version = entry.get("journal_version")
    return type(version) is int and version >= at_least


def _attempt(entry: dict[str, Any]) -> int:
    attempt = entry.get("attempt")
    return attempt if type(attempt) is int else 0


def _number(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else (None if value is None else str(value))


class _Oversize(bytes):
    """Stands for a line longer than ``MAX_LINE`` (skipped unread: memory stays bounded)."""


_OVERSIZE_REASON = f"a line longer than {MAX_LINE >> 20} MiB (not read)"


def _bounded_lines(handle: IO[Any]) -> Iterator[Any]:
    """The handle's lines, each at most ``MAX_LINE`` long; a longer one is skipped unread
    and stands as an ``_Oversize`` marker, so no input can make replay hold more."""
    read = handle.readline
    while True:
        line = read(MAX_LINE)
        if not line:
            return
        if len(line) == MAX_LINE and line[-1:] not in ("\n", b"\n"):
            while True:
                more = read(MAX_LINE)
                if not more or more[-1:] in ("\n", b"\n"):
                    break
            yield _Oversize(b"")
            continue
        yield line


def require_regular_file(path: str | os.PathLike[str]) -> None:
    """Refuse what is not a regular file (``/dev/zero``, a FIFO, a folder): unbounded input.

    Raises:
        JournalError: missing, a folder, or not a regular file.
    """
    source = str(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise JournalError(f"cannot read the journal: {exc.strerror}", source=source) from None
    if stat.S_ISDIR(mode):
        raise JournalError("is a folder, not a journal file", source=source)
    if not stat.S_ISREG(mode):
        raise JournalError(
            "is not a regular file (a device or a pipe never ends), so it is not a journal",
            source=source,
            hint="name the journal file itself",
        )


def require_journal(path: str | os.PathLike[str]) -> None:
    """Refuse a file that is not an execution journal (planeval's or the agentic gem's).

    One of a journal's first lines is a JSON object with a string ``event`` (planeval writes
    ``{"event":"`` first, so even a torn line starts so; looking past the first line lets a
    journal whose first line was damaged still resume). An empty file passes (a journal with
    no events yet). Reads at most 1 MiB.

    Raises:
        JournalError: not a regular file, or none of its first lines is a journal event.
    """
    require_regular_file(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF)
    except OSError as exc:
        raise JournalError(f"cannot read the journal: {exc.strerror}", source=str(path)) from None
    if not head.strip():
        return
    for line in head.split(b"\n")[:_SNIFF_LINES]:  # a damaged first line is not enough
        line = line.strip()
        if line.startswith(b'{"event":"'):
            return
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if type(entry) is dict and type(entry.get("event")) is str:
            return
    raise JournalError(
        "is not an execution journal (none of its first lines is a journal event)",
        source=str(path),
        hint="name the journal file (JSONL written by planeval execute or the agentic gem)",
    )


_SNIFF = 1 << 20
_SNIFF_LINES = 8


def _decoded_lines(handle: Iterable[bytes]) -> Iterator[str | bytes]:
    """Lines as ``str``, or as ``bytes`` when a line is not valid UTF-8."""
    for raw in handle:
        if type(raw) is _Oversize:
            yield raw
            continue
        try:
            yield raw.decode()
        except UnicodeDecodeError:
            yield raw


def _utf8_reason(raw: bytes) -> str:
    try:
        raw.decode()
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start}"
    return "invalid UTF-8"


def _excerpt(raw: str | bytes) -> str:
    if isinstance(raw, bytes):
        raw = raw[: _EXCERPT * 4].decode("utf-8", "backslashreplace")
    text = raw[: _EXCERPT * 4].rstrip("\r\n")
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def _short(exc: ValueError | RecursionError) -> str:
    message = str(exc)
    return message if len(message) <= 80 else message[:79] + "…"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list"}.get(
        type(value), type(value).__name__
    )
