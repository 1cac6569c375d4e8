"""The core and the scripting commands never import Textual (fast start, a headless core).

Each check runs in a fresh interpreter and looks at ``sys.modules`` afterwards.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"

_PROBE = """
import sys
{body}
loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
sys.__stderr__.write("LOADED=" + ",".join(loaded) + "\\n")
"""


def probe(body: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(body=body)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    marker = [line for line in proc.stderr.splitlines() if line.startswith("LOADED=")]
    assert marker, proc.stderr
    return [m for m in marker[-1].removeprefix("LOADED=").split(",") if m]


@pytest.mark.parametrize(
    "modules",
    [
        "suture",
        "suture.repair",
        "suture.validity",
        "suture.model",
        "suture.io",
        "suture.show",
        "suture.written",
        "suture.formats",
        "suture.cli",
        "suture.sessions",
        "suture.scan",
        "suture.scan_cache",
        "suture.scan_pool",
        "suture.sent",
        "suture.sent.claude_code, suture.sent.codex, suture.sent.pi, suture.sent.recorded",
    ],
)
def test_importing_the_core_does_not_import_textual(modules: str) -> None:
    assert probe(f"import {modules}") == []


def test_every_format_adapter_loads_without_textual() -> None:
    assert probe("import suture.formats as f; assert f.adapters()") == []


def test_every_command_module_loads_without_textual() -> None:
    assert probe("from suture.cli import build_parser; build_parser()") == []


@pytest.mark.parametrize(
    "argv",
    [
        ["repair", str(WORKED)],
        ["repair", str(WORKED), "--report", "/dev/null", "-q"],
        ["check", str(WORKED)],
        ["formats"],
        ["repair", "/nonexistent.json"],
        ["scan", str(WORKED), "--no-cache", "-j", "1"],
        ["sent", str(ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl")],
        ["check", str(ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl")],
    ],
    ids=["repair", "repair-report", "check", "formats", "bad-input", "scan", "sent", "check-session"],
)
def test_running_a_scripting_command_does_not_import_textual(argv: list[str]) -> None:
    body = f"""
from suture.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
"""
    assert probe(body) == []
