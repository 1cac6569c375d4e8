"""The app's provider checks after an append resume from the last check, on the checks' worker
thread (no child process), and say what checking the whole file again says: the same verdicts,
the same rows marked, the same lists and status line as the app opened afresh on the file; for a
Claude Code session log too (what it sends on resume, and the verdicts on that)."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.widgets import Static

import suture.checks.apart
import suture.tui.checking
import suture.tui.quiet
from suture.checks import PROVIDERS, verdicts
from suture.checks.apart import Apart
from suture.sent import as_sent
from suture.sent import verdict as sent_verdict
from suture.sent.resume import SentChecks
from suture.tui.app import SutureApp
from suture.tui.judged import verdict_parts
from suture.tui.quiet import Quiet
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
    list that gets an item for each child process that checks the file whole (not one that
    works out only a session's figure after repair, from the file's bytes)."""
    path.write_bytes(data)
    children: list[int] = []

    class Counted(Apart[Any]):
        def __init__(self, work: Callable[[], Iterable[Any]]) -> None:
            if getattr(work, "func", None) is verdict_parts:
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


def _codex_session() -> list[bytes]:
    """A Codex rollout of many turns, each a call and its output; one call never answered (Codex
    answers it "aborted"), one output whose call is nowhere (left out), one item between a call
    and its output (a strict server rejects it)."""

    def item(payload: dict[str, Any]) -> bytes:
        return (
            orjson.dumps({"timestamp": "2026-01-01T00:00:00.000Z", "type": "response_item", "payload": payload}) + b"\n"
        )

    head = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}
    lines = [orjson.dumps(head) + b"\n"]
    lines.append(item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "start"}]}))
    for turn in range(14):
        lines.append(item({"type": "function_call", "call_id": f"c{turn}", "name": "shell", "arguments": "{}"}))
        if turn == 5:
            lines.append(item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "wait"}]}))
        if turn == 8:
            lines.append(item({"type": "function_call_output", "call_id": "nowhere", "output": "?"}))
        if turn != 3:
            lines.append(item({"type": "function_call_output", "call_id": f"c{turn}", "output": "ok"}))
    return lines


def _pi_session() -> list[bytes]:
    """A pi session (to Anthropic) of many turns, each a call and its result; one call never
    answered (pi answers it "No result provided"), one turn that failed (pi leaves it out)."""
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026", "cwd": "/w"}
    model = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "start"}]}]
    for turn in range(14):
        call = {"type": "toolCall", "id": f"c{turn}", "name": "read", "arguments": {}}
        stop = "error" if turn == 7 else "toolUse"
        messages.append({"role": "assistant", "content": [call], **model, "stopReason": stop})
        if turn != 3:
            result = [{"type": "text", "text": "ok"}]
            messages.append({"role": "toolResult", "toolCallId": f"c{turn}", "toolName": "read", "content": result})
    lines = [orjson.dumps(head) + b"\n"]
    for n, m in enumerate(messages, 1):
        entry = {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n > 1 else None, "timestamp": "2026"}
        lines.append(orjson.dumps({**entry, "message": {**m, "timestamp": 0}}) + b"\n")
    return lines


@pytest.mark.parametrize("fmt", ["codex", "pi"])
async def test_checks_of_a_codex_or_pi_session_after_appends_resume_and_say_what_a_whole_check_says(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 0.05)
    lines = _codex_session() if fmt == "codex" else _pi_session()
    path = tmp_path / "session.jsonl"
    async with _opened(path, b"".join(lines[:12]), monkeypatch) as (pilot, app, children):
        for k in range(12, len(lines), 3):
            await _appended(pilot, app, path, b"".join(lines[k : k + 3]))
            model = app.model
            assert model is not None and model.transcript.format == fmt
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
        assert any(f.kind == "agent" for j in app.verdicts.values() for f in j.findings)
    fresh = SutureApp(path, watch=False)
    async with fresh.run_test(size=SIZE) as pilot:
        await settled(pilot, fresh)
        assert _said(fresh) == resumed


