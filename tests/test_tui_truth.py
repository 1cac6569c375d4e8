"""The app tells the same truth as ``suture check`` and ``suture explain``: for a session log the
header and the problems list judge what the agent sends on resume (``suture.sent``), the agent's
own fixes are notes (never problems), the contract view is labelled; the banner shows the request
behind a recorded 400; the records the agent does not send are evidence (``s``), not history."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.widgets import OptionList

from suture import codec
from suture.cli._common import load_sent
from suture.sent import as_sent, verdict
from suture.sent.recorded import behind_in, message_words
from suture.tui.app import SutureApp
from suture.tui.banner import Banner
from suture.tui.bars import StatusBar
from suture.tui.changes import ProblemList
from suture.tui.details import DetailScreen
from suture.tui.evidence import NotSentScreen
from suture.tui.judged import Finding, Section
from suture.tui.keys import KeyBar
from suture.tui.screens import ExportScreen, ProviderScreen
from suture.written import lines_of
from tests.helpers.app import WORKED, ready
from tests.helpers.checks import checks_done
from tests.helpers.sent import blank_second_prompt, thinking_after_text

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328"
TEXT_BEFORE = RECORDED / "text-before-result" / "session.jsonl"
LOOPING = RECORDED / "text-before-result" / "resumed.jsonl"
KILLED = RECORDED / "killed-during-tool" / "session.jsonl"
TOOL_HEAVY = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
PI = ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl"
SMALL = (80, 24)
SIZE = (160, 45)


def copy(source: Path, tmp_path: Path) -> Path:
    path = tmp_path / source.name
    shutil.copy(source, path)
    return path


async def checked(pilot: Any, app: SutureApp) -> None:
    """Loaded, every provider checked, and the recorded error read (each in a worker)."""
    await ready(pilot, app)
    await checks_done(pilot, app)
    for _ in range(200):  # a bound: the recorded error is read in a worker of its own
        if app.recorded is None or app.recorded.explanation is not None:
            break
        await ready(pilot, app)
        await pilot.pause(0.05)
    await pilot.pause()


def listed(app: SutureApp) -> list[Finding | Section]:
    return list(app.query_one("#problems", ProblemList).items)


def keys(app: SutureApp) -> list[str]:
    """The keys the key bar of the screen on top draws."""
    bar = app.screen.query(KeyBar).last()
    return [k.key for k in bar.fitted(bar.size.width)]


async def test_a_session_log_is_judged_on_what_the_agent_sends(tmp_path: Path) -> None:
    # Claude Code really loops on a text block before a tool_result: the header says so in the
    # library's words, x goes to the message, and the agent's own fix is a note.
    path = copy(TEXT_BEFORE, tmp_path)
    expected = verdict(load_sent(str(path), None, False))
    assert expected.rejected and expected.notes  # what this sample is for
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checked(pilot, app)
        assert app.provider == expected.provider == "anthropic"
        # The library's sentence, then what suture's repair leaves (the same sentence, what the
        # agent repairs itself left out, where it does not fit the header).
        left = len(expected.contract.after)
        assert app.status.state.checks is not None
        assert app.status.state.checks[0].plain == f"{expected.summary()} → {left} after repair"
        assert (
            app.status.render()
            .plain.splitlines()[0]
            .endswith(f"anthropic: rejected, 1 problem in what Claude Code sends → {left} after repair")
        )
        judged = app.verdicts["anthropic"] if app.verdicts else None
        assert judged is not None and judged.sent is not None
        assert [v.error for v in judged.sent.problems] == [v.error for v in expected.problems]
        model = app.model
        assert model is not None
        # x visits exactly the sent problems, on the rows of the messages they came from.
        rows = sorted({model.row_of_input[i] for v in expected.problems if (i := expected.at(v)) is not None})
        assert sorted(app.problem_rows) == rows
        await pilot.press("g", "x")
        assert app.view.cursor == rows[0]
        # The list: what is sent, then what Claude Code repairs itself, then the contract view.
        items = listed(app)
        titles = [item.title for item in items if isinstance(item, Section)]
        assert titles[0] == "In what Claude Code sends"
        assert titles[1] == "Claude Code repairs this itself (not a problem)"
        assert titles[2].startswith("Contract view (")
        findings = [item for item in items if isinstance(item, Finding)]
        assert [f.kind for f in findings if not f.contract] == ["sent"] * len(expected.problems) + ["agent"] * len(
            expected.notes
        )
        assert sum(f.contract for f in findings) == len(expected.contract.before) + len(expected.contract.after)
        assert not any(f.is_problem for f in findings if f.kind == "agent" or f.contract)
        # The info bar and the details say it too.
        info = app.query_one("#info").render().plain  # type: ignore[attr-defined]
        assert f"anthropic {expected.problems[0].rule} in what Claude Code sends" in info
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        why = app.screen.query_one("#detail-why").render().plain  # type: ignore[attr-defined]
        assert "in what Claude Code sends" in why
        assert "contract view: anthropic" in why


async def test_a_rejected_joined_message_is_a_problem_on_its_first_records_row(tmp_path: Path) -> None:
    # Claude Code joins the prompts of lines 3 and 22 into one message, rejected for a block of
    # line 22: the verdict the app gets from its checks process names both records, and X goes
    # to the row of the first, where the message the agent sends starts.
    path = blank_second_prompt(tmp_path)
    expected = verdict(load_sent(str(path), None, False))
    (problem,) = expected.problems
    assert expected.at(problem) == 0 and expected.written_of(problem) == (0, 2)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checked(pilot, app)
        judged = app.verdicts["anthropic"] if app.verdicts else None
        assert judged is not None and judged.sent is not None
        (shown,) = judged.sent.problems
        assert shown.rule == "A7" and judged.sent.written_of(shown) == (0, 2)
        model = app.model
        assert model is not None
        assert sorted(app.problem_rows) == [model.row_of_input[0]]
        await pilot.press("G", "X")
        assert app.view.cursor == model.row_of_input[0]


async def test_what_the_agent_repairs_itself_is_never_a_problem(tmp_path: Path) -> None:
    # A real session whose file breaks the contract (whitespace text before thinking) but which
    # Claude Code sends accepted: the header says accepted, no row is a problem (x goes to what
    # the list shows, saying it is no problem: tests/test_tui_wrap.py).
    path = copy(TOOL_HEAVY, tmp_path)
    expected = verdict(load_sent(str(path), None, False))
    assert not expected.rejected and expected.notes and expected.contract.before
    app = SutureApp(path, watch=False)
    # (Wide enough for the verdict's sentence beside what the export does otherwise.)
    async with app.run_test(size=(200, 45)) as pilot:
        await checked(pilot, app)
        assert expected.summary() in app.status.render().plain
        assert not app.problem_rows
        assert app.query_one("#problems-title").render().plain == "Sent to anthropic: accepted"  # type: ignore[attr-defined]
        notes = [f for f in listed(app) if isinstance(f, Finding) and f.kind == "agent"]
        # The library's notes, listed in the order of their rows (as the panes read them).
        fixes = [f.fix for f in notes]
        assert len(fixes) == len(expected.notes) and all(fix in fixes for fix in expected.notes)
        assert [f.row for f in notes] == sorted(f.row for f in notes)
        model = app.model
        assert model is not None
        # Choosing a note goes to the message the agent repairs.
        problems = app.query_one("#problems", ProblemList)
        at = problems.items.index(notes[0])
        problems.cursor = at
        await pilot.pause()
        assert notes[0].fix is not None and notes[0].fix.index is not None
        assert app.view.cursor == model.row_of_input[notes[0].fix.index]


async def test_the_agents_own_provider_is_shown_first(tmp_path: Path) -> None:
    # pi talked to Anthropic: its verdict is the header's even where another provider's rules
    # (Bedrock's, which comes before it in the picker) would reject the file as written.
    path = copy(PI, tmp_path)
    transcript = load_sent(str(path), None, False)
    sent = as_sent(transcript)
    assert verdict(transcript, "bedrock", sent=sent).contract.before
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checked(pilot, app)
        assert app.provider == sent.provider
        assert verdict(transcript, sent=sent).summary() in app.status.render().plain
        # p picks another provider; the header then says that one's verdict on what pi sends.
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        names = [o.id for o in app.screen.query_one(OptionList)._options]
        for _ in range(names.index("openai-chat") - names.index(app.provider)):
            await pilot.press("j")
        await pilot.press("enter")
        assert app.provider == "openai-chat"
        assert verdict(transcript, "openai-chat", sent=sent).summary() in app.status.render().plain


async def test_a_request_file_keeps_its_before_and_after_verdict(tmp_path: Path) -> None:
    from suture import checks

    path = copy(WORKED, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checked(pilot, app)
        assert app.model is not None and app.verdicts is not None
        expected = checks.verdict(app.model.transcript.messages, app.provider or "", repaired=app.model.repair)
        assert expected.summary() in app.status.render().plain
        assert not any(isinstance(item, Section) for item in listed(app))
        assert all(app.verdicts[p].sent is None for p in app.verdicts)


async def test_the_banner_shows_the_request_behind_the_recorded_400(tmp_path: Path) -> None:
    path = copy(LOOPING, tmp_path)
    transcript = load_sent(str(path), None, False)
    source, text = transcript.evidence[-1]
    request = behind_in(path, source.line)
    assert request is not None
    named = request.named(text)
    assert named is not None
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await checked(pilot, app)
        shown = app.query_one(Banner).render().plain
        assert f"the request behind it (line {request.line}, {len(request.messages)} messages" in shown
        assert f"messages.{named[0]} is {message_words(named[1])}" in shown
        assert "suture's check of it: " + ", ".join(sorted({v.rule for v in request.problems()})) in shown


async def test_records_the_agent_does_not_send_are_evidence(tmp_path: Path) -> None:
    path = copy(PI, tmp_path)
    transcript = load_sent(str(path), None, False)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        n = len(transcript.skipped)
        assert f"not sent by pi, kept as evidence: {n} failed or aborted turns (s lists them)" in (
            app.query_one(Banner).render().plain
        )
        await pilot.press("s")
        assert isinstance(app.screen, NotSentScreen)
        options = app.screen.query_one("#not-sent-list", OptionList)
        assert options.option_count == n
        await pilot.press("j")  # the second record: pi's failed turn at line 33
        await app.workers.wait_for_complete()
        await pilot.pause()
        second = transcript.skipped[1]
        body = app.screen.query_one("#not-sent-body").render().plain  # type: ignore[attr-defined]
        assert body.startswith(f"{second.source} as written")
        assert '"stopReason": "error"' in body
        await pilot.press("escape")
        assert not isinstance(app.screen, NotSentScreen)


async def test_an_api_error_record_shows_the_request_it_answered(tmp_path: Path) -> None:
    path = copy(LOOPING, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checked(pilot, app)
        await pilot.press("s")
        assert isinstance(app.screen, NotSentScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        body = app.screen.query_one("#not-sent-body").render().plain  # type: ignore[attr-defined]
        assert '"isApiErrorMessage": true' in body
        assert "The request behind it (recorded at line 39" in body
        assert '"cache_control"' in body  # the request as sent, rebuilt from the file


async def test_nothing_left_out_no_s(tmp_path: Path) -> None:
    path = copy(KILLED, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checked(pilot, app)
        assert app.model is not None and not app.model.transcript.skipped
        assert "s" not in keys(app)
        await pilot.press("s")
        assert not isinstance(app.screen, NotSentScreen)


async def test_dialogs_show_their_own_keys(tmp_path: Path) -> None:
    path = copy(TEXT_BEFORE, tmp_path)
    app = SutureApp(path, watch=False, export_dir=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        assert keys(app) == ["enter", "j/k", "esc"]
        await pilot.press("escape")
        await pilot.press("e")
        for _ in range(50):
            if isinstance(app.screen, ExportScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, ExportScreen)
        assert keys(app) == ["enter", "esc", "^t"]  # no "q Quit" while q types into the path
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        assert any("not exported" in str(n.message) for n in app._notifications)
        assert not list(tmp_path.glob("*.repaired*"))


@pytest.mark.parametrize("source", [TEXT_BEFORE, TOOL_HEAVY], ids=["rejected", "accepted"])
async def test_the_header_agrees_with_suture_check(tmp_path: Path, source: Path) -> None:
    from tests.helpers.cli import run

    path = copy(source, tmp_path)
    said = run("check", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await checked(pilot, app)
        judged = app.verdicts["anthropic"] if app.verdicts else None
        assert judged is not None
        # The same sentence, word for word, then (rejected) what suture's repair leaves, as
        # suture check says it of the contract view.
        assert judged.summary().removesuffix(judged.left()) in said.stdout
        if judged.rejected:
            assert judged.left() and f"{judged.left()}\n" in said.stdout
        assert said.returncode == (1 if judged.rejected else 0)


@pytest.mark.parametrize("width", [80, 120, 160, 200])
@pytest.mark.parametrize(
    "source", [TEXT_BEFORE, ROOT / "sample_sessions" / "pi" / "branched-aborted.jsonl"], ids=["claude-code", "pi"]
)
async def test_a_rejected_session_header_says_what_is_left_after_repair(
    tmp_path: Path, source: Path, width: int, capsys: Any
) -> None:
    # As a request file's header says "→ 0 after repair" (or, narrow, "→ 0"), so does a session
    # log's the provider rejects, at every width, in the longest form that fits, and with the
    # figure suture check and suture scan give after repair (what the agent sends from the
    # session suture repair writes).
    from suture.words import after_repair, count

    scanned = _scan_json(source, capsys)
    app = SutureApp(copy(source, tmp_path), watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await checked(pilot, app)
        judged = app.verdicts[app.provider] if app.verdicts and app.provider else None
        assert judged is not None and judged.session and judged.rejected
        left = judged.after_sent
        assert left == scanned["after_repair"]
        header = " ".join(line.strip() for line in app.status.render().plain.splitlines()[: StatusBar.UNIT_LINES])
        n = len(judged.sent.problems) if judged.sent is not None else 0
        forms = judged.headed()
        assert forms[0].startswith(judged.sent.summary() if judged.sent else "")
        shown = next(form for form in forms if header.endswith(form))
        # The same sentence at every width, clauses left out: the figure at the least.
        if shown == forms[-1]:
            assert shown == f"{app.provider}: rejected, {count(n, 'problem')} → {left}"
        else:
            assert shown.endswith(f" {after_repair(left)}")
        if width >= 120:  # room for words, not only figures
            assert shown != forms[-1], header


async def test_a_session_header_gives_the_after_repair_figure_scan_gives(tmp_path: Path, capsys: Any) -> None:
    # A whitespace text block and a thinking block before the call Claude Code answers out of
    # order: it repairs both itself, the contract view's repair leaves them, and the session
    # suture repair writes is accepted (scan's after_repair, 0). The header says "→ 0 after
    # repair", as scan does, not "→ 2 after repair" (the contract view's count), after an
    # append too.
    import orjson

    lines = TEXT_BEFORE.read_bytes().splitlines()
    k = next(i for i, line in enumerate(lines) if b'"tool_use"' in line)
    record = orjson.loads(lines[k])
    blocks = [{"type": "text", "text": " "}, {"type": "thinking", "thinking": "hm", "signature": "sig"}]
    record["message"]["content"] = blocks + record["message"]["content"]
    lines[k] = orjson.dumps(record)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    scanned = _scan_json(path, capsys)
    assert scanned["verdict"] == "rejected" and scanned["after_repair"] == 0
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(200, 24)) as pilot:
        await checked(pilot, app)
        judged = app.verdicts[app.provider] if app.verdicts and app.provider else None
        assert judged is not None and judged.rejected and len(judged.contract.after) == 2
        header = app.status.render().plain.splitlines()[0]
        assert "rejected, 1 problem in what Claude Code sends" in header, header
        assert header.endswith("→ 0 after repair"), header
        # A reply to the last prompt, then another prompt: the rejected call stays as it was.
        records = [orjson.loads(line) for line in lines]
        first = next(r for r in records if r.get("type") == "user")  # a prompt, as a person types it
        answer = next(r for r in records if r.get("type") == "assistant")
        reply = {**answer, "uuid": "appended-1", "parentUuid": [r for r in records if r.get("uuid")][-1]["uuid"]}
        reply["message"] = {**answer["message"], "id": "msg_appended", "content": [{"type": "text", "text": "ok"}]}
        prompt = {**first, "uuid": "appended-2", "parentUuid": "appended-1"}
        prompt["message"] = {"role": "user", "content": "and now?"}
        with path.open("ab") as f:
            f.write(orjson.dumps(reply) + b"\n" + orjson.dumps(prompt) + b"\n")
        app.read_file()
        await ready(pilot, app)
        await checked(pilot, app)
        assert app.model is not None and app.model.transcript.messages[-1].content == "and now?"
        again = app.verdicts[app.provider] if app.verdicts and app.provider else None
        # The checks resumed after the append: the figure is worked out again, as a whole check
        # works it out, from the bytes of the session as it is now.
        assert again is not None and again is not judged and again.rejected and again.after_sent == 0
        header = app.status.render().plain.splitlines()[0]
        assert header.endswith("→ 0 after repair"), header


def _samples() -> list[Path]:
    """Every transcript under sample_sessions/ (a recorded shape's session and resumed files;
    not its requests log or its description)."""
    found = [
        p
        for p in sorted((ROOT / "sample_sessions").rglob("*.json*"))
        if p.suffix in (".json", ".jsonl") and p.name not in ("requests.jsonl", "shape.json")
    ]
    assert len(found) > 50  # the recorded shapes are there too
    return found


def _check_json(path: Path, provider: str | None, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    """What ``suture check [--provider P] --json FILE`` prints, and its exit code."""
    import json

    from suture.cli import main

    capsys.readouterr()
    code = main(["check", *(["--provider", provider] if provider else []), "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)


def _scan_json(path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """The row ``suture scan --json FILE`` prints for the file."""
    import json

    from suture.cli import main

    capsys.readouterr()
    main(["scan", "--json", str(path)])
    return json.loads(capsys.readouterr().out.splitlines()[0])


@pytest.mark.parametrize("source", _samples(), ids=lambda p: str(p.relative_to(ROOT / "sample_sessions")))
async def test_every_sample_header_agrees_with_suture_check(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # At 80x24, where the header often has room only for its short form: the provider the app
    # shows is the file's own, the one `suture scan` judges it for, and its verdict and problem
    # count are what `suture check` says of the same file.
    from suture.sent import models

    path = tmp_path / source.name
    shutil.copy(source, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        assert app.model is not None and app.verdicts is not None
        lines = app.status.render().plain.splitlines()
        # The header's line with the verdict: the first, or the next where the export's aside,
        # said in full, leaves the verdict no room beside it.
        header = next((line for line in lines[:2] if app.provider and f"{app.provider}" in line), lines[0])
        forms = app.status.state.checks or ()
        full = forms[0].plain if forms else ""
        session = app.model.transcript.format in models()
    scanned = _scan_json(path, capsys)
    if not scanned["provider"]:
        # Written for no single provider (the AI SDK): judged, as scan and check judge it, by the
        # Valid property every provider shares.
        assert app.provider is None and not session
        code, said = _check_json(path, None, capsys)
        n, left = scanned["problems"], scanned["after_repair"]
        assert n == len(said["problems"]) and code == (1 if n else 0)
        assert full == (
            f"Valid: {n} problem{'s' if n != 1 else ''} → {left} after repair" if n or left else "Valid: no problems"
        )
        assert header.endswith(tuple(form.plain for form in forms)), (header, forms)
        return
    assert app.provider == scanned["provider"]
    assert (scanned["verdict"] == "rejected") == app.verdicts[app.provider].rejected
    if session:
        # A session log: suture check with no provider judges what the agent sends, to the
        # provider it talks to: the one the app shows first.
        code, said = _check_json(path, None, capsys)
        assert list(said["providers"]) == [app.provider]
    else:
        code, said = _check_json(path, app.provider, capsys)
    verdict = said["providers"][app.provider]
    assert full.startswith(verdict["summary"])  # the library's sentence, word for word
    if session:
        n = verdict["problems"]
        assert (verdict["verdict"] == "rejected") == bool(n)
        if scanned["stricter"]:
            # Accepted where the stricter servers of the same API would not: said beside it, as
            # scan says it (on a line of its own at this width).
            assert not n and lines[1].strip().startswith(f"{app.provider}: no problems (stricter servers"), lines
        else:
            # Rejected, what suture's repair leaves is told as a request file's header tells it:
            # what the agent sends from the session suture repair writes, as suture check and
            # suture scan count it.
            left = scanned["after_repair"]
            assert scanned["after_repair"] == verdict["after_repair"]
            # (The longest form of the sentence that fits: the same sentence, clauses left out.)
            assert header.endswith(tuple(form.plain for form in forms)), (header, forms)
            assert forms[-1].plain == (
                f"{app.provider}: rejected, {n} problem{'s' if n != 1 else ''} → {left}"
                if n
                else f"{app.provider}: no problems"
            )
            assert full.endswith(f" → {left} after repair") == bool(n)
        assert code == (1 if n else 0)
    else:
        assert scanned["problems"] == verdict["problems"] and scanned["after_repair"] == verdict["after_repair"]
        assert header.endswith(tuple(form.plain for form in forms)) and full == verdict["summary"], (header, forms)


async def test_a_reload_that_changes_nothing_is_quiet(tmp_path: Path) -> None:
    # r on a file that holds what is shown: the same rows, the same verdicts (not checked
    # again), no reload indicator; one short word for the person who pressed r.
    path = copy(LOOPING, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        model, verdicts, recorded = app.model, app.verdicts, app.recorded
        header = app.status.render().plain
        await pilot.press("r")
        await checked(pilot, app)
        assert app.model is model and app.verdicts is verdicts and app.recorded is recorded
        assert app.reloaded is None and app.status.render().plain == header
        assert [str(n.message) for n in app._notifications] == ["the file holds what is shown: nothing to reload"]
        # A change is still read and said: one byte of a message's text, the file's size kept.
        path.write_bytes(path.read_bytes().replace(b"Note added by hand.", b"Note added by HAND.", 1))
        await pilot.press("r")
        await checked(pilot, app)
        assert app.model is not model
        assert app.reloaded is not None and app.reloaded[0] == "1 message changed"


async def test_the_reload_note_counts_every_append_since_the_person_last_acted(tmp_path: Path) -> None:
    """An agent writes three messages, one at a time, while the file is watched: the note says
    +3, not the last one's +1. A key pressed starts the count again; a reload that is not an
    append at the end says what it brought alone."""
    path = copy(ROOT / "sample_sessions" / "pi" / "v1-clean.jsonl", tmp_path)
    app = SutureApp(path, watch=False)

    def user(text: str) -> bytes:
        return (
            b'{"type":"message","timestamp":"2025-11-20T10:05:00.000Z","message":{"role":"user","content":"'
            + text.encode()
            + b'","timestamp":1767880901000}}\n'
        )

    async def appended(text: str) -> str:
        before = app.model
        with open(path, "ab") as f:
            f.write(user(text))
        app.read_file()  # (as the watcher asks: no key pressed)
        for _ in range(200):
            if app.model is not before:
                break
            await pilot.pause(0.05)
        await checked(pilot, app)
        assert app.reloaded is not None
        return app.reloaded[0]

    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        assert await appended("one") == "+1 message"
        assert await appended("two") == "+2 messages"
        assert await appended("three") == "+3 messages"
        await pilot.press("down")
        assert await appended("four") == "+1 message"
        path.write_bytes(path.read_bytes().replace(b'"content":"four"', b'"content":"FOUR"'))
        app.read_file(whole=True)
        for _ in range(200):
            if app.reloaded is not None and app.reloaded[0] != "+1 message":
                break
            await pilot.pause(0.05)
        assert app.reloaded is not None and app.reloaded[0] == "1 message changed"
        assert await appended("five") == "+1 message"


@pytest.mark.parametrize(
    "sample",
    [
        ROOT / "sample_sessions" / "claude-code" / "compacted.jsonl",
        ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.332" / "compaction" / "session.jsonl",
    ],
    ids=["compacted", "recorded"],
)
async def test_history_before_a_compaction_is_listed(tmp_path: Path, sample: Path) -> None:
    # A session compacted once: the banner names the lines Claude Code does not send, and s
    # says it in full and lists each of those lines, and the compaction's own, as written.
    from suture.formats import skipped

    path = copy(sample, tmp_path)
    transcript = load_sent(str(path), None, False)
    history = skipped(transcript)
    assert history and not transcript.skipped  # what these samples are for
    lines = path.read_bytes().splitlines()
    boundary = next(n for n, line in enumerate(lines, 1) if b'"compact_boundary"' in line)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        assert app.query_one(Banner).skipped[0].startswith(history[0])
        assert "s" in keys(app)
        await pilot.press("s")
        assert isinstance(app.screen, NotSentScreen)
        intro = app.screen.query_one("#not-sent-intro").render().plain  # type: ignore[attr-defined]
        assert f"⋯ {history[0]}" in intro and "No record of the file is left out beyond that." not in intro
        # The list is not every line the agent does not send: its own bookkeeping after the
        # compaction (progress, file snapshots) is left out, and said to be.
        assert (
            "Not listed after the compaction: records of the agent's own bookkeeping, which hold no message." in intro
        )
        options = app.screen.query_one("#not-sent-list", OptionList)
        listed = [str(options.get_option_at_index(k).prompt) for k in range(options.option_count)]
        # Every line up to the compaction's own, in file order, each named by what it holds, but
        # those the panes show (a response the compaction cut is sent whole).
        shown = {n for m in app.model.transcript.messages for n in lines_of(m.source)}  # type: ignore[union-attr]
        left = [n for n in range(1, boundary) if n not in shown]
        assert len(left) >= 3
        assert [label.split("  ")[0] for label in listed] == [f"line {n}" for n in [*left, boundary]]
        kinds = [codec.loads(lines[n - 1]).get("type") for n in left]
        assert all(
            f"{kind} record before the compaction (line {boundary})" in label
            for kind, label in zip(kinds, listed[:-1], strict=True)
        )
        assert "the compaction" in listed[-1]
        await pilot.press("G")  # the compaction's own record, as the file holds it
        await app.workers.wait_for_complete()
        await pilot.pause()
        body = app.screen.query_one("#not-sent-body").render().plain  # type: ignore[attr-defined]
        assert body.startswith(f"line {boundary} as written")
        assert '"subtype": "compact_boundary"' in body
        await pilot.press("escape")
        assert not isinstance(app.screen, NotSentScreen)


def _with_recorded_error() -> list[Path]:
    from suture.formats import load_file

    found = []
    for path in _samples():
        try:
            if load_file(path).evidence:
                found.append(path)
        except Exception:  # a sample that is not a transcript suture reads whole
            continue
    assert found
    return found


@pytest.mark.parametrize("source", _with_recorded_error(), ids=lambda p: str(p.relative_to(ROOT / "sample_sessions")))
async def test_the_banner_points_where_suture_explain_does(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The recorded error's messages, as suture explain finds them (a session log's indices
    # count what the agent sent): the banner's ! goes to the one explain names first (where the
    # provider's check finds the problem among them, else the first of them).
    import json

    from suture.cli import main

    path = copy(source, tmp_path)
    capsys.readouterr()
    main(["explain", "--json", str(path)])
    said = json.loads(capsys.readouterr().out)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)
        recorded = app.recorded
        assert recorded is not None and recorded.explanation is not None
        found = recorded.explanation
        assert found.found == said.get("found", False)
        indices = [m["index"] for m in said.get("messages") or []] if found.found else []
        assert list(found.indices) == indices
        if found.found:
            first = said["first"]
            assert first in indices
            assert recorded.target.startswith(f"Original #{first} ")
            await pilot.press("!")
            assert app.model is not None and app.view.cursor == app.model.row_of_input[first]


async def test_export_offers_the_session_and_its_request_body(tmp_path: Path) -> None:
    # A session log: the export writes, as suture repair does, the session its agent resumes
    # (the default) or, chosen with ctrl+t, its request body; each option says what it writes.
    import subprocess
    import sys

    from textual.widgets import Input, Label, RadioButton

    from suture.writeback import resume_command

    path = copy(TEXT_BEFORE, tmp_path)

    def repaired(*args: str) -> bytes:
        done = subprocess.run(
            [sys.executable, "-m", "suture", "repair", str(path), *args], capture_output=True, check=True
        )
        return done.stdout

    transcript = load_sent(str(path), None, False)
    resume = resume_command(transcript, path.read_bytes(), str(path))
    assert resume
    app = SutureApp(path, watch=False, export_dir=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await checked(pilot, app)

        async def dialog() -> ExportScreen:
            await pilot.press("e")
            for _ in range(100):  # the bytes are made in a worker first
                if isinstance(app.screen, ExportScreen):
                    break
                await pilot.pause(0.05)
            assert isinstance(app.screen, ExportScreen)
            return app.screen

        screen = await dialog()
        labels = [str(b.label) for b in screen.query(RadioButton)]
        assert labels == [f"Claude Code session, resumable with `{resume}`", "Anthropic request body (messages)"]
        what = str(screen.query_one("#export-what", Label).render())
        assert "every line the repair does not change stays as written" in what and f"(`{resume}`)" in what
        assert screen.query_one("#export-path", Input).value.endswith("session.repaired.jsonl")
        await pilot.press("enter")
        await checked(pilot, app)
        session = tmp_path / "session.repaired.jsonl"
        assert session.read_bytes() == repaired()  # what suture repair writes by default
        assert session.read_bytes() != path.read_bytes()

        screen = await dialog()
        await pilot.press("ctrl+t")
        assert screen.query_one("#export-path", Input).value.endswith("session.repaired.json")
        what = str(screen.query_one("#export-what", Label).render())
        assert f"as {labels[1]}" in what and "not a session Claude Code can resume" in what
        await pilot.press("enter")
        await checked(pilot, app)
        body = tmp_path / "session.repaired.json"
        assert body.read_bytes() == repaired("--to", "messages")


async def test_a_banner_line_wrapped_to_fit_keeps_its_key_hint_whole(tmp_path: Path) -> None:
    """At 80 columns the sentence about the history before a compaction is said whole, wrapped,
    and the key that shows it whole on its last line."""
    path = copy(ROOT / "sample_sessions" / "claude-code" / "compacted.jsonl", tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await checked(pilot, app)
        banner = app.query_one(Banner)
        lines = [strip.text for strip in (banner.render_line(y) for y in range(banner.size.height))]
        hinted = [line for line in lines if "(s shows it)" in line]
        assert hinted and hinted[0].rstrip().endswith(" (s shows it)") and "…" not in "".join(lines), lines
        assert " ".join(" ".join(lines).split()) == f"⋯ {banner.skipped[0]}"
        assert all(len(line.rstrip()) <= 80 for line in lines)


async def test_a_session_the_repair_leaves_rejected_says_how_many_are_left(tmp_path: Path, capsys: Any) -> None:
    # Text, then thinking, in one assistant message (A12): neither suture's repair nor Claude
    # Code mends it. The header says "→ 1 after repair", as scan does, and the list marks the
    # problem in what is sent as not fixed by the repair (no ✓).
    path = tmp_path / "session.jsonl"
    path.write_bytes(thinking_after_text(ROOT / "sample_sessions" / "real" / "claude-code" / "short.jsonl"))
    scanned = _scan_json(path, capsys)
    assert scanned["verdict"] == "rejected" and scanned["after_repair"] == 1
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(200, 30)) as pilot:
        await checked(pilot, app)
        judged = app.verdicts[app.provider] if app.verdicts and app.provider else None
        assert judged is not None and judged.after_sent == 1 and judged.after_figure == 1
        header = app.status.render().plain.splitlines()[0]
        assert header.endswith("→ 1 after repair"), header
        problems = app.screen.query_one(ProblemList)
        sent = [k for k, item in enumerate(problems.items) if isinstance(item, Finding) and item.kind == "sent"]
        assert sent and all("✓" not in problems.line(k, Style()).plain for k in sent)
