"""``suture scan``, the sessions browser and ``suture check`` say the same about every file: the
samples, the real sessions and every file of the recorded corpus (sessions as the agents left
them and after their resume; the recordings' other files are no transcripts, and all three say
so). For a session log that is the verdict on what the agent sends when it resumes it, its own
fixes counted apart, never as problems."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from suture.checks import verdict as contract_verdict
from suture.cli import main
from suture.formats import NotTranscript, load_file
from suture.io import InputError
from suture.repair import repair
from suture.scan import OK, OTHER, REJECTED, UNREADABLE, judge, scan_path, sent_after_repair
from suture.sent import models
from suture.sent import verdict as sent_verdict
from tests.conftest import SAMPLES

FILES = sorted(
    p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl") and p.name != "README.md"
)
EXIT = {OK: 0, REJECTED: 1, UNREADABLE: 2, OTHER: 2}


def _id(path: Path) -> str:
    return str(path.relative_to(SAMPLES))


def check(capsysbinary: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, Any]:
    """``suture check --json ARGS``, run as the command runs: its exit code and its report."""
    capsysbinary.readouterr()
    code = main(["check", "--json", *args])
    out = capsysbinary.readouterr().out
    return code, json.loads(out) if out else None


def test_the_corpus_is_all_here() -> None:
    recorded = [p for p in FILES if "recorded" in p.parts]
    assert len(recorded) >= 4 * 30  # shape.json, session, resumed and requests of every recorded shape
    assert {p.name for p in recorded} == {"shape.json", "session.jsonl", "resumed.jsonl", "requests.jsonl"}
    assert any("real" in p.parts for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_scan_and_check_agree(path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    row = scan_path(path)
    code, report = check(capsysbinary, str(path))
    assert code == EXIT[row.verdict], (row, report)
    if row.verdict in (UNREADABLE, OTHER):
        return
    assert report is not None
    if report["agent"] is not None:  # a session log: the verdict on what the agent sends
        judged = report["providers"][row.provider]
        assert row.format in models()
        assert (judged["verdict"], judged["problems"]) == (
            {OK: "accepted", REJECTED: "rejected"}[row.verdict],
            row.problems,
        )
        assert len(judged["notes"]) == row.fixes
        # after_repair counts what the verdict counts: what is sent, from the session suture
        # repair writes (not the contract view's problems in the file as written)
        assert judged["after_repair"] == row.after_repair
        if judged["sent"]:
            first = judged["sent"][0]
            assert row.problem.startswith(f"{first['rule']} {first['source']}: ")
        # The stricter servers of the same API that reject what the provider accepts: both say so.
        strict = report["stricter"].get(row.provider)
        assert row.stricter == (strict["provider"] if strict else "")
        assert bool(row.stricter_problem) == bool(strict)
        return
    # A request file: without --provider, suture check judges the Valid property (so does scan
    # where the format has no one provider); with it, that provider's rules, as scan does.
    assert row.fixes == 0
    if not row.provider:
        assert len(report["problems"]) == row.problems
        return
    code, report = check(capsysbinary, "--provider", row.provider, str(path))
    judged = report["providers"][row.provider]
    assert code == EXIT[row.verdict]
    assert (judged["problems"], judged["after_repair"]) == (row.problems, row.after_repair)
    if judged["before"]:
        assert row.problem.startswith(f"{judged['before'][0]['rule']} message {judged['before'][0]['index']}: ")


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_the_judgement_is_the_verdict_on_what_is_sent(path: Path) -> None:
    """``judge`` is ``suture.sent.verdict`` for every format it knows the provider of; for a
    request file that is the provider's checks on the file's own history."""
    try:
        transcript = load_file(path)
    except InputError as e:
        assert scan_path(path).verdict == (OTHER if isinstance(e, NotTranscript) else UNREADABLE)
        return
    repaired = repair(transcript.messages)
    data = path.read_bytes()
    j = judge(transcript, repaired, data)
    if not j.provider:
        return
    v = sent_verdict(transcript, None, repaired)
    session = transcript.format in models()
    left = sent_after_repair(transcript, repaired, data, v.provider, len(v.problems))
    assert (j.provider, j.problems, j.after_repair, j.fixes) == (
        v.provider,
        len(v.problems),
        left if session else len(v.contract.after),
        len(v.notes),
    )
    if transcript.format not in models():
        c = contract_verdict(transcript.messages, j.provider, repaired=repaired)
        assert [x.rule for x in v.problems] == [x.rule for x in c.before]


def test_an_agents_own_fixes_are_counted_and_never_a_problem() -> None:
    """Claude Code answers an interrupted call itself when it resumes: the file as written breaks
    Anthropic's rules, what Claude Code sends does not."""
    path = SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"
    row = scan_path(path)
    transcript = load_file(path)
    assert contract_verdict(transcript.messages, "anthropic").before  # the file as written
    assert (row.verdict, row.problems) == (OK, 0)
    assert row.fixes >= 1
    assert row.changes > 0  # suture's repair of the file as written still has work to do