async def test_the_valid_property_of_an_ai_sdk_file_after_appends_resumes_and_says_what_a_whole_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 0.05)
    call = {"type": "tool-call", "toolCallId": "t{n}", "toolName": "run", "input": {}}
    result = {"type": "tool-result", "toolCallId": "t{n}", "toolName": "run", "output": {"type": "text", "value": "ok"}}
    lines = [orjson.dumps({"role": "user", "content": "start"}) + b"\n"]
    for n in range(12):
        lines.append(orjson.dumps({"role": "assistant", "content": [{**call, "toolCallId": f"t{n}"}]}) + b"\n")
        if n == 4:
            lines.append(orjson.dumps({"role": "user", "content": "between"}) + b"\n")  # a result out of its turn
        if n != 8:
            lines.append(orjson.dumps({"role": "tool", "content": [{**result, "toolCallId": f"t{n}"}]}) + b"\n")
    path = tmp_path / "chat.jsonl"
    async with _opened(path, b"".join(lines[:8]), monkeypatch) as (pilot, app, children):
        assert app.model is not None and app.model.transcript.format == "vercel"
        for k in range(8, len(lines), 2):
            await _appended(pilot, app, path, b"".join(lines[k : k + 2]))
        assert children == [1]
        kept = app._kept_checks
        assert kept is not None and not isinstance(kept, SentChecks)
        assert kept.valid is not None and kept.valid._before.cut > 0  # the Valid property resumed
        resumed = _said(app)
        assert resumed["provider"] is None and resumed["status"][0].startswith("Valid: 3 problems")
    fresh = SutureApp(path, watch=False)
    async with fresh.run_test(size=SIZE) as pilot:
        await settled(pilot, fresh)
        assert _said(fresh) == resumed


async def _shown(pilot: Any, app: SutureApp, n: int) -> None:
    """Wait (bounded) until the app shows ``n`` messages, without waiting for its checks."""
    for _ in range(250):
        if app.model is not None and len(app.model.transcript.messages) == n:
            return
        await pilot.pause(0.02)
    raise AssertionError(f"the app did not show {n} messages")


def _says_what_a_whole_check_says(app: SutureApp) -> None:
    model = app.model
    assert model is not None and app.verdicts is not None
    whole = verdicts(model.transcript.messages, repaired=model.repair)
    for p, judged in app.verdicts.items():
        assert judged.contract.before == whole[p].before, p
        assert judged.contract.after == whole[p].after, p


async def _written_one_by_one(pilot: Any, app: SutureApp, path: Path, lines: list[bytes], gap: float) -> None:
    """Append ``lines`` to the file shown one at a time, ``gap`` seconds apart, each read (as the
    file's watcher asks when it grows) and shown before the next, its checks not waited for."""
    for data in lines:
        shown = len(app.model.transcript.messages) if app.model is not None else 0
        with path.open("ab") as f:
            f.write(data)
        app.read_file()
        await _shown(pilot, app, shown + 1)
        await pilot.pause(gap)


def _session_lines() -> list[bytes]:
    doc = orjson.loads(SESSION.read_bytes())
    return [line(m) for m in (doc if isinstance(doc, list) else doc["messages"])]


async def test_a_file_written_to_without_a_pause_is_checked_while_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that writes its session more often than the checks' settling time (a running
    tool's progress lines) still gets its checks: at most MOST_WAIT after the first write
    not checked, not only once it stops; each resumed from the last."""
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 1.0)
    monkeypatch.setattr(suture.tui.quiet, "MOST_WAIT", 0.3)
    judge_all = suture.tui.checking.judge_all
    runs: list[tuple[int, bool]] = []

    def counted(*args: Any) -> Any:
        runs.append((len(args[0].transcript.messages), args[5] is not None))
        return judge_all(*args)

    lines = _session_lines()
    path = tmp_path / "session.jsonl"
    async with _opened(path, b"".join(lines[:3]), monkeypatch) as (pilot, app, children):
        monkeypatch.setattr(suture.tui.checking, "judge_all", counted)
        await _written_one_by_one(pilot, app, path, lines[3:], 0.12)  # (well within CHECKS_SETTLE)
        during = list(runs)
        await checks_done(pilot, app)
        assert any(3 < n < len(lines) for n, _ in during), during  # checked while still written
        assert all(resumed for _, resumed in runs), runs
        assert children == [1]
        _says_what_a_whole_check_says(app)


async def test_checks_running_when_the_file_grows_go_on_and_the_next_resume_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checks that take longer than the gap between two writes are not stopped by the second
    write (they would start again from nothing each time, and a file written to steadily would
    never be checked): they end, and the checks of the latest state resume from them."""
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 0.05)
    judge_all = suture.tui.checking.judge_all
    resumed: list[bool] = []

    def slow(*args: Any) -> Any:
        resumed.append(args[5] is not None)
        time.sleep(0.4)  # (in the checks' worker)
        return judge_all(*args)

    lines = _session_lines()
    path = tmp_path / "session.jsonl"
    async with _opened(path, b"".join(lines[:3]), monkeypatch) as (pilot, app, children):
        monkeypatch.setattr(suture.tui.checking, "judge_all", slow)
        await _written_one_by_one(pilot, app, path, lines[3:], 0.15)
        await checks_done(pilot, app)
        assert resumed and all(resumed), resumed
        assert children == [1]
        _says_what_a_whole_check_says(app)


