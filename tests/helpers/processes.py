"""Whether a process the tests started has ended."""

from __future__ import annotations

from pathlib import Path


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (reaped, or a zombie that someone else must reap)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")
