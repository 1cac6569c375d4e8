"""The verdicts on what an agent sends, resumed after appends (``suture.sent.resume``), equal
the whole ones: what is sent (its messages, wire, provenance and fixes), each provider's problems
in it and the contract view.

Claude Code sessions are generated line by line with the damage its resume step handles (calls
with no result, results with no call, repeated ids, ids that read as batch entries, whitespace-only
text, consecutive user records, a record of text and a result, API errors, local commands), cut at
random lines into a first part and appends; the sample sessions are cut at several lines too.
Codex rollouts (calls with no output, outputs with no call or before their call, runs of the
model's items) and pi sessions (calls with no result, failed turns, a change of model, OpenAI
Chat and Anthropic requests) likewise; and each part's last lines may be written otherwise in
the next (a changed end), as a file rewritten near its end is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
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
        *(ROOT / "sample_sessions" / "codex").glob("*.jsonl"),
        *(ROOT / "sample_sessions" / "recorded").glob("codex-*/*/session.jsonl"),
        *(ROOT / "sample_sessions" / "pi").glob("*.jsonl"),
        *(ROOT / "sample_sessions" / "recorded").glob("pi-*/*/session.jsonl"),
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


def _grow(parts: list[bytes], fmt: str = "claude-code") -> None:
    checks = SentChecks()
    last: list[Message] | None = None
    result: Repair | None = None
    for data in parts:
        transcript = load_bytes(data)
        assert transcript.format == fmt
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


def _parts(lines: list[bytes], data: st.DataObject, other: Callable[[int], bytes]) -> list[bytes]:
    """The first part of ``lines`` and each append to it, cut at random lines; some parts end in a
    line written otherwise (``other(k)`` for line ``k``) that the next part has as it is."""
    cuts = [*sorted(set(data.draw(st.lists(st.integers(1, len(lines)), min_size=1, max_size=6)))), len(lines)]
    parts = []
    for k in dict.fromkeys(cuts):
        if k < len(lines) and data.draw(st.integers(0, 3)) == 0:
            parts.append(b"".join(lines[: k - 1]) + other(k - 1))  # a changed end
        parts.append(b"".join(lines[:k]))
    return parts


_CODEX_IDS = ("c1", "c2", "c3")


def _codex_line(item: dict[str, Any]) -> bytes:
    return orjson.dumps({"timestamp": "2026-01-01T00:00:00.000Z", "type": "response_item", "payload": item}) + b"\n"


@st.composite
def _codex_items(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A turn of a Codex rollout, as its items."""
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(("user", "reply", "reasoning", "call", "custom", "output", "custom-output")))
        call = draw(st.sampled_from(_CODEX_IDS))
        if kind == "user":
            out.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]})
        elif kind == "reply":
            out.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]})
        elif kind == "reasoning":
            out.append({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hm"}]})
        elif kind == "call":
            out.append({"type": "function_call", "call_id": call, "name": "shell", "arguments": "{}"})
        elif kind == "custom":
            out.append({"type": "custom_tool_call", "call_id": call, "name": "apply_patch", "input": "x"})
        elif kind == "output":
            out.append({"type": "function_call_output", "call_id": call, "output": "done"})
        else:
            out.append({"type": "custom_tool_call_output", "call_id": call, "output": "done"})
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_codex_items(), min_size=2, max_size=6), st.data())
def test_resumed_codex_verdicts_equal_whole_ones_after_appends(
    turns: list[list[dict[str, Any]]], data: st.DataObject
) -> None:
    head = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}
    start = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "start"}]}
    lines = [orjson.dumps(head) + b"\n", _codex_line(start), *(_codex_line(i) for t in turns for i in t)]

    def other(k: int) -> bytes:
        return _codex_line({"type": "function_call_output", "call_id": _CODEX_IDS[k % 3], "output": "rewritten"})

    _grow(_parts(lines, data, other), "codex")


_PI_IDS = ("t1", "t2", "t3")
_PI_MODELS = (
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    ("anthropic", "anthropic-messages", "claude-opus-4-1"),
    ("openai", "openai-completions", "gpt-5"),
)


