"""sweep.json under concurrent writers: units on several nodes each change their own entry of one
file, and no change may be lost (each rewrite re-reads the file under its lock)."""

from __future__ import annotations

import json
import multiprocessing

from pagelab.bundle import SweepRecord

UPDATES = 40  # enough interleaved rewrites that an unlocked read-modify-write loses some


def _writer(sweep_dir: str, name: str) -> None:
    record = SweepRecord.load(sweep_dir)  # loaded once, as a unit does, then stale as others write
    for count in range(1, UPDATES + 1):
        record.update_run(name, status="running", writes=count)


def test_concurrent_writers_lose_no_update(tmp_path):
    from pagelab.sweep import orchestrator as sweep
    from pagelab.sweep.profiles import load_profile

    bundle = sweep.create_sweep(load_profile("smoke", ["repeats=2"]), tmp_path / "busy", "smoke")
    names = [entry["name"] for entry in SweepRecord.load(bundle).runs]
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_writer, args=(str(bundle), name)) for name in names]
    for writer in writers:
        writer.start()
    record = SweepRecord.load(bundle)
    record.update_document(report={"written": "meanwhile"})  # a document-level change at the same time
    for writer in writers:
        writer.join(timeout=120)
    assert [writer.exitcode for writer in writers] == [0] * len(names)
    document = json.loads((bundle / "sweep.json").read_text())
    assert {entry["name"]: entry.get("writes") for entry in document["runs"]} == {name: UPDATES for name in names}
    assert document["report"] == {"written": "meanwhile"}
