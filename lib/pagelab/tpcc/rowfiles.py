"""Writes the TPC-C population's TSV files: one task per producer (`pagelab.tpcc.population`) and
warehouse, run in this process or in a pool of worker processes, every file counted and hashed as it
is written, with a progress bar per table.

Each file is ASCII, one row a line, ended by a newline. What the lines hold is the population's;
where the files go and what vouches for them is `pagelab.tpcc.datagen`'s.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import multiprocessing
import os
import queue
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.processes import die_with_parent
from pagelab.common.units import MIB
from pagelab.tpcc.population import PRODUCERS, Context, expected_row_counts

# Largest first, so two workers finish at about the same time.
_TASK_ORDER = ("stock", "orders", "customer", "item", "warehouse")


@dataclass(frozen=True)
class _Task:
    producer: str
    warehouse: int | None


@dataclass(frozen=True)
class DataFile:
    """One generated file: its table, warehouse (None for item), and what the manifest says."""

    table: str
    warehouse: int | None
    path: Path
    rows: int
    bytes: int
    sha256: str


def _file_name(table: str, warehouse: int | None) -> str:
    return f"{table}.tsv" if warehouse is None else f"{table}.w{warehouse}.tsv"


# Where a worker reports rows written: a queue in pool workers, a callback in-process.
_progress_sink: Callable[[str, int], None] | None = None


def _start_worker(progress_queue, parent: int) -> None:
    """A generator worker's initializer: it dies with the process that started it (a sweep killed
    with -9 would otherwise leave workers waiting for work forever), and reports progress."""
    die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:  # the parent was gone before the line above took effect
        os._exit(1)
    _set_progress_queue(progress_queue)


def _set_progress_queue(progress_queue) -> None:
    global _progress_sink
    _progress_sink = (
        None if progress_queue is None else (lambda table, rows: progress_queue.put((table, rows)))
    )


class _TableWriter:
    """Appends batches of lines to one TSV file, counting and hashing what it writes."""

    def __init__(self, directory: Path, table: str, warehouse: int | None):
        self.table = table
        self.warehouse = warehouse
        self.path = directory / _file_name(table, warehouse)
        self.rows = 0
        self.bytes = 0
        self._hash = hashlib.sha256()
        self._file = open(self.path, "wb", buffering=MIB)

    def write(self, lines: list[str]) -> None:
        if not lines:
            return
        data = ("\n".join(lines) + "\n").encode("ascii")
        self._file.write(data)
        self._hash.update(data)
        self.rows += len(lines)
        self.bytes += len(data)
        if _progress_sink is not None:
            _progress_sink(self.table, len(lines))

    def close(self) -> DataFile:
        self._file.close()
        return DataFile(self.table, self.warehouse, self.path, self.rows, self.bytes, self._hash.hexdigest())

    def abandon(self) -> None:
        self._file.close()


def _run_task(task: _Task, context: Context, directory: str) -> list[DataFile]:
    writers: dict[str, _TableWriter] = {}
    try:
        for table, lines in PRODUCERS[task.producer](context, task.warehouse):
            writer = writers.get(table)
            if writer is None:
                writer = writers[table] = _TableWriter(Path(directory), table, task.warehouse)
            writer.write(lines)
    except BaseException:
        for writer in writers.values():
            writer.abandon()
        raise
    return [writer.close() for writer in writers.values()]


def plan_tasks(warehouses: int) -> list[_Task]:
    """Every task of a W-warehouse population, largest first."""
    tasks = []
    for producer in _TASK_ORDER:
        if producer == "item":
            tasks.append(_Task("item", None))
        else:
            tasks.extend(_Task(producer, w) for w in range(1, warehouses + 1))
    return tasks


class _Progress:
    """One progress bar per table, in load order; a no-op when disabled."""

    def __init__(self, warehouses: int, enabled: bool):
        self.bars = {}
        if not enabled:
            return
        from pagelab.common.progress import progress_bar

        for position, (table, total) in enumerate(expected_row_counts(warehouses).items()):
            self.bars[table] = progress_bar(
                total,
                f"{table:<10}",
                " rows",
                unit_scale=total is None or total >= 1000,  # "1/1", not "1.00/1.00"
                position=position,
                leave=True,
            )

    def update(self, table: str, rows: int) -> None:
        bar = self.bars.get(table)
        if bar is not None:
            bar.update(rows)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def run_tasks(
    tasks: list[_Task], context: Context, staging: Path, workers: int, progress_enabled: bool
) -> list[DataFile]:
    """Run `tasks` into `staging`, in this process (workers <= 1) or in a pool; their files."""
    global _progress_sink
    warehouses = max((task.warehouse or 0) for task in tasks)
    if workers <= 1:
        progress = _Progress(warehouses, progress_enabled)
        _progress_sink = progress.update
        try:
            return [data_file for task in tasks for data_file in _run_task(task, context, str(staging))]
        finally:
            _progress_sink = None
            progress.close()

    mp_context = multiprocessing.get_context()
    progress_queue = mp_context.Queue() if progress_enabled else None
    results: list[DataFile] = []
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=mp_context,
        initializer=_start_worker,
        initargs=(progress_queue, os.getpid()),
    )
    progress = None
    try:
        pending = {pool.submit(_run_task, task, context, str(staging)) for task in tasks}
        # Bars (and tqdm's monitor thread) only once the workers exist: forking a process that
        # already runs threads is unsafe.
        progress = _Progress(warehouses, progress_enabled)

        def drain() -> None:
            while progress_queue is not None:
                try:
                    table, rows = progress_queue.get_nowait()
                except queue.Empty:
                    return
                progress.update(table, rows)

        while pending:
            done, pending = concurrent.futures.wait(
                pending, timeout=0.2, return_when=concurrent.futures.FIRST_COMPLETED
            )
            drain()
            for future in done:
                results.extend(future.result())
        drain()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if progress is not None:
            progress.close()
        if progress_queue is not None:
            progress_queue.close()
            progress_queue.join_thread()
    return results
