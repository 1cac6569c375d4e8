"""The core and the scripting commands never import Textual (fast start, a headless core).

Two kinds of check: the source of every core module, read as written (an import inside a function
counts too, whether or not a run reaches it), and fresh interpreters that import or run something
and look at ``sys.modules`` afterwards.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.imports import probe

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"
PACKAGE = ROOT / "src" / "suture"

# What may show things on a screen: the app, the commands that start it, the browser front end.
# Every other module of suture is core, a module added later included.
NOT_CORE = ("suture.tui", "suture.cli", "suture.web", "suture.__main__")
FORBIDDEN = ("textual", "suture.tui")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _package_of(path: Path) -> str:
    name = _module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports_of(path: Path, package: str) -> set[str]:
    """Every module the source file of a module of ``package`` names in an import statement,
    anywhere in it (relative imports resolved; ``from a import b`` counts ``a`` and ``a.b``,
    which may be a module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def core_modules() -> dict[str, Path]:
    found = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: path for name, path in sorted(found.items()) if not _within(name, NOT_CORE)}


def forbidden_chain(start: str) -> list[str] | None:
    """The chain of imports by which ``start`` reaches Textual or the app, following suture's own
    modules (a module reached imports its packages' ``__init__`` too), or ``None``."""
    every = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    seen = {start}
    queue = [[start]]
    while queue:
        chain = queue.pop(0)
        path = every[chain[-1]]
        for name in sorted(imports_of(path, _package_of(path))):
            if _within(name, FORBIDDEN):
                return [*chain, name]
            parts = name.split(".")
            for k in range(1, len(parts) + 1):
                step = ".".join(parts[:k])
                if step in every and step not in seen:
                    seen.add(step)
                    queue.append([*chain, step])
    return None


def test_the_core_is_every_module_but_the_app_and_its_front_ends() -> None:
    core = core_modules()
    for name in ("suture.model", "suture.repair", "suture.checks.anthropic", "suture.live", "suture.tail"):
        assert name in core
    assert not [name for name in core if _within(name, NOT_CORE)]


@pytest.mark.parametrize("module", sorted(core_modules()))
def test_no_core_module_imports_textual_or_the_app_even_indirectly(module: str) -> None:
    assert forbidden_chain(module) is None


def test_the_source_check_finds_an_import_of_the_app(tmp_path: Path) -> None:
    # The check itself can fail: an import of the app inside a function is found.
    source = tmp_path / "x.py"
    source.write_text("def f():\n    from suture.tui.app import SutureApp\n    from ..tui import rows\n")
    assert {"suture.tui.app", "suture.tui.rows"} <= imports_of(source, "suture.formats")
    chain = forbidden_chain("suture.cli.view")
    assert chain is not None and chain[0] == "suture.cli.view" and _within(chain[-1], FORBIDDEN)


