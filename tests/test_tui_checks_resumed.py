"""The app's provider checks after an append resume from the last check, on the checks' worker
thread (no child process), and say what checking the whole file again says: the same verdicts,
the same rows marked, the same lists and status line as the app opened afresh on the file; for a
Claude Code session log too (what it sends on resume, and the verdicts on that)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

import suture.checks.apart
import suture.tui.checking
from suture.checks import PROVIDERS, verdicts
from suture.checks.apart import Apart
from suture.sent import as_sent
from suture.sent import verdict as sent_verdict
from suture.sent.resume import SentChecks
from suture.tui.app import SutureApp
from tests.helpers.app import ROOT, SIZE, line, settle, settled
from tests.helpers.checks import checks_done
from tests.helpers.sent import session_lines

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: every check runs in the app's process")

SESSION = ROOT / "sample_sessions" / "chat" / "worked-example.json"


async def _kept(pilot: Any, app: SutureApp) -> None:
    for _ in range(250):  # a bound: 5 s for the checks' state to be handed back
        if app._kept_checks is not None:
            return
        await pilot.pause(0.02)
    raise AssertionError("the checks were not kept to resume from")


@asynccontextmanager
async def _opened(
    path: Path, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Any, SutureApp, list[int]]]:
    """The app on ``path`` (``data`` written to it), its first checks done in a child process; and a
    list that gets an item for each child process the checks start."""
    path.write_bytes(data)
    children: list[int] = []

    class Counted(Apart[Any]):
        def __init__(self, work: Callable[[], Iterable[Any]]) -> None:
            children.append(1)
            super().__init__(work)

    monkeypatch.setattr(suture.checks.apart, "Apart", Counted)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await _kept(pilot, app)
        assert children == [1]
        yield pilot, app, children


async def _appended(pilot: Any, app: SutureApp, path: Path, data: bytes) -> None:
    """Append ``data`` to the file shown, and wait for the app to read it and check it again."""
    with path.open("ab") as f:
        f.write(data)
    app.read_file()  # as the file's watcher asks when it grows
    await settle(app)
    await checks_done(pilot, app)
    await _kept(pilot, app)


def _said(app: SutureApp) -> dict[str, Any]:
    assert app.verdicts is not None
    return {p: (j.findings, j.summary(), j.title(), j.listed(), sorted(j.by_row)) for p, j in app.verdicts.items()} | {
        "rows": sorted(app.problem_rows),
        "provider": app.provider,
        "status": tuple(t.plain for t in app.status.state.checks or ()),
    }


async def test_checks_after_an_append_resume_and_say_what_a_whole_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 0.05)
    doc = orjson.loads(SESSION.read_bytes())
    lines = [line(m) for m in (doc if isinstance(doc, list) else doc["messages"])]
    assert len(lines) > 6
    path = tmp_path / "session.jsonl"
    async with _opened(path, b"".join(lines[:3]), monkeypatch) as (pilot, app, children):
        for k in range(3, len(lines)):
            await _appended(pilot, app, path, lines[k])
            assert app.model is not None and len(app.model.transcript.messages) == k + 1
            model = app.model
            whole = verdicts(model.transcript.messages, repaired=model.repair)
            assert app.verdicts is not None
            for p, judged in app.verdicts.items():
                assert judged.contract.before == whole[p].before, p
                assert judged.contract.after == whole[p].after, p
        assert children == [1]  # every check after the first resumed, in the app's process
        resumed = _said(app)
    fresh = SutureApp(path, watch=False)
    async with fresh.run_test(size=SIZE) as pilot:
        await settled(pilot, fresh)
        assert _said(fresh) == resumed


def _claude_code_session() -> list[bytes]:
    """A Claude Code session of many turns, each a call and its result; one call never answered
    (Claude Code leaves it out), one result written after text in its record (Anthropic rejects
    what is sent), one response with a whitespace-only text block."""
    events: list[tuple[str, Any]] = [("user", "start")]
    for turn in range(14):
        mid = f"msg_{turn}"
        if turn == 9:
            events.append(("assistant", (mid, {"type": "text", "text": "\n\n"})))
        events.append(("assistant", (mid, {"type": "text", "text": f"step {turn}"})))
        events.append(("assistant", (mid, {"type": "tool_use", "id": f"c{turn}", "name": "Bash", "input": {}})))
        if turn == 4:
            events.append(("user", f"go on {turn}"))
        elif turn == 6:
            events.append(
                (
                    "user",
                    [{"type": "text", "text": "see"}, {"type": "tool_result", "tool_use_id": "c6", "content": "ok"}],
                )
            )
        else:
            events.append(("user", [{"type": "tool_result", "tool_use_id": f"c{turn}", "content": "ok"}]))
    return session_lines(events)


async def test_checks_of_a_claude_code_session_after_appends_resume_and_say_what_a_whole_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 0.05)
    lines = _claude_code_session()
    path = tmp_path / "session.jsonl"
    async with _opened(path, b"".join(lines[:12]), monkeypatch) as (pilot, app, children):
        for k in range(12, len(lines), 3):
            await _appended(pilot, app, path, b"".join(lines[k : k + 3]))
            model = app.model
            assert model is not None and model.transcript.format == "claude-code"
            sent = as_sent(model.transcript)
            assert app.verdicts is not None and set(app.verdicts) == set(PROVIDERS)
            for p, judged in app.verdicts.items():
                whole = sent_verdict(model.transcript, p, model.repair, sent)
                assert judged.sent is not None
                assert judged.sent.problems == whole.problems, p
                assert judged.sent.notes == whole.notes, p
                assert judged.contract.before == whole.contract.before, p
                assert judged.contract.after == whole.contract.after, p
        assert children == [1]  # every check after the first was worked out in the app's process
        kept = app._kept_checks
        assert isinstance(kept, SentChecks) and kept._grown is not None and kept._grown.cut > 0  # resumed
        resumed = _said(app)
        assert any(f.kind == "sent" for f in app.verdicts["anthropic"].findings)
        assert resumed["provider"] == "anthropic" and resumed["rows"]
    fresh = SutureApp(path, watch=False)
    async with fresh.run_test(size=SIZE) as pilot:
        await settled(pilot, fresh)
        assert _said(fresh) == resumed
