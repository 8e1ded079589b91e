"""Execution journals: append-only JSONL records of plan execution, and their replay."""

from harness.journal._events import (
    EVENTS,
    JOURNAL_VERSION,
    TASK_EVENTS,
    EventNotSerializableError,
    encode_body,
    encode_event,
)
from harness.journal._lock import JournalInUseError, JournalLock
from harness.journal._replay import MAX_LINE, replay, require_journal, require_regular_file
from harness.journal._state import Damage, JournalDamagedError, ReplayState, TaskState
from harness.journal._writer import (
    JournalStorageError,
    JournalWriter,
    TornTailRepair,
    prepare_journal_folder,
)

__all__ = [
    "EVENTS",
    "JOURNAL_VERSION",
    "MAX_LINE",
    "TASK_EVENTS",
    "Damage",
    "EventNotSerializableError",
    "JournalDamagedError",
    "JournalInUseError",
    "JournalLock",
    "JournalStorageError",
    "JournalWriter",
    "ReplayState",
    "TaskState",
    "TornTailRepair",
    "encode_body",
    "encode_event",
    "prepare_journal_folder",
    "replay",
    "require_journal",
    "require_regular_file",
]
