"""The TPC-C initial population as a cached dataset: generated once per (warehouses, seed), checked
against its manifest whenever it is opened.

``generate(warehouses, seed)`` writes one tab-separated file per table and warehouse into a cache
directory and returns a `Dataset`. The same (warehouses, seed) gives byte-identical files on any
machine, so every page size in a sweep is loaded with exactly the same rows. What the rows hold is
`pagelab.tpcc.population`; how the files are written, in parallel, is `pagelab.tpcc.rowfiles`.

A suitable statement to load a file (the manifest's "tsv" entry spells the format out)::

    LOAD DATA LOCAL INFILE '<file>' INTO TABLE <table> CHARACTER SET ascii
        FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' (<COLUMNS[table]>)

Cache layout::

    <cache_dir>/tpcc-w<W>-s<seed>/
        manifest.json             written last; its presence means the directory is complete
        item.tsv
        <table>.w<N>.tsv          one per per-warehouse table and warehouse N = 1..W

A generation writes into a hidden staging directory next to it, writes the manifest there, and
only then renames the directory into place, so an interrupted run never looks finished.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pagelab.common.atomic import atomic_write_json
from pagelab.common.paths import CACHE_DIR
from pagelab.common.processes import process_alive
from pagelab.common.errors import PagelabError, UsageError
from pagelab.tpcc import schema
from pagelab.tpcc.random_primitives import NURandConstants, load_constants, run_constants
from pagelab.tpcc.rowfiles import DataFile, plan_tasks, run_tasks
from pagelab.tpcc.population import GENERATOR_VERSION, NULL, Context, load_timestamp

__all__ = [
    "MANIFEST_NAME",
    "Dataset",
    "IncompleteDatasetError",
    "dataset_dir",
    "generate",
]

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = "pagelab.tpcc.dataset"


class IncompleteDatasetError(PagelabError):
    """A dataset directory that is missing its manifest, or whose files do not match it."""


def dataset_dir(cache_dir: Path | str, warehouses: int, seed: int) -> Path:
    """Where `generate` keeps the dataset for (warehouses, seed)."""
    return Path(cache_dir) / f"tpcc-w{warehouses}-s{seed}"


def _sort_key(data_file: DataFile) -> tuple[int, int]:
    return schema.TABLES.index(data_file.table), data_file.warehouse or 0


@dataclass(frozen=True)
class Dataset:
    """A complete generated population: where its files are, how many rows, which constants.

    `files` maps every table (in load order) to its files, warehouse 1 first; `row_counts` gives
    the total rows per table; `constants` are the NURand constants the load used (C-Load).
    """

    directory: Path
    warehouses: int
    seed: int
    constants: NURandConstants
    load_timestamp: str
    data_files: tuple[DataFile, ...]
    manifest: dict = field(repr=False, compare=False)

    @property
    def files(self) -> dict[str, list[Path]]:
        files: dict[str, list[Path]] = {table: [] for table in schema.TABLES}
        for data_file in self.data_files:
            files[data_file.table].append(data_file.path)
        return files

    @property
    def row_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(schema.TABLES, 0)
        for data_file in self.data_files:
            counts[data_file.table] += data_file.rows
        return counts

    @property
    def run_constants(self) -> NURandConstants:
        """The NURand constants for the measurement run (C_LAST satisfies clause 2.1.6.1)."""
        return run_constants(self.constants, self.seed)

    @property
    def bytes(self) -> int:
        return sum(data_file.bytes for data_file in self.data_files)

    def files_for(self, table: str, warehouse: int | None = None) -> list[Path]:
        """The files of one table, or of one table and warehouse."""
        if table not in schema.TABLES:
            raise UsageError(f"unknown TPC-C table {table!r}; the tables are {', '.join(schema.TABLES)}")
        return [
            data_file.path
            for data_file in self.data_files
            if data_file.table == table and (warehouse is None or data_file.warehouse == warehouse)
        ]

    @classmethod
    def open(cls, directory: Path | str, check: str = "size") -> Dataset:
        """Open a generated dataset, checking its files against the manifest.

        `check`: "size" (every file present with its recorded size; fast) or "sha256" (reads every
        byte). Raises IncompleteDatasetError when the directory is not a complete dataset.
        """
        if check not in ("size", "sha256"):
            raise UsageError(f"check must be 'size' or 'sha256', got {check!r}")
        directory = Path(directory)
        manifest_path = directory / MANIFEST_NAME
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise IncompleteDatasetError(
                f"{directory} has no {MANIFEST_NAME}: its generation did not finish; "
                "run the generation again (it replaces the directory)"
            ) from None
        except (OSError, ValueError) as error:
            raise IncompleteDatasetError(
                f"{manifest_path} is unreadable ({error}); regenerate the dataset"
            ) from None
        if (
            not isinstance(manifest, dict)
            or manifest.get("format") != MANIFEST_FORMAT
            or manifest.get("generator_version") != GENERATOR_VERSION
        ):
            version = manifest.get("generator_version") if isinstance(manifest, dict) else None
            raise IncompleteDatasetError(
                f"{directory} was written by generator version {version!r}, "
                f"this is version {GENERATOR_VERSION}; regenerate the dataset"
            )
        try:
            data_files = [_checked_data_file(directory, entry, check) for entry in manifest["files"]]
            return cls(
                directory=directory,
                warehouses=manifest["warehouses"],
                seed=manifest["seed"],
                constants=NURandConstants.from_dict(manifest["nurand_load"]),
                load_timestamp=manifest["load_timestamp"],
                data_files=tuple(data_files),
                manifest=manifest,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise IncompleteDatasetError(
                f"{manifest_path} is malformed ({error!r}); regenerate the dataset"
            ) from None

    def verify(self) -> None:
        """Re-hash every file against the manifest; raises IncompleteDatasetError on a mismatch."""
        Dataset.open(self.directory, check="sha256")


def _checked_data_file(directory: Path, entry: dict, check: str) -> DataFile:
    """The manifest's record of one file, after checking the file against it."""
    path = directory / entry["name"]
    data_file = DataFile(
        entry["table"], entry["warehouse"], path, entry["rows"], entry["bytes"], entry["sha256"]
    )
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise IncompleteDatasetError(
            f"{path} is listed in the manifest but missing; regenerate the dataset"
        ) from None
    if size != data_file.bytes:
        raise IncompleteDatasetError(
            f"{path} has {size} bytes, the manifest says {data_file.bytes}; regenerate the dataset"
        )
    if check == "sha256" and _sha256_of(path) != data_file.sha256:
        raise IncompleteDatasetError(
            f"{path} does not match its sha256 in the manifest; regenerate the dataset"
        )
    return data_file


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def _manifest(
    warehouses: int,
    seed: int,
    context: Context,
    constants: NURandConstants,
    data_files: list[DataFile],
    seconds: float,
) -> dict:
    row_counts = dict.fromkeys(schema.TABLES, 0)
    for data_file in data_files:
        row_counts[data_file.table] += data_file.rows
    return {
        "format": MANIFEST_FORMAT,
        "generator_version": GENERATOR_VERSION,
        "warehouses": warehouses,
        "seed": seed,
        "load_timestamp": context.timestamp,
        "nurand_load": constants.to_dict(),
        "nurand_run": run_constants(constants, seed).to_dict(),
        "row_counts": row_counts,
        "total_bytes": sum(data_file.bytes for data_file in data_files),
        "files": [
            {
                "table": data_file.table,
                "warehouse": data_file.warehouse,
                "name": data_file.path.name,
                "rows": data_file.rows,
                "bytes": data_file.bytes,
                "sha256": data_file.sha256,
            }
            for data_file in data_files
        ],
        "tsv": {
            "fields_terminated_by": "\t",
            "lines_terminated_by": "\n",
            "escaped_by": "\\",
            "null": NULL,
            "encoding": "ascii",
            "columns": schema.COLUMNS,
        },
        "seconds": round(seconds, 3),
        "python": sys.version.split()[0],
    }


