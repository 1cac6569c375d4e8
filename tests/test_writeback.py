"""Session logs written back in their own format (``suture.writeback``), on every recorded shape.

The recorded tier of the write-back: for each session the real agents wrote
(``sample_sessions/recorded``), suture's repair is written back into the file, and what the
agent's resume model says it then sends must be accepted, by suture's provider checks and by the
strict mock's own validator, and must hold every message of the repaired history. The written
file is a minimal edit of the session, writing it again changes nothing, and a session that
needs nothing is written back byte for byte. ``tests/test_agents_live.py`` resumes the written
files with the real agents.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from suture.formats import load_bytes, reordered_turns
from suture.formats.claude_code import chain
from suture.io import InputError, parse_document
from suture.model import text_of
from suture.repair import repair
from suture.sent import RESUME_PROMPT, as_sent, verdict
from suture.writeback import Edit, Written, export_choices, layout, write_back
from tests.held import missing, sent_ids
from tests.helpers.sent import STRICT
from tools.agents.corpus import read_requests, shape_folders
from tools.agents.rules import CHECKS

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "sample_sessions" / "recorded"
FOLDERS = shape_folders(CORPUS)
REAL = sorted(p for p in (ROOT / "sample_sessions" / "real").rglob("*.jsonl"))
SESSIONS = sorted(
    {
        *REAL,
        *(p for f in FOLDERS for p in (f / "session.jsonl", f / "resumed.jsonl")),
        *(ROOT / "sample_sessions" / "claude-code").glob("*.jsonl"),
        *(ROOT / "sample_sessions" / "codex").glob("*.jsonl"),
        *(ROOT / "sample_sessions" / "pi").glob("*.jsonl"),
    }
)


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT / "sample_sessions")) for p in paths]


def _meta(folder: Path) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((folder / "shape.json").read_text())
    return meta


def _write(path: Path) -> tuple[bytes, Written]:
    data = path.read_bytes()
    return data, write_back(data, load_bytes(data))


def untouched(before: bytes, after: bytes, edits: list[Edit]) -> None:
    """Every line no edit names is in the written file byte for byte, in the same order, and
    every line of the written file is one of those or named by an edit."""
    old = before.split(b"\n")
    new = after.split(b"\n")
    named = {e.line for e in edits if e.line is not None}
    at = {e.at for e in edits}
    assert len(at) == len(edits), "two edits name one written line"
    kept = [line for n, line in enumerate(old, 1) if n not in named]
    assert kept == [line for n, line in enumerate(new, 1) if n not in at]


def _body(provider: str, wire: list[Any]) -> dict[str, Any]:
    prompt: dict[str, Any]
    if provider == "openai-responses":
        prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "continue"}]}
        return {"input": [*wire, prompt]}
    if provider == "gemini":
        return {"contents": [*wire, {"role": "user", "parts": [{"text": "continue"}]}]}
    return {"messages": [*wire, {"role": "user", "content": "continue"}]}


# -- every recorded shape ----------------------------------------------------------------------


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_what_the_agent_sends_from_the_written_session_is_accepted_and_holds_the_history(folder: Path) -> None:
    provider = _meta(folder)["provider"]
    data, written = _write(folder / "session.jsonl")
    before = load_bytes(data)
    after = load_bytes(written.data)
    assert after.format == before.format
    assert after.problems == []
    found = verdict(after, STRICT[provider])
    assert found.problems == [], [v.message for v in found.problems]
    sent = as_sent(after)
    assert CHECKS[provider](_body(provider, sent.wire)) is None
    assert missing(repair(before.messages).messages, sent.messages, sent_ids(after, sent, written.ids)) == []


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_the_written_session_holds_the_repair_as_written(folder: Path) -> None:
    """Loaded again, the written file's own history needs no made-up result, no renamed id, no
    note: the repair is in the file, not left for the agent (what it leaves is named)."""
    _, written = _write(folder / "session.jsonl")
    again = repair(load_bytes(written.data).messages)
    kinds = {c.kind.value for c in again.changes}
    assert kinds <= {"moved_result", "dropped_placeholder"}
    if kinds:
        assert written.left


@pytest.mark.parametrize("path", SESSIONS, ids=_ids(SESSIONS))
def test_the_written_file_is_a_minimal_edit_and_writing_it_again_changes_nothing(path: Path) -> None:
    data, written = _write(path)
    untouched(data, written.data, written.edits)
    assert write_back(written.data, load_bytes(written.data)).data == written.data
    assert write_back(data, load_bytes(data)).data == written.data  # the same bytes every time


def _needs_repair(path: Path) -> bool:
    """A session whose repair changes something (or, a Codex turn, puts its outputs right after
    its calls; or a call Claude Code would take for a batch entry of another is written with
    another id); the real sessions are expected back as they are whatever the repair says."""
    data = path.read_bytes()
    t = load_bytes(data)
    fixed = repair(t.messages)
    renamed = write_back(data, t, fixed).ids
    return bool(fixed.changes or reordered_turns(fixed.messages, t) or renamed) and path not in REAL


NEED_NOTHING = [p for p in SESSIONS if not _needs_repair(p)]


def test_the_round_trip_has_sessions_to_check() -> None:
    assert len(NEED_NOTHING) >= 30


@pytest.mark.parametrize("path", NEED_NOTHING, ids=_ids(NEED_NOTHING))
def test_a_session_that_needs_no_repair_is_written_back_byte_for_byte(path: Path) -> None:
    data, written = _write(path)
    assert written.data == data
    assert written.edits == []


def test_the_corpus_has_shapes_to_write_and_shapes_that_need_nothing() -> None:
    changed = [f for f in FOLDERS if _write(f / "session.jsonl")[1].edits]
    assert len(changed) >= 15
    assert len(FOLDERS) - len(changed) >= 10


# -- Claude Code ---------------------------------------------------------------------------------


def _records(data: bytes) -> list[tuple[int, Any]]:
    return parse_document(data).records


def test_claude_code_text_before_result_changes_that_line_alone_results_first() -> None:
    data, written = _write(CORPUS / "claude-code-2.1.328" / "text-before-result" / "session.jsonl")
    [edit] = written.edits
    assert edit.kind == "changed" and edit.line == edit.at
    old = data.split(b"\n")[edit.line - 1]
    new = written.data.split(b"\n")[edit.at - 1]
    before, after = json.loads(old), json.loads(new)
    assert [b["type"] for b in after["message"]["content"]] == ["tool_result", "text"]
    assert {k: v for k, v in after.items() if k != "message"} == {k: v for k, v in before.items() if k != "message"}
    # Only the message's value is written again: what comes before it is the same bytes.
    assert new[: new.index(b'"message":')] == old[: old.index(b'"message":')]
    assert new[new.index(b',"uuid":') :] == old[old.index(b',"uuid":') :]


def test_claude_code_interrupted_result_is_a_line_on_the_branch_as_claude_code_writes_them() -> None:
    _, written = _write(CORPUS / "claude-code-2.1.328" / "killed-during-tool" / "session.jsonl")
    added = [e for e in written.edits if e.kind == "added"]
    assert len(added) == 1
    records = dict(_records(written.data))
    line = records[added[0].at]
    call_line = next(
        r
        for r in records.values()
        if r.get("type") == "assistant" and any(b.get("type") == "tool_use" for b in r["message"]["content"])
    )
    [call] = [b for b in call_line["message"]["content"] if b["type"] == "tool_use"]
    assert line["type"] == "user" and line["parentUuid"] == call_line["uuid"]
    assert line["sourceToolAssistantUUID"] == call_line["uuid"]
    [block] = line["message"]["content"]
    assert block["type"] == "tool_result" and block["tool_use_id"] == call["id"] and block["is_error"] is True
    assert block["content"].startswith("Interrupted before Bash returned a result.")
    for key in ("sessionId", "cwd", "version", "isSidechain", "userType", "gitBranch"):
        assert line[key] == call_line[key]
    assert line["timestamp"] == call_line["timestamp"]
    assert str(uuid.UUID(line["uuid"])) == line["uuid"]
    assert line["uuid"] not in {r.get("uuid") for n, r in records.items() if n != added[0].at}
    # Claude Code resumes the branch that ends at the new line: the last-prompt names it.
    prompts = [r for r in records.values() if r.get("type") == "last-prompt"]
    assert prompts[-1]["leafUuid"] == line["uuid"]
    found = chain(_records(written.data))
    assert found.leaf is not None and _records(written.data)[found.leaf][0] == added[0].at


def test_claude_code_a_later_turn_hangs_off_the_added_result() -> None:
    _, written = _write(CORPUS / "claude-code-2.1.328" / "dangling-call-then-later-turns" / "session.jsonl")
    [added] = [e for e in written.edits if e.kind == "added"]
    [repointed] = [e for e in written.edits if e.kind == "changed"]
    records = dict(_records(written.data))
    assert records[repointed.at]["parentUuid"] == records[added.at]["uuid"]
    assert records[repointed.at]["type"] == "user"
    # The as-written view of the written file has the result right after the call.
    t = load_bytes(written.data)
    roles = [m.role for m in t.messages]
    assert roles[:4] == ["user", "assistant", "tool", "user"]


def test_claude_code_parallel_results_each_hang_off_their_call() -> None:
    _, written = _write(CORPUS / "claude-code-2.1.328" / "parallel-killed" / "session.jsonl")
    records = dict(_records(written.data))
    added = [records[e.at] for e in written.edits if e.kind == "added"]
    assert len(added) == 2
    calls = {
        b["id"]: r["uuid"]
        for r in records.values()
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use"
    }
    for line in added:
        [block] = line["message"]["content"]
        assert line["parentUuid"] == calls[block["tool_use_id"]]


def _result_lines(data: bytes) -> list[tuple[str, str]]:
    """Each Claude Code line holding a tool result, in file order: the call it answers and the
    call of the line it hangs off."""
    records = [r for _, r in _records(data) if isinstance(r, dict)]
    call_of = {
        r["uuid"]: b["id"]
        for r in records
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }
    return [
        (b["tool_use_id"], call_of.get(r.get("parentUuid"), "?"))
        for r in records
        if r.get("type") == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


@pytest.mark.parametrize("release", ["claude-code-2.1.328", "claude-code-2.1.332"])
def test_claude_code_a_result_made_up_after_an_answered_call_goes_where_claude_code_puts_its_own(release: str) -> None:
    """parallel-first-done-killed: two calls in one response, the first answered, the second cut
    off by the kill. Resuming it, Claude Code appended its own interrupted result for the second
    call after the first call's result, hanging off the second call's line (``resumed.jsonl``),
    and sent the results in call order (``requests.jsonl``). The write-back's result goes in the
    same place, so Claude Code sends the same order from the written file (written right after
    the response, it went before the first call's result)."""
    folder = CORPUS / release / "parallel-first-done-killed"
    data, written = _write(folder / "session.jsonl")
    ((first, _), (second, _)) = _result_lines((folder / "resumed.jsonl").read_bytes())
    assert _result_lines(data) == [(first, first)]
    assert _result_lines((folder / "resumed.jsonl").read_bytes()) == [(first, first), (second, second)]
    assert _result_lines(written.data) == [(first, first), (second, second)]
    resumed = next(r for r in read_requests(folder) if r["run"] == "resume")
    sent_by_claude = [
        b["tool_use_id"]
        for m in resumed["body"]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert sent_by_claude == [first, second]
    assert [m.tool_call_id for m in as_sent(load_bytes(written.data)).messages if m.role == "tool"] == sent_by_claude


def test_claude_code_a_renamed_call_is_written_so_claude_code_sends_its_own_result() -> None:
    """The contract renames the repeated call ``{id}_1``; Claude Code would take its result for
    entry 1 of a batch call ``{id}`` and send "[Tool result missing due to internal error]" in
    its place (measured: ``suture.sent.claude_code``, step 3). The file names it ``{id}-1``, and
    Claude Code sends the call's own result."""
    data, written = _write(CORPUS / "claude-code-2.1.328" / "repeated-id" / "session.jsonl")
    [first] = {c.id for m in load_bytes(data).messages for c in m.tool_calls}
    assert written.ids == {f"{first}_1": f"{first}-1"}
    [note] = written.notes
    assert f"{first}_1" in note and f"{first}-1" in note and "batch call" in note
    assert written.data.count(f'"{first}-1"'.encode()) == 2  # the call and its result
    assert f'"{first}_1"'.encode() not in written.data
    sent = as_sent(load_bytes(written.data))
    assert {f.kind for f in sent.fixes} == {"inserted_reply"}
    [result] = [m for m in sent.messages if m.role == "tool" and m.tool_call_id == f"{first}-1"]
    assert result.content == "done-b"


ENTRY_LIKE = CORPUS / "claude-code-2.1.328" / "entry-like-id" / "session.jsonl"


def test_claude_code_sends_a_result_named_as_a_batch_entry_of_another_call_folded_into_that_call() -> None:
    """The entry-like-id session (its second call named ``{id}_1``, ``{id}`` the first call's):
    Claude Code 2.1.328 took the result for an entry of a batch call ``{id}`` and sent
    "[Tool result missing due to internal error]" for the call (``test_sent`` compares the whole
    history with the request it sent); suture says so, as what Claude Code does itself."""
    t = load_bytes(ENTRY_LIKE.read_bytes())
    first, second = (c.id for m in t.messages for c in m.tool_calls)
    assert second == f"{first}_1" and repair(t.messages).changes == []
    sent = as_sent(t)
    kinds = [f.kind for f in sent.fixes]
    assert "joined_results" in kinds and "inserted_result" in kinds and "dropped_result" in kinds
    results = {m.tool_call_id: text_of(m.content) for m in sent.messages if m.role == "tool"}
    assert results == {first: "done-a", second: "[Tool result missing due to internal error]"}
    assert sum(m.role == "tool" for m in sent.messages) == 2  # the folded one answered nothing: left out


def test_claude_code_a_call_named_as_a_batch_entry_is_written_so_claude_code_sends_its_result() -> None:
    """The contract changes nothing in the entry-like-id session, but Claude Code would lose a
    result: the written file names the call and its result ``{id}-1`` and says why."""
    data, written = _write(ENTRY_LIKE)
    first, second = (c.id for m in load_bytes(data).messages for c in m.tool_calls)
    assert written.ids == {second: f"{first}-1"}
    assert [e.kind for e in written.edits] == ["changed", "changed"] and written.notes
    sent = as_sent(load_bytes(written.data))
    results = {m.tool_call_id: text_of(m.content) for m in sent.messages if m.role == "tool"}
    assert results == {first: "done-a", f"{first}-1": "done-b"}


def test_the_same_file_gets_the_same_uuids() -> None:
    path = CORPUS / "claude-code-2.1.328" / "parallel-killed" / "session.jsonl"
    assert _write(path)[1].data == _write(path)[1].data


# -- Codex ---------------------------------------------------------------------------------------


def _ordinals(data: bytes) -> list[int]:
    return [r["ordinal"] for _, r in _records(data) if "ordinal" in r]


@pytest.mark.parametrize("folder", [f for f in FOLDERS if f.parent.name.startswith("codex")], ids=lambda f: f.name)
def test_codex_ordinals_stay_contiguous_and_every_other_line_is_kept(folder: Path) -> None:
    data, written = _write(folder / "session.jsonl")
    ordinals = _ordinals(written.data)
    if any(e.kind in ("added", "moved") for e in written.edits):
        first = min(e.at for e in written.edits if e.kind in ("added", "moved"))
        tail = ordinals[first - 1 :]
        assert tail == list(range(tail[0], tail[0] + len(tail)))
        assert tail[0] == ordinals[first - 2] + 1
    kinds = [r["type"] for _, r in _records(data)]
    written_kinds = [r["type"] for _, r in _records(written.data)]
    for kind in set(kinds):
        if kind != "response_item":
            assert written_kinds.count(kind) == kinds.count(kind)


def test_codex_item_between_call_and_output_moves_the_output_up_to_its_call() -> None:
    data, written = _write(CORPUS / "codex-0.169.0" / "item-between-call-and-output" / "session.jsonl")
    items = [r["payload"] for _, r in _records(written.data) if r["type"] == "response_item"]
    kinds = [i["type"] for i in items]
    k = kinds.index("function_call")
    assert kinds[k + 1] == "function_call_output"
    assert items[k]["call_id"] == items[k + 1]["call_id"]
    assert [e.kind for e in written.edits if e.kind != "renumbered"] == ["moved"]
    # The moved line is the same record, its ordinal aside.
    [moved] = [e for e in written.edits if e.kind == "moved"]
    old = json.loads(data.split(b"\n")[moved.line - 1])  # type: ignore[operator]
    new = json.loads(written.data.split(b"\n")[moved.at - 1])
    assert {k: v for k, v in old.items() if k != "ordinal"} == {k: v for k, v in new.items() if k != "ordinal"}


def test_codex_output_added_after_the_call_with_the_timestamp_of_the_line_before() -> None:
    _, written = _write(CORPUS / "codex-0.169.0" / "killed-during-tool" / "session.jsonl")
    [added] = [e for e in written.edits if e.kind == "added"]
    records = dict(_records(written.data))
    line = records[added.at]
    before = records[added.at - 1]
    assert list(line) == ["timestamp", "ordinal", "type", "payload"]
    assert line["timestamp"] == before["timestamp"] and line["ordinal"] == before["ordinal"] + 1
    assert before["payload"]["type"] == "function_call"
    assert line["payload"] == {
        "type": "function_call_output",
        "call_id": before["payload"]["call_id"],
        "output": line["payload"]["output"],
    }


def test_codex_compacted_history_gets_the_output_inside_it() -> None:
    _, written = _write(CORPUS / "codex-0.169.0" / "compaction" / "session.jsonl")
    [edit] = written.edits
    history = dict(_records(written.data))[edit.at]["payload"]["replacement_history"]
    kinds = [i["type"] for i in history]
    assert kinds[-2:] == ["function_call", "function_call_output"]


# -- pi ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", [f for f in FOLDERS if f.parent.name.startswith("pi")], ids=lambda f: f.name)
def test_pi_ids_stay_unique_and_the_branch_runs_through_every_entry_it_had(folder: Path) -> None:
    data, written = _write(folder / "session.jsonl")
    entries = [r for _, r in _records(written.data)][1:]
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))
    assert all(e["id"] != e.get("parentId") for e in entries)
    by_id = {e["id"]: e for e in entries}
    tip: Any = entries[-1]
    branch = []
    while tip is not None:
        branch.append(tip["id"])
        tip = by_id.get(tip["parentId"]) if tip.get("parentId") else None
    old = [r for _, r in _records(data)][1:]
    old_by_id = {e["id"]: e for e in old}
    old_tip: Any = old[-1]
    old_branch = []
    while old_tip is not None:
        old_branch.append(old_tip["id"])
        old_tip = old_by_id.get(old_tip["parentId"]) if old_tip.get("parentId") else None
    assert set(old_branch) <= set(branch)
    assert len(branch) == len(old_branch) + sum(1 for e in written.edits if e.kind == "added")


