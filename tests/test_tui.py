"""The app, driven with Pilot: every interaction a person has with it."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import orjson
import pytest
from rich.cells import cell_len
from textual.widgets import Input, Static

from suture.kinds import KINDS
from suture.repair import ChangeKind
from suture.tui.app import SutureApp, default_export_path
from suture.tui.changes import ChangeList
from suture.tui.details import DetailScreen
from suture.tui.rows import RowModel
from suture.tui.screens import ConfirmScreen, ExportScreen, HelpScreen
from suture.tui.view import TranscriptView
from tests.helpers.app import ROOT, SIZE, USER, WORKED, export, line, ready, screen_text, suture_repair
from tests.helpers.checks import checks_done


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
}
RESULT = {"role": "tool", "tool_call_id": "a", "content": "ok"}


# -- opening and alignment ----------------------------------------------------------------------


async def test_rows_align_through_origin(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        # Output order, each output next to the input it came from; the dropped placeholder (4)
        # has an empty Repaired slot, the synthetic result an empty Original slot.
        assert list(zip(model.left, model.right, strict=True)) == [
            (0, 0),
            (1, 1),
            (5, 2),
            (3, 3),
            (4, None),
            (2, 4),
            (6, 5),
            (None, 6),
            (7, 7),
            (8, 8),
        ]
        text = screen_text(app)
        assert "dropped, not sent" in text
        assert "added by repair" in text
        assert "moved" in text and "renamed" in text and "interrupt" in text and "note" in text
        # The cursor starts on the first change.
        assert app.view.cursor == 2
        # (The whole first line, whatever the width leaves room for.)
        status = app.status._first_line(short=False).plain
        assert "2 moved" in status and "1 interrupted" in status and "1 note" in status
        assert "1 renamed" in status and "1 dropped" in status


async def test_navigation_keys_and_mouse(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        view = app.view
        await pilot.press("g")
        assert view.cursor == 0
        await pilot.press("j", "j", "down")
        assert view.cursor == 3
        await pilot.press("k", "up")
        assert view.cursor == 1
        await pilot.press("G")
        assert view.cursor == 9
        await pilot.press("home")
        assert view.cursor == 0
        await pilot.press("pagedown")
        assert view.cursor == 9
        # Click the fifth row (the dropped placeholder) on the Original side.
        await pilot.click(TranscriptView, offset=(10, 4))
        assert view.cursor == 4
        assert view.side == 0
        await pilot.click(TranscriptView, offset=(view.size.width - 5, 6))
        assert view.cursor == 6
        assert view.side == 1
        await pilot.press("h")
        assert view.side == 0
        await pilot.press("l")
        assert view.side == 1
        info = app.query_one("#info").render().plain  # type: ignore[attr-defined]
        assert "renamed" in info and "x_1" in info


async def test_next_and_previous_change(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        view = app.view
        assert app.model is not None
        changed = app.model.changed_rows
        assert changed == [2, 3, 4, 6, 7, 9]
        seen = [view.cursor]
        for _ in range(len(changed) - 1):
            await pilot.press("n")
            seen.append(view.cursor)
        assert seen == changed
        await pilot.press("n")  # past the last: round to the first, said (tests/test_tui_wrap.py)
        assert view.cursor == 2
        await pilot.press("N", "N", "N")
        assert view.cursor == 6
        # From the changes list too (n works from anywhere).
        await pilot.press("tab")
        assert isinstance(app.focused, ChangeList)
        await pilot.press("N")
        assert view.cursor == 4


async def test_changes_list_jumps(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        changes = app.query_one("#changes", ChangeList)
        assert app.model is not None
        kinds = [c.kind for c in changes.items]
        synthetic = kinds.index(ChangeKind.SYNTHETIC_INTERRUPT)
        await pilot.click(ChangeList, offset=(5, synthetic))
        assert app.view.cursor == 7
        assert app.focused is app.view
        await pilot.press("tab", "down")
        assert app.view.cursor == app.model.change_rows[synthetic + 1]
        await pilot.press("enter")
        assert app.focused is app.view


async def test_search_counts_and_steps(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("g", "slash")
        box = app.query_one("#search", Input)
        assert box.display and box.has_focus
        await pilot.press(*"X_1", "enter")
        await ready(pilot, app)
        assert not box.display
        assert app.matches == [6, 7]
        assert app.view.cursor == 6
        assert "1/2" in app.search_state
        await pilot.press("right_square_bracket")
        assert app.view.cursor == 7
        assert "2/2" in app.search_state
        await pilot.press("right_square_bracket")  # wraps around
        assert app.view.cursor == 6
        await pilot.press("left_square_bracket")
        assert app.view.cursor == 7
        # Text, not only ids: the orphan's content.
        await pilot.press("slash")
        box.value = ""
        await pilot.press(*"late output", "enter")
        await ready(pilot, app)
        assert app.matches == [9]
        await pilot.press("escape")
        assert app.matches == [] and app.search_state == ""
        await pilot.press("slash", *"nothing like this", "enter")
        await ready(pilot, app)
        assert app.matches == []
        assert "no match" in app.search_state


async def test_the_search_and_go_to_boxes_say_which_they_are(worked: Path) -> None:
    # What is typed hides what a box shows empty: its border keeps saying which box it is.
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("slash", "z")
        assert app.focused is app.query_one("#search", Input) and app.focused.border_title == "Search"
        await pilot.press("escape", "colon", "3")
        assert app.focused is app.query_one("#goto", Input) and app.focused.border_title == "Go to"


async def test_search_escape_cancels(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("slash", "z", "escape")
        assert not app.query_one("#search", Input).display
        assert app.focused is app.view
        assert app.matches == []


async def test_copy_selected_record(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("n", "n", "n")  # the renamed call, row 6
        assert app.view.cursor == 6
        await pilot.press("y")
        repaired = orjson.loads(app.clipboard)
        assert repaired["tool_calls"][0]["id"] == "x_1"
        await pilot.press("h", "y")
        original = orjson.loads(app.clipboard)
        assert original["tool_calls"][0]["id"] == "x"
        # A row with nothing on the focused side copies the other side.
        await pilot.press("j", "y")
        synthetic = orjson.loads(app.clipboard)
        assert synthetic["role"] == "tool" and synthetic["tool_call_id"] == "x_1"


async def test_details_view(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        assert screen.row == 2
        why = str(screen.query_one("#detail-why").render())
        assert "moved" in why
        right = str(screen.query_one("#detail-body-1").render())
        assert '"tool_call_id": "x"' in right and "<contents>" in right
        assert "$[5]" in str(screen.query_one("#detail-side-0").border_title)
        await pilot.press("n")
        assert screen.row == 3 and app.view.cursor == 3
        await pilot.press("n", "n")
        assert screen.row == 6
        assert '"id": "x_1"' in str(screen.query_one("#detail-body-1").render())
        await pilot.press("J")
        assert "added by repair" in str(screen.query_one("#detail-side-0").border_title)
        await pilot.press("y")
        assert orjson.loads(app.clipboard)["tool_call_id"] == "x_1"
        await pilot.press("escape")
        assert not isinstance(app.screen, DetailScreen)
        assert app.view.cursor == 7


async def test_big_payload_is_a_placeholder_in_details(tmp_path: Path) -> None:
    payload = "iVBORw0KGgo" * 2000
    record = {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{payload}"}}],
    }
    path = tmp_path / "img.json"
    path.write_bytes(orjson.dumps([record]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("enter")
        body = str(app.screen.query_one("#detail-body-0").render())
        assert payload not in body
        assert "image/png payload, 21.5 KB" in body
        await pilot.press("y")
        assert payload in app.clipboard


async def test_help_lists_every_key(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        for _title, bindings in app.help_groups():
            for binding in bindings:
                assert binding.description in text  # type: ignore[union-attr]
        # Each key as it is typed, not the name Textual gives it.
        assert "  !  " in text and "  :  " in text and "  ?, f1  " in text and "esc, q, ⏎" in text
        assert "exclamation_mark" not in text and "colon" not in text
        # And what the marks the panes draw mean: the turn's band and each change's badge.
        assert "What the marks mean" in text and "rows of one turn" in text
        assert all(f"{shown.badge}  " in text and shown.word in text for shown in KINDS.values())
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_every_binding_has_an_id_and_description() -> None:
    app = SutureApp(WORKED, watch=False)
    for _title, bindings in app.help_groups()[:-1]:
        for binding in bindings:
            assert binding.id and binding.description  # type: ignore[union-attr]


async def test_command_palette_offers_the_actions(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for wanted in ("Next change", "Previous change", "Search", "Copy message JSON", "Export repaired transcript"):
            assert wanted in titles
        commands = {c.title: c.callback for c in app.get_system_commands(app.screen)}
        commands["Next change"]()
        await pilot.pause()
        assert app.view.cursor == 3


# -- export --------------------------------------------------------------------------------------


async def test_export_writes_what_repair_writes(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    before = worked.read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app)
        target = default_export_path(worked)
        assert target.name == "worked-example.repaired.json"
        assert target.read_bytes() == suture_repair(worked)
        assert worked.read_bytes() == before
        assert not [p for p in worked.parent.iterdir() if p.name.endswith(".suture-tmp")]
        assert sorted(p.name for p in worked.parent.iterdir()) == [
            "worked-example.json",
            "worked-example.repaired.json",
        ]


async def test_export_says_what_the_provider_shown_still_rejects(worked: Path) -> None:
    """mistral picked with p (11 problems, 7 after repair), the chat body written for OpenAI: the
    export's word says mistral would still reject it, as the header does, not only 'wrote'."""
    from suture.checks import verdict

    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        assert app.model is not None
        after = len(verdict(app.model.transcript.messages, "mistral", repaired=app.model.repair).after)
        assert after
        app._picked("mistral")
        await export(pilot, app)
        said = [str(n.message) for n in app._notifications if n.title == "exported"]
        assert said and f"mistral, shown, would still reject it: {after} problems after repair" in said[-1]
        app._picked("openai-chat")  # the body's own provider: warned of as suture repair warns
        await export(pilot, app, str(worked.parent / "again.json"))
        said = [str(n.message) for n in app._notifications if n.title == "exported"]
        assert "shown, would still reject" not in said[-1]