async def test_the_browser_shows_what_scan_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file in the browser, opened on the samples folder, has the row ``suture scan`` gives."""
    from suture.tui.sessions import SessionsApp, SessionsScreen

    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    app = SessionsApp(SessionsScreen([str(SAMPLES)], [], watch=False))
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(1200):
            if app.browser.finished:
                break
            await pilot.pause(0.05)
        assert app.browser.finished
        shown = {r.path: r for r in app.browser.table.rows}
    assert set(shown) == {str(p) for p in FILES}
    for path in FILES:
        assert shown[str(path)] == scan_path(path), path


@pytest.mark.parametrize(("shape", "rule"), [("item-between-call-and-output", "R7"), ("repeated-id", "R9")])
def test_a_codex_session_only_a_stricter_server_rejects_says_so(shape: str, rule: str) -> None:
    # Recorded: OpenAI's Responses API accepts what Codex 0.171 sends on resume, a strict server
    # of the same API answers 400. The row stays ok, and says which servers reject it and why.
    row = scan_path(SAMPLES / "recorded" / "codex-0.171.0" / shape / "session.jsonl")
    assert (row.verdict, row.provider, row.stricter) == (OK, "openai-responses", "openai-responses-strict")
    assert row.stricter_problem.startswith(f"{rule} line ")


DAMAGED = [
    ("chat/synthetic-interrupt.jsonl", UNREADABLE),  # a request file: refused until the line is fixed
    ("claude-code/parallel-calls.jsonl", OK),  # a session log: judged as the agent reads it, the line skipped
    ("codex/clean-rollout.jsonl", OK),
]


@pytest.mark.parametrize(("sample", "expected"), DAMAGED)
def test_scan_and_check_agree_on_a_file_with_a_line_that_cannot_be_read(
    sample: str, expected: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    lines = (SAMPLES / sample).read_bytes().splitlines(keepends=True)
    damaged = tmp_path / Path(sample).name
    damaged.write_bytes(b"".join([lines[0], b'{"role": "user", "content": \n', *lines[1:]]))
    row = scan_path(damaged)
    code, _report = check(capsysbinary, str(damaged))
    assert (row.verdict, code) == (expected, EXIT[expected]), row
    if expected == UNREADABLE:
        assert row.error.startswith(
            "lines that cannot be read (suture check --skip-bad-lines judges the rest): line 2:"
        )
    else:
        assert row.skipped == 1


def test_after_repair_counts_what_the_verdict_counts() -> None:
    """A session whose file as written breaks the contract where the agent repairs it itself
    (Claude Code leaves out the whitespace-only text block in front of a thinking block): nothing
    is wrong with what it sends, and nothing is after repair either; ``after_repair`` is not the
    contract view's count, which would say repair leaves more than there is."""
    path = SAMPLES / "real" / "claude-code" / "short.jsonl"
    row = scan_path(path)
    assert (row.verdict, row.problems, row.after_repair) == (OK, 0, 0)
    assert sent_verdict(load_file(path)).contract.after  # (what after_repair counted before)
