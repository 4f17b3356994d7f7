"""The end of a sweep's lab report: the user's own notes, and the appendix (versions, the server
variables that differ from its defaults, the runs left out, the runs far below their page size's
others). Each function takes the report's
data (pagelab.report.lab_report.ReportData) or the bundle's directory and returns text or a table.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pandas as pd

if TYPE_CHECKING:  # for the annotations only; lab_report does not import this module
    from pagelab.report.lab_report import ReportData


def notes_markdown(sweep_dir: Path, notes_path: str | None = None) -> str | None:
    """The user's own notes: --notes FILE.md, else BUNDLE/notes.md; None when there are none."""
    path = Path(notes_path) if notes_path else Path(sweep_dir) / "notes.md"
    return path.read_text() if path.is_file() else None


def server_defaults(server: str = "mariadbd") -> dict[str, str]:
    """The server's compiled-in defaults (`--no-defaults --help --verbose`), by variable name."""
    from pagelab.mysql.variables import compiled_defaults

    return dict(compiled_defaults(server))


def _same(value: str, default: str) -> bool:
    """The server prints a default as --help does (TRUE, 100) and a value as SHOW VARIABLES does
    (ON, 100.000000): equal after that spelling is undone."""
    norm = {"TRUE": "ON", "FALSE": "OFF", "(No default value)": ""}
    default, value = norm.get(default, default), str(value)
    try:
        return float(default) == float(value)
    except ValueError:
        return default.upper() == value.upper()


def non_default_variables(data: ReportData) -> pd.DataFrame:
    """Server variables of the first finished run that differ from the server's defaults, each with
    where its value came from (variable_sources.with_sources)."""
    from pagelab.report.variable_sources import with_sources

    runs = [e for e in data.record.runs if e["status"] == "done"]
    if not runs:
        return pd.DataFrame()
    path = data.sweep_dir / runs[0]["name"] / "variables.csv"
    if not path.exists():
        return pd.DataFrame()
    variables = pd.read_csv(path, dtype=str, keep_default_na=False)
    defaults = server_defaults()
    rows = [{"Variable": row.variable_name, "Value": row.value, "Server default": defaults[row.variable_name]}
            for row in variables.itertuples() if row.variable_name in defaults
            and not _same(row.value, defaults[row.variable_name])]
    return with_sources(pd.DataFrame(rows), my_cnf_names(data))


def my_cnf_names(data: ReportData) -> set[str]:
    """The variables the first finished run's my.cnf sets (pagelab wrote it), in SHOW VARIABLES's
    spelling (dashes as underscores, lower case); empty without the file."""
    runs = [e for e in data.record.runs if e["status"] == "done"]
    path = data.sweep_dir / runs[0]["name"] / "my.cnf" if runs else None
    if path is None or not path.exists():
        return set()
    names = set()
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")):
            names.add(line.partition("=")[0].strip().replace("-", "_").lower())
    # a skip-NAME line turns NAME off; the server lists it under NAME
    return names | {name[len("skip_"):] for name in names if name.startswith("skip_")}


def unset_variables_markdown(data: ReportData, table: pd.DataFrame | None = None) -> str:
    """Under the non-default variables: those my.cnf does not set are the server's own values as it
    reported them (SHOW VARIABLES), not pagelab's; the "Server default" column is what `mariadbd
    --no-defaults --help --verbose` prints, before the server works some of them out at start. Then
    what each of them with a meaning in pagelab.report.labels.SERVER_SETTING_MEANINGS does."""
    from pagelab.report.labels import SERVER_SETTING_MEANINGS

    table = non_default_variables(data) if table is None else table
    set_here = my_cnf_names(data)
    if table.empty or not set_here:
        return ""
    unset = [name for name in table["Variable"] if name.lower() not in set_here]
    if not unset:
        return ""
    text = ("Not set by pagelab (my.cnf above does not name them): " + ", ".join(f"`{name}`" for name in unset)
            + ". Their values are the server's own as it reported them at run time (SHOW VARIABLES): its defaults, "
            "some worked out only when it starts, from the machine or from what my.cnf does set (a path under "
            "datadir); the \"Server default\" column is what `mariadbd --no-defaults --help --verbose` prints before "
            "that, so the two can differ with nothing set. The column \"Where it comes from\" says which, as checked "
            "on this project's VM with MariaDB 10.11.19. None comes from the package's option files (Debian's "
            "/etc/mysql/mariadb.conf.d/50-server.cnf): pagelab starts the server with `--defaults-file=` its my.cnf, "
            "which makes it read no other option file.")
    meant = [name for name in unset if name in SERVER_SETTING_MEANINGS]
    if meant:
        text += "\n\n" + "\n".join(f"- `{name}`: {SERVER_SETTING_MEANINGS[name]}." for name in meant)
    return text


