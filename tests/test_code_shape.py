"""Code a reader can take in at once: no function of the library, the app included, is longer
than ``LIMIT`` lines unless its docstring says why (a line starting ``Long:``) or it is listed
in ``TO_SPLIT`` with the reason it is not split yet."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "suture"
LIMIT = 80
TO_SPLIT: dict[str, str] = {}
"""``file:name`` of each function longer than the limit still to be split into named steps, and
why it is not split yet. An entry that is split (or gone) fails the test below until removed."""


def long_functions(root: Path, limit: int) -> list[str]:
    """``file:name (lines)`` of each function under ``root`` longer than ``limit`` lines whose
    docstring gives no reason."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            doc = ast.get_docstring(node) or ""
            if lines > limit and not any(line.startswith("Long:") for line in doc.splitlines()):
                found.append(f"{relative}:{node.name} ({lines})")
    return found


def test_no_function_is_longer_than_the_limit_without_a_reason() -> None:
    found = [f for f in long_functions(PACKAGE, LIMIT) if f.split(" ")[0] not in TO_SPLIT]
    assert found == []


def test_the_list_to_split_holds_only_long_functions_each_with_a_reason() -> None:
    long = {f.split(" ")[0] for f in long_functions(PACKAGE, LIMIT)}
    assert [name for name in TO_SPLIT if name not in long] == []
    assert all(reason.strip() for reason in TO_SPLIT.values())


def test_the_app_is_measured_too() -> None:
    found = long_functions(PACKAGE, 0)
    assert any(f.startswith("tui/app.py:") for f in found)
    assert any(f.startswith("tui/rows.py:") for f in found)


def test_the_measure_finds_a_long_function_and_takes_a_reason(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    (tmp_path / "a.py").write_text(f"def long():\n{body}\n\ndef short():\n    return 1\n")
    (tmp_path / "b.py").write_text(
        f'def reasoned():\n    """One table.\n\n    Long: a table reads best whole."""\n{body}'
    )
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "c.py").write_text(f"def drawn():\n{body}")
    assert long_functions(tmp_path, LIMIT) == [f"a.py:long ({LIMIT + 1})", f"tui/c.py:drawn ({LIMIT + 1})"]


def test_no_test_module_imports_another() -> None:
    """What several test modules share lives in ``tests/helpers/`` (or ``tests/strategies.py``):
    importing a test module would collect its tests twice and tie the two together."""
    tests = Path(__file__).resolve().parent
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path.relative_to(tests)}: {n}" for n in names if n.split(".")[-1].startswith("test_")]
    assert found == []
