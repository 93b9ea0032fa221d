"""Root conftest: hypothesis profiles and the marker of proofs_checks/.

Profiles: ``ci`` (default; derandomize=True so every run draws the same examples, no deadline) and
``explore`` (random, more examples): ``HYPOTHESIS_PROFILE=explore pytest``.
"""
import os
from pathlib import Path

# numba's OpenMP workers spin while waiting; on a 2-core machine shared with pytest that made 2-thread kernels
# up to 5x slower than one thread. Passive waiting must be set before numba starts its threading layer.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# no background warm-up started by `import fast` in the suite or its subprocesses (fast/_autowarm.py): the tests'
# timings are their own; tests/test_autowarm.py turns it on where it checks it
os.environ["PRIVLEARN_AUTO_WARMUP"] = "0"

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SHARED = Path(__file__).resolve().parent.parent / "shared"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "proofs_checks" in Path(str(item.fspath)).parts:
            item.add_marker(pytest.mark.proofs)


@pytest.fixture
def shared_data():
    """Path to ../shared/data; skips the test when the clone has no ../shared beside it."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip("../shared/data is absent (a user's clone has no ../shared); real-data test skipped")
    return path