def versions(data: ReportData) -> pd.DataFrame:
    machine = data.record.document["machine"]
    from pagelab.report.references import recorded_version

    rows = [("pagelab", recorded_version(machine)), *server_version_rows(data),
            ("Python", machine.get("python") or "—")]
    # pagelab's own package version is the first row's release; a second row of it would read as another pagelab
    rows += [(name, version) for name, version in sorted((machine.get("packages") or {}).items()) if name != "pagelab"]
    rows += [(name, version) for name, version in sorted((machine.get("tools") or {}).items())]
    return pd.DataFrame(rows, columns=["Component", "Version"])


def run_servers(data: ReportData) -> list[tuple[str, int, list[str]]]:
    """The server the runs measured, as each run recorded it (summary.json's `server`, the server's
    own VERSION()): each version with its runs' count and hosts; [] when no run recorded one. On
    Slurm this is what the nodes ran; sweep.json's machine record is the login node's."""
    frames = [data.tables["summary"]] + ([data.over_time["summary"]] if data.has_over_time_runs else [])
    summary = pd.concat([f for f in frames if not f.empty]) if any(not f.empty for f in frames) else frames[0]
    if summary.empty or "server" not in summary or summary["server"].dropna().empty:
        return []
    recorded = summary.dropna(subset=["server"])
    return [(str(version), len(runs),
             sorted(str(h) for h in runs["host"].dropna().unique()) if "host" in runs else [])
            for version, runs in recorded.groupby("server", sort=True)]


def server_version_rows(data: ReportData) -> list[tuple[str, str]]:
    """The server the runs measured (`run_servers`), one row per version and the hosts that ran it;
    then the server where the sweep was made (sweep.json's machine record). On Slurm the two differ:
    the sweep is made on the login node, and only the runs know what the nodes ran."""
    machine = data.record.document["machine"]
    where_made = ("Server where the sweep was made", (machine.get("server") or {}).get("version") or "—")
    servers = run_servers(data)
    if not servers:
        return [("Server, as the runs recorded it", "not recorded by these runs"), where_made]
    rows = []
    for version, count, names in servers:
        hosts = ", ".join(names) if len(names) <= 3 else f"{len(names)} hosts"  # a cell of a row, not a list
        rows.append((f"Server, {count} run{'s' if count != 1 else ''}" + (f" on {hosts}" if hosts else ""), version))
    return rows + [where_made]


def failed_runs(data: ReportData) -> pd.DataFrame:
    return pd.DataFrame([{"Run": name, "Why it is left out": why} for name, why in data.evidence.excluded])


def outliers_markdown(data: ReportData) -> str:
    """The runs whose TpmC stands far below their page size's others (a slow disk leaves one), each
    with what to look at, and why they are kept (or where the report says it); a sentence saying
    there are none otherwise (pagelab.evidence.outliers)."""
    from pagelab.evidence.outliers import OUTLIER_METHOD, outlier_lines

    from pagelab.report.self_check import KEPT_SENTENCE, SELF_CHECK_TITLE, says_why_kept

    lines = outlier_lines(data.evidence.runs)
    if not lines:
        return f"None ({OUTLIER_METHOD}, at 5%)."
    # said once in a report: where the self-check paragraph has said why, point to it
    why = (f"Why pagelab keeps every run, a flagged one too: see **{SELF_CHECK_TITLE}** under Throughput in the "
           "Results." if says_why_kept(data.evidence) else KEPT_SENTENCE)
    return "\n".join(f"- {line}" for line in lines) + f"\n\n{why}"


