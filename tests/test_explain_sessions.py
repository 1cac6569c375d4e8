"""``suture explain`` on session logs: an error's indices count what the agent sends.

Ground truth is the recorded corpus (``sample_sessions/recorded``): for every shape whose
``requests.jsonl`` holds a 400, the request the real agent sent and the strict mock's answer.
Which message of the file the error is about is worked out here without suture: the message of
the rejected request the error's index names (or, where it names none, the call id it names, or
the first message whose prefix of the request the mock's own validator rejects), matched to the
file's records by the ids and texts they hold. Then ``suture explain resumed.jsonl``, with no
error text (the one the session recorded) and with the recorded text pasted, must name that
message, the rule, exit 0, and never say two things that cannot both be true.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suture.checks import RULES, check
from suture.checks.explain import explain_transcript
from suture.formats import load_file
from suture.io import Document
from suture.sent import as_sent
from suture.sent.claude_code import MODEL as CC_MODEL
from suture.sent.numbered import modelled
from suture.sent.recorded import read
from tests.conftest import REAL, SAMPLES
from tests.helpers.cli import run
from tests.helpers.sent import anthropic_blocks, codex_items, session_record, without_prompt
from tools.agents.corpus import first_resume, read_requests, shape_folders
from tools.agents.corpus import verdict as mock_verdict
from tools.agents.record import CORPUS

FOLDERS = shape_folders(CORPUS)
REJECTED = [f for f in FOLDERS if any(r.get("status") == 400 for r in read_requests(f))]
IDS = [f"{f.parent.name}/{f.name}" for f in REJECTED]


def _shape(folder: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((folder / "shape.json").read_text())
    return value


def _history(body: dict[str, Any]) -> list[Any]:
    value: list[Any] = body.get("messages") or body.get("input") or body.get("contents") or []
    return value


_ID_KEYS = ("id", "tool_use_id", "call_id", "tool_call_id", "toolCallId")
_TEXT_KEYS = ("text", "output", "content", "error")
_ARGUMENT_KEYS = ("args", "arguments", "input")
"""Where a call's arguments are (Gemini's calls carry no id: they are known by them)."""


def _tokens(value: Any) -> set[tuple[str, str]]:
    """The ids and texts anywhere in a JSON value (the agent's ``<system-reminder>`` text aside):
    what identifies a message of a request and the record it was written from."""
    out: set[tuple[str, str]] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in _ID_KEYS and isinstance(inner, str) and inner:
                out.add(("id", inner))
                # (pi keeps a Responses call's id as ``{call_id}|{item id}`` and sends them apart.)
                out |= {("id", part) for part in inner.split("|") if part and "|" in inner}
            elif key in _ARGUMENT_KEYS and isinstance(inner, dict) and inner:
                out.add(("args", json.dumps(inner, sort_keys=True)))
            elif key in _TEXT_KEYS and isinstance(inner, str) and inner.strip():
                if not inner.startswith("<system-reminder>"):
                    out.add(("text", inner.strip()))
            else:
                out |= _tokens(inner)
    elif isinstance(value, list):
        for inner in value:
            out |= _tokens(inner)
    return out


def _rejected(folder: Path) -> dict[str, Any]:
    """The last request the provider rejected: the one whose error the session holds."""
    return [r for r in read_requests(folder) if r.get("status") == 400][-1]


def _named_place(folder: Path, record: dict[str, Any]) -> int | None:
    """The place of the rejected request the error is about, read without suture: the index it
    names (the second of two), else the first place whose prefix the mock rejects."""
    error = str(record["error"])
    found = re.findall(r"(?:messages|input|contents)(?:\.|\[)(\d+)", error)
    if found:
        return int(found[-1])
    if re.search(r"(?:call|toolu)_\w+", error):
        return None
    body = record["body"]
    key = next(k for k in ("messages", "input", "contents") if k in body)
    provider = _shape(folder)["provider"]
    for k in range(len(body[key])):
        if mock_verdict(provider, {**body, key: body[key][: k + 1]}) is not None:
            return k
    raise AssertionError("the mock accepts every prefix of a request it rejected")


def _truth(folder: Path) -> tuple[set[int], str]:
    """The as-written messages the error is about, and the rule the mock says is broken."""
    record = _rejected(folder)
    transcript = load_file(folder / "resumed.jsonl")
    place = _named_place(folder, record)
    rule = mock_verdict(_shape(folder)["provider"], record["body"])
    assert rule is not None
    if place is not None:
        wanted = _tokens(_history(record["body"])[place])
        if rule.rule == "G3":  # (as many responses as the call turn before them has calls: both)
            wanted |= _tokens(_history(record["body"])[place - 1])
    else:
        wanted = {("id", i) for i in re.findall(r"(?:call|toolu)_\w+", str(record["error"]))}
    right = {i for i, m in enumerate(transcript.messages) if _tokens(m.raw) & wanted}
    assert right, "the rejected message is in the file"
    return right, rule.rule


def _consistent(stdout: str) -> None:
    """Nothing in the output contradicts anything else in it."""
    sends = "sends this again" in stdout or "sends this as written" in stdout
    assert not (sends and "repairs this itself" in stdout), stdout
    assert not (sends and "Nothing to repair" in stdout), stdout
    assert not (sends and "nothing to repair here" in stdout), stdout
    assert not ("Repair: fixes it" in stdout and "does not fix" in stdout), stdout
    assert not ("not in this file" in stdout and "Repair:" in stdout), stdout
    assert "finds no" not in stdout or not sends, stdout


def _explained(folder: Path, *error: str) -> tuple[str, dict[str, Any], int]:
    proc = run("explain", folder / "resumed.jsonl", *error)
    report = json.loads(run("explain", "--json", folder / "resumed.jsonl", *error).stdout)
    return proc.stdout, report, proc.returncode


@pytest.mark.parametrize("folder", REJECTED, ids=IDS)
@pytest.mark.parametrize("how", ["recorded", "pasted"])
def test_explain_names_the_message_the_real_error_is_about(folder: Path, how: str) -> None:
    transcript = load_file(folder / "resumed.jsonl")
    if how == "recorded" and not transcript.evidence:
        proc = run("explain", folder / "resumed.jsonl")
        assert proc.returncode == 2 and not proc.stdout
        assert proc.stderr.startswith("suture: error: ") and proc.stderr.count("\n") == 1
        assert "records no API error: pass the provider's error text" in proc.stderr
        return
    error = () if how == "recorded" else (_shape(folder)["resume"]["error"],)
    stdout, report, code = _explained(folder, *error)
    right, rule = _truth(folder)
    assert code == 0, stdout
    _consistent(stdout)
    assert report["found"] is True and report["in_file"] is True
    first = report["messages"][0]["index"]
    assert first in right, (first, right, stdout)
    assert f"[{first}] " in stdout
    recognised = RULES[report["rule"]]
    assert rule in (report["rule"], report["found_rule"]) or rule in recognised.members, report
    # The real agent was rejected on resume: suture's check of what it sends confirms it, at the
    # place the error names, and says it sends it again.
    sent = report["sent"]
    assert report["found_rule"] is not None and sent["sends_again"] is True
    assert "sends this" in stdout and "Repair:" in stdout
    if sent["at"] is not None:
        assert sent["at"] in {p["at"] for p in sent["problems"]}
        assert set(sent["written"]) & right
    if sent["exact"]:
        assert "The request behind it (recorded at line" in stdout


def test_text_before_result_before_and_after() -> None:
    """The shape that loops in Claude Code: the recorded request's messages.3 is the user record
    at line 22 as written, A1a is found there, and nothing says there is nothing to repair."""
    folder = CORPUS / "claude-code-2.1.328" / "text-before-result"
    for error in ((), (_shape(folder)["resume"]["error"],)):
        stdout, report, code = _explained(folder, *error)
        assert code == 0
        assert "messages.3 there is written as:" in stdout
        assert "[2] user (line 22, message.content[0])" in stdout
        assert "[3] tool (line 22, message.content[1])" in stdout
        assert "A1a at messages.3" in stdout
        assert "suture's check finds A1a there" in stdout
        assert "Claude Code 2.1.328 sends this again every time it resumes this file" in stdout
        assert "nothing to repair" not in stdout.lower()
        assert report["sent"]["exact"] is True and report["sent"]["index"] == 3
        assert report["found_rule"] == "A1a" and report["fixed_by_repair"] is True
        assert "$ suture repair " in stdout


# -- what the agent adds when it sends, as measured ------------------------------------------------


def _same(agent: str, real: Any, predicted: Any) -> bool:
    if agent == "claude-code":
        return bool(anthropic_blocks([real]) == anthropic_blocks([predicted]))
    if agent == "codex":
        return bool(codex_items([real]) == codex_items([predicted]))
    return bool(real == predicted)


def _new_turn(folder: Path) -> set[tuple[str, str]]:
    """The ids and texts of what the resume wrote into the file itself (its new prompt, and after
    a compaction, the context Codex puts in again): the new turn, not the history."""
    before = (folder / "session.jsonl").read_bytes().splitlines()
    after = (folder / "resumed.jsonl").read_bytes().splitlines()
    assert after[: len(before)] == before
    return _tokens([orjson.loads(line) for line in after[len(before) :] if line.strip()])


def _history_sent(history: list[Any], sent: Any, folder: Path) -> list[Any]:
    """The request's history without the new turn: what follows the history that the resume
    wrote itself and the history does not hold, Claude Code's system message after the new
    prompt, and the new prompt where it shares the last user message."""
    new, held = _new_turn(folder), _tokens(sent.wire)
    positions = {a.position for a in sent.added}
    real = list(history)
    while real and len(real) - 1 not in positions:
        tokens = _tokens(real[-1])
        role = real[-1].get("role")
        if role != "system" and not (role in ("user", "developer") and tokens and tokens <= new and not tokens & held):
            break
        real.pop()
    last = max((k for k, m in enumerate(real) if m.get("role") == "user"), default=None)
    if last is None:
        return real
    return [*without_prompt(real[: last + 1]), *real[last + 1 :]]


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_every_place_of_what_is_sent_is_where_the_real_agent_put_it(folder: Path) -> None:
    """``Sent.position``: each message of ``wire`` is at that place of the first request the real
    agent sent on resume, each message the agent adds (``Sent.added``) is there with its role,
    and nothing else is in the history it sent."""
    first = first_resume(read_requests(folder))
    assert first is not None
    sent = as_sent(load_file(folder / "session.jsonl"))
    full = list(_history(first["body"]))
    for a in sent.added:
        assert a.position < len(full) and full[a.position].get("role") == a.role, a
    real = _history_sent(full, sent, folder)
    agent = _shape(folder)["agent"]
    for k, value in enumerate(sent.wire):
        n = sent.position(k)
        assert n < len(real) and _same(agent, real[n], value), (k, n)
    assert len(real) == len(sent.wire) + len(sent.added)


# -- the real samples, and request files, with pasted errors ---------------------------------------

REAL_SESSIONS = sorted(REAL.rglob("*.jsonl"))


def _call_places(path: Path) -> list[tuple[int, str, int]]:
    """(place in what is sent, call id, as-written message) of every call, by the model."""
    transcript = load_file(path)
    request = modelled(transcript)
    out = []
    for n, value in enumerate(request.wire):
        if not isinstance(value, dict):
            continue
        for block in value.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                out.append((n, str(block["id"]), n))
        for call in value.get("tool_calls") or []:
            out.append((n, str(call["id"]), n))
    return out


@pytest.mark.parametrize("path", REAL_SESSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_sessions_explain_a_pasted_error_about_a_call_they_answer(path: Path) -> None:
    places = _call_places(path)
    if not places:
        pytest.skip("no call in what the agent sends")
    n, call_id, _ = places[len(places) // 2]
    transcript = load_file(path)
    holding = {i for i, m in enumerate(transcript.messages) if any(c.id == call_id for c in m.tool_calls)}
    text = (
        f"messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: {call_id}. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
    proc = run("explain", path, text)
    assert proc.returncode == 0, proc.stdout
    _consistent(proc.stdout)
    report = json.loads(run("explain", "--json", path, text).stdout)
    assert report["messages"][0]["index"] in holding
    # The agent sends a result for it: no problem in what it sends, and it says so.
    assert report["found_rule"] is None and report["sent"]["sends_again"] is False
    assert "sends this" not in proc.stdout
    elsewhere = run("explain", path, text.replace(call_id, "toolu_notInThisFile01"))
    assert elsewhere.returncode == 1
    assert "not in this file: wrong file, or a different request?" in elsewhere.stdout


def test_a_real_session_whose_agent_repairs_the_problem_itself_says_so() -> None:
    """tool_heavy (Claude Code 2.1.38) holds a whitespace text block before a thinking block;
    Claude Code (every measured release) leaves it out when it sends. Anthropic's error about it came from
    another version, and there is nothing to repair."""
    path = REAL / "claude-code" / "tool_heavy.jsonl"
    for text in (
        "messages: text content blocks must contain non-whitespace text",
        "messages.6.content.0: If an assistant message contains any thinking blocks, the first block must be "
        "thinking or redacted_thinking. Found text.",
    ):
        proc = run("explain", path, text)
        assert proc.returncode == 0, proc.stdout
        _consistent(proc.stdout)
        assert "[10] assistant (line 27" in proc.stdout
        assert f"Claude Code {CC_MODEL} repairs this itself when it resumes this file" in proc.stdout
        assert "another Claude Code version: Claude Code 2.1.38 wrote this file" in proc.stdout
        assert f"Nothing to repair with Claude Code {CC_MODEL}" in proc.stdout


def test_a_recorded_error_from_an_older_version_is_placed_without_what_the_new_one_adds() -> None:
    """Claude Code 2.1.38 sent no system message inside ``messages``: its ``messages.1`` is the
    assistant message, and the modelled release (which would put its system message there) answers the call
    itself."""
    path = SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"
    proc = run("explain", path)
    assert proc.returncode == 0
    _consistent(proc.stdout)
    assert "messages.1 there is written as:" in proc.stdout
    assert "[1] assistant (line 2, merged with lines 3, 4)" in proc.stdout
    assert f"without what Claude Code {CC_MODEL} adds" in proc.stdout
    assert f"Claude Code {CC_MODEL} repairs this itself" in proc.stdout


def test_an_index_at_what_the_agent_adds_is_not_in_this_file(tmp_path: Path) -> None:
    folder = CORPUS / "pi-0.73.1" / "repeated-id"
    text = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (param messages.[0].role)"
    proc = run("explain", folder / "resumed.jsonl", text)
    assert proc.returncode == 1
    assert "messages[0] of what pi 0.73.1 sends when it resumes this file is pi's system prompt" in proc.stdout
    past = run("explain", folder / "resumed.jsonl", text.replace("[0]", "[40]"))
    assert past.returncode == 1 and "index 40" in past.stdout


REQUEST_FILES = sorted(
    p
    for folder in ("chat", "messages", "responses", "gemini")
    for p in (SAMPLES / folder).glob("*.json*")
    if p.suffix in (".json", ".jsonl")
)


def _found(path: Path) -> list[Any]:
    """What suture's check finds in a request file, for the provider it is sent to."""
    transcript = load_file(path)
    provider = as_sent(transcript).provider
    return check(transcript.messages, provider) if provider else []


WITH_PROBLEMS = [p for p in REQUEST_FILES if _found(p)]


def test_there_are_request_files_with_problems_to_explain() -> None:
    assert len(WITH_PROBLEMS) >= 10


@pytest.mark.parametrize("path", WITH_PROBLEMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_request_files_explain_each_error_their_check_writes(path: Path) -> None:
    """For a request file the file is what is sent: every error text suture's check writes for
    it, pasted, names the message the check is about."""
    for v in _found(path)[:3]:
        report = json.loads(run("explain", "--json", path, v.error).stdout)
        assert report["found"] is True, (v.error, report["verdict"])
        assert v.index in {m["index"] for m in report["messages"]}
        assert report["sent"] is None


# -- property: a place of what is sent leads back to what it was sent from --------------------------


def _record(kind: str, n: int, message: dict[str, Any]) -> dict[str, Any]:
    return session_record(kind, n, message, timestamp=f"2026-01-01T00:00:{n:02d}.000Z")


@st.composite
def damaged_sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A Claude Code file of turns whose results may be missing, repeated, orphaned, or come
    after user text in their record; call ids may repeat across turns."""
    lines: list[dict[str, Any]] = []
    for turn in range(draw(st.integers(1, 4))):
        lines.append(_record("user", len(lines), {"role": "user", "content": f"task {turn}"}))
        ids = draw(st.lists(st.sampled_from(["toolu_a", "toolu_b", "toolu_c", "toolu_d"]), max_size=2, unique=True))
        blocks: list[dict[str, Any]] = (
            [{"type": "text", "text": f"reply {turn}"}] if draw(st.booleans()) or not ids else []
        )
        blocks += [{"type": "tool_use", "id": i, "name": "Bash", "input": {"turn": turn}} for i in ids]
        lines.append(_record("assistant", len(lines), {"id": f"m{turn}", "role": "assistant", "content": blocks}))
        answered = draw(st.lists(st.sampled_from([*ids, "toolu_z"]), max_size=3))
        if answered:
            content: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": i, "content": f"out {turn} {i}"} for i in answered
            ]
            if draw(st.booleans()):
                content.insert(draw(st.integers(0, len(content))), {"type": "text", "text": f"note {turn}"})
            lines.append(_record("user", len(lines), {"role": "user", "content": content}))
    return lines


def _load(lines: list[dict[str, Any]]) -> Any:
    from suture.formats import get

    return get("claude-code").load(Document("jsonl", records=[(k + 1, r) for k, r in enumerate(lines)]))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_sessions(), st.data())
def test_any_place_of_what_is_sent_maps_back_to_what_it_came_from(lines: list[dict[str, Any]], data: Any) -> None:
    # Written by the modelled version (one numbering), or by an unknown one (then an index may
    # also be read without what that version adds).
    known = data.draw(st.booleans(), label="version known")
    transcript = _load([{**r, "version": "2.1.328"} for r in lines] if known else lines)
    sent = as_sent(transcript)
    assert (sent.assumed is None) == known
    request = modelled(transcript, sent)
    # Every sent message is at its place, and that place names the message it came from.
    for j, origin in enumerate(sent.origin):
        k = next(k for k, m in enumerate(request.messages) if m is sent.messages[j])
        place = request.at[k]
        assert place is not None
        if origin is not None:
            assert origin in request.written[place]
    # Every as-written message a place names shares a call, a result or a text with what is sent
    # there, or is one the agent repairs (an orphan result it leaves out of its message).
    repaired = {f.index for f in sent.fixes}
    for n, written in enumerate(request.written):
        for i in written:
            assert _tokens(transcript.messages[i].raw) & _tokens(request.wire[n]) or i in repaired, (n, i)
        # A place comes from the file, or is what the agent adds, never both or neither.
        assert bool(written) != (n in request.added), (n, request.added)
    # An error naming a place is explained by the messages that place came from.
    places = [n for n, w in enumerate(request.written) if w]
    n = data.draw(st.sampled_from(places))
    found = explain_transcript(
        transcript,
        f"messages.{n}: Did not find 1 `tool_result` block(s) at the beginning of this message.",
    )
    assert found.found and found.named == n and found.request is not None
    # (and the message each problem found there is about: A1's call, before the place it names)
    about = {f.message for f in found.findings}
    assert set(found.request.written[n]) <= set(found.indices) <= set(found.request.written[n]) | about
    if found.request.written_view:
        # The index fits the file sent as written (the check finds the problem there) and not what
        # the agent sends: it is read as written, and the answer says which it does not fit.
        assert found.flagged and found.numbering.startswith(f"it does not fit {request.label}")
    elif known:
        assert found.request.label == request.label
        assert set(request.written[n]) <= set(found.indices) <= set(request.written[n]) | about
    _consistent(found.verdict())


def test_a_recorded_request_names_what_the_file_wrote() -> None:
    """In a recorded request, every message but the ones Claude Code adds (its ``system``
    messages) traces to the file where the file still holds it (a request sent before a
    ``/compact`` holds messages the history after it does not); each traced message shares its
    ids or texts with them."""
    from suture.sent.numbered import recorded

    for folder in (f for f in FOLDERS if f.parent.name.startswith("claude-code")):
        transcript = load_file(folder / "resumed.jsonl")
        repaired = {f.index for f in as_sent(transcript).fixes}
        for request in read(folder / "resumed.jsonl"):
            numbered = recorded(transcript, request)
            for n, message in enumerate(request.messages):
                role = message.get("role") if isinstance(message, dict) else None
                written = numbered.written[n]
                for i in written:
                    # Traced: it shares ids or texts, or the agent rewrote it (a repeated call
                    # sent as "[Tool use interrupted]").
                    assert _tokens(transcript.messages[i].raw) & _tokens(message) or i in repaired, (folder.name, n, i)
                if not written:
                    held = any(_tokens(m.raw) & _tokens(message) for m in transcript.messages if m.raw is not None)
                    assert role == "system" or not held, (folder.name, request.line, n)
                else:
                    assert role != "system", (folder.name, request.line, n)


def test_json_carries_what_is_sent() -> None:
    folder = CORPUS / "pi-0.73.1" / "repeated-id"
    report = orjson.loads(run("explain", "--json", folder / "resumed.jsonl").stdout)
    sent = report["sent"]
    assert (sent["agent"], sent["model"], sent["exact"]) == ("pi", "0.73.1", False)
    assert sent["index"] == 5 and sent["at"] == "messages[5]" and sent["written"] == [4]
    assert [p["rule"] for p in sent["problems"]] == ["O4"]
    # What explain says repair writes is what `suture repair` writes: the session, back.
    assert sent["suture_repair_writes"] == (
        "a pi session with the fix, which pi resumes once it is the session's file (`--in-place` writes it there "
        "and keeps the original as .bak)"
    )
    assert "pi session" in run("repair", folder / "resumed.jsonl", "-o", "-").stderr


# -- the command line: what it says agrees with itself, and its exit codes ---------------------------

_ORPHAN = CORPUS / "claude-code-2.1.328" / "orphan-result" / "resumed.jsonl"
_A2 = (
    "messages.{n}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)


@pytest.mark.parametrize("n", [3, 4])
def test_ids_the_agent_leaves_out_outweigh_an_index_that_counts_another_request(n: int) -> None:
    """The orphan result's id names the record at line 27, which Claude Code 2.1.328 leaves out
    when it sends: the index counts a request that still held it, so the id says which message
    it is, and the agent repairs it itself."""
    text = _A2.format(n=n, id="call_orphanResultWithNoCall01")
    proc = run("explain", _ORPHAN, text)
    assert proc.returncode == 0, proc.stdout
    _consistent(proc.stdout)
    assert "The messages the error's ids name:" in proc.stdout
    assert "[3] tool (line 27, message.content[0])  result for call_orphanResultWithNoCall01" in proc.stdout
    assert "there is written as:" not in proc.stdout
    assert "Claude Code 2.1.328 repairs this itself when it resumes this file" in proc.stdout
    assert "`suture repair` writes a Claude Code session with the fix, which Claude Code resumes" in proc.stdout
    report = json.loads(run("explain", "--json", _ORPHAN, text).stdout)
    assert [m["index"] for m in report["messages"]] == [3]
    assert report["sent"]["index"] is None and report["sent"]["sends_again"] is False
    assert [f["kind"] for f in report["sent"]["agent_repairs"]] == ["dropped_result"]


def test_an_index_at_a_message_the_agent_writes_itself_is_not_in_this_file(tmp_path: Path) -> None:
    """Claude Code answers a call that never got a result and adds a reply after it: that reply
    is in no record, so an error that names it is about another request."""
    lines = [
        _record("user", 0, {"role": "user", "content": "task"}),
        _record(
            "assistant",
            1,
            {
                "id": "m0",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {}}],
            },
        ),
    ]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(orjson.dumps({**r, "version": "2.1.328"}) + b"\n" for r in lines))
    request = modelled(load_file(path))
    # (The interrupted result before it is made up too, but answers the call of the file.)
    reply = next(n for n, what in request.added.items() if 'reply "No response requested."' in what)
    assert request.wire[reply] is not None and not request.written[reply]
    text = f"messages.{reply}: Did not find 1 `tool_result` block(s) at the beginning of this message."
    proc = run("explain", path, text)
    assert proc.returncode == 1, proc.stdout
    assert (
        f"messages.{reply} of what Claude Code 2.1.328 sends when it resumes this file is Claude Code's reply "
        '"No response requested.", which it writes itself' in proc.stdout
    )
    assert "writes itself when it resumes, from no record of this file" in proc.stdout
    assert "not in this file: wrong file, or a different request?" in proc.stdout


def test_the_error_text_as_an_option() -> None:
    folder = CORPUS / "claude-code-2.1.328" / "text-before-result"
    error = _shape(folder)["resume"]["error"]
    positional = run("explain", folder / "resumed.jsonl", error)
    option = run("explain", folder / "resumed.jsonl", "--error", error)
    assert option.returncode == positional.returncode == 0
    assert option.stdout == positional.stdout
    assert "A1a at messages.3" in option.stdout
    both = run("explain", folder / "resumed.jsonl", error, "--error", error)
    assert both.returncode == 2 and both.stdout == ""
    assert both.stderr.strip().splitlines() == [
        "suture: error: give the error text once: as ERROR or with --error, not both"
    ]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--error", "   "), "the error text is empty"),
        (("--format", "not-a-format", "--error", "messages.1: x"), "not-a-format"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], said: str) -> None:
    path = CORPUS / "pi-0.73.1" / "repeated-id" / "resumed.jsonl"
    before = path.read_bytes()
    proc = run("explain", path, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and said in proc.stderr
    assert "Traceback" not in proc.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize("piped", ["", "  \n\n"])
def test_an_empty_stdin_says_stdin_held_no_error_text(piped: str) -> None:
    path = CORPUS / "pi-0.73.1" / "repeated-id" / "resumed.jsonl"
    proc = run("explain", path, "-", stdin=piped)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("suture: error: stdin held no error text: pipe the provider's message in")


def test_a_missing_file_is_exit_2(tmp_path: Path) -> None:
    proc = run("explain", tmp_path / "absent.jsonl", "--error", "messages.1: x")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_request_file_in_jsonl_is_explained() -> None:
    """A chat file written one message a line is its own request (it used to stop with a
    traceback when suture numbered what it sends)."""
    path = SAMPLES / "chat" / "synthetic-interrupt.jsonl"
    text = (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_Ed21 (param messages.[2].role)"
    )
    proc = run("explain", path, text)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "[2] assistant (line 3)  calls edit_file call_Ed21" in proc.stdout
    assert "Repair: fixes it" in proc.stdout


CLAUDE_CODE = [f for f in FOLDERS if f.parent.name.startswith("claude-code")]
A8_TEXT = "messages.{n}: all messages must have non-empty content except for the optional final assistant message"


def _keys(value: Any) -> set[tuple[str, str]]:
    """The calls, results and texts a JSON value holds (the agent's ``<system-reminder>`` aside),
    each by its kind: a call and its result share an id, not a key."""
    out: set[tuple[str, str]] = set()
    if isinstance(value, dict):
        kind = value.get("type")
        if kind == "tool_use" and isinstance(value.get("id"), str):
            out.add(("call", value["id"]))
        if kind == "tool_result" and isinstance(value.get("tool_use_id"), str):
            out.add(("result", value["tool_use_id"]))
        for key, inner in value.items():
            if key in ("text", "content") and isinstance(inner, str):
                if inner.strip() and not inner.startswith("<system-reminder>"):
                    out.add(("text", inner.strip()))
            elif key not in _ID_KEYS:
                out |= _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            out |= _keys(inner)
    return out


@pytest.mark.parametrize("folder", CLAUDE_CODE, ids=[f.name for f in CLAUDE_CODE])
def test_each_message_sent_on_resume_is_traced_to_every_record_it_holds(folder: Path) -> None:
    """The request the real Claude Code sent on resume, read without suture: each of its messages
    holds the calls, results and texts of records of the file (several, where it joined
    consecutive user records into one message). suture's trace of that place names every one."""
    transcript = load_file(folder / "session.jsonl")
    resume = first_resume(read_requests(folder))
    assert resume is not None
    owners: dict[tuple[str, str], set[int]] = {}
    for i, m in enumerate(transcript.messages):
        for key in _keys(m.raw):
            owners.setdefault(key, set()).add(i)
    request = modelled(transcript)
    for k, value in enumerate(_history(resume["body"])):
        # Only what one record holds tells which record it is (a repeated id names two).
        holds = {i for key in _keys(value) if len(owners.get(key, ())) == 1 for i in owners[key]}
        assert holds <= set(request.written[k]), (k, holds, request.written[k])


def test_explain_names_every_record_a_joined_message_came_from() -> None:
    """Claude Code leaves out a call that never got a result (later turns follow it) and joins the
    prompts before and after it into its first message: the trace names both prompts."""
    path = CORPUS / "claude-code-2.1.328" / "dangling-call-then-later-turns" / "session.jsonl"
    body = first_resume(read_requests(path.parent))
    assert body is not None
    first = _keys(_history(body["body"])[0])
    assert {
        ("text", "Run the shell command I need, then tell me when it is done."),
        ("text", "What is the status?"),
    } <= first
    proc = run("explain", path, A8_TEXT.format(n=0))
    assert "  messages.0 there is written as:\n  [0] user (line 3)" in proc.stdout
    assert "\n  [2] user (line 22)  “What is the status?”\n" in proc.stdout
    report = json.loads(run("explain", "--json", path, A8_TEXT.format(n=0)).stdout)
    assert [m["index"] for m in report["messages"]] == [0, 2]
    assert report["sent"]["written"] == [0, 2]


def test_explain_names_the_orphan_result_joined_then_left_out() -> None:
    """Claude Code joins the orphan result's record to the result before it, then leaves the orphan
    out: messages.3 came from both records, and the trace says which one is not sent."""
    path = CORPUS / "claude-code-2.1.328" / "orphan-result" / "session.jsonl"
    proc = run("explain", path, A8_TEXT.format(n=3))
    lines = proc.stdout.splitlines()
    result = next(line for line in lines if line.startswith("  [2] tool (line 22"))
    orphan = next(line for line in lines if line.startswith("  [3] tool (line 27"))
    assert "left out" not in result
    assert orphan.endswith("(left out when sent)") and "call_orphanResultWithNoCall01" in orphan
    report = json.loads(run("explain", "--json", path, A8_TEXT.format(n=3)).stdout)
    assert report["sent"]["written"] == [2, 3]


def test_explain_reads_a_session_cut_off_in_a_crash_as_check_does(tmp_path: Path) -> None:
    """A crash leaves the last line half written: the agent skips it when it resumes, check
    skips it (and says so), and explain, made for that case, does the same instead of refusing."""
    path = tmp_path / "crash.jsonl"
    intact = tmp_path / "intact" / "crash.jsonl"
    intact.parent.mkdir()
    intact.write_bytes((SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl").read_bytes())
    path.write_bytes(intact.read_bytes() + (SAMPLES / "claude-code" / "parallel-calls.jsonl").read_bytes()[:150])
    checked = run("check", path)
    explained = run("explain", path)
    for proc in (checked, explained):
        assert proc.returncode in (0, 1), proc.stderr
        assert "skipped line 9: cut off" in proc.stderr and "(the agent skips it too)" in proc.stderr
    assert "The API error recorded at line 8" in explained.stdout
    # The same explanation as for the file before the crash.
    assert explained.stdout == run("explain", intact).stdout.replace(str(intact), str(path))


def test_the_error_a_repaired_session_recorded_is_said_to_be_gone_not_in_another_file(tmp_path: Path) -> None:
    # The session keeps the API error it recorded; once repaired, the call the error names has its
    # result: explain says there is nothing to repair, not "wrong file".
    repaired = tmp_path / "repaired.jsonl"
    assert run("repair", SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl", "-o", repaired).returncode == 0
    proc = run("explain", repaired)
    assert proc.returncode == 0, proc.stdout
    assert "not in this file" not in proc.stdout
    assert "Repair: nothing to repair here" in proc.stdout and "an older state of this file" in proc.stdout


# -- the numbering an index is read in: what the agent sends, or the file sent as written ----------


def _as_written_error(path: Path, rule: str) -> str:
    """The error ``suture check --provider anthropic`` writes for ``rule`` in the contract view:
    the one "of the file sent as written"."""
    said = run("check", path, "--provider", "anthropic").stdout.splitlines()
    at = next(k for k, line in enumerate(said) if "(of the file sent as written)" in line and f"  {rule}: " in line)
    return said[at + 1].split("anthropic would say, of the file sent as written: ", 1)[1]


def test_an_error_check_writes_of_the_file_sent_as_written_is_read_as_written() -> None:
    """check's contract view counts tool_heavy as written (its messages.9 is the assistant record
    at line 27), where Claude Code's request has the tool results at messages.9: explain, given
    that error, names the message check named and says which numbering it read."""
    path = REAL / "claude-code" / "tool_heavy.jsonl"
    error = _as_written_error(path, "A12")
    assert error.startswith("messages.9.content.0: If an assistant message contains any thinking blocks")
    proc = run("explain", path, error)
    assert proc.returncode == 0, proc.stdout
    _consistent(proc.stdout)
    assert "The error counts the file sent as written, as suture check's contract view counts it." in proc.stdout
    assert (
        f"(it does not fit what Claude Code {CC_MODEL} sends when it resumes this file, where messages.9 is [14] tool"
        in proc.stdout
    )
    assert "messages.9 there is written as:\n  [10] assistant (line 27, merged with lines 28, 29, 30)" in proc.stdout
    assert "[14] tool (line 36" not in proc.stdout.split("there is written as:")[1]
    assert "So this error came from the file sent as written" in proc.stdout
    assert "Sent as written, it is rejected, and `suture repair` does not fix it: Delete the whitespace-only" in (
        proc.stdout
    )
    report = json.loads(run("explain", "--json", path, error).stdout)
    assert [m["index"] for m in report["messages"]] == [10]
    assert report["sent"]["as_written"] is True and report["sent"]["index"] == 9
    assert report["sent"]["numbering"].startswith(f"it does not fit what Claude Code {CC_MODEL} sends")
    # The same error counted as Claude Code sends it (messages.6) is read there, as before.
    sent = run("explain", path, error.replace("messages.9.", "messages.6."))
    assert "The error counts what Claude Code" in sent.stdout and "[10] assistant (line 27" in sent.stdout
    assert "does not fit" not in sent.stdout and "fits too" not in sent.stdout


def _thinking_session(tmp_path: Path, events: list[tuple[str, Any]], name: str = "session.jsonl") -> Path:
    """A Claude Code session of ``events`` (``("user", content)``, ``("assistant", (id, block))``,
    one block a line as Claude Code writes a response)."""
    lines = []
    for n, (kind, what) in enumerate(events):
        if kind == "user":
            message: dict[str, Any] = {"role": "user", "content": what}
        else:
            message = {"id": what[0], "role": "assistant", "content": [what[1]]}
        lines.append(session_record(kind, n, message, version=CC_MODEL, timestamp=f"2026-01-01T00:00:{n:02d}.000Z"))
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _thought(n: int) -> dict[str, Any]:
    return {"type": "thinking", "thinking": f"thought {n}", "signature": f"not-a-signature-{n}"}


def test_both_numberings_fit_what_the_agent_sends_is_taken_and_the_other_named(tmp_path: Path) -> None:
    """Claude Code joins the four prompts into one message and adds its system message: its
    messages.6 is the response at line 9, and the file sent as written has the one at line 7
    there; both hold a thinking block, so both fit an invalid signature there."""
    events: list[tuple[str, Any]] = [("user", "go")]
    for n in range(1, 9):
        if n in (1, 6, 8):
            events.append(("assistant", (f"m{n}", _thought(n))))
        else:
            events.append(("user", f"prompt {n}"))
    path = _thinking_session(tmp_path, events)
    error = "messages.6.content.0: Invalid `signature` in `thinking` block"
    proc = run("explain", path, error)
    assert proc.returncode == 0, proc.stdout
    assert f"The error counts what Claude Code {CC_MODEL} sends when it resumes this file." in proc.stdout
    assert "messages.6 there is written as:\n  [8] assistant (line 9)" in proc.stdout
    assert (
        "(it fits too, counted as the file sent as written, as suture check's contract view counts it: there "
        "messages.6 is [6] assistant (line 7); this reads it as"
    ) in proc.stdout
    report = json.loads(run("explain", "--json", path, error).stdout)
    assert report["sent"]["as_written"] is False and [m["index"] for m in report["messages"]] == [8]


@pytest.mark.parametrize("blank", [True, False])
def test_an_invalid_signature_gets_the_thinking_remedy_not_a_whitespace_note(tmp_path: Path, blank: bool) -> None:
    """Claude Code sends a thinking block as written, signature and all, and leaves out only the
    whitespace-only text block it logs in front of it: the signature is not what it repairs, no
    check can see it, and the answer is A12's remedy."""
    response: list[tuple[str, Any]] = [("assistant", ("m1", {"type": "text", "text": "\n\n"}))] if blank else []
    response += [
        ("assistant", ("m1", _thought(1))),
        ("assistant", ("m1", {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}})),
    ]
    path = _thinking_session(
        tmp_path,
        [
            ("user", "list the files"),
            *response,
            ("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]),
            ("assistant", ("m2", {"type": "text", "text": "There is a.txt."})),
        ],
    )
    # Claude Code's request: the prompt, its system message, then the response at messages.2.
    error = "messages.2.content.0: Invalid `signature` in `thinking` block"
    proc = run("explain", path, error)
    assert proc.returncode == 0, proc.stdout
    _consistent(proc.stdout)
    assert "[1] assistant (line 2" in proc.stdout
    assert f"Claude Code {CC_MODEL} sends this as written when it resumes this file" in proc.stdout
    assert "suture's check cannot see it" in proc.stdout
    remedy = " ".join(RULES["A12"].remedy.split())
    assert f"Repair: does not fix this kind of problem. What to do: {remedy}" in " ".join(proc.stdout.split())
    assert "repairs this itself" not in proc.stdout and "whitespace" not in proc.stdout
    assert "nothing to repair" not in proc.stdout.lower()
    # A place with no thinking block is not where an invalid signature is: a user message is no assistant's.
    elsewhere = run("explain", path, error.replace("messages.2.", "messages.3."))
    assert elsewhere.returncode == 1 and "not in this file" in elsewhere.stdout
    assert "messages.3 is a user message, not an assistant message (its thinking blocks)" in elsewhere.stdout
