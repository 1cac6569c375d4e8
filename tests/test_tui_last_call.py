"""A call of a session log's last turn, with nothing after it but results, is said to have no
result *yet*: its agent may still be running it, writing the session as it works. The repair
answers it as interrupted all the same (what resuming now needs): only the words differ. A
request file is no session an agent writes as it works: its words stay the repair's."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from suture.formats import load_file
from suture.repair import ChangeKind, repair
from suture.tui.app import SutureApp
from suture.tui.changes import ChangeList
from suture.tui.rows import RowModel
from tests.helpers.app import ROOT, SIZE, ready

RECORDED = ROOT / "sample_sessions" / "recorded"
NOT_YET = "has no result yet (its agent may still run it): added one saying it was interrupted"
HAD = "had no result: added one saying it was interrupted"


def _said(path: Path) -> list[str]:
    transcript = load_file(path)
    model = RowModel(transcript, repair(transcript.messages))
    return [model.said_of(c) for c in model.changes if c.kind is ChangeKind.SYNTHETIC_INTERRUPT]


@pytest.mark.parametrize("agent", ["claude-code-2.1.332", "codex-0.171.0", "pi-0.73.1"])
@pytest.mark.parametrize(("shape", "calls"), [("killed-during-tool", 1), ("parallel-killed", 2)])
def test_a_call_of_the_last_turn_has_no_result_yet(agent: str, shape: str, calls: int) -> None:
    said = _said(RECORDED / agent / shape / "session.jsonl")
    assert len(said) == calls and all(NOT_YET in s for s in said), said


@pytest.mark.parametrize("agent", ["claude-code-2.1.332", "codex-0.171.0"])
def test_a_call_done_beside_it_leaves_the_other_running(agent: str) -> None:
    (said,) = _said(RECORDED / agent / "parallel-first-done-killed" / "session.jsonl")
    assert NOT_YET in said


@pytest.mark.parametrize("agent", ["claude-code-2.1.332", "codex-0.171.0", "pi-0.73.1"])
def test_a_call_later_turns_followed_had_no_result(agent: str) -> None:
    said = _said(RECORDED / agent / "dangling-call-then-later-turns" / "session.jsonl")
    assert said and all(HAD in s for s in said), said


def test_a_request_file_s_last_call_had_no_result(tmp_path: Path) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    messages = [{"role": "user", "content": "list it"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    path = tmp_path / "chat.json"
    path.write_bytes(orjson.dumps({"messages": messages}))
    (said,) = _said(path)
    assert HAD in said


async def test_the_lists_and_the_line_under_the_panes_say_it(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes((RECORDED / "codex-0.171.0" / "killed-during-tool" / "session.jsonl").read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        changes = app.query_one("#changes", ChangeList)
        assert [changes.said_of(c) for c in changes.items] == _said(path)
        await pilot.press("n")
        await pilot.pause()
        assert NOT_YET in " ".join(app.query_one("#info").render().plain.split())