def test_pi_result_for_an_errored_turn_becomes_a_note_and_the_errored_turn_gets_nothing() -> None:
    _, written = _write(CORPUS / "pi-0.73.1" / "result-for-errored-turn" / "session.jsonl")
    [edit] = written.edits
    entry = dict(_records(written.data))[edit.at]
    assert entry["message"]["role"] == "user"
    assert entry["message"]["content"][0]["text"].startswith("A result for tool call call_")
    assert entry["message"]["content"][1] == {"type": "text", "text": "result written for an errored turn"}
    assert not [e for e in written.edits if e.kind == "added"]


def test_pi_added_result_entry_is_shaped_as_pi_writes_them() -> None:
    _, written = _write(CORPUS / "pi-0.73.1" / "dangling-call-then-later-turns" / "session.jsonl")
    [added] = [e for e in written.edits if e.kind == "added"]
    records = dict(_records(written.data))
    entry = records[added.at]
    before = records[added.at - 1]
    assert entry["parentId"] == before["id"] and len(entry["id"]) == 8
    assert entry["timestamp"] == before["timestamp"]
    message = entry["message"]
    assert message["role"] == "toolResult" and message["isError"] is True
    assert isinstance(message["content"], list) and message["content"][0]["type"] == "text"
    assert message["toolCallId"] == before["message"]["content"][0]["id"]
    assert message["toolName"] == before["message"]["content"][0]["name"]
    # The entry that followed the call now follows the result.
    [repointed] = [e for e in written.edits if e.kind == "changed"]
    assert records[repointed.at]["parentId"] == entry["id"]


