"""A problem in what an agent sends on resume is numbered as the provider numbers the request the
agent sends, checked against the requests the real agents sent (``sample_sessions/recorded``).

The request holds more than the file's history: Claude Code 2.1.328 puts a ``role: "system"``
message inside ``messages`` right after the first message, pi sends its system prompt first,
Codex its instructions. A provider's ``messages.3`` or ``input[7]`` counts those too, so
``suture check`` (and the app, which shows the same verdict) must count them as ``suture explain``
does and as the recorded 400 does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from suture.checks import PROVIDERS, check
from suture.formats import load_file
from suture.sent import RESUME_PROMPT, as_sent, verdict
from suture.sent.numbered import modelled
from tests.conftest import REAL
from tests.helpers.cli import run
from tests.helpers.sent import FOLDERS, IDS, STRICT, shape
from tools.agents.corpus import first_resume, read_requests
from tools.agents.record import CORPUS

TEXT_BEFORE = CORPUS / "claude-code-2.1.328" / "text-before-result"
INDEX = re.compile(r"\b(?:messages|input|contents)(?:\.|\[)(\d+)")
"""An index a provider's error names: ``messages.3``, ``messages[5]``, ``input[7]``."""
REJECTED = [f for f in FOLDERS if shape(f)["resume"]["outcome"] == "rejected"]
NAMED = [f for f in REJECTED if INDEX.search(shape(f)["resume"]["error"])]
SESSIONS = [*FOLDERS, *sorted({p.parent for p in REAL.rglob("*.jsonl")})]


def _real_request(folder: Path) -> list[Any]:
    """The history list of the first request the real agent sent when it resumed the session."""
    first = first_resume(read_requests(folder))
    assert first is not None, "no resume request was recorded"
    body = first["body"]
    listed: list[Any] = body[next(k for k in ("input", "contents", "messages") if k in body)]
    return listed


def _ids(value: Any) -> list[str]:
    """The call ids a wire value holds (calls, results, outputs), in order."""
    return re.findall(r"\b(?:toolu|call)_\w+", json.dumps(value))


def _kind(value: Any) -> str:
    return str(value.get("role") or value.get("type")) if isinstance(value, dict) else "?"


def test_the_corpus_has_a_rejected_request_whose_error_names_an_index() -> None:
    assert TEXT_BEFORE in NAMED
    assert {shape(f)["agent"] for f in NAMED} >= {"claude-code", "pi"}


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_each_place_of_the_history_is_that_place_of_the_real_request(folder: Path) -> None:
    """Where the model puts each message it sends, and what the agent adds, is where the real
    request has it: the same kind of message holding the same calls and results."""
    real = _real_request(folder)
    sent = as_sent(load_file(folder / "session.jsonl"))
    # Every modelled agent adds something to the history it sends, but pi talking to Anthropic or
    # Gemini: its system prompt is no message there (measured).
    assert bool(sent.added) != (shape(folder)["agent"] == "pi" and sent.provider in ("anthropic", "gemini"))
    for a in sent.added:
        assert _kind(real[a.position]) == a.role
    for k, value in enumerate(sent.wire):
        n = sent.position(k)
        assert n < len(real)
        assert (_kind(real[n]), _ids(real[n])) == (_kind(value), _ids(value)), n