@st.composite
def _pi_messages(draw: st.DrawFn, models: tuple[tuple[str, str, str], ...]) -> list[dict[str, Any]]:
    """A turn of a pi session, as its messages, talking to one of ``models``."""
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(("user", "reply", "calls", "result", "failed", "bash")))
        if kind == "user":
            out.append({"role": "user", "content": [{"type": "text", "text": draw(st.sampled_from(("go", " ")))}]})
        elif kind == "bash":
            out.append({"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0})
        elif kind == "result":
            call = draw(st.sampled_from(_PI_IDS))
            content = [{"type": "text", "text": "done"}]
            out.append({"role": "toolResult", "toolCallId": call, "toolName": "read", "content": content})
        else:
            provider, api, model = draw(st.sampled_from(models))
            blocks: list[Any] = [{"type": "text", "text": draw(st.sampled_from(("ok", "\n\n")))}]
            if draw(st.booleans()):
                blocks.insert(0, {"type": "thinking", "thinking": "hm", "thinkingSignature": "sig"})
            if kind == "calls":
                for call in draw(st.lists(st.sampled_from(_PI_IDS), min_size=1, max_size=2, unique=True)):
                    blocks.append({"type": "toolCall", "id": call, "name": "read", "arguments": {}})
            stop = "error" if kind == "failed" else ("toolUse" if kind == "calls" else "stop")
            out.append(
                {
                    "role": "assistant",
                    "content": blocks,
                    "api": api,
                    "provider": provider,
                    "model": model,
                    "stopReason": stop,
                }
            )
    return out


def _pi_line(n: int, message: dict[str, Any]) -> bytes:
    entry = {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n > 1 else None, "timestamp": "2026"}
    return orjson.dumps({**entry, "message": {**message, "timestamp": 0}}) + b"\n"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from((_PI_MODELS[:1], _PI_MODELS[2:], _PI_MODELS)), st.data())
def test_resumed_pi_verdicts_equal_whole_ones_after_appends(
    models: tuple[tuple[str, str, str], ...], data: st.DataObject
) -> None:
    turns = data.draw(st.lists(_pi_messages(models), min_size=2, max_size=6))
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026", "cwd": "/w"}
    messages = [{"role": "user", "content": [{"type": "text", "text": "start"}]}, *(m for t in turns for m in t)]
    lines = [orjson.dumps(head) + b"\n", *(_pi_line(n, m) for n, m in enumerate(messages, 1))]

    def other(k: int) -> bytes:
        return _pi_line(k, {"role": "user", "content": [{"type": "text", "text": "rewritten"}]})

    _grow(_parts(lines, data, other), "pi")


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_resumed_sent_verdicts_of_sample_sessions_equal_whole_ones(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    n = len(lines)
    cuts = sorted({max(1, n // 3), max(1, n // 2), max(1, n - 3), max(1, n - 1), n})
    fmt = load_bytes(path.read_bytes()).format
    parts = []
    for k in cuts:
        data = b"".join(lines[:k])
        try:
            if load_bytes(data).format == fmt:
                parts.append(data)
        except Exception:
            continue  # a first part that is not yet a session
    assert parts and parts[-1] == path.read_bytes()  # the whole file is among what is checked
    _grow(parts, fmt)


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


def _long_session(fmt: str) -> list[bytes]:
    """A session of 40 turns, each a call and its result, in ``fmt``."""
    if fmt == "codex":
        head = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}
        items: list[dict[str, Any]] = [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
        ]
        for turn in range(40):
            items.append({"type": "function_call", "call_id": f"c{turn}", "name": "shell", "arguments": "{}"})
            items.append({"type": "function_call_output", "call_id": f"c{turn}", "output": "ok"})
        return [orjson.dumps(head) + b"\n", *map(_codex_line, items)]
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    provider, api, model = _PI_MODELS[0]
    for turn in range(40):
        call = {"type": "toolCall", "id": f"c{turn}", "name": "read", "arguments": {}}
        messages.append({"role": "assistant", "content": [call], "api": api, "provider": provider, "model": model})
        result = [{"type": "text", "text": "ok"}]
        messages.append({"role": "toolResult", "toolCallId": f"c{turn}", "toolName": "read", "content": result})
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026", "cwd": "/w"}
    return [orjson.dumps(head) + b"\n", *(_pi_line(n, m) for n, m in enumerate(messages, 1))]


@pytest.mark.parametrize("fmt", ["codex", "pi"])
def test_a_resumed_codex_or_pi_check_builds_what_was_appended_not_the_history(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an append, what the agent sends of the messages before the cut is kept, not built
    again: the one build starts near the end."""
    import suture.sent.codex
    import suture.sent.pi

    starts: list[int] = []  # where each build of what the agent sends began
    if fmt == "codex":
        items = suture.sent.codex._items

        def spied_items(messages: Any, start: int) -> Any:
            starts.append(start)
            return items(messages, start)

        monkeypatch.setattr(suture.sent.codex, "_items", spied_items)
    else:
        make = suture.sent.pi._Builder.__init__

        def spied(self: Any, transcript: Any, start: int = 0, before: Any = None) -> None:
            starts.append(start)
            make(self, transcript, start, before)

        monkeypatch.setattr(suture.sent.pi._Builder, "__init__", spied)
    lines = _long_session(fmt)
    checks = SentChecks()
    first = load_bytes(b"".join(lines[:-4]))
    assert first.format == fmt
    list(checks.each(first, repair(first.messages)))
    grown = load_bytes(b"".join(lines))
    same = _same(list(first.messages), grown.messages)
    assert same == len(first.messages)
    result = repair(grown.messages)
    starts.clear()
    got = list(checks.each(grown, result, same))
    # One build, from a cut near the end: not the whole history again (a start of 0).
    assert len(starts) == 1 and starts[0] > len(first.messages) - 8, starts
    assert checks._grown is not None and checks._grown.cut > len(first.messages) - 6
    _assert_whole(got, grown, result)