async def test_export_jsonl_keeps_format(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(USER) + line(CALL) + line(USER))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app)
        assert (tmp_path / "s.repaired.jsonl").read_bytes() == suture_repair(path)


async def test_export_of_a_session_log_names_what_it_writes(tmp_path: Path) -> None:
    sample = ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"
    path = tmp_path / sample.name
    shutil.copy(sample, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app)  # the default: the session, as suture repair writes it
        written = tmp_path / "interrupted-then-api-error.repaired.jsonl"
        assert written.read_bytes() == suture_repair(path)
        await pilot.press("e")
        await ready(pilot, app)
        await pilot.press("ctrl+t", "enter")  # its request body
        await ready(pilot, app)
        written = tmp_path / "interrupted-then-api-error.repaired.json"
        assert written.read_bytes() == suture_repair(path, "--to", "messages")
        orjson.loads(written.read_bytes())  # one JSON document, as its name says


async def test_export_asks_before_overwriting(worked: Path) -> None:
    target = default_export_path(worked)
    target.write_bytes(b"keep me")
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        # The copy kept is named as it will be written, not as a placeholder.
        assert f"A copy of it is kept beside it ({target.name}.bak)" in str(app.screen.query_one("Label").render())
        await pilot.press("n")
        await ready(pilot, app)
        assert target.read_bytes() == b"keep me"
        assert isinstance(app.screen, ExportScreen)  # asked again, the path as it was
        await pilot.press("enter")
        await ready(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await ready(pilot, app)
        assert target.read_bytes() == suture_repair(worked)


async def test_export_over_the_input_needs_a_yes(worked: Path) -> None:
    before = worked.read_bytes()
    expected = suture_repair(worked)
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(worked))
        assert isinstance(app.screen, ConfirmScreen)
        assert "is the file you opened" in str(app.screen.query_one("Label").render())
        await pilot.press("escape")  # no: the dialog again, then esc leaves it
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("escape")
        await ready(pilot, app)
        assert worked.read_bytes() == before
        model = app.model
        assert model is not None and model.repair.changes
        repaired = [(m.role, m.content, m.tool_call_id) for m in model.repair.messages]
        # On "also check the lint": Original #2, Repaired #4 (a result moved before it, a
        # message dropped).
        row = model.row_of_input[2]
        assert model.right[row] == 4
        app.view.cursor = row
        await export(pilot, app, str(worked))
        await pilot.press("y")
        await ready(pilot, app)
        assert worked.read_bytes() == expected
        # A copy of the original is kept beside it, as suture repair --in-place keeps one.
        assert worked.with_name(worked.name + ".bak").read_bytes() == before
        # The view shows the file as it is now, with no r: the Original pane holds what was
        # written, which the repair leaves as it is; the cursor stays on the same message, the
        # Repaired pane's #4, now the Original's; the toast and the reload note say so.
        now = app.model
        assert now is not model and now is not None
        assert [(m.role, m.content, m.tool_call_id) for m in now.transcript.messages] == repaired
        assert not now.repair.changes
        assert now.left[app.view.cursor] == 4 and now.transcript.messages[4].content == "also check the lint"
        (said,) = [str(n.message) for n in app._notifications if n.title == "exported"]
        assert said.endswith("; the view shows it as it now is: the Original pane holds what was written")
        assert "↻ the export written over it here, 9 messages" in app.status.render().plain
        await pilot.press("r")  # nothing more to read: the view is the file
        await ready(pilot, app)
        assert app.model is now
        assert notes(app)[-1] == "the file holds what is shown: nothing to reload"


