"""What the app says of a session it exports is what ``suture repair`` says of it: a Claude Code
session whose moved results Claude Code sends as written is written unchanged, and a Codex turn
written with its outputs right after its calls moves a line though the repair changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label

from suture.formats import load_bytes
from suture.repair import repair
from suture.tui.app import SutureApp, default_export_path
from suture.tui.screens import ConfirmScreen, ExportScreen
from suture.writeback import export_choices, write_back
from tests.fakehome import use_home
from tests.helpers.app import SIZE, app_on_copy, export, ready
from tests.helpers.sent import session_lines, thinking_after_text

ROOT = Path(__file__).resolve().parent.parent
CLAUDE_MOVED = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
CODEX_REORDERED = (
    ROOT / "sample_sessions" / "recorded" / "codex-0.169.0" / "item-between-call-and-output" / "session.jsonl"
)


def _said(path: Path) -> list[list[str]]:
    data = path.read_bytes()
    transcript = load_bytes(data)
    return [choice.said() for choice in export_choices(transcript, repair(transcript.messages), data, str(path))]


def test_a_session_choice_says_what_the_session_written_is() -> None:
    (session, body) = _said(CLAUDE_MOVED)
    assert session[0] == "Claude Code session written unchanged"
    assert session[1].startswith("2 results left where written among the results of their turns: Claude Code sends")
    assert body == []  # a request body is the repair as it is
    (session, body) = _said(CODEX_REORDERED)
    assert session == [
        "Codex session: 1 line moved, 4 lines renumbered (1 turn written with the outputs right after the calls)"
    ]
    assert body == []


async def _export_body(pilot: object, app: SutureApp, target: Path) -> None:
    """The export dialog, the request body chosen (ctrl+t), written to ``target``."""
    await pilot.press("e")  # type: ignore[attr-defined]
    await ready(pilot, app)
    await pilot.press("ctrl+t")  # type: ignore[attr-defined]
    app.screen.query_one("#export-path", Input).value = str(target)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await ready(pilot, app)


async def _exported(tmp_path: Path, sample: Path) -> tuple[str, str, str]:
    """The status line, the export dialog's words on the session, and the note once written."""
    path = tmp_path / sample.name
    shutil.copyfile(sample, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        status = app.status.render().plain.splitlines()[0]
        await pilot.press("e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        what = str(app.screen.query_one("#export-what", Label).render())
        await pilot.press("escape")
        await ready(pilot, app)
        await export(pilot, app, str(tmp_path / "out.jsonl"))
        (note,) = [n.message for n in app._notifications if n.title == "exported"]
    return status, what, note


async def test_the_app_says_a_claude_code_session_is_written_unchanged(tmp_path: Path) -> None:
    status, what, note = await _exported(tmp_path, CLAUDE_MOVED)
    # (At 160 columns the header says what the export does otherwise, and the verdict whole.)
    assert "2 moved (export: unchanged)  anthropic: no problems in what Claude Code sends" in status
    assert "For this file: Claude Code session written unchanged; 2 results left where written" in what
    assert (tmp_path / "out.jsonl").read_bytes() == CLAUDE_MOVED.read_bytes()
    assert note.startswith(f"wrote {tmp_path / 'out.jsonl'}; Claude Code session written unchanged; 2 results left")


async def test_the_app_says_a_codex_export_moves_a_line_the_repair_does_not(tmp_path: Path) -> None:
    status, what, note = await _exported(tmp_path, CODEX_REORDERED)
    assert "no changes (export: 1 turn reordered)" in status
    assert "For this file: Codex session: 1 line moved, 4 lines renumbered (1 turn written with" in " ".join(
        what.split()
    )
    assert "Codex session: 1 line moved" in note
    assert (tmp_path / "out.jsonl").read_bytes() != CODEX_REORDERED.read_bytes()


async def test_an_export_to_a_folder_writes_the_name_offered_in_it(tmp_path: Path) -> None:
    """As cp does: a folder typed is where the file goes, under the name the dialog offered."""
    path = tmp_path / CLAUDE_MOVED.name
    shutil.copyfile(CLAUDE_MOVED, path)
    (tmp_path / "dir").mkdir()
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(tmp_path / "dir"))
        assert not isinstance(app.screen, ExportScreen)
        (note,) = [n.message for n in app._notifications if n.title == "exported"]
    name = default_export_path(path).name
    assert list((tmp_path / "dir").iterdir()) == [tmp_path / "dir" / name]
    assert note.startswith(f"wrote {tmp_path / 'dir' / name}")
    assert f"{tmp_path / 'dir'} is a folder: written in it as {name}" in note


async def test_an_overwrite_declined_asks_again_with_the_path_typed(tmp_path: Path) -> None:
    there = tmp_path / "there.json"
    there.write_text("kept")
    app = app_on_copy(CLAUDE_MOVED, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await _export_body(pilot, app, there)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        assert app.screen.chosen == 1 and app.screen.query_one("#export-path", Input).value == str(there)
        assert str(app.screen.query_one("#export-why", Label).render()) == f"Not overwritten: {there} is as it was."
        # Keys typed now go to the path, not to the panes behind.
        await pilot.press("end", "x", "enter")
        await ready(pilot, app)
        assert (tmp_path / "there.jsonx").exists() and there.read_text() == "kept"


async def test_the_export_says_what_becomes_of_an_unreadable_line(tmp_path: Path) -> None:
    # A session is edited where the repair changes it, so its unreadable line stays; a request
    # body holds the messages only, so the line is left out.
    path = tmp_path / "session.jsonl"
    path.write_bytes(CLAUDE_MOVED.read_bytes() + b"garbage{{{\n")
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        session, body = (" ".join(option.what.split()) for option in app.screen.options)
        assert "1 unreadable line stays as written, as every line the repair does not change." in session
        assert "1 unreadable line is left out, as with --skip-bad-lines." in body
        await pilot.press("escape")
        await ready(pilot, app)
        await export(pilot, app, str(tmp_path / "out.jsonl"))
    assert (tmp_path / "out.jsonl").read_bytes().endswith(b"garbage{{{\n")


async def test_an_export_over_another_file_keeps_a_copy_of_it(tmp_path: Path) -> None:
    # Another file the person says yes to overwriting (another agent's session, maybe) is kept
    # beside it, as the input is when an export replaces it.
    path = tmp_path / CLAUDE_MOVED.name
    shutil.copyfile(CLAUDE_MOVED, path)
    other = tmp_path / "other-session.jsonl"
    other.write_bytes(CODEX_REORDERED.read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(other))
        assert isinstance(app.screen, ConfirmScreen)
        assert "A copy of it is kept beside it" in str(app.screen.query_one("Label").render())
        await pilot.press("y")
        await ready(pilot, app)
        (note,) = [n.message for n in app._notifications if n.title == "exported"]
    assert other.read_bytes() == CLAUDE_MOVED.read_bytes()  # the session, written unchanged
    assert (tmp_path / "other-session.jsonl.bak").read_bytes() == CODEX_REORDERED.read_bytes()
    assert note.endswith(f"what it held is kept as {tmp_path / 'other-session.jsonl.bak'}")


def test_the_export_of_a_session_in_its_agents_folder_is_offered_outside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy beside it, with the session's id, would be listed by the agent as a second session.
    home = use_home(tmp_path / "home", monkeypatch)
    session = next((home / ".claude" / "projects").rglob("*.jsonl"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert default_export_path(session) == work / f"{session.stem}.repaired.jsonl"
    elsewhere = tmp_path / "copy.jsonl"
    shutil.copyfile(session, elsewhere)
    assert default_export_path(elsewhere) == tmp_path / "copy.repaired.jsonl"


ENTRY_LIKE = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.332" / "entry-like-id" / "session.jsonl"
CLAUDE_SAME = ROOT / "sample_sessions" / "claude-code" / "compacted.jsonl"
REPEATED_ID = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.332" / "repeated-id" / "session.jsonl"


def _aside(path: Path) -> tuple[str, str] | None:
    data = path.read_bytes()
    transcript = load_bytes(data)
    fixed = repair(transcript.messages)
    return write_back(data, transcript, fixed).aside(len(fixed.changes))


def test_the_export_says_where_it_writes_otherwise_than_the_repair() -> None:
    # Every change left as written: the repair's count would have a person expect an edit.
    assert _aside(CLAUDE_MOVED) == (
        "the export writes the file unchanged: Claude Code sends them as written, which providers accept",
        "export: unchanged",
    )
    # No change, but a call's id written otherwise, for how Claude Code reads ids.
    assert _aside(ENTRY_LIKE) == (
        "the export writes 1 call id otherwise, for how Claude Code reads ids, 2 lines changed",
        "export: 1 id renamed",
    )
    # A renamed call whose new id is written otherwise: said though the repair changes it.
    assert _aside(REPEATED_ID) == (
        "the export writes 1 call id otherwise, for how Claude Code reads ids",
        "export: 1 id renamed",
    )
    assert _aside(CLAUDE_SAME) is None  # written as the repair says


@pytest.mark.parametrize(
    ("sample", "width", "said"),
    [
        (CLAUDE_MOVED, 320, "2 changes: 2 moved (the export writes the file unchanged: Claude Code sends them as"),
        (CLAUDE_MOVED, 200, "2 moved (export: unchanged)  anthropic: no problems in what Claude Code sends"),
        (ENTRY_LIKE, 250, "no changes needed (the export writes 1 call id otherwise, for how Claude Code reads ids, 2"),
        (ENTRY_LIKE, 120, "no changes (export: 1 id renamed)  anthropic: no problems"),
    ],
)
async def test_the_header_says_where_the_export_writes_otherwise(
    tmp_path: Path, sample: Path, width: int, said: str
) -> None:
    app = app_on_copy(sample, tmp_path)
    async with app.run_test(size=(width, 45)) as pilot:
        await ready(pilot, app)
        assert said in app.status.render().plain.splitlines()[0]


async def test_the_header_works_the_export_out_again_for_each_version(tmp_path: Path) -> None:
    # The file read again holds what the export writes as the repair says (its moved results put
    # back in their calls' order by hand): the aside goes, as it came for the version before.
    path = tmp_path / "session.jsonl"
    shutil.copyfile(CLAUDE_MOVED, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(250, 45)) as pilot:
        await ready(pilot, app)
        assert "export: unchanged" in app.status.render().plain
        shutil.copyfile(CLAUDE_SAME, path)
        await pilot.press("r")
        await ready(pilot, app)
        first = app.status.render().plain.splitlines()[0]
        assert "left to" not in first and "export" not in first


async def test_a_file_no_agent_resumes_has_no_export_aside(tmp_path: Path) -> None:
    app = app_on_copy(ROOT / "sample_sessions" / "chat" / "moved-result.json", tmp_path, "moved.json")
    async with app.run_test(size=(250, 45)) as pilot:
        await ready(pilot, app)
        first = app.status.render().plain.splitlines()[0]
        assert "2 changes: 2 moved" in first and "(" not in first.split("moved", 1)[1].split("  ")[0]


async def test_the_info_line_says_the_id_the_export_writes(tmp_path: Path) -> None:
    # A message the repair leaves as it is, whose call the export names otherwise for Claude Code.
    app = app_on_copy(ENTRY_LIKE, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        app.view.select(3)
        await pilot.pause()
        info = app.query_one("#info").render().plain.splitlines()[0]
        assert (
            "unchanged; the export writes toolu_01KJEbZo445Vpr4abtkisEUD_1 as toolu_01KJEbZo445Vpr4abtkisEUD-1" in info
        )
    # A call the repair renames: its change says the id written, as the details do.
    app = app_on_copy(REPEATED_ID, tmp_path, "repeated.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("n")
        change = app.query_one("#info").render().plain.splitlines()[1]
        assert "renamed to toolu_01rzC4HmC7LfecDxdJLmXHn3-1: an earlier call already uses that id (not" in change


def test_the_check_says_what_the_model_reads_of_a_call_claude_code_answers_itself() -> None:
    from suture.sent import as_sent

    notes = [fix.summary for fix in as_sent(load_bytes(ENTRY_LIKE.read_bytes())).fixes]
    assert any("with a result of its own, '[Tool result missing due to internal error]'" in n for n in notes)


async def test_a_request_body_export_says_what_its_provider_would_reject(tmp_path: Path) -> None:
    # The Anthropic body of a Claude Code session keeps the whitespace-only text block in front
    # of a thinking block (A7, A12): the export says so, as suture repair --to messages does.
    app = app_on_copy(CLAUDE_MOVED, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await _export_body(pilot, app, tmp_path / "body.json")
        (toast,) = [n for n in app._notifications if n.title == "exported"]
    assert toast.severity == "warning"
    assert "Anthropic Messages would reject it: 2 problems the repair does not fix (A7, A12)" in toast.message
    assert "the request Claude Code itself sends on resume is another: suture sent --body shows it" in toast.message
    # The session written back says nothing of it: Claude Code leaves the block out when it sends.
    app = app_on_copy(CLAUDE_MOVED, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(tmp_path / "written.jsonl"))
        (toast,) = [n for n in app._notifications if n.title == "exported"]
    assert toast.severity == "information" and "would reject" not in toast.message


async def test_a_session_export_says_what_its_agent_would_still_send_rejected(tmp_path: Path) -> None:
    # Text, then thinking, in one assistant message (A12): neither suture's repair nor Claude
    # Code mends it. The session written back says so, in the words suture repair warns with.
    source = tmp_path / "source.jsonl"
    source.write_bytes(thinking_after_text(CLAUDE_MOVED))
    app = app_on_copy(source, tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(tmp_path / "written.jsonl"))
        (toast,) = [n for n in app._notifications if n.title == "exported"]
    assert toast.severity == "warning"
    assert (
        "Anthropic Messages would reject what Claude Code sends on resume from it: 1 problem the repair "
        "does not fix (A12)" in toast.message
    )


@pytest.mark.parametrize(
    ("sample", "said"),
    [
        (
            CLAUDE_MOVED,
            "suture repair makes 2 changes (2 moved results) and writes the file unchanged: Claude Code sends them "
            "as written, which providers accept",
        ),
        (ENTRY_LIKE, "suture repair writes 1 call id otherwise, for how Claude Code reads ids, 2 lines changed"),
        (
            CODEX_REORDERED,
            "suture repair writes 1 line moved, 4 lines renumbered (1 turn written with the outputs right after the "
            "calls)",
        ),
        (CLAUDE_SAME, None),
    ],
)
def test_check_says_where_suture_repair_writes_otherwise(sample: Path, said: str | None) -> None:
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "suture", "check", str(sample)], capture_output=True, text=True, check=False
    )
    assert (said in done.stdout.splitlines()) if said else "suture repair writes" not in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "suture", "check", "--json", str(sample)], capture_output=True, text=True, check=False
    )
    assert json.loads(done.stdout)["export"] == said
    # Read from standard input, the same is said, from the bytes read.
    done = subprocess.run(
        [sys.executable, "-m", "suture", "check", "--json", "-"],
        input=sample.read_text(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(done.stdout)["export"] == said


async def test_the_dialog_says_what_the_provider_would_reject_before_anything_is_written(tmp_path: Path) -> None:
    app = app_on_copy(CLAUDE_MOVED, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("e")
        await ready(pilot, app)
        assert "would reject" not in str(app.screen.query_one("#export-what", Label).render())  # the session
        await pilot.press("ctrl+t")  # the request body
        await pilot.pause()
        what = " ".join(str(app.screen.query_one("#export-what", Label).render()).split())
        assert "Anthropic Messages would reject it: 2 problems the repair does not fix (A7, A12)" in what
    assert not list(tmp_path.glob("*.repaired*"))


SESSIONS = sorted(
    p
    for p in (ROOT / "sample_sessions").rglob("*.jsonl")
    if p.name not in ("requests.jsonl",) and "gemini" not in p.parts and "chat" not in p.parts
)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(ROOT / "sample_sessions")))
def test_what_the_export_does_otherwise_is_never_skipped_for_speed(path: Path) -> None:
    # The app and check write the session to find what it does otherwise only where it may:
    # wherever writing it finds something, the quick test said it might.
    from suture import InputError, NotTranscript
    from suture.writeback import may_differ, writes_back

    data = path.read_bytes()
    try:
        transcript = load_bytes(data)
    except (InputError, NotTranscript):  # (a file of the corpus that is no transcript: not this test's)
        pytest.skip("not a transcript")
    if not writes_back(transcript.format):
        pytest.skip("not a session log")
    fixed = repair(transcript.messages)
    if write_back(data, transcript, fixed).aside(len(fixed.changes)) is not None:
        assert may_differ(transcript, fixed)


async def test_a_reload_works_the_export_out_again_once_the_file_is_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reload does not write the session again at once (a followed session grows every few
    # seconds): once the file has been quiet for WRITTEN_SETTLE, what its export does is said.
    import suture.tui.app

    monkeypatch.setattr(suture.tui.app, "WRITTEN_SETTLE", 0.05)
    app = app_on_copy(CLAUDE_MOVED, tmp_path)
    async with app.run_test(size=(120, 45)) as pilot:
        await ready(pilot, app)
        assert "(export: unchanged)" in app.status.render().plain
        app.path.write_bytes(ENTRY_LIKE.read_bytes())
        await pilot.press("r")
        await ready(pilot, app)
        for _ in range(100):  # a bound: the timer, then the worker
            if "(export: 1 id renamed)" in app.status.render().plain:
                break
            await pilot.pause(0.05)
        assert "(export: 1 id renamed)" in app.status.render().plain


async def test_a_session_written_to_without_a_pause_has_its_export_worked_out_while_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent at work writes its session more often than WRITTEN_SETTLE: the export is worked
    # out again at most MOST_WAIT after the first write not worked out, not only once it stops.
    import suture.tui.app
    import suture.tui.quiet

    monkeypatch.setattr(suture.tui.app, "WRITTEN_SETTLE", 1.0)
    monkeypatch.setattr(suture.tui.quiet, "MOST_WAIT", 0.3)
    lines = session_lines(
        [("user", "go")] + [("assistant", (f"m{n}", {"type": "text", "text": "ok"})) for n in range(24)]
    )
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:2]))
    app = SutureApp(path, watch=False)
    planned: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        worked_out = app._export_planned

        def counted(shown: Any) -> None:
            model = shown()
            planned.append(len(model.transcript.messages) if model is not None else 0)
            worked_out(shown)

        app._export_planned = counted  # type: ignore[method-assign]
        for k in range(2, len(lines)):
            with path.open("ab") as f:
                f.write(lines[k])
            app.read_file()
            for _ in range(6):  # a write every 0.12 s or so, well within WRITTEN_SETTLE
                await pilot.pause(0.02)
        assert any(2 < n < len(lines) for n in planned), planned


async def test_the_changes_list_says_the_export_reorders_where_the_repair_changes_no_message(tmp_path: Path) -> None:
    from suture.tui.changes import ChangeList

    app = app_on_copy(CODEX_REORDERED, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        changes = app.query_one("#changes", ChangeList)
        assert not changes.items
        assert changes.empty == (
            "the repair changes no message here; the export: 1 turn written with the outputs right after the calls"
        )
    app = app_on_copy(CLAUDE_SAME, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.query_one("#changes", ChangeList).empty == "the repair changes nothing here"