# -- the library ---------------------------------------------------------------------------------


def test_a_file_that_changed_since_it_was_read_is_refused() -> None:
    data = (CORPUS / "pi-0.73.1" / "repeated-id" / "session.jsonl").read_bytes()
    transcript = load_bytes(data)
    other = data.replace(b"done-b", b"done-c")
    with pytest.raises(InputError, match="changed since it was read"):
        write_back(other, transcript)


def test_a_request_format_is_not_written_back() -> None:
    data = (ROOT / "sample_sessions" / "chat" / "worked-example.json").read_bytes()
    with pytest.raises(InputError, match="writes back Claude Code, Codex and pi sessions"):
        write_back(data, load_bytes(data))


def test_export_choices_offer_the_session_first_then_the_request_body() -> None:
    path = CORPUS / "claude-code-2.1.328" / "text-before-result" / "session.jsonl"
    data = path.read_bytes()
    t = load_bytes(data)
    session, body = export_choices(t, repair(t.messages), data)
    assert session.default and not body.default
    assert session.label.startswith("Claude Code session, resumable with `cd ")
    assert "claude --resume a7aa0778-e605-5581-ad0f-9c6d5b91ad90`" in session.label
    assert session.suffix == ".jsonl" and layout(session.bytes()) == "jsonl"
    assert session.bytes() == write_back(data, t).data
    assert body.label == "Anthropic request body (messages)" and body.suffix == ".json"
    assert json.loads(body.bytes())[2]["content"][0]["type"] == "tool_result"