async def test_export_over_the_input_while_watched_is_shown_once(worked: Path) -> None:
    # The watcher sees suture's own write too: the view reads it once, as written, and the
    # watcher's event tells no other reload over it.
    expected = suture_repair(worked)
    app = SutureApp(worked, watch=True, debounce_ms=50)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await pilot.pause(0.2)  # let the watcher start
        await export(pilot, app, str(worked))
        await pilot.press("y")
        await ready(pilot, app)
        assert worked.read_bytes() == expected
        shown = app.model
        assert shown is not None and not shown.repair.changes
        for _ in range(20):  # the watcher's event comes and goes (a bound, not a timing assertion)
            await pilot.pause(0.05)
        await ready(pilot, app)
        assert app.model is shown
        assert "↻ the export written over it here, 9 messages" in app.status.render().plain
        assert not app.error and not app.status.state.notes


async def test_export_cancel(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("e", "escape")
        assert not isinstance(app.screen, ExportScreen)
        assert not default_export_path(worked).exists()


async def test_export_failure_is_reported(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(worked.parent / "no-such-folder" / "out.json"))
        # Said in the dialog, asked again: nothing typed is lost.
        assert isinstance(app.screen, ExportScreen)
        assert str(app.screen.query_one("#export-why").render()).startswith("Nothing written: ")
        assert app.is_running


# -- reloading -----------------------------------------------------------------------------------


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "live.jsonl"
    path.write_bytes(line(USER) + line(CALL) + line(RESULT))
    return path


def notes(app: SutureApp) -> list[str]:
    return [n.message for n in app._notifications]


def reload_note(app: SutureApp) -> str:
    """What the status line says of the last reload; a reload never notifies."""
    assert not notes(app)
    status = app.status.render().plain
    assert "↻" in status
    return status.split("↻ ", 1)[1]


async def test_reload_after_append_keeps_place(jsonl: Path) -> None:
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("g", "j")
        assert app.view.cursor == 1
        with open(jsonl, "ab") as f:
            f.write(line(USER) + line(CALL))
        app.read_file()
        await ready(pilot, app)
        assert app.model is not None and app.model.transcript.messages.__len__() == 5
        assert app.view.cursor == 1
        assert reload_note(app).startswith("+2 messages, 0 s ago")


async def test_a_file_replaced_by_one_of_another_format_says_so(jsonl: Path, tmp_path: Path) -> None:
    # Not "+1 message": the file is another one now.
    codex = ROOT / "sample_sessions" / "codex" / "broken-resumed.jsonl"
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        other = tmp_path / ".live.jsonl.swp"
        other.write_bytes(codex.read_bytes())
        os.replace(other, jsonl)
        app.read_file()
        await ready(pilot, app)
        assert app.model is not None and app.model.transcript.format == "codex"
        n = len(app.model.transcript.messages)
        assert reload_note(app).startswith(f"now codex, {n} messages, 0 s ago")


async def test_a_file_rewritten_with_other_messages_says_so_not_a_count(jsonl: Path, tmp_path: Path) -> None:
    # The same format, one message more, but not the messages shown with one added: "+1 message"
    # would say the file grew.
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        other = tmp_path / ".live.jsonl.swp"
        other.write_bytes(b"".join(line({"role": "user", "content": f"something else {k}"}) for k in range(4)))
        os.replace(other, jsonl)
        app.read_file()
        await ready(pilot, app)
        assert app.model is not None and len(app.model.transcript.messages) == 4
        assert reload_note(app).startswith("rewritten, 4 messages, 0 s ago")
        # Grown at its end: the count again.
        with open(jsonl, "ab") as f:
            f.write(line(USER))
        app.read_file(whole=True)
        await ready(pilot, app)
        assert reload_note(app).startswith("+1 message, 0 s ago")


async def test_a_compaction_appended_says_so_and_goes_to_the_end(tmp_path: Path) -> None:
    # The history now starts at the compaction's summary: not "rewritten", and the place (a
    # message before the compaction, no longer shown) gives way to the end.
    lines = (ROOT / "sample_sessions" / "claude-code" / "compacted.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:3]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("g")
        with open(path, "ab") as f:
            f.write(b"".join(lines[3:]))
        app.read_file()
        await ready(pilot, app)
        model = app.model
        assert model is not None
        n = len(model.transcript.messages)
        assert reload_note(app).startswith(f"compacted at line 4, {n} messages, 0 s ago")
        assert app.view.cursor == len(model) - 1


async def test_a_compacted_session_read_in_pieces_opens_at_its_start(tmp_path: Path) -> None:
    # Its first piece is read before the compaction line: the whole file's state, which knows the
    # compaction, is not a compaction written meanwhile (no note, the place not sent to the end).
    path = tmp_path / "session.jsonl"
    path.write_bytes(
        (ROOT / "sample_sessions" / "real" / "claude-code" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl").read_bytes()
    )
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        for _ in range(200):  # a bound: the rest of the file is read after the first screen
            if app.model is not None and not app.model.partial:
                break
            await pilot.pause(0.05)
        assert app.model is not None and not app.model.partial
        assert app.view.cursor == 0 and app.reloaded is None


async def test_reload_after_replace_by_rename(jsonl: Path, tmp_path: Path) -> None:
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("G")
        other = tmp_path / ".live.jsonl.swp"
        other.write_bytes(line(USER) + line(USER) + line(CALL) + line(RESULT))
        os.replace(other, jsonl)
        app.read_file()
        await ready(pilot, app)
        assert app.model is not None and len(app.model.transcript.messages) == 4
        # A message put in before those shown: said where, not as the two after it changed.
        assert reload_note(app).startswith("+1 message at #1, 0 s ago")
        # The selected message (the result, input 2) is input 3 now: the place follows it.
        assert app.view.cursor == app.model.row_of_input[3]


@pytest.mark.parametrize(
    ("written", "said", "selected"),
    [
        ([USER, RESULT], "−1 message at #1", 1),  # the call cut: the result is selected still
        ([{"role": "user", "content": "first"}, USER, CALL, RESULT], "+1 message at #0", 3),
        ([USER, {"role": "user", "content": "other"}, RESULT], "1 message changed", 2),
        ([{"role": "user", "content": "another"}, CALL, RESULT], "1 message changed", 2),
    ],
)
async def test_a_reload_says_what_changed_where_and_keeps_the_message_selected(
    jsonl: Path, tmp_path: Path, written: list[dict[str, object]], said: str, selected: int
) -> None:
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        app.view.select(app.model.row_of_input[2])  # type: ignore[union-attr]  # (the result)
        other = tmp_path / ".live.jsonl.swp"
        other.write_bytes(b"".join(line(m) for m in written))
        os.replace(other, jsonl)
        app.read_file()
        await ready(pilot, app)
        assert reload_note(app).startswith(f"{said}, 0 s ago")
        assert app.view.cursor == app.model.row_of_input[selected]  # type: ignore[union-attr]


async def test_reload_after_truncation(jsonl: Path) -> None:
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("G")
        jsonl.write_bytes(line(USER))
        app.read_file()
        await ready(pilot, app)
        assert app.model is not None and len(app.model) == 1
        assert app.view.cursor == 0
        assert reload_note(app).startswith("−2 messages, 0 s ago")


async def test_half_written_file_then_good(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps([USER, CALL, RESULT], option=orjson.OPT_INDENT_2))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        good = app.model
        path.write_bytes(b'[\n  {"role": "user", "content": "hi"},\n  {"role": "assis')
        app.read_file()
        await ready(pilot, app)
        assert app.model is good
        assert "line 3, column" in app.status.state.error
        assert "last good version" in app.status.state.error
        assert "line 3" in app.status.render().plain
        path.write_bytes(orjson.dumps([USER, CALL, RESULT, USER]))
        app.read_file()
        await ready(pilot, app)
        assert app.status.state.error == ""
        assert app.model is not good and app.model is not None
        assert len(app.model.transcript.messages) == 4


async def test_unreadable_at_start_then_good(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b'[{"role": "user"')
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.model is None
        assert "not valid JSON" in app.status.state.error
        state = app.query_one("#state", Static)
        assert state.display and not app.view.display
        assert "cannot read" in str(state.render()) and "r reads it again" in str(state.render())
        path.write_bytes(orjson.dumps([USER]))
        app.read_file()
        await ready(pilot, app)
        assert app.model is not None and app.status.state.error == ""


async def test_follow_moves_to_the_end_on_reload(jsonl: Path) -> None:
    app = SutureApp(jsonl, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("g", "f")
        assert app.following and app.view.cursor == 2
        # Not watched, it does not claim to follow on its own.
        assert app.status.state.live == "● following the end as r reads the file again (not watched)"
        with open(jsonl, "ab") as f:
            f.write(line(USER) + line(USER))
        app.read_file()
        await ready(pilot, app)
        assert app.view.cursor == 4
        # Moving away stops following, like a pager.
        await pilot.press("k")
        assert not app.following


async def test_watcher_reloads_on_append_and_rename(jsonl: Path, tmp_path: Path) -> None:
    app = SutureApp(jsonl, watch=True, debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)

        async def wait_for(count: int) -> None:
            for _ in range(400):  # a bound, not a timing assertion
                await pilot.pause(0.025)
                if app.model is not None and len(app.model.transcript.messages) == count:
                    return
            raise AssertionError(f"no reload to {count} messages")

        await pilot.pause(0.2)  # let the watcher start
        with open(jsonl, "ab") as f:
            f.write(line(USER))
        await wait_for(4)
        other = tmp_path / "tmp-save"
        other.write_bytes(jsonl.read_bytes() + line(USER))
        os.replace(other, jsonl)
        await wait_for(5)
        # The export beside the input is not a change of the input.
        await export(pilot, app)
        await pilot.pause(0.3)
        assert len(app.model.transcript.messages) == 5  # type: ignore[union-attr]


# -- content is data -----------------------------------------------------------------------------

NASTY = "[bold red]BOLD[/] [link=http://x]l[/link] \x1b[31mred\x1b[0m \x1b]52;c;ZXZpbA==\x07 \u202eabc"


async def test_markup_and_escapes_show_literally(tmp_path: Path) -> None:
    path = tmp_path / "[bold]n.json"
    record = {"role": "user", "content": NASTY}
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "[red]id\x1b[2J", "type": "function", "function": {"name": "[b]x", "arguments": "{}"}}],
    }
    path.write_bytes(orjson.dumps([record, call]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(320, 45)) as pilot:
        await ready(pilot, app)
        text = screen_text(app)
        assert "[bold red]BOLD[/]" in text
        assert "[link=http://x]l[/link]" in text
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "\\x1b[31mred" in text and "\\u202e" in text
        assert "[red]id\\x1b[2J" in text and "[b]x" in text
        status = app.status.render().plain
        assert "[bold]n.json" in status
        await pilot.press("g", "enter")
        body = str(app.screen.query_one("#detail-body-0").render())
        assert "[bold red]BOLD[/]" in body and "\x1b" not in body and "\u202e" not in body
        await pilot.press("escape", "slash", *"[bold", "enter")
        await ready(pilot, app)
        assert app.matches == [0]
        for note in app._notifications:
            assert "\x1b" not in note.message


# -- demo and size -------------------------------------------------------------------------------


async def test_demo_shows_every_kind_of_change_and_says_what_to_try() -> None:
    from suture.cli.view import DEMO_HINT, demo_path

    app = SutureApp(demo_path(), watch=False, export_dir=Path.cwd(), title="demo", hint=DEMO_HINT)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        assert app.model is not None
        assert all(app.model.counts()[kind] for kind in ChangeKind)
        [said] = [n.message for n in app._notifications if n.title == "what to try"]
        assert said.startswith("The repair makes every kind of change in this transcript. n goes to each change")
        assert "x to each provider problem, ⏎ shows a message whole, p picks" in said
        assert said.endswith("e exports; ? lists every key.")
        # The keys it names are the app's own keys.
        assert {"n", "x", "p", "e", "enter", "question_mark"} <= set(app._main_keys)


async def test_large_transcript_opens_and_scrolls(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    chunks = []
    for k in range(5_000):
        chunks.append(line(USER))
        chunks.append(
            line(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": f"c{k}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
                }
            )
        )
        if k % 3:
            chunks.append(line({"role": "tool", "tool_call_id": f"c{k}", "content": "ok"}))
    path.write_bytes(b"".join(chunks))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.model is not None and len(app.model) > 13_000
        await pilot.press("G")
        assert app.view.cursor == len(app.model) - 1
        assert app.view.scroll_y > 13_000 - 50
        text = screen_text(app)
        assert "c4999" in text
        await pilot.press("N")
        assert app.view.cursor in app.model.changed_rows


# -- provider checks -----------------------------------------------------------------------------


async def test_provider_verdict_problems_and_picker(worked: Path) -> None:
    checks = pytest.importorskip("suture.checks")
    from suture import scan
    from suture.tui.changes import ProblemList
    from suture.tui.screens import ProviderScreen

    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        assert app.verdicts is not None and app.model is not None
        expected = checks.verdict(app.model.transcript.messages, app.provider, repaired=app.model.repair)
        # The file's own provider heads it (a chat file's: OpenAI Chat), as suture scan says.
        assert app.provider == "openai-chat" == scan.judge(app.model.transcript, app.model.repair).provider
        assert expected.before
        assert expected.summary() in app.status.render().plain
        problems = app.query_one("#problems", ProblemList)
        assert len(problems.items) == len(expected.before) + len(expected.after)
        # Choosing a problem jumps to the message it is about.
        last = len(expected.before) - 1
        await pilot.click(ProblemList, offset=(5, last))
        assert app.view.cursor == app.model.row_of_input[expected.before[last].index]
        # x / X walk the rows with problems.
        await pilot.press("g", "x")
        assert app.view.cursor == min(app.problem_rows)
        await pilot.press("G", "X")
        last_row = len(app.model) - 1
        assert app.view.cursor == max(r for r in app.problem_rows if r < last_row)
        # p picks another provider; everything follows it.
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        other = [p for p in checks.PROVIDERS if p != app.provider][-1]
        await pilot.press("end")
        await pilot.press("enter")
        assert app.provider == other
        assert app.verdicts[other].summary() in app.status.render().plain
        info = app.query_one("#info").findings  # type: ignore[attr-defined]
        assert {row: [f for f in found if f.is_problem] for row, found in info.items()} == app.problem_rows


def _marked(app: SutureApp, row: int) -> list[str]:
    """The texts drawn in the search-match style on a row (both panes)."""
    view = app.view
    match = view._style("match")
    strip = view._draw(row, view.width, view._base_style())
    return [seg.text for seg in strip if seg.style is not None and seg.style.bgcolor == match.bgcolor]


async def test_search_marks_exactly_the_matches(tmp_path: Path) -> None:
    # Casefolding "ß" gives two letters: the mark must still fall on the match, not beside it.
    path = tmp_path / "s.json"
    path.write_text('[{"role": "user", "content": "Straße THE end"}, {"role": "user", "content": "no"}]')
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await app.run_search("the", jump=False).wait()  # (its result is shown before it ends)
        await pilot.pause()
        assert app.matches == [0]
        assert _marked(app, 1) == []
        # Row 0's index number is marked too; in each pane the summary's "THE" is.
        assert [t for t in _marked(app, 0) if not t.strip().isdigit()] == ["THE", "THE"]


async def test_a_search_says_it_is_searching_until_its_result_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.json"
    path.write_text('[{"role": "user", "content": "the one"}, {"role": "user", "content": "no"}]')
    go_on = threading.Event()
    search = RowModel.search

    def held(self: RowModel, query: str) -> list[int]:
        if not go_on.wait(20):
            raise TimeoutError("the test never let the search go on")
        return search(self, query)

    monkeypatch.setattr(RowModel, "search", held)
    app = SutureApp(path, watch=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            await pilot.press("slash", *"the", "enter")
            assert app.search_state == "searching for “the”…"
            go_on.set()
            for _ in range(500):
                if app.search_state.startswith("/the: 1/1"):
                    break
                await pilot.pause(0.01)
            assert app.search_state.startswith("/the: 1/1")
    finally:
        go_on.set()


async def test_first_screen_shows_the_first_change(tmp_path: Path) -> None:
    # The cursor starts on the first change; on a long history the view must scroll to it.
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(300)]
    messages.insert(200, {"role": "assistant", "content": ""})  # dropped by repair
    path = tmp_path / "long.json"
    path.write_bytes(orjson.dumps(messages))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        view = app.view
        assert app.model is not None and view.cursor == app.model.changed_rows[0] == 200
        top = int(view.scroll_y)
        assert top <= view.cursor < top + view.scrollable_content_region.height
        assert "200 assistant" in screen_text(app)


async def test_cursor_move_redraws_only_its_two_rows(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("g")
        await pilot.pause()
        view = app.view
        asked: list[int] = []
        real = view.render_line

        def spy(y: int) -> object:
            asked.append(y)
            return real(y)

        view.render_line = spy  # type: ignore[method-assign]
        await pilot.press("down")
        await pilot.pause()
        assert view.cursor == 1 and int(view.scroll_y) == 0
        assert sorted(set(asked)) == [0, 1]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])  # a full reload; an append read incrementally
async def test_reload_frees_the_old_model_with_the_heap_frozen(tmp_path: Path, suffix: str) -> None:
    # The app freezes the heap after a load (no full collections on key presses), so an old
    # model must be freed by reference counting alone: it must hold no reference cycles.
    import gc
    import weakref

    path = tmp_path / f"t{suffix}"
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(50)]

    def write(items: list[dict[str, str]]) -> None:
        if suffix == ".json":
            path.write_bytes(orjson.dumps(items))
        else:
            path.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in items))

    write(messages)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert gc.get_freeze_count() > 0
        olds = []
        for i in range(1, 4):
            olds.append(weakref.ref(app.model))
            write([*messages, *[{"role": "user", "content": "more"}] * i])
            await pilot.press("r")
            await ready(pilot, app)
            assert app.model is not None and len(app.model.transcript.messages) == 50 + i
        await pilot.press("e")  # the export's worker holds no model either
        await ready(pilot, app)
        await pilot.press("escape")
        assert [old() for old in olds] == [None, None, None]
    gc.unfreeze()