def test_the_wait_for_a_quiet_file_is_never_none() -> None:
    # A Textual timer of no interval that fires late divides by it, and the checks never start.
    quiet = Quiet()
    assert quiet.wait(1.0, 3.0) == 1.0
    quiet.since = time.monotonic() - 10
    assert 0 < quiet.wait(1.0, 3.0) <= 0.01
    quiet.done()
    assert quiet.since is None


async def test_a_verdict_of_the_file_before_its_last_writes_says_so_until_they_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between a write and its checks (a second of quiet, or a run under way), the verdict shown
    is of the file before it: the status line and the problems list's heading say so."""
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 0.6)
    lines = _session_lines()
    path = tmp_path / "session.jsonl"
    async with _opened(path, b"".join(lines[:3]), monkeypatch) as (pilot, app, _):
        heading = app.query_one("#problems-title", Static)
        assert "checking new lines" not in app.status.render().plain
        with path.open("ab") as f:
            f.write(lines[3])
        app.read_file()
        await _shown(pilot, app, 4)
        await pilot.pause()
        assert "(checking new lines…)" in app.status.render().plain
        assert str(heading.render()).endswith(" · checking…")
        await checks_done(pilot, app)
        assert "checking new lines" not in app.status.render().plain
        assert not str(heading.render()).endswith("checking…")


async def test_a_new_recorded_error_is_in_the_banner_before_the_checks_follow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The banner says the error the file recorded last at once, not once the checks follow the
    write (a second of quiet): the lines under the panes count that error already."""
    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 5.0)
    events: list[tuple[str, Any]] = [("user", "go"), ("assistant", ("m1", {"type": "text", "text": "hi"}))]
    lines = session_lines([*events, ("user", "more"), ("error", None), ("user", "again"), ("error", None)])
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:4]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.recorded is not None and app.recorded.count == 1
        with path.open("ab") as f:
            f.write(b"".join(lines[4:]))
        app.read_file()
        for _ in range(100):  # a bound: the error is explained in a worker
            if app.recorded.count == 2:
                break
            await pilot.pause(0.02)
        assert app.recorded.count == 2
        assert app.recorded.source.line == 6
        assert app.verdict_behind  # (the checks still wait for the file to be quiet)


async def test_a_file_read_again_whole_lists_no_findings_of_the_verdict_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read again whole (a compaction, a rewrite) while its checks wait for quiet: the verdict
    before stays in the status line, said to be behind, but its findings are not listed, nor
    said under the panes: their rows hold other messages now, or none."""
    from suture.tui.changes import ProblemList

    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 5.0)
    path = tmp_path / "chat.json"
    path.write_bytes(SESSION.read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        problems = app.query_one("#problems", ProblemList)
        assert app.problem_rows and problems.items
        before = app.model
        path.write_bytes((ROOT / "sample_sessions" / "chat" / "renamed-id.json").read_bytes())
        await _read_again(pilot, app)
        assert app.model is not before and app.verdict_behind
        assert not problems.items and problems.empty == "checking the file as read again…"
        assert not app.problem_rows and not app.query_one("#info").findings
        assert "(checking new lines…)" in app.status.render().plain
        await pilot.press("x")  # (not "no problems": the verdict shown has some)
        await pilot.pause()
        assert [str(n.message) for n in app._notifications][-1] == "checking the file as read again…"
        await checks_done(pilot, app)
        assert problems.items and not app.verdict_behind


async def test_an_append_while_checks_wait_keeps_the_findings_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append is no read again whole: the verdict before, said to be behind, keeps its
    findings listed (their rows hold the same messages) and x goes to them."""
    from suture.tui.changes import ProblemList

    monkeypatch.setattr(suture.tui.checking, "CHECKS_SETTLE", 5.0)
    path = tmp_path / "chat.jsonl"
    sample = ROOT / "sample_sessions" / "chat" / "synthetic-interrupt.jsonl"
    path.write_bytes(sample.read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        problems = app.query_one("#problems", ProblemList)
        listed, rows = list(problems.items), dict(app.problem_rows)
        assert listed and rows
        app._kept_same = None  # (as while the first checks still run: no checks kept to resume from)
        before = app.model
        with path.open("ab") as f:
            f.write(line({"role": "user", "content": "one more"}))
        await _read_again(pilot, app)
        assert app.model is not before and app.verdict_behind
        assert list(problems.items) == listed and app.problem_rows == rows
        await pilot.press("x")
        await pilot.pause()
        assert app.view.cursor in rows


async def _read_again(pilot: Any, app: SutureApp) -> None:
    """Read the file again, and wait until what was read is shown (a bound: read in a worker)."""
    before = app.model
    app.read_file()
    for _ in range(100):
        if app.model is not before:
            return
        await pilot.pause(0.02)
