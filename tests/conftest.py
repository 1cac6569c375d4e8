from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"
REAL = SAMPLES / "real"


@pytest.fixture
def samples() -> Path:
    return SAMPLES
