from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# No deadline for any property test: a time limit is a timing assertion, and a loaded machine
# (CI shares its cores) would fail a test that is correct. Speed is measured in bench/.
settings.register_profile("suture", deadline=None)
settings.load_profile("suture")

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"
REAL = SAMPLES / "real"


@pytest.fixture
def samples() -> Path:
    return SAMPLES
