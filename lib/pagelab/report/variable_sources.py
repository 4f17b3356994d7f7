"""Where each server variable in the Appendix's table of those that differ from the server's defaults
got its value: pagelab's my.cnf, the server working it out at start from another setting, or the
server's own default that `mariadbd --no-defaults --help --verbose` prints otherwise.

Apart from appendix.py because these are facts about one server (MariaDB 10.11.19 as Debian 12
packages it), each checked on the project's VM, and change with the server, not with the report.
How each was checked (2026-11-29; `mariadbd --defaults-file=F --verbose --help` with one line of a
run's my.cnf left out at a time, and a server started with `--no-defaults` on an empty datadir
made by mariadb-install-db, with one setting changed at a time, read back with SHOW VARIABLES):

- datadir moves aria_log_dir_path and wsrep_data_home_dir; tmpdir moves slave_load_tmpdir; port
  moves server_uid and report_port; max_connections moves back_log (80 at 151, 90 at 200: 50 +
  max_connections / 5), host_cache_size (279, 328: 128 + max_connections) and thread_cache_size
  (151, 200).
- aria_checkpoint_interval and aria_recover_options: --help prints 0 and nothing with its default
  datadir, /var/lib/mysql (the packaged server's, which holds Aria's log), and 30 and BACKUP,QUICK
  with an empty or missing one, the values every run reported: the table's "Server default" for
  them is --help's, not the server's.
- innodb_io_capacity_max: 2000 at innodb_io_capacity 200, 3000 at 1500 (twice it, at least 2000);
  innodb_open_files: table_open_cache's (2000, and 500 at 500).
- innodb_log_write_ahead_size: 4096 with the redo log on the VM's disk (vda, physical block size
  4096) at 4k and 16k pages alike, 512 with it on a tmpfs (/dev/shm): the log's storage, not the
  page size; innodb_log_file_mmap: OFF on the disk, ON on the tmpfs.
- with nothing set the server reports ft_stopword_file (built-in), optimizer_trace enabled=off,
  innodb_log_group_home_dir and innodb_undo_directory ./, slave_parallel_mode optimistic (--help
  prints conservative), and optimizer_switch with three flags --help's list lacks
  (not_null_range_scan, hash_join_cardinality, cset_narrowing, all off).

pagelab starts the server with --defaults-file (pagelab.mysql.instance), so no other option file
is read: the package's own (Debian's /etc/mysql/mariadb.conf.d/50-server.cnf sets
character-set-server utf8mb4; the runs report latin1, the compiled default).
"""

from __future__ import annotations

import pandas as pd

SOURCE_COLUMN = "Where it comes from"
MY_CNF = "pagelab's my.cnf"
UNATTRIBUTED = "not set by pagelab; the server's or the package's"
HELP_DATADIR = ("its default, {value}; the Server default column is what --help prints with the packaged server's "
                "datadir, /var/lib/mysql, and with any other it prints {value}")

# variable: (the setting it follows, or None for the server's own default; how)
VARIABLE_SOURCES = {
    "aria_log_dir_path": ("datadir", "the data directory"),
    "wsrep_data_home_dir": ("datadir", "the data directory"),
    "slave_load_tmpdir": ("tmpdir", "the temporary directory"),
    "server_uid": ("port", "an id it works out from, among others, the port"),
    "report_port": ("port", "the port, when report_port is not set"),
    "back_log": ("max_connections", "50 + max_connections / 5"),
    "host_cache_size": ("max_connections", "128 + max_connections"),
    "thread_cache_size": ("max_connections", "as many as max_connections (151 at its default)"),
    "innodb_io_capacity_max": ("innodb_io_capacity", "twice it, at least 2000"),
    "innodb_open_files": ("table_open_cache", "the same number"),
    "innodb_log_write_ahead_size": (None, "set at start from the storage the redo log is on (4096 on this project's "
                                          "VM's disk, whose physical block size is 4096; 512 on a tmpfs), not from the "
                                          "page size: 4096 at 4k, 8k and 16k alike"),
    "innodb_log_file_mmap": (None, "set at start from where the redo log is: OFF on a disk, ON on a memory file "
                                   "system (/dev/shm)"),
    "innodb_buffer_pool_size_auto_min": (None, "innodb_buffer_pool_size_max's default, 8 TiB, when not set"),
    "innodb_log_group_home_dir": (None, "./, the data directory, when not set"),
    "innodb_undo_directory": (None, "./, the data directory, when not set"),
    "ft_stopword_file": (None, "(built-in), its own list of stopwords, when no file is set"),
    "optimizer_trace": (None, "enabled=off, which --help prints as nothing"),
    "optimizer_switch": (None, "the same flags; --help's list lacks three it reports, not_null_range_scan, "
                               "hash_join_cardinality and cset_narrowing, all off"),
    "slave_parallel_mode": (None, "optimistic with nothing set; --help prints conservative"),
    "aria_checkpoint_interval": (None, HELP_DATADIR.format(value="30")),
    "aria_recover_options": (None, HELP_DATADIR.format(value="BACKUP,QUICK")),
}


def value_source(name: str, set_here: set[str]) -> str:
    """Where variable `name`'s value came from, for the table's column: pagelab's my.cnf when it names
    it (`set_here`, appendix.my_cnf_names), else the server's working from VARIABLE_SOURCES (from
    my.cnf's setting, or from the setting's own default), else UNATTRIBUTED."""
    if name.lower() in set_here:
        return MY_CNF
    if name not in VARIABLE_SOURCES:
        return UNATTRIBUTED
    setting, how = VARIABLE_SOURCES[name]
    if setting is None:
        return f"the server's own: {how}"
    where = f"{MY_CNF}'s {setting}" if setting in set_here else f"{setting}, not set by pagelab"
    return f"the server, from {where}: {how}"


def with_sources(table: pd.DataFrame, set_here: set[str]) -> pd.DataFrame:
    """`table` (appendix.non_default_variables) with SOURCE_COLUMN, each row's value_source."""
    if table.empty:
        return table
    return table.assign(**{SOURCE_COLUMN: [value_source(name, set_here) for name in table["Variable"]]})