def _remove_abandoned_staging(cache_dir: Path, name: str) -> None:
    """Remove staging directories of generations whose process is gone (killed, crashed)."""
    for candidate in cache_dir.glob(f".{name}.partial-*"):
        pid_text = candidate.name.rsplit(".partial-", 1)[1].split("-", 1)[0]
        if pid_text.isdigit() and not process_alive(int(pid_text)):
            shutil.rmtree(candidate, ignore_errors=True)


def _open_if_complete(directory: Path, warehouses: int, seed: int) -> Dataset | None:
    if not directory.exists():
        return None
    try:
        dataset = Dataset.open(directory)
    except IncompleteDatasetError:
        return None
    if dataset.warehouses != warehouses or dataset.seed != seed:
        return None
    return dataset


def _publish(staging: Path, final: Path, warehouses: int, seed: int) -> None:
    """Rename the finished staging directory into place (an atomic rename on one filesystem)."""
    if final.exists():
        if _open_if_complete(final, warehouses, seed) is not None:
            # Another process finished the same dataset first; its files are identical to ours.
            shutil.rmtree(staging, ignore_errors=True)
            return
        # An incomplete or outdated directory: move it aside first so the rename cannot fail.
        condemned = final.with_name(f".{final.name}.stale-{os.getpid()}-{secrets.token_hex(4)}")
        os.rename(final, condemned)
        shutil.rmtree(condemned, ignore_errors=True)
    os.rename(staging, final)


def generate(
    warehouses: int,
    seed: int,
    cache_dir: Path | str = CACHE_DIR,
    progress: bool = True,
    workers: int | None = None,
) -> Dataset:
    """The TPC-C population for `warehouses` and `seed`, generated or taken from the cache.

    A complete dataset already in `cache_dir` (manifest present, files of the recorded sizes) is
    reused as it is. Otherwise the files are generated by up to `workers` processes (default: one
    per CPU; 1 generates in this process), with a tqdm bar per table when `progress` is true.
    """
    if isinstance(warehouses, bool) or not isinstance(warehouses, int) or warehouses < 1:
        raise UsageError(f"warehouses must be a whole number of at least 1, got {warehouses!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"seed must be a whole number of at least 0, got {seed!r}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise UsageError(f"workers must be at least 1, got {workers!r}")

    cache_dir = Path(cache_dir)
    final = dataset_dir(cache_dir, warehouses, seed)
    cached = _open_if_complete(final, warehouses, seed)
    if cached is not None:
        return cached

    cache_dir.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_staging(cache_dir, final.name)
    staging = cache_dir / f".{final.name}.partial-{os.getpid()}-{secrets.token_hex(4)}"
    staging.mkdir()
    try:
        started = time.perf_counter()
        constants = load_constants(seed)
        context = Context(seed=seed, timestamp=load_timestamp(seed), c_last_load=constants.c_last)
        tasks = plan_tasks(warehouses)
        worker_count = min(workers or os.cpu_count() or 1, len(tasks))
        data_files = sorted(run_tasks(tasks, context, staging, worker_count, progress), key=_sort_key)
        seconds = time.perf_counter() - started
        # The manifest goes last: until it exists, nothing here counts as a dataset.
        atomic_write_json(
            staging / MANIFEST_NAME, _manifest(warehouses, seed, context, constants, data_files, seconds)
        )
        _publish(staging, final, warehouses, seed)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Dataset.open(final)
