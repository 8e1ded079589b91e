"""Recordings of planner answers: provenance, response files and vcrpy cassettes."""

from harness.recording._provenance import SOURCES, Provenance, Source, prompt_hash
from harness.recording._response_file import (
    RESPONSE_FORMAT,
    ResponseFile,
    atomic_write_text,
    response_file_path,
)

__all__ = [
    "RESPONSE_FORMAT",
    "SOURCES",
    "Provenance",
    "ResponseFile",
    "Source",
    "atomic_write_text",
    "prompt_hash",
    "response_file_path",
]
