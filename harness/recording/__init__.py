"""Recordings of planner answers: provenance, response files and vcrpy cassettes.

The cassette machinery (``harness.recording._cassette``: vcrpy's glue, YAML, gzip, ssl) loads on
first use, so that replaying response files (every imported suite, ``pytest --planeval`` of
them) does not import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._lazy import lazy_attributes
from harness.recording._modes import RECORD_MODES
from harness.recording._provenance import SOURCES, Provenance, Source, prompt_hash
from harness.recording._response_file import RESPONSE_FORMAT, ResponseFile, response_file_path
from harness.recording._store import CassetteMeta, SamplePaths, read_meta, sample_paths, write_meta

if TYPE_CHECKING:
    from harness.recording._cassette import (
        FILTERED_REQUEST_HEADERS,
        FILTERED_RESPONSE_HEADERS,
        CassetteMiss,
        Interaction,
        cassette_transport,
        open_cassette,
        read_cassette,
        replay_response,
    )

_LAZY = {
    "_cassette": (
        "FILTERED_REQUEST_HEADERS",
        "FILTERED_RESPONSE_HEADERS",
        "CassetteMiss",
        "Interaction",
        "cassette_transport",
        "open_cassette",
        "read_cassette",
        "replay_response",
    ),
}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())

__all__ = [
    "FILTERED_REQUEST_HEADERS",
    "FILTERED_RESPONSE_HEADERS",
    "RECORD_MODES",
    "RESPONSE_FORMAT",
    "SOURCES",
    "CassetteMeta",
    "CassetteMiss",
    "Interaction",
    "Provenance",
    "ResponseFile",
    "SamplePaths",
    "Source",
    "cassette_transport",
    "open_cassette",
    "prompt_hash",
    "read_cassette",
    "read_meta",
    "replay_response",
    "response_file_path",
    "sample_paths",
    "write_meta",
]
