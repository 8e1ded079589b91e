"""Recordings of planner answers: provenance, response files and vcrpy cassettes."""

from harness.recording._cassette import (
    FILTERED_REQUEST_HEADERS,
    FILTERED_RESPONSE_HEADERS,
    RECORD_MODES,
    CassetteMiss,
    Interaction,
    cassette_transport,
    open_cassette,
    read_cassette,
    replay_response,
)
from harness.recording._provenance import SOURCES, Provenance, Source, prompt_hash
from harness.recording._response_file import RESPONSE_FORMAT, ResponseFile, response_file_path
from harness.recording._store import CassetteMeta, SamplePaths, read_meta, sample_paths, write_meta

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
