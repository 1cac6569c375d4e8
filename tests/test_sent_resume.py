"""The verdicts on what Claude Code sends, resumed after appends (``suture.sent.resume``), equal
the whole ones: what is sent (its messages, wire, provenance and fixes), each provider's problems
in it and the contract view.

Claude Code sessions are generated line by line with the damage its resume step handles (calls
with no result, results with no call, repeated ids, ids that read as batch entries, whitespace-only
text, consecutive user records, a record of text and a result, API errors, local commands), cut at
random lines into a first part and appends; the sample sessions are cut at several lines too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suture.formats import load_bytes
from suture.model import Message, Transcript
from suture.repair import Repair, repair, repair_from
from suture.sent import as_sent, verdict
from suture.sent.resume import SentChecks
from tests.helpers.sent import session_lines

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(
    [
        *(ROOT / "sample_sessions" / "claude-code").glob("*.jsonl"),
        *(ROOT / "sample_sessions" / "recorded").glob("claude-code-*/*/session.jsonl"),
    ]
)

_IDS = ("t1", "t2", "t1_0", "t1_1", "t3")


@st.composite
def _events(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """A session as what each line says: ("user", content), ("assistant", (id, block)), ("error",)."""
    out: list[tuple[str, Any]] = []
    for turn in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(("prompt", "response", "result", "both", "command", "error")))
        if kind == "prompt":
            out.append(("user", draw(st.sampled_from((f"task {turn}", [{"type": "text", "text": f"more {turn}"}])))))
        elif kind == "result":
            call = draw(st.sampled_from(_IDS))
            out.append(
                (
                    "user",
                    [{"type": "tool_result", "tool_use_id": call, "content": "ok", "is_error": draw(st.booleans())}],
                )
            )
        elif kind == "both":
            call = draw(st.sampled_from(_IDS))
            out.append(
                (
                    "user",
                    [{"type": "text", "text": "see"}, {"type": "tool_result", "tool_use_id": call, "content": "ok"}],
                )
            )
        elif kind == "command":
            out.append(("user", "<local-command-caveat>caveat</local-command-caveat>"))
            out.append(("user", "<local-command-stdout>done</local-command-stdout>"))
        elif kind == "error":
            out.append(("error", None))
        else:
            blocks: list[Any] = []
            for _ in range(draw(st.integers(1, 3))):
                b = draw(st.sampled_from(("text", "blank", "thinking", "call")))
                if b == "text":
                    blocks.append({"type": "text", "text": f"reply {turn}"})
                elif b == "blank":
                    blocks.append({"type": "text", "text": "\n\n"})
                elif b == "thinking":
                    blocks.append({"type": "thinking", "thinking": "hm", "signature": "sig"})
                else:
                    blocks.append({"type": "tool_use", "id": draw(st.sampled_from(_IDS)), "name": "Bash", "input": {}})
            for block in blocks:
                out.append(("assistant", (f"msg_{turn}", block)))
            for call in [b["id"] for b in blocks if b["type"] == "tool_use"]:
                if draw(st.integers(0, 3)):
                    out.append(("user", [{"type": "tool_result", "tool_use_id": call, "content": "done"}]))
    return out


def _same(a: list[Message], b: list[Message]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _assert_whole(got: list[Any], transcript: Transcript, result: Repair) -> None:
    whole = as_sent(transcript)
    for name, contract, found in got:
        sent = found.sent
        assert sent.messages == whole.messages
        assert sent.wire == whole.wire
        assert (sent.origin, sent.places, sent.written) == (whole.origin, whole.places, whole.written)
        assert sent.fixes == whole.fixes
        assert (sent.skipped, sent.added, sent.agent, sent.version, sent.model) == (
            whole.skipped,
            whole.added,
            whole.agent,
            whole.version,
            whole.model,
        )
        expected = verdict(transcript, name, result, whole)
        assert found.problems == expected.problems, name
        assert contract.before == expected.contract.before, name
        assert contract.after == expected.contract.after, name
        assert found.summary() == expected.summary()


def _grow(parts: list[bytes]) -> None:
    checks = SentChecks()
    last: list[Message] | None = None
    result: Repair | None = None
    for data in parts:
        transcript = load_bytes(data)
        assert transcript.format == "claude-code"
        same = _same(last, transcript.messages) if last is not None else 0
        result = (
            repair_from(result, transcript.messages, same)
            if result is not None and same
            else repair(transcript.messages)
        )
        got = list(checks.each(transcript, result, same))
        assert [name for name, _, _ in got] == list(checks.providers)
        _assert_whole(got, transcript, result)
        last = list(transcript.messages)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_events(), min_size=2, max_size=6), st.data())
def test_resumed_sent_verdicts_equal_whole_ones_after_appends(
    turns: list[list[tuple[str, Any]]], data: st.DataObject
) -> None:
    events = [e for t in turns for e in t]
    lines = session_lines([("user", "start"), *events])
    cuts = [*sorted(set(data.draw(st.lists(st.integers(1, len(lines)), min_size=1, max_size=6)))), len(lines)]
    _grow([b"".join(lines[:k]) for k in dict.fromkeys(cuts)])


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_resumed_sent_verdicts_of_sample_sessions_equal_whole_ones(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    n = len(lines)
    cuts = sorted({max(1, n // 3), max(1, n // 2), max(1, n - 3), max(1, n - 1), n})
    parts = []
    for k in cuts:
        data = b"".join(lines[:k])
        try:
            if load_bytes(data).format == "claude-code":
                parts.append(data)
        except Exception:
            continue  # a first part that is not yet a session
    assert parts and parts[-1] == path.read_bytes()  # the whole file is among what is checked
    _grow(parts)


def test_a_resumed_check_builds_what_was_appended_not_the_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """After an append, the records before the cut are not built again: the request keeps them."""
    import suture.sent.claude_code as built_here

    starts: list[int] = []  # where each build of what Claude Code sends began
    make = built_here._Builder.__init__

    def spied(self: Any, transcript: Any, start: int = 0, before: Any = None) -> None:
        starts.append(start)
        make(self, transcript, start, before)

    monkeypatch.setattr(built_here._Builder, "__init__", spied)
    events: list[tuple[str, Any]] = [("user", "start")]
    for turn in range(40):
        events.append(
            ("assistant", (f"msg_{turn}", {"type": "tool_use", "id": f"c{turn}", "name": "Bash", "input": {}}))
        )
        events.append(("user", [{"type": "tool_result", "tool_use_id": f"c{turn}", "content": "ok"}]))
    lines = session_lines(events)
    checks = SentChecks()
    first = load_bytes(b"".join(lines[:-4]))
    list(checks.each(first, repair(first.messages)))
    grown = load_bytes(b"".join(lines))
    same = _same(list(first.messages), grown.messages)
    result = repair(grown.messages)
    starts.clear()
    got = list(checks.each(grown, result, same))
    # One build, from a cut near the end: not the whole history again (a start of 0).
    assert len(starts) == 1 and starts[0] > len(first.messages) - 8, starts
    kept = got[0][2].sent.messages
    assert kept[: len(kept) - 8] == as_sent(first).messages[: len(kept) - 8]
    assert checks._grown is not None and checks._grown.cut > len(first.messages) - 6
    _assert_whole(got, grown, result)