@pytest.mark.parametrize(
    "modules",
    [
        "suture",
        "suture.repair",
        "suture.validity",
        "suture.model",
        "suture.io",
        "suture.live",
        "suture.tail",
        "suture.checks",
        "suture.codec",
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


# -- the app's first screen loads only what it draws -------------------------------------------

# What opening a file in the app leaves for later: the screens a key opens, the provider checks,
# what they use and what words their verdicts (they start once the first frame is drawn), the
# request an agent sends, the write-back of sessions, the scans and the sessions browser, the
# browser front end; and the command line's parser.
NOT_FOR_THE_FIRST_SCREEN = (
    "suture.checks",
    "suture.sent",
    "suture.writeback",
    "suture.scan",
    "suture.scan_cache",
    "suture.scan_pool",
    "suture.sessions",
    "suture.web",
    "suture.written",
    "suture.cli.check",
    "suture.cli.repair",
    "suture.cli.scan",
    "suture.cli.sessions",
    "suture.tui.sessions",
    "suture.tui.details",
    "suture.tui.screens",
    "suture.tui.explain",
    "suture.tui.evidence",
    "suture.tui.judged",
    "suture.tui.scrolling",
    "textual.widgets._text_area",
    "argparse",
    "gettext",
    "suture.cli._parser",
)

# The command line as a person runs it (``suture FILE``), the app run headless in place of the
# terminal; the modules loaded when the first frame is written out, and when the first frame
# with rows is.
_FIRST_SCREEN = """
import asyncio, sys
from textual.app import App
from suture.tui.app import SutureApp
from suture.tui.view import TranscriptView

seen = {{}}
display, draw = App._display, TranscriptView._draw

def spy_draw(self, *args):
    seen.setdefault("drawn", True)
    return draw(self, *args)

def spy_display(self, screen, update):
    result = display(self, screen, update)
    seen.setdefault("first", sorted(sys.modules))
    if "drawn" in seen:
        seen.setdefault("rows", sorted(sys.modules))
    return result

def run(self, *, loop, **kwargs):
    async def first_screen():
        async with self.run_test(size=(160, 45)):
            for _ in range(3000):
                if "rows" in seen:
                    return
                await asyncio.sleep(0.01)
    loop.run_until_complete(first_screen())

App._display, TranscriptView._draw, SutureApp.run = spy_display, spy_draw, run
import suture.cli.view
suture.cli.view.need_terminal = lambda: None  # (run headless here, with no terminal)
from suture.cli import main
main([{path!r}])
for name in ("first", "rows"):
    sys.__stderr__.write(name.upper() + "=" + ",".join(seen.get(name, ["(never)"])) + "\\n")
"""


def first_screen_modules(path: Path) -> dict[str, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", _FIRST_SCREEN.format(path=str(path))], capture_output=True, text=True, timeout=120
    )
    found = {}
    for line in proc.stderr.splitlines():
        name, _, value = line.partition("=")
        if name in ("FIRST", "ROWS"):
            found[name.lower()] = value.split(",")
    assert set(found) == {"first", "rows"}, proc.stderr
    assert found["rows"] != ["(never)"], proc.stderr
    return found


def _large_session(tmp_path: Path) -> Path:
    """A chat JSONL larger than the first piece the app reads, so it is read in pieces."""
    import orjson

    import suture.tail

    path = tmp_path / "large.jsonl"
    lines = []
    for i in range(suture.tail.FIRST_PIECE // 100):
        lines.append(orjson.dumps({"role": "user", "content": f"question {i} " * 10}))
        lines.append(orjson.dumps({"role": "assistant", "content": f"answer {i} " * 10}))
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert path.stat().st_size > suture.tail.FIRST_PIECE
    return path


def _loaded_early(found: list[str], but: tuple[str, ...] = ()) -> list[str]:
    return sorted(m for m in found if _within(m, NOT_FOR_THE_FIRST_SCREEN) and not _within(m, but))


def test_the_first_screen_of_a_large_file_loads_only_what_it_shows(tmp_path: Path) -> None:
    found = first_screen_modules(_large_session(tmp_path))
    assert "suture.tui.app" in found["rows"] and "suture.repair" in found["rows"]  # the probe sees
    assert _loaded_early(found["rows"]) == []
    # The file's watcher is set up once a first frame is out.
    assert not [m for m in found["first"] if _within(m, ("watchfiles",))]


def test_the_first_screen_of_a_small_file_loads_only_what_it_shows() -> None:
    # A file read at once shows its banner with its first rows: the banner names the agent
    # (suture.sent, without the checks) and words the records not sent with the module of the
    # screen that lists them, which loads the screens.
    found = first_screen_modules(WORKED)
    loaded_with_the_banner = ("suture.sent", "suture.tui.evidence", "suture.tui.screens", "suture.tui.scrolling")
    assert _loaded_early(found["rows"], but=loaded_with_the_banner) == []
    assert not [m for m in found["first"] if _within(m, ("watchfiles",))]


def test_the_first_screen_probe_sees_a_module_loaded_early() -> None:
    # The check itself can fail: a first screen that loads the provider checks is caught.
    body = "import suture.checks\n" + _FIRST_SCREEN.format(path=str(WORKED))
    proc = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, timeout=120)
    rows = next(line for line in proc.stderr.splitlines() if line.startswith("ROWS="))
    assert "suture.checks" in _loaded_early(rows.removeprefix("ROWS=").split(","))


def test_a_deferred_name_imports_its_module_when_first_used() -> None:
    body = """
import sys
from suture._deferred import deferred
to_hsv = deferred("colorsys", "rgb_to_hsv")
months = deferred("calendar", "Calendar")
before = "colorsys" in sys.modules, "calendar" in sys.modules
said = to_hsv(1.0, 0.0, 0.0)
first = months.__name__
sys.__stderr__.write(f"RESULT={before},{said},{'colorsys' in sys.modules},{'calendar' in sys.modules},{first}\\n")
"""
    proc = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, timeout=60)
    result = next((line for line in proc.stderr.splitlines() if line.startswith("RESULT=")), proc.stderr)
    assert result == "RESULT=(False, False),(0.0, 1.0, 1.0),True,True,Calendar"