def test_export_choices_of_a_request_file_is_its_own_format() -> None:
    data = (ROOT / "sample_sessions" / "chat" / "worked-example.json").read_bytes()
    t = load_bytes(data)
    [choice] = export_choices(t, repair(t.messages), data)
    assert choice.default and choice.format == "chat"


def test_pi_resume_command_names_the_file() -> None:
    path = CORPUS / "pi-0.73.1" / "killed-during-tool" / "session.jsonl"
    data = path.read_bytes()
    t = load_bytes(data)
    [session, body] = export_choices(t, repair(t.messages), data, str(path))
    assert session.resume == f"pi --session {path}"
    assert body.format == "chat"
    assert RESUME_PROMPT.role == "user"


@pytest.mark.parametrize("session", ["claude-code", "codex", "pi"])
def test_dump_refusing_a_session_format_offers_only_what_dump_writes(session: str) -> None:
    # dump writes request bodies: the formats its refusal lists are each written by it, and a
    # session's own format (written back over the session, never by dump) is not among them.
    import re

    from suture.formats import dump

    path = sorted((ROOT / "sample_sessions" / session).glob("*.jsonl"))[0]
    t = load_bytes(path.read_bytes())
    other = next(name for name in ("codex", "pi", "claude-code") if name != session)
    with pytest.raises(InputError) as info:
        dump(t.messages, t, to=other)
    found = re.search(r"is written as (.+) \(to=NAME\)$", str(info.value))
    assert found is not None, str(info.value)
    offered = re.split(r", | or ", found.group(1))
    assert session not in offered and offered
    for name in offered:
        try:
            dump(t.messages, t, to=name)
        except InputError as e:
            assert "cannot express" in str(e), (name, str(e))  # (the history, not the format, is refused)


