"""A tool result whose id the repair renamed (its call's id was taken) is a changed row: the rename
shows on its row as on its call's, in every format, in the app's info bar, details, change column,
the changed-rows filter and n/N."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from suture.formats import dump, load_bytes
from suture.repair import ChangeKind, repair
from suture.tui.app import SutureApp
from suture.tui.details import DetailScreen
from suture.tui.rows import RowModel
from tests.helpers.app import SIZE, ready


def _call(call_id: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }


REN = [
    {"role": "user", "content": "hi"},
    _call("a"),
    {"role": "tool", "tool_call_id": "a", "content": "one"},
    _call("a"),
    {"role": "tool", "tool_call_id": "a", "content": "two"},
    {"role": "assistant", "content": "done"},
]
"""Two calls with one id, each answered: the repair renames the second call and its result."""

FORMATS = ("chat", "messages", "responses", "gemini", "vercel")


def _in(fmt: str) -> bytes:
    """The file of :data:`REN` written in ``fmt``."""
    chat = load_bytes(orjson.dumps(REN), "chat")
    return dump(chat.messages, chat, to=fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_renamed_result_is_on_a_changed_row_in_every_format(fmt: str) -> None:
    transcript = load_bytes(_in(fmt), fmt)
    result = repair(transcript.messages)
    [rename] = [c for c in result.changes if c.kind == ChangeKind.RENAMED_ID]
    # The repair's record names the call's message; its result is sent under the new id too.
    [renamed] = result.renamed_results(rename)
    sent = result.messages[renamed]
    assert sent.role == "tool" and sent.tool_call_id == rename.new_id
    origin = result.origin[renamed]
    assert origin is not None and transcript.messages[origin].tool_call_id == rename.call_id
    model = RowModel(transcript, result)
    call_row = model.row_of_output[rename.output_index or 0]
    result_row = model.row_of_output[renamed]
    assert model.row_changes[call_row] == [rename]
    assert model.row_changes[result_row] == [rename]
    assert result_row in model.changed_rows and call_row in model.changed_rows
    assert model.first_change[result_row] == result.changes.index(rename)
    # Still one change: counted once, listed once, and its list entry leads to the call.
    assert sum(model.counts().values()) == len(result.changes) == 1
    assert model.change_rows == [call_row]
    # Every row whose Repaired message differs from its Original is a changed row.
    for row in range(len(model)):
        if model.original(row) != model.repaired(row):
            assert row in model.row_changes, row


def test_a_synthetic_result_is_not_renamed() -> None:
    """A renamed call with no result gets a synthetic one under the new id: that is its own
    change, not the rename's."""
    messages = load_bytes(orjson.dumps([*REN[:4], {"role": "user", "content": "go on"}]), "chat").messages
    result = repair(messages)
    rename = next(c for c in result.changes if c.kind == ChangeKind.RENAMED_ID)
    assert result.renamed_results(rename) == []
    assert any(c.kind == ChangeKind.SYNTHETIC_INTERRUPT for c in result.changes)
    other = next(c for c in result.changes if c.kind != ChangeKind.RENAMED_ID)
    assert result.renamed_results(other) == []


def test_a_model_grown_by_an_append_keeps_the_renamed_result_changed(tmp_path: Path) -> None:
    first = load_bytes(orjson.dumps(REN[:5]), "chat")
    whole = load_bytes(orjson.dumps(REN), "chat")
    before = RowModel(first, repair(first.messages))
    grown = before.grown(whole, repair(whole.messages), (len(REN) - 1, len(REN) - 1))
    assert grown.changed_rows == RowModel(whole, repair(whole.messages)).changed_rows == [3, 4]


@pytest.mark.parametrize("fmt", FORMATS)
async def test_the_app_shows_a_renamed_result_as_changed(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "ren.json"
    path.write_bytes(_in(fmt))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        assert model.changed_rows == [3, 4]
        # The first screen shows the first change; n goes on to the result.
        assert app.view.cursor == 3
        await pilot.press("n")
        assert app.view.cursor == 4
        info = app.query_one("#info").render()
        said = str(info)
        assert "unchanged" not in said
        assert "call a (f) renamed to a_1" in said
        # The change column of the panes.
        strip = app.view._draw(4, app.view.width, app.view._base_style())
        assert "renamed" in "".join(segment.text for segment in strip)
        # Details: the rename heads it, above the JSON that shows it.
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.row == 4
        why = str(screen.query_one("#detail-why").render())
        assert "unchanged" not in why and "renamed to a_1" in why
        assert "a_1" in str(screen.query_one("#detail-body-1").render())
        await pilot.press("escape")
        # The changed-rows filter keeps it; N goes back to the call.
        await pilot.press("v")
        assert app.row_filter == "changed"
        assert app.view.shown == [3, 4]
        await pilot.press("N")
        assert app.view.cursor == 3
