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


def test_a_stop_after_the_done_write_leaves_the_file_the_truth(tmp_path, monkeypatch):
    """A stop (the signal handler's KeyboardInterrupt) that lands after update_run has written 'done'
    and before it copied the runs into the record leaves the record stale: the sweep's interrupt
    handler asks recorded_status, sweep.json's word, so it does not re-mark a finished run
    interrupted (the fault matrix once saw exactly that)."""
    import pytest

    from pagelab import bundle as bundle_module
    from pagelab.sweep import orchestrator as sweep
    from pagelab.sweep.profiles import load_profile

    bundle = sweep.create_sweep(load_profile("smoke", ["repeats=1"]), tmp_path / "stop", "smoke")
    record = SweepRecord.load(bundle)
    name = record.runs[0]["name"]
    write = bundle_module.atomic_write_json

    def write_then_stop(path, document):
        write(path, document)
        if any(entry["status"] == "done" for entry in document.get("runs", [])):
            raise KeyboardInterrupt("signal 2")

    monkeypatch.setattr(bundle_module, "atomic_write_json", write_then_stop)
    with pytest.raises(KeyboardInterrupt):
        record.update_run(name, status="done")
    assert record.run(name)["status"] != "done"  # the stale copy the handler used to ask
    assert record.recorded_status(name) == "done"
    assert json.loads((bundle / "sweep.json").read_text())["runs"][0]["status"] == "done"