async def test_rows_fill_the_view_exactly_at_any_width(tmp_path: Path) -> None:
    # Wide characters, combining marks and long texts: each row is cut or padded to the cell.
    path = tmp_path / "wide.json"
    messages = [
        {"role": "system", "content": "系统提示：你是一个编码代理。" * 5},
        {"role": "user", "content": "emoji 🎉🎉 e\u0301 " + "宽字符" * 30},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "读取文件", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "İstanbul straße " * 10},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "x"},
    ]
    path.write_bytes(orjson.dumps(messages))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await app.run_search("ss", jump=False).wait()
        await ready(pilot, app)
        for width in (24, 37, 61, 100, 161, 230):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            view = app.view
            assert view.model is not None
            for row in range(len(view.model)):
                for side in (0, 1):
                    view.side = side
                    view.cursor = row
                    strip = view._draw(row, view.width, view._base_style())
                    # The scrollbar takes the last column: rows fill the rest exactly.
                    assert view.width == view.size.width - 1
                    assert strip.cell_length == view.width
                    assert sum(cell_len(s.text) for s in strip) == view.width


async def test_checks_run_again_once_the_file_settles(tmp_path: Path) -> None:
    # After a reload the provider checks wait for the file to be quiet (a live session appends
    # in bursts), then run on the new history.
    path = tmp_path / "t.json"
    clean = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    path.write_bytes(orjson.dumps(clean))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checks_done(pilot, app)
        assert app.verdicts is not None and not app.verdicts["anthropic"].rejected
        orphan = {"role": "tool", "tool_call_id": "nope", "content": "late"}
        path.write_bytes(orjson.dumps([*clean, orphan]))
        await pilot.press("r")
        await ready(pilot, app)
        assert app._checks_timer is not None  # waiting for the file to settle
        assert not app.checks_done and not app.verdicts["anthropic"].rejected
        await checks_done(pilot, app)
        assert app.verdicts is not None and app.verdicts["anthropic"].rejected  # the orphan result is a problem


