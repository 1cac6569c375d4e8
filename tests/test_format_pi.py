"""pi / openclaw session JSONL: detection, the active branch, aborted turns, compaction, export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suture
from suture.formats import CERTAIN, adapters, detect, dump, get, load_bytes
from suture.formats import essences as _essences
from suture.io import InputError, parse_document
from suture.model import Message, ThinkingPart
from suture.repair import ChangeKind, repair
from tests.helpers.documents import break_at, key_paths

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "pi"
BRANCHED = SAMPLES / "branched-aborted.jsonl"
V1 = SAMPLES / "v1-clean.jsonl"
HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def essences(messages: list[Message]) -> list[dict[str, Any]]:
    return [e for _, e in _essences(messages)]


def jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def entry(i: str, parent: str | None, message: dict[str, Any], kind: str = "message") -> dict[str, Any]:
    return {"type": kind, "id": i, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", "message": message}


def test_samples_are_detected_for_certain() -> None:
    for path in SAMPLES.iterdir():
        found = detect(parse_document(path.read_bytes()))
        assert (found.adapter.name, found.score) == ("pi", CERTAIN), path


def test_the_history_is_the_branch_that_ends_at_the_last_entry() -> None:
    t = suture.load_file(BRANCHED)
    assert [m.role for m in t.messages] == [
        "user",
        "assistant",
        "tool",
        "branchSummary",
        "user",
        "bashExecution",
        "user",
        "tool",
        "user",
    ]
    # The abandoned branch (line 6, its call and its label) is not part of it.
    lines = [m.source.line for m in t.messages if m.source]
    assert 6 not in lines and 7 not in lines
    assert t.messages[5].content == "Ran `ls src`\n```\nApp.tsx\nNotesList.tsx\n\n```"
    thinking = t.messages[1].content[0] if isinstance(t.messages[1].content, list) else None
    assert isinstance(thinking, ThinkingPart) and thinking.signature == "ErMCCkYICRgCKkBOTn34eNIXFbLXFdzP"
    assert t.messages[2].name == "read" and t.messages[2].is_error is False


def test_aborted_and_failed_turns_are_skipped_as_pi_skips_them() -> None:
    """pi never sends a turn that ended with stopReason "aborted" or "error" (nor needs results
    for its calls): neither is history, both are kept aside, and the failed one says why."""
    t = suture.load_file(BRANCHED)
    lines = [m.source.line for m in t.messages if m.source]
    assert 10 not in lines and 13 not in lines
    assert [(s.source.line, s.kind) for s in t.skipped] == [(10, "errored_turn"), (13, "errored_turn")]
    assert "stopReason 'error'" in t.skipped[1].reason and "2 calls" in t.skipped[1].reason
    # The result written for one of the failed turn's calls answers nothing pi sends.
    result = repair(t.messages)
    assert [(c.kind, t.messages[c.input_index].source.line) for c in result.changes] == [  # type: ignore[union-attr]
        (ChangeKind.ORPHAN_NOTE, 14)
    ]
    assert [(s.line, text) for s, text in t.evidence] == [(13, "error: terminated")]


def test_an_anthropic_session_exports_as_anthropic_messages() -> None:
    t = suture.load_file(BRANCHED)
    assert t.export_format == "messages"
    out = orjson.loads(dump(repair(t.messages).messages, t))
    assert out[1]["content"][0] == {
        "type": "thinking",
        "thinking": "Find the list component first.",
        "signature": "ErMCCkYICRgCKkBOTn34eNIXFbLXFdzP",
    }
    assert out[1]["content"][2] == {
        "type": "tool_use",
        "id": "toolu_01Rt5Yu6Io7Pa8Sd9Fg0HjKl",
        "name": "read",
        "input": {"path": "src/NotesList.tsx"},
    }
    back = load_bytes(orjson.dumps(out))
    assert back.format == "messages"
    assert repair(back.messages).changes == []


def test_v1_sessions_are_read_in_file_order() -> None:
    t = suture.load_file(V1)
    assert t.meta["version"] == 1
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "assistant"]
    assert [m.source.line for m in t.messages if m.source] == [2, 3, 4, 5]
    assert repair(t.messages).changes == []


def test_compaction_keeps_the_summary_then_the_kept_entries() -> None:
    records = [
        HEADER,
        entry("a", None, {"role": "user", "content": "old question"}),
        entry("b", "a", {"role": "assistant", "content": [{"type": "text", "text": "old answer"}]}),
        entry("c", "b", {"role": "user", "content": "recent question"}),
        {
            "type": "compaction",
            "id": "d",
            "parentId": "c",
            "summary": "we talked",
            "firstKeptEntryId": "c",
            "tokensBefore": 9,
        },
        entry("e", "d", {"role": "assistant", "content": [{"type": "text", "text": "recent answer"}]}),
    ]
    t = load_bytes(jsonl(records))
    assert [(m.role, m.content if isinstance(m.content, str) else m.content[0].text) for m in t.messages] == [  # type: ignore[index, union-attr]
        ("compactionSummary", "we talked"),
        ("user", "recent question"),
        ("assistant", "recent answer"),
    ]


def test_export_follows_the_provider_of_the_last_assistant_message() -> None:
    names = {a.name for a in adapters()}
    records = [
        HEADER,
        entry("a", None, {"role": "user", "content": "hi"}),
        entry(
            "b", "a", {"role": "assistant", "content": [{"type": "text", "text": "yo"}], "api": "openai-completions"}
        ),
    ]
    t = load_bytes(jsonl(records))
    assert t.export_format == "chat"
    records[2]["message"]["api"] = "openai-responses"
    t = load_bytes(jsonl(records))
    assert t.export_format == ("responses" if "responses" in names else "messages")


def test_broken_trees_are_named_problems() -> None:
    records = [
        HEADER,
        entry("a", "zzz", {"role": "user", "content": "parent is missing"}),
        entry("b", "a", {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
    ]
    t = load_bytes(jsonl(records), skip_bad_lines=True)
    assert [p.line for p in t.problems] == [2]
    assert "parent 'zzz' is not in the file" in t.problems[0].message
    assert [m.role for m in t.messages] == ["user", "assistant"]


def test_bad_entries_are_named_problems() -> None:
    records = [HEADER, entry("a", None, {"role": "toolResult", "toolCallId": 3}), entry("b", "a", {"content": "x"})]
    t = load_bytes(jsonl(records), skip_bad_lines=True)
    assert [(p.line, p.message) for p in t.problems] == [
        (2, "message.toolCallId: must be a string, got a number"),
        (3, "message.role: is missing"),
    ]


def test_a_new_session_with_only_its_header_is_an_empty_history() -> None:
    t = load_bytes(orjson.dumps(HEADER) + b"\n")
    assert (t.format, t.messages, t.problems) == ("pi", [], [])


def test_pi_files_are_not_written_by_dump() -> None:
    t = suture.load_file(V1)
    with pytest.raises(InputError, match=r"suture\.writeback\.write_back"):
        dump(t.messages, t, to="pi")


# -- property: the active branch of a generated tree is the history ------------------------------


@st.composite
def trees(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[str]]:
    """A v3 session whose active branch is a list of user/assistant/result entries, with
    abandoned side branches hanging off random entries; and the texts of the active branch."""
    records: list[dict[str, Any]] = [HEADER]
    texts: list[str] = []
    parent: str | None = None
    n = 0
    for i in range(draw(st.integers(1, 8))):
        n += 1
        me = f"e{n}"
        text = f"message {i}"
        role = draw(st.sampled_from(("user", "assistant")))
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        records.append(entry(me, parent, {"role": role, "content": content}))
        texts.append(text)
        if parent is not None and draw(st.booleans()):
            n += 1
            records.append(entry(f"e{n}", parent, {"role": "user", "content": "abandoned"}))
        parent = me
    # The last entry must be on the active branch: move any side branch written last before it.
    if records[-1]["message"]["content"] == "abandoned":
        records.insert(len(records) - 2, records.pop())
    return records, texts


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
def test_side_branches_never_reach_the_history(tree: tuple[list[dict[str, Any]], list[str]]) -> None:
    records, texts = tree
    t = load_bytes(jsonl(records))
    assert t.format == "pi"
    assert [e["text"] for e in essences(t.messages)] == texts


# -- near-valid files: one thing broken anywhere loads or says why, and what loads exports ------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(("type", "id", "text", "content", "role", "parentId")), inner, max_size=3)
    ),
    max_leaves=8,
)


_RECORDS = [orjson.loads(line) for line in BRANCHED.read_bytes().splitlines()]
_RECORD_PATHS = [p for p in key_paths(_RECORDS) if len(p) > 1 and p[0] > 0]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_RECORD_PATHS), _json, st.booleans())
def test_near_valid_sessions_load_or_say_why(path: tuple[Any, ...], value: Any, drop: bool) -> None:
    records = orjson.loads(orjson.dumps(_RECORDS))
    break_at(records, path, value, drop)
    try:
        t = load_bytes(jsonl(records), "pi")
    except InputError as e:
        assert "\n" not in str(e)
        return
    result = repair(t.messages)
    try:
        data = dump(result.messages, t)
    except InputError as e:
        assert "cannot express" in str(e)
        return
    back = load_bytes(data, t.export_format)
    assert essences(back.messages) == essences(result.messages)


def test_only_an_anthropic_turn_carries_an_anthropic_signature() -> None:
    thinking = {"type": "thinking", "thinking": "plan", "thinkingSignature": '{"type":"reasoning","id":"rs_1"}'}
    records = [
        HEADER,
        entry("a", None, {"role": "user", "content": "hi"}),
        entry("b", "a", {"role": "assistant", "content": [thinking], "api": "openai-responses", "provider": "openai"}),
    ]
    part = load_bytes(jsonl(records)).messages[1].content[0]  # type: ignore[index]
    assert isinstance(part, ThinkingPart) and part.signature is None and part.raw == thinking
    records[2]["message"].update(api="anthropic-messages", provider="anthropic")
    part = load_bytes(jsonl(records)).messages[1].content[0]  # type: ignore[index]
    assert isinstance(part, ThinkingPart) and part.signature == thinking["thinkingSignature"]


# -- live tail: appended entries give what a full load of the file gives ------------------------


def _same(a: Any, b: Any) -> None:
    assert [(m.role, str(m.source), m.raw) for m in a.messages] == [(m.role, str(m.source), m.raw) for m in b.messages]
    assert (a.evidence, a.export_format, a.problems) == (b.evidence, b.export_format, b.problems)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.data())
def test_appended_entries_extend_to_what_a_full_load_gives(
    tree: tuple[list[dict[str, Any]], list[str]], data: st.DataObject
) -> None:
    records, _ = tree
    cut = data.draw(st.integers(1, len(records)))
    adapter = get("pi")
    before = adapter.load(parse_document(jsonl(records[:cut])))
    whole = parse_document(jsonl(records))
    extended = adapter.extend(before, whole, cut)  # type: ignore[attr-defined]
    if extended is None:
        return  # a side branch was the tip: a full read follows
    out, first = extended
    _same(out, adapter.load(whole))
    assert first == len(before.messages) and out.messages[:first] == before.messages


def test_a_linear_session_extends_line_by_line() -> None:
    adapter = get("pi")
    lines = BRANCHED.read_bytes().splitlines(keepends=True)
    v1 = V1.read_bytes().splitlines(keepends=True)
    for source in (v1,):
        for cut in range(1, len(source)):
            before = adapter.load(parse_document(b"".join(source[:cut])))
            whole = parse_document(b"".join(source))
            extended = adapter.extend(before, whole, cut)  # type: ignore[attr-defined]
            assert extended is not None, cut
            _same(extended[0], adapter.load(whole))
    # A new branch (an entry whose parent is not the tip) is read whole.
    cut = 6  # the abandoned branch's label is the last entry
    before = adapter.load(parse_document(b"".join(lines[:cut])))
    assert adapter.extend(before, parse_document(b"".join(lines)), cut) is None  # type: ignore[attr-defined]


def test_the_compaction_line_is_the_compaction_entry_the_summary_is_read_from() -> None:
    from suture.formats import compaction_line

    records = [
        HEADER,
        entry("a", None, {"role": "user", "content": "old question"}),
        {"type": "compaction", "id": "d", "parentId": "a", "summary": "we talked", "firstKeptEntryId": "a"},
        entry("e", "d", {"role": "assistant", "content": [{"type": "text", "text": "recent answer"}]}),
    ]
    assert compaction_line(load_bytes(jsonl(records))) == 3
    assert compaction_line(load_bytes(jsonl([records[0], records[1], records[3]]), skip_bad_lines=True)) is None