def _results_out_of_call_order(messages: list[Any]) -> list[tuple[str, ...]]:
    """Each turn whose results (the tool messages right after an assistant message with calls)
    do not follow its calls' order: the ids as they come."""
    out: list[tuple[str, ...]] = []
    for i, m in enumerate(messages):
        if m.role != "assistant" or not m.tool_calls:
            continue
        order = [c.id for c in m.tool_calls]
        came = []
        for later in messages[i + 1 :]:
            if later.role != "tool":
                break
            if later.tool_call_id in order:
                came.append(later.tool_call_id)
        if came != sorted(came, key=order.index):
            out.append(tuple(came))
    return out


ADDING = [
    p
    for p in [*SESSIONS, *(f / "session.jsonl" for f in FOLDERS)]
    if repair(load_bytes(p.read_bytes()).messages).interrupted
]


@pytest.mark.parametrize("path", ADDING, ids=[f"{p.parent.name}/{p.name}" for p in ADDING])
def test_a_result_added_for_an_interrupted_call_is_sent_in_call_order(path: Path) -> None:
    """Where the repair makes up a result, the line written for it goes after the results of the
    calls before it: what the agent sends from the written session has each turn's results in
    the order of its calls (written right after the response, a later call's result went first,
    and a second repair moved it back)."""
    data, written = _write(path)
    before = _results_out_of_call_order(as_sent(load_bytes(data)).messages)
    assert _results_out_of_call_order(as_sent(load_bytes(written.data)).messages) == [] or before
    again = repair(load_bytes(written.data).messages)
    assert not [c for c in again.changes if c.kind.name == "MOVED_RESULT"] or before