async def test_a_broken_background_task_says_so(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)

        def broken(**_: bool) -> object:
            raise RuntimeError("disk on fire")

        app.live.poll = broken  # type: ignore[method-assign]
        await pilot.press("r")
        await ready(pilot, app)
        await pilot.pause()
        texts = [n.message for n in app._notifications]
        assert any("read_file failed: RuntimeError: disk on fire" in t for t in texts)
        assert app.model is not None  # the last good view stays


async def test_keys_typed_straight_after_the_slash_go_to_the_search(worked: Path) -> None:
    # A terminal delivers keys typed fast (or pasted) in one batch: all of them must reach the
    # search box, none the view (n would jump, Enter would open the details).
    from textual import events

    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        for key, char in [("slash", "/"), *((c, c) for c in "late"), ("enter", "\r")]:
            app.post_message(events.Key(key, char))
        await ready(pilot, app)
        assert app.matches == [9] and isinstance(app.screen, type(app.screen_stack[0]))
        assert "/late" in app.search_state


async def test_a_slash_typed_into_a_box_is_text(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("slash", "a", "slash", "b")
        assert app.query_one("#search", Input).value == "a/b"
        await pilot.press("escape", "e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        box = app.screen.query_one(Input)
        box.value = ""
        await pilot.press("slash", "t", "slash")
        assert box.value == "/t/"


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ([], "O6"),
        ({"model": "claude-sonnet-4-5", "max_tokens": 9, "system": "be brief", "messages": []}, "A14"),
    ],
)
async def test_a_request_with_no_message_is_a_problem_of_the_list(tmp_path: Path, body: object, rule: str) -> None:
    """No message to send: listed, said as the list's (not a message number), and choosing it or
    walking the problems moves nowhere rather than failing."""
    from suture.tui.changes import ProblemList

    path = tmp_path / "empty.json"
    path.write_bytes(orjson.dumps(body))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        assert app.verdicts is not None
        v = app.verdicts[app.provider].contract
        assert [(x.rule, x.index) for x in v.before] == [(rule, -1)] == [(x.rule, x.index) for x in v.after]
        problems = app.query_one("#problems", ProblemList)
        assert len(problems.items) == 2
        drawn = problems._draw(0, 80, problems.rich_style).text
        assert rule in drawn and "list" in drawn and "#-1" not in drawn
        left = problems._draw(1, 80, problems.rich_style).text  # left after repair: the list's too
        assert rule in left and "list" in left and "—" not in left
        await pilot.click(ProblemList, offset=(5, 0))
        await pilot.press("x", "X", "enter")
        await pilot.pause()
        assert rule in app.status.render().plain or v.summary() in app.status.render().plain
