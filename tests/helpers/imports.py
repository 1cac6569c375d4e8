"""Which Textual modules a fresh interpreter has loaded after it runs some code."""

from __future__ import annotations

import subprocess
import sys

_PROBE = """
import sys
{body}
loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
sys.__stderr__.write("LOADED=" + ",".join(loaded) + "\\n")
"""


def probe(body: str) -> list[str]:
    """The Textual modules loaded once a fresh interpreter has run ``body``."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(body=body)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    marker = [line for line in proc.stderr.splitlines() if line.startswith("LOADED=")]
    assert marker, proc.stderr
    return [m for m in marker[-1].removeprefix("LOADED=").split(",") if m]
