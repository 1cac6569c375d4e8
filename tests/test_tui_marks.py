"""The problems list's marks mean one thing in every list: ✓ a problem suture's repair fixes, ✗ one
it does not fix, ⟲ what the agent repairs itself; and the help says so."""

from __future__ import annotations

from pathlib import Path

from rich.style import Style

from suture.tui.app import SutureApp
from suture.tui.changes import ProblemList
from suture.tui.judged import BEFORE, SENT, Finding
from tests.helpers.app import SIZE, WORKED, app_on_copy, help_text, settled

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328" / "text-before-result" / "session.jsonl"


def _marks(problems: ProblemList, kind: str) -> list[tuple[str, Finding]]:
    """The mark each item of ``kind`` is drawn with (the word after its number), and the item."""
    found = []
    for k, item in enumerate(problems.items):
        if isinstance(item, Finding) and item.kind == kind:
            found.append((problems._draw(k, 300, Style()).text.split()[2], item))
    return found


async def test_a_problem_in_what_the_agent_sends_that_the_repair_fixes_is_marked_fixed(tmp_path: Path) -> None:
    """The header says "→ 0 after repair" of the session: its list marks the problem ✓, not ✗."""
    app = app_on_copy(SESSION, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        judged = app.verdicts["anthropic"] if app.verdicts else None
        assert judged is not None and judged.sent is not None and judged.sent.problems
        assert "→ 0 after repair" in judged.summary()
        marks = _marks(app.query_one("#problems", ProblemList), SENT)
        assert marks and all(mark == "✓" for mark, _ in marks)


async def test_a_request_files_marks_say_whether_the_repair_fixes_each() -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        app._picked("mistral")  # (the repair leaves some of its problems)
        await pilot.pause()
        marks = _marks(app.query_one("#problems", ProblemList), BEFORE)
        assert {mark for mark, _ in marks} == {"✓", "✗"}
        for mark, item in marks:
            assert item.violation is not None
            assert mark == ("✓" if item.violation.fixed else "✗")


async def test_the_help_says_what_each_mark_of_the_problems_list_means() -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        text = str((await help_text(pilot, app)).render())
    marks = text.split("What the marks mean", 1)[1]
    assert "  ✓  " in marks and "a problem suture's repair fixes" in marks
    assert "  ✗  " in marks and "a problem suture's repair does not fix" in marks
    assert "  ⟲  " in marks and "what the agent repairs itself" in marks
