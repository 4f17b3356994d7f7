"""A real MariaDB instance with one TPC-C warehouse loaded, shared by the tests in this folder."""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from tests.conftest import loaded_instance, restored_instance

SETTINGS = dict(buffer_pool_bytes="64M", redo_log_bytes="64M", max_connections=50)

# summary.json's keys, the same for every driver mode; written out here, not taken from the code
# that writes them, so that a key lost or renamed in one mode fails the test.
SUMMARY_KEYS = {
    "tpmc", "page_size_bytes", "buffer_pool_bytes", "server", "db_bytes", "warehouses", "connections",
    "rampup_s", "measure_s", "rampup", "measurement", "interval_s", "seed", "nurand_model", "driver",
    "driver_mode", "spec_pacing", "response_limits_ms", "nurand_run_constants", "load_info",
    "rampup_transactions", "transactions", "new_order_rollbacks", "started_at", "measurement_started_at",
    "parse_warnings", "transport",
}


@pytest.fixture(scope="session")
def dataset(tpcc_dataset):
    return tpcc_dataset


@pytest.fixture(scope="session")
def loaded(tmp_path_factory, dataset):
    """(instance, load report, snapshot path): running, with warehouse 1 loaded from seed 7."""
    with loaded_instance(tmp_path_factory.mktemp("tpcc") / "4k", "4k", SETTINGS, dataset) as state:
        yield state


@pytest.fixture
def spare_loaded_instance(tmp_path, loaded):
    """A second instance restored from the loaded snapshot, for tests that break their server."""
    with restored_instance(tmp_path / "spare", "4k", SETTINGS, loaded[2]) as instance:
        yield instance


def stand_in_directory(fixtures_dir: Path) -> tuple[Path, Path, str]:
    """A directory for tpcc_load/tpcc_start stand-ins: any user may enter it (under root the
    programs run as `nobody`), with an `outbox` any user may write and a real captured tpcc_start
    log to replay. Returns (directory, outbox, the mariadb client's path); the caller removes it."""
    real_log = fixtures_dir / "mariadb-10.11" / "4k-w1-c4" / "tpcc_start.log"
    bin_dir = Path(tempfile.mkdtemp(prefix="pagelab-stand-in-"))
    bin_dir.chmod(0o755)
    outbox = bin_dir / "outbox"
    outbox.mkdir()
    outbox.chmod(0o777)
    shutil.copy(real_log, bin_dir / "tpcc_start.log")
    (bin_dir / "tpcc_start.log").chmod(0o644)
    return bin_dir, outbox, shutil.which("mariadb")


class BackgroundWatch:
    """A check that runs over and over in a thread of its own while a `with` block runs
    (`_watch`, which returns once `_stop` is set): what two tests watch while a driver runs."""

    def __init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=10)
