"""Details for a reviewer: arguments, the call a result answers, the record as written, changed
ids marked, long strings whole or in $PAGER."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.text import Text

from suture.tui.app import SutureApp
from suture.tui.details import DetailScreen, json_text, paired_call
from tests.helpers.app import WORKED, app_on_copy, ready

ROOT = Path(__file__).resolve().parent.parent
PARALLEL = ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"
SHORT = ROOT / "sample_sessions" / "real" / "claude-code" / "short.jsonl"
MESSAGES = ROOT / "sample_sessions" / "messages" / "clean-request.json"
PI = ROOT / "sample_sessions" / "pi" / "branched-aborted.jsonl"
CALLS = 1  # the input message of PI that makes a call


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


def body(screen: Any, side: int) -> Text:
    shown = screen.query_one(f"#detail-body-{side}").content
    assert isinstance(shown, Text)
    return shown


def styled(text: Text, style: Any) -> list[str]:
    """The pieces of ``text`` drawn with ``style``."""
    return [text.plain[span.start : span.end] for span in text.spans if span.style == style]


async def open_row(pilot: Any, app: SutureApp, row: int) -> DetailScreen:
    app.view.select(row)
    await pilot.press("enter")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, DetailScreen) and screen.row == row
    return screen


def test_json_text_colours_keys_strings_numbers_literals() -> None:
    styles = {"key": "bold", "string": "green", "number": "yellow", "literal": "magenta"}
    text = json_text('{\n  "a": "x: \\"y\\"",\n  "n": -1.5e3,\n  "t": true,\n  "z": null\n}', styles)  # type: ignore[arg-type]
    assert styled(text, "bold") == ['"a"', '"n"', '"t"', '"z"']
    assert styled(text, "green") == ['"x: \\"y\\""']
    assert styled(text, "yellow") == ["-1.5e3"]
    assert styled(text, "magenta") == ["true", "null"]


async def test_calls_show_their_arguments_as_coloured_json(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        screen = await open_row(pilot, app, 1)
        left = body(screen, 0)
        assert 'read_file x\n{\n  "path": "Makefile"\n}' in left.plain  # the JSON string parsed and indented
        assert '"path"' in styled(left, screen._own("json-key"))
        assert '"Makefile"' in styled(left, screen._own("json-string"))


async def test_a_synthetic_result_shows_the_call_it_answers(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        row = next(r for r in range(len(model)) if model.left[r] is None)
        screen = await open_row(pilot, app, row)
        left = body(screen, 0).plain
        assert "added by repair: not in the file" in left
        assert "answers the call\nread_file x_1  in Repaired #5 (Original #6)" in left
        assert '"path": "setup.cfg"' in left
        assert "Original #6" in body(screen, 1).plain  # the Repaired side says it too
        # A kept result answers the call before it, in its own side's numbering.
        screen.dismiss()
        await pilot.pause()
        screen = await open_row(pilot, app, model.row_of_input[5])
        assert "answers the call\nread_file x  in Original #1" in body(screen, 0).plain
        assert "answers the call\nread_file x  in Repaired #1" in body(screen, 1).plain


async def test_changed_ids_are_marked_on_both_sides(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        screen = await open_row(pilot, app, model.row_of_input[6])  # the call renamed x → x_1
        mark = screen._own("changed")
        left, right = styled(body(screen, 0), mark), styled(body(screen, 1), mark)
        assert left and set(left) == {"x"}
        assert right and set(right) == {"x_1"}
        # The Original's record marks the old id, never an "x" inside another word.
        assert "setup.cfg" in body(screen, 0).plain and len(left) == 2  # the call line and the record
        # A row repair left alone marks nothing.
        screen.dismiss()
        await pilot.pause()
        screen = await open_row(pilot, app, 0)
        assert not styled(body(screen, 0), mark) and not styled(body(screen, 1), mark)


async def as_written(pilot: Any, app: SutureApp, message: int) -> DetailScreen:
    """The details of the row of input message ``message``, opened, with the record as written
    (``w``) on the left."""
    await ready(pilot, app)
    model = app.model
    assert model is not None
    screen = await open_row(pilot, app, model.row_of_input[message])
    await pilot.press("w")
    await ready(pilot, app)
    await pilot.pause()
    return screen


async def test_as_written_shows_the_files_bytes_beside_the_normalised_view(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await as_written(pilot, app, 1)
        left = body(screen, 0).plain
        data = worked.read_bytes()
        start = data.index(b'{"role": "assistant", "content": null')
        end = data.index(b"]},", start) + 2
        assert left.endswith(data[start:end].decode())  # byte for byte, line breaks and all
        assert "$[1] (line 3)" in left
        assert "As written: $[1]" in str(screen.query_one("#detail-side-0").border_title)
        right = body(screen, 1).plain
        assert orjson.loads(right) == {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "x", "name": "read_file", "arguments": '{"path": "Makefile"}'},
                {"id": "y", "name": "run_tests", "arguments": "{}"},
            ],
        }
        await pilot.press("w")
        assert "the message's JSON as read from the file" in body(screen, 0).plain


async def test_y_beside_the_record_as_written_copies_what_each_side_shows(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await as_written(pilot, app, 1)
        await pilot.press("l", "y")  # the side titled "As suture reads it: Original #1"
        assert copied[-1] == body(screen, 1).plain
        said = [str(n.message) for n in app._notifications]
        assert said[-1] == f"copied Original #1 as suture reads it, as JSON ({len(copied[-1]):,} characters)"
        assert "Repaired" not in said[-1]
        await pilot.press("h", "y")  # the side titled "As written: $[1]": the file's bytes
        data = worked.read_bytes()
        start = data.index(b'{"role": "assistant", "content": null')
        assert copied[-1] == data[start : data.index(b"]},", start) + 2].decode()
        said = [str(n.message) for n in app._notifications]
        assert said[-1] == f"copied $[1] as written ({len(copied[-1]):,} characters)"


async def test_as_written_gives_every_line_of_a_merged_response(tmp_path: Path) -> None:
    app = app_on_copy(PARALLEL, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await as_written(pilot, app, 1)
        title = str(screen.query_one("#detail-side-0").border_title)
        assert "line 4, line 5, line 6, line 9" in title
        left = body(screen, 0).plain
        lines = app.path.read_bytes().decode().splitlines()
        for number in (4, 5, 6, 9):
            assert lines[number - 1] in left


async def test_long_strings_are_shown_whole_on_request(tmp_path: Path) -> None:
    long = "abcdefghij" * 3000  # 30,000 characters
    path = tmp_path / "long.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": long + "THE END"}]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        screen = await open_row(pilot, app, 0)
        text = body(screen, 0).plain
        assert "THE END" not in text and "10,007 more characters (m shows them" in text
        await pilot.press("m")
        assert body(screen, 0).plain.count("THE END") == 2  # the text, and the record's string
        await pilot.press("m")
        assert "THE END" not in body(screen, 0).plain


@contextlib.contextmanager
def _no_suspend() -> Iterator[None]:
    yield


async def test_o_opens_the_focused_side_in_the_pager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    long = "0123456789" * 3000
    path = tmp_path / "long.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": long + "THE END"}]))
    copied = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"sh -c 'cp \"$0\" {copied}'")
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        screen = await open_row(pilot, app, 0)
        monkeypatch.setattr(app, "suspend", _no_suspend)
        await pilot.press("left", "o")
        await pilot.pause()
        paged = copied.read_text()
        assert paged.count("THE END") == 2 and long in paged  # whole, not cut
        assert "THE END" not in body(screen, 0).plain  # the screen itself stays shortened


async def test_o_without_a_terminal_says_so(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await open_row(pilot, app, 0)
        await pilot.press("o")
        await pilot.pause()
        assert any("cannot open" in n.message for n in app._notifications)
        assert app.is_running


def headings(screen: DetailScreen, side: int) -> list[str]:
    """The headings of a side, in order."""
    return [h.strip() for h in styled(body(screen, side), screen._class_style("detail-heading"))]


async def test_each_content_block_is_shown_under_its_kind_in_order(tmp_path: Path) -> None:
    # A Claude Code response whose first block is whitespace-only text, before its thinking:
    # what the A12 rule reports ("thinking blocks are not first").
    app = app_on_copy(SHORT, tmp_path, "short.jsonl")
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot, app)
        screen = await open_row(pilot, app, 1)
        for side in (0, 1):
            shown = body(screen, side).plain
            assert headings(screen, side)[:4] == ["text", "thinking", "text", "calls"]
            assert shown.startswith('text\nwhitespace only: "\\n\\n"\n\nthinking · signed\nThe user is having trouble')
            assert "\n\ntext\nLet me check the project structure" in shown
        assert 'whitespace only: "\\n\\n"' in styled(body(screen, 0), screen._class_style("detail-muted"))


async def test_redacted_thinking_images_and_empty_text_are_shown_as_themselves(tmp_path: Path) -> None:
    request = orjson.loads(MESSAGES.read_bytes())
    request["messages"][0]["content"] = [
        {"type": "text", "text": ""},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 4096}},
        {"type": "text", "text": "what \x1b[31mis\x1b[0m this?"},
    ]
    path = tmp_path / "request.json"
    path.write_bytes(orjson.dumps(request))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        first = next(r for r in range(len(model)) if model.repaired(r).role == "user")  # type: ignore[union-attr]
        screen = await open_row(pilot, app, first)
        shown = body(screen, 0).plain
        assert headings(screen, 0)[:3] == ["text", "image", "text"]
        assert shown.startswith(
            "text\nempty\n\nimage\nimage/png, 4.0 KB of base64\n\ntext\nwhat \\x1b[31mis\\x1b[0m this?"
        )
        redacted = next(
            r
            for r in range(len(model))
            if any(getattr(p, "kind", "") == "redacted_thinking" for p in model.repaired(r).content or [])  # type: ignore[union-attr]
        )
        await pilot.press("escape")
        screen = await open_row(pilot, app, redacted)
        assert headings(screen, 0)[:2] == ["redacted_thinking", "text"]
        assert '"type": "redacted_thinking"' in body(screen, 0).plain


def test_paired_call_finds_the_nearest_call_with_the_id() -> None:
    from suture.model import Message, ToolCall

    messages = [
        Message("assistant", None, (ToolCall("a", "ls"),)),
        Message("tool", "1", tool_call_id="a"),
        Message("assistant", None, (ToolCall("b", "x"), ToolCall("a", "cat"))),
        Message("tool", "2", tool_call_id="a"),
        Message("tool", "3", tool_call_id="zzz"),
    ]
    assert paired_call(messages, 1) == (0, 0)
    assert paired_call(messages, 3) == (2, 1)
    assert paired_call(messages, 4) is None


async def test_the_repaired_title_says_where_the_file_held_the_message(worked: Path) -> None:
    """Repaired #2 of the worked example is the result the file holds at $[5]: its title says
    where it came from, not as if the repaired file held it there."""
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await ready(pilot, app)
        screen = await open_row(pilot, app, 2)
        assert str(screen.query_one("#detail-side-1").border_title) == "Repaired #2 tool · from $[5]"
        assert str(screen.query_one("#detail-side-0").border_title) == "Original #5 tool · $[5]"
        assert "record as an export writes it" in body(screen, 1).plain  # a chat export writes this record


async def test_a_session_logs_json_is_said_as_what_it_is(tmp_path: Path) -> None:
    """A pi session's Original JSON is the message read from its line (the line has type, id,
    parentId around it), and its Repaired JSON is the record of its request body (--to messages):
    the write-back writes the file's own kind of line, not that JSON."""
    app = app_on_copy(PI, tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        screen = await open_row(pilot, app, model.row_of_input[3])
        right = body(screen, 1).plain
        assert "record as an export writes it" not in right
        heading = (
            "the record --to messages writes for it (a request body), not the session line the write-back writes\n"
        )
        assert orjson.loads(right.split(heading, 1)[1])["role"] == "user"
        await pilot.press("escape")
        # A message with a call: its record is Anthropic's (tool_use), not suture's neutral form.
        screen = await open_row(pilot, app, model.row_of_input[CALLS])
        record = orjson.loads(body(screen, 1).plain.split(heading, 1)[1])
        assert any(part.get("type") == "tool_use" for part in record["content"]) and "tool_calls" not in record
        await pilot.press("escape")
        screen = await open_row(pilot, app, model.row_of_input[7])
        left = body(screen, 0).plain
        assert "the message's JSON as read from the file (line 14); w shows its record as written" in left
