from __future__ import annotations

import pytest

from pagelab.mysql import Instance, ServerSettings

# Small pools keep several instances cheap on the 2-core, shared test machine.
TEST_SETTINGS = dict(buffer_pool_bytes="32M", redo_log_bytes="16M", max_connections=20)


@pytest.fixture
def make_instance(tmp_path):
    """Instance factory; every instance it made is stopped when the test ends, pass or fail."""
    made: list[Instance] = []

    def factory(page_size="16k", name=None, **kwargs):
        settings = kwargs.pop("settings", None) or ServerSettings(**TEST_SETTINGS)
        instance = Instance(tmp_path / (name or f"inst-{page_size}-{len(made)}"), page_size, settings=settings, **kwargs)
        made.append(instance)
        return instance

    yield factory
    for instance in made:
        instance.stop(timeout=30)
