"""A call of the file's last turn, with nothing after it but results, is said to have no result
*yet*: the session may be one its agent still writes, running the call. The repair answers it
as interrupted all the same (what resuming now needs): only the words differ."""

from __future__ import annotations

from pathlib import Path

import orjson

from suture.formats import load_file
from suture.repair import ChangeKind, repair
from suture.tui.app import SutureApp
from suture.tui.changes import ChangeList
from suture.tui.rows import RowModel
from tests.helpers.app import ROOT, SIZE, ready

EARLIER = ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"
"""An unanswered call with a user message after it: interrupted, not running."""


def _chat(tmp_path: Path, answered_first: bool) -> Path:
    calls = [{"id": f"c{k}", "type": "function", "function": {"name": "ls", "arguments": "{}"}} for k in range(2)]
    messages = [
        {"role": "user", "content": "list it"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    if answered_first:  # (parallel calls, one done: the other still runs)
        messages.append({"role": "tool", "tool_call_id": "c0", "content": "a b"})
    path = tmp_path / "chat.json"
    path.write_bytes(orjson.dumps({"messages": messages}))
    return path


def _said(path: Path) -> list[str]:
    transcript = load_file(path)
    model = RowModel(transcript, repair(transcript.messages))
    return [model.said_of(c) for c in model.changes if c.kind is ChangeKind.SYNTHETIC_INTERRUPT]


def test_a_call_of_the_last_turn_has_no_result_yet(tmp_path: Path) -> None:
    said = _said(_chat(tmp_path, answered_first=False))
    assert len(said) == 2 and all(
        "has no result yet (the file's last call: its agent may still be running it): added one" in s for s in said
    ), said
    (one,) = _said(_chat(tmp_path, answered_first=True))
    assert one.startswith("call c1 (ls) has no result yet")


def test_a_call_something_else_followed_had_no_result() -> None:
    said = _said(EARLIER)
    assert said and all("had no result: added one saying it was interrupted" in s for s in said), said


async def test_the_lists_and_the_line_under_the_panes_say_it(tmp_path: Path) -> None:
    app = SutureApp(_chat(tmp_path, answered_first=True), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        changes = app.query_one("#changes", ChangeList)
        assert [changes.said_of(c) for c in changes.items] == _said(_chat(tmp_path, answered_first=True))
        await pilot.press("n")
        await pilot.pause()
        assert "call c1 (ls) has no result yet" in app.query_one("#info").render().plain
