"""Device profiles for the model and advisor tests: real fio outputs, so no test needs a disk."""

from __future__ import annotations

import pytest

from pagelab.machine.device_profile import DeviceProfile

FIO_FIXTURES = ("randread_qd1_4k.json", "randread_qd1_16k.json", "randread_qd1_64k.json")


@pytest.fixture(scope="session")
def fixture_profile(fixtures_dir) -> DeviceProfile:
    """The shared fixtures' QD1 direct random reads at 4k, 16k and 64k (fio 3.33 on a virtio disk)."""
    texts = [(fixtures_dir / "fio" / name).read_text() for name in FIO_FIXTURES]
    return DeviceProfile.from_fio_outputs(texts)
