"""Files written whole or not at all: the one way pagelab writes a file that something reads back.

A reader (a resume, the sweep's progress bar, a report, a second process) must never see half a
file, and a crash must never leave one under the real name. So every writer here writes a
temporary file in the same directory (same filesystem, so the rename is atomic), flushes and
fsyncs it, and renames it over the target. The temporary name starts with a dot and carries the
process and thread, so concurrent writers never share one; a failed write removes it.

    atomic_write_text(path, text)
    atomic_write_json(path, document)          indent 2, a final newline, str() for other types
    atomic_write_csv(path, rows, columns)      rows as dicts (None -> empty cell) or as lists
    atomic_write_bytes(path, data)
    leftover_temporaries(directory)            what a killed writer, or a rename a failing disk lost, left

A file that holds a secret passes `mode=0o600`: its temporary file is created with that mode, so
the text is never readable by others, not even before the rename.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pagelab.common.storage import naming


def _temporary_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")


_TEMPORARY = re.compile(r"\..+\.tmp-\d+-\d+")


def leftover_temporaries(directory: str | os.PathLike) -> list[Path]:
    """The temporary files of these writers left under `directory`: by a writer killed between
    its write and its rename, or by a disk that failed after the write was flushed and before the
    rename reached it (ext4 turned read-only drops what its journal had not committed)."""
    return [path for path in Path(directory).rglob(".*.tmp-*") if _TEMPORARY.fullmatch(path.name) and path.is_file()]


def json_digest(document: Any) -> str:
    """One SHA-256 of a JSON document, keys sorted: the checksum a record written here carries of
    itself (a snapshot's marker, a kept load's record) and a sweep's fingerprint of its knobs."""
    import hashlib

    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()


def atomic_write_bytes(path: str | os.PathLike, data: bytes, mode: int = 0o666) -> Path:
    path = Path(path)
    temporary = _temporary_name(path)
    try:
        temporary.unlink(missing_ok=True)  # one a killed writer of this pid left: made anew, with `mode`
        with naming(path), os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):  # a disk turned read-only: the error that matters is the first
            temporary.unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str, mode: int = 0o666) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_json(path: str | os.PathLike, document: Any) -> Path:
    return atomic_write_text(path, json.dumps(document, indent=2, default=str) + "\n")


def atomic_write_csv(path: str | os.PathLike, rows: Iterable[dict[str, Any]] | Iterable[Sequence[Any]],
                     columns: Sequence[str] | None = None, line_end: str = "\r\n") -> Path:
    """Dict rows under `columns` (a missing or None value is an empty cell), or, with `columns`
    None, list rows written as they are (the first row being the header, if any). Lines end as
    the csv module ends them unless `line_end` says otherwise."""
    buffer = io.StringIO()
    if columns is None:
        csv.writer(buffer, lineterminator=line_end).writerows(rows)
    else:
        writer = csv.writer(buffer, lineterminator=line_end)
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if row.get(name) is None else row.get(name) for name in columns])
    return atomic_write_text(path, buffer.getvalue())