@pytest.mark.parametrize("path", [p for f in SESSIONS for p in sorted(f.glob("*.jsonl")) if p.name != "requests.jsonl"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_verdict_on_what_is_sent_numbers_its_problems_as_explain_does(path: Path, provider: str) -> None:
    """``suture.sent.verdict`` (``suture check``, the app) and the request ``suture explain`` reads
    an error in (``suture.sent.numbered.modelled``) name each problem at one place; and the
    problems, counted in ``sent.messages``, are those of the history checked on its own."""
    transcript = load_file(path)
    if transcript.format not in ("claude-code", "codex", "pi"):
        pytest.skip("not a session log")
    sent = as_sent(transcript)
    found = verdict(transcript, provider, None, sent).problems
    request = modelled(transcript, sent)
    assert [(v.rule, v.call_id, v.where, v.error) for v in found] == [
        (v.rule, v.call_id, v.where, v.error) for v in request.check(provider)
    ]
    alone = [v for v in check([*sent.messages, RESUME_PROMPT], provider) if v.index < len(sent.messages)]
    assert [(v.rule, v.index, v.call_id) for v in found] == [(v.rule, v.index, v.call_id) for v in alone]
    for v in found:
        assert set(v.related) <= set(range(len(sent.messages) + 1))


@pytest.mark.parametrize("folder", NAMED, ids=[f"{f.parent.name}/{f.name}" for f in NAMED])
def test_check_names_the_indices_the_rejected_request_was_answered_with(folder: Path) -> None:
    meta = shape(folder)
    provider = STRICT.get(meta["provider"], meta["provider"])
    said = INDEX.findall(meta["resume"]["error"])
    report = json.loads(run("check", "--json", "--provider", provider, folder / "session.jsonl").stdout)
    problems = report["providers"][provider]["sent"]
    assert any(INDEX.findall(p["error"]) == said for p in problems), [p["error"] for p in problems]
    assert any(INDEX.findall(p["where"]) == said[-1:] for p in problems), [p["where"] for p in problems]


@pytest.mark.parametrize("folder", REJECTED, ids=[f"{f.parent.name}/{f.name}" for f in REJECTED])
def test_the_place_check_prints_is_the_message_of_the_real_request(folder: Path) -> None:
    """A problem's own message is at its ``place`` of the rejected request (it holds its call),
    and ``[n]`` names that message as written: the file's message, the app's ``#n``."""
    meta = shape(folder)
    provider = STRICT.get(meta["provider"], meta["provider"])
    real = _real_request(folder)
    transcript = load_file(folder / "session.jsonl")
    proc = run("check", "--provider", provider, folder / "session.jsonl")
    report = json.loads(run("check", "--json", "--provider", provider, folder / "session.jsonl").stdout)
    problems = report["providers"][provider]["sent"]
    assert problems and proc.returncode == 1
    for p in problems:
        # The id the problem names (a call's; R3's, an item's) is the id the request has there;
        # Gemini's request has none: there the message holds a call or a result.
        assert p["n"] == p["written_index"] and p["n"] in p["written"]
        written = transcript.messages[p["n"]]
        if meta["provider"] == "gemini":
            # (pi sends Gemini no call ids: the id named is the one suture's reading makes up)
            assert any(k in part for part in real[p["place"]]["parts"] for k in ("functionCall", "functionResponse"))
            assert written.tool_calls or written.role == "tool"
        else:
            named = p["call_id"] or re.findall(r"\bid (\S+)\.", p["error"])[0]
            assert named.split("|")[0] in _ids(real[p["place"]]) or named in json.dumps(real[p["place"]])
            assert named in json.dumps(written.raw)
        assert f"  [{p['n']}] " in proc.stdout
    assert report["request"]["history"] <= len(real)


def test_check_explain_and_the_recorded_request_agree_on_text_before_result() -> None:
    """The engineer's case: ``suture check`` said messages.2 where the request Claude Code sent,
    its 400 and ``suture explain`` say messages.3 (Claude Code's ``system`` message at 1)."""
    real = _real_request(TEXT_BEFORE)
    assert [m["role"] for m in real[:4]] == ["user", "system", "assistant", "user"]
    assert [b["type"] for b in real[3]["content"]] == ["text", "tool_result"]
    assert shape(TEXT_BEFORE)["resume"]["error"].startswith("messages.3: ")

    proc = run("check", TEXT_BEFORE / "session.jsonl")
    assert proc.returncode == 1
    # [n] is a message of messages.3: the result that does not lead it (the record at line 22
    # holds the user's text, then that result), and the error is the one the agent got.
    assert "  [3] tool (line 22, message.content[1]) messages.3  A1a: " in proc.stdout
    assert f"anthropic would say: {shape(TEXT_BEFORE)['resume']['error']}" in proc.stdout
    # The contract view's problem counts the file sent as written, and says so wherever it does.
    assert all("of the file sent as written" in line for line in proc.stdout.splitlines() if "messages.2" in line)
    assert (
        "  (messages.N counts the request Claude Code sends on resume (suture sent --body), as anthropic's "
        "errors do; messages.1 is the system message Claude Code adds after the first message; "
    ) in proc.stdout
    assert "4 messages as written, 5 messages in the request Claude Code sends on resume" in proc.stdout

    report = json.loads(run("check", "--json", TEXT_BEFORE / "session.jsonl").stdout)
    (problem,) = report["providers"]["anthropic"]["sent"]
    assert (problem["where"], problem["wire_index"], problem["place"], problem["n"]) == ("messages.3", 3, 3, 3)
    assert problem["error"].startswith("messages.3: ")
    assert report["request"]["added"] == [
        {"place": 1, "role": "system", "what": "the system message Claude Code adds after the first message"}
    ]

    explained = run("explain", TEXT_BEFORE / "resumed.jsonl").stdout
    assert "messages.3 of that request: user: text 'Note added by hand.', tool_result" in explained
    assert "A1a at messages.3" in explained
