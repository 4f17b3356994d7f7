"""A nineteenth fresh reader's gaps in a course report (the shipped course sweep,
tests/fixtures/captured/course-2026-11-29-shipped): the disk's read speed a bundle made before the
knob has not, what "90 s measured" after the ramp-up is, the variance components' notes the Method
left out, where "−0.25 without correlation" comes from, the device's read requests against InnoDB's,
and an over-time run numbered where a page size has one. Expected values are read from the fixture's
files or written here by hand, never computed by the code under test."""

from __future__ import annotations

import json

from tests.test_measured_figures import SHIPPED


def _shipped():
    from pagelab.report.lab_report import load

    return load(SHIPPED)


def _flat(text: str) -> str:
    return " ".join(text.split())


# --- 1. the disk's read speed of a bundle made before the knob --------------------------------------------------


def test_a_bundle_made_before_the_disk_knob_says_why_its_disk_was_not_measured_and_how_to_now():
    from pagelab.cli import advise
    from pagelab.report.appendix import knob_table
    from pagelab.report.setup_tables import system_setup_notes

    # the shipped bundle predates the knob: no record of it, and no host's disk record
    document = json.loads((SHIPPED / "sweep.json").read_text())
    assert "disk_profile" not in document["profile"] and not (SHIPPED / "hosts").exists()
    data = _shipped()
    text = system_setup_notes(data)
    assert ("so this report cannot say what kind of disk it is. The data disk's random reads were not measured: this "
            "sweep was made before pagelab measured them (the knob disk_profile, which sweeps made since take before "
            "their first run).") in text, text
    command = "pagelab advise --keys 1e9 --key-bytes 32 --device DIR"
    assert f"`{command}`, DIR a directory on the disk the runs used, measures them now" in text, text
    # the command it names is one pagelab takes, with those options
    import argparse

    parser = argparse.ArgumentParser()
    advise.register(parser.add_subparsers())
    parsed = parser.parse_args(command.split()[1:])
    assert (parsed.keys, parsed.key_bytes, parsed.device) == ("1e9", "32", "DIR")
    # the Appendix's knob table names the knob the bundle predates, not silently leaves it out
    values = dict(zip(*(knob_table(data)[column] for column in ("Knob", "Value"))))
    assert values["disk_profile"] == ("not recorded: this bundle predates the knob; its data disk's read speed was not "
                                      "measured, as the Setup says under Table 1"), values