# Recorded in sweep.json's profile but not knobs: where the profile came from and its comment.
NOT_KNOBS = ("profile", "source", "description", "overrides")


def knob_table(data: ReportData, sets: Callable[[str], str] | None = None) -> pd.DataFrame:
    """Every knob the sweep ran with, as sweep.json recorded them (the profile and every --set), one row
    each; a knob holding several settings (server_options, response_limits) one row per setting, so no
    value is cut. A reader sees the whole configuration, not only what differs from a profile. With
    `sets` (a knob's name -> what it sets: pagelab.sweep.knobs.what_it_sets, which the notebook passes,
    since the sweep's knobs are a layer above the report), a "What it sets" column too."""
    rows = []
    for name, value in data.profile.items():
        if name in NOT_KNOBS:
            continue
        if isinstance(value, dict):
            rows += [(f"{name}: {key}", _knob_text(inner)) for key, inner in value.items()] or [(name, "none")]
        else:
            rows.append((name, _knob_text(value)))
    rows += _unrecorded_knobs(data)
    if sets is None:
        return pd.DataFrame(rows, columns=["Knob", "Value"])
    # what each knob sets, said once on its first row (a knob of several settings has several rows)
    said = set()
    table = []
    for knob, value in rows:
        name = knob.split(":")[0]
        table.append((knob, value, "" if name in said else sets(name)))
        said.add(name)
    return pd.DataFrame(table, columns=["Knob", "Value", "What it sets"])



# What a bundle made before each record knob lacks, for the knob table.
RECORD_KNOB_MISSING = {"disk_profile": "its data disk's read speed was not measured, as the Setup says under Table 1"}
# Knobs the analysis reads that a bundle made before them does not record: each given with the value
# the report used, so the table still says how this sweep's TpmC was weighed and planned.
ANALYSIS_KNOBS = ("block_weights", "planned_within_a", "planned_floor_pct")


def _unrecorded_knobs(data: ReportData) -> list[tuple[str, str]]:
    from pagelab.evidence.runs import weights_of
    from pagelab.report.lab_report import shipped_profile_values

    missing = [name for name in ANALYSIS_KNOBS if name not in data.profile]
    before = "not recorded: this bundle predates the knob"
    # a record knob (pagelab.sweep.knobs.RECORD_KNOBS) the bundle predates: listed, so a reader of the table
    # does not look for it in vain or take it for on; what it would have recorded the Setup says
    rows = [(name, f"{before}; {RECORD_KNOB_MISSING[name]}") for name in RECORD_KNOB_MISSING
            if name not in data.profile]
    if not missing:
        return rows
    if "block_weights" in missing:
        rows.append(("block_weights", f"{weights_of(data.evidence)} ({before}; the report weighed the blocks so)"))
    planned = [name for name in missing if name != "block_weights"]
    name = data.profile_name
    shipped = shipped_profile_values(str(name), planned) if planned else None
    for knob in planned:
        value = (shipped or {}).get(knob)
        rows.append((knob, f"{_knob_text(value)} ({before}; as this pagelab ships the {name} profile, which the "
                           "precision paragraph uses)" if value is not None else f"none ({before})"))
    return rows


def _knob_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_knob_text(v) for v in value) if value else "none"
    if value is None or value == "":
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def report_versions() -> pd.DataFrame:
    """The versions of the code that made this report (its verdicts, intervals and words), which may
    differ from the sweep's (the Versions table, as sweep.json recorded them): pagelab's own commit,
    Python, and the packages that compute or draw, statsmodels included."""
    import platform

    from pagelab.machine.system import KEY_PACKAGES, git_revision, package_versions, version_naming

    names = tuple(name for name in KEY_PACKAGES if name != "pagelab") + ("statsmodels",)
    rows = [("pagelab (this report)", version_naming(*git_revision())), ("Python", platform.python_version())]
    rows += [(name, version or "not installed") for name, version in sorted(package_versions(names).items())]
    return pd.DataFrame(rows, columns=["Component", "Version"])
