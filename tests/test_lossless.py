"""Values a fast JSON library would lose come back as written: integers beyond 64 bits and lone
surrogate escapes, through reading, every format adapter that writes JSON, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suture import codec
from suture.formats import dump, load_bytes
from suture.io import parse_document
from suture.repair import repair
from suture.writeback import write_back, writes_back

ROOT = Path(__file__).resolve().parent.parent
BIG = 123456789012345678901234567890
NEGATIVE = -(2**63) - 1  # one below the smallest 64-bit integer
CUT = "cut inside an emoji: \ud83d"  # what Node writes for a string cut between two surrogates
LOW = "\udc00 and a lone low one"


def run(*args: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "suture", *map(str, args)], capture_output=True, timeout=60)


# -- the codec ----------------------------------------------------------------------------------


def test_big_integers_and_lone_surrogates_read_exactly() -> None:
    data = b'{"a":18446744073709551616,"b":-9223372036854775809,"c":"x\\ud83dy","d":"\\udc00","e":"\\ud83d\\ude00"}'
    value = codec.loads(data)
    assert value == {"a": 2**64, "b": NEGATIVE, "c": "x\ud83dy", "d": "\udc00", "e": "😀"}
    assert type(value["a"]) is int
    # Written as orjson writes: a whole pair as the character it stands for, a lone one escaped.
    assert codec.dumps(value) == data.replace(b"\\ud83d\\ude00", "😀".encode())
    # orjson itself loses the first and refuses the document for the third.
    assert type(orjson.loads(b"18446744073709551616")) is float
    assert orjson.loads(b"%d" % BIG) != BIG
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(b'"\\ud83d"')


@pytest.mark.parametrize(
    "text",
    [b"NaN", b"[1,]", b"1e400", b'"\\ud83d', b'["\\ud83d" 1]', b'"\\ud83d\xff"', b"1" * 5000, b'{"a":"\\x"}'],
)
def test_what_is_not_json_stays_refused_with_orjsons_message(text: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError) as info:
        codec.loads(text)
    with pytest.raises(orjson.JSONDecodeError) as theirs:
        orjson.loads(text)
    assert str(info.value) == str(theirs.value)


def test_other_values_orjson_cannot_write_still_raise() -> None:
    with pytest.raises(orjson.JSONEncodeError):
        codec.dumps({"a": object(), "b": BIG})
    with pytest.raises(orjson.JSONEncodeError):
        codec.dumps({1: BIG})
    assert codec.dumps({1: BIG}, orjson.OPT_NON_STR_KEYS) == b'{"1":%d}' % BIG


_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('\ud83d\udc00\udfff\ud800\n"\\\x00\x1f\x7f')),
)
json_values = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5) | st.just("\ud83d"), inner, max_size=4)
    ),
    max_leaves=25,
)


def _like_orjson(value: Any, pretty: bool) -> bytes:
    """What orjson's layout looks like, written by Python's own writer, which keeps everything."""
    if pretty:
        text = json.dumps(value, ensure_ascii=False, indent=2)
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")  # a lone surrogate as its \\udXXX escape


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans())
def test_any_value_round_trips_in_orjsons_layout(value: Any, pretty: bool) -> None:
    option = orjson.OPT_INDENT_2 if pretty else 0
    data = codec.dumps(value, option)
    assert data == _like_orjson(value, pretty)
    assert codec.loads(data) == value
    assert codec.dumps(value, option | orjson.OPT_APPEND_NEWLINE) == data + b"\n"


# -- parsing files ------------------------------------------------------------------------------


def test_a_json_file_with_a_lone_surrogate_reads() -> None:
    data = codec.dumps([{"role": "user", "content": CUT}], orjson.OPT_INDENT_2)
    doc = parse_document(data)
    assert doc.kind == "json" and doc.value[0]["content"] == CUT


def test_only_the_jsonl_line_with_a_lone_surrogate_is_read_the_slow_way() -> None:
    lines = [{"role": "user", "content": "a"}, {"role": "user", "content": CUT}, {"n": BIG}]
    doc = parse_document(b"".join(codec.dumps(r) + b"\n" for r in lines))
    assert doc.kind == "jsonl" and not doc.problems
    assert [v for _, v in doc.records] == lines


# -- every format that writes JSON: load, dump, byte for byte -----------------------------------


def _chat() -> list[Any]:
    return [
        {"role": "system", "content": "be brief", "seed": BIG},
        {"role": "user", "content": CUT},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"n": "\\ud83d"}'}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": LOW, "n": NEGATIVE},
    ]


def _messages() -> dict[str, Any]:
    return {
        "model": "claude",
        "max_tokens": BIG,
        "messages": [
            {"role": "user", "content": CUT},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {"n": BIG}}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "a", "content": LOW}, {"type": "text", "text": CUT}],
            },
        ],
    }


def _responses() -> dict[str, Any]:
    return {
        "model": "gpt",
        "max_output_tokens": BIG,
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": CUT}]},
            {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": LOW},
        ],
    }


def _gemini() -> list[Any]:
    return [
        {"role": "user", "parts": [{"text": CUT}]},
        {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {"n": BIG}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "f", "response": {"output": LOW}}}]},
    ]


def _vercel() -> list[Any]:
    return [
        {"role": "user", "content": [{"type": "text", "text": CUT}]},
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolCallId": "a", "toolName": "f", "input": {"n": BIG}}],
        },
        {
            "role": "tool",
            "content": [
                {"type": "tool-result", "toolCallId": "a", "toolName": "f", "output": {"type": "text", "value": LOW}}
            ],
        },
    ]


def _jsonl(records: list[Any]) -> bytes:
    return b"".join(codec.dumps(r) + b"\n" for r in records)


def _codex() -> bytes:
    def rec(kind: str, payload: Any) -> dict[str, Any]:
        return {"timestamp": "2026-11-18T09:14:02.118Z", "type": kind, "payload": payload}

    meta = {"id": "s", "timestamp": "2026-11-18T09:14:02.104Z", "cwd": "/x", "originator": "codex_cli_rs", "n": BIG}
    return _jsonl(
        [
            rec("session_meta", meta),
            rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": CUT}]}),
            rec("response_item", {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}),
            rec("response_item", {"type": "function_call_output", "call_id": "a", "output": LOW}),
        ]
    )


PRETTY = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
COMPACT = orjson.OPT_APPEND_NEWLINE
FILES: dict[str, tuple[str, bytes]] = {
    "chat array": ("chat", codec.dumps(_chat(), PRETTY)),
    "chat one line": ("chat", codec.dumps(_chat(), COMPACT)),
    "chat jsonl": ("chat", _jsonl(_chat())),
    "chat body": ("chat", codec.dumps({"model": "gpt", "n": BIG, "messages": _chat()}, PRETTY)),
    "messages": ("messages", codec.dumps(_messages(), PRETTY)),
    "responses": ("responses", codec.dumps(_responses(), PRETTY)),
    "gemini": ("gemini", codec.dumps(_gemini(), PRETTY)),
    "vercel": ("vercel", codec.dumps(_vercel(), PRETTY)),
    "codex": ("codex", _codex()),
}


@pytest.mark.parametrize("case", sorted(FILES))
def test_load_then_dump_is_byte_identical(case: str) -> None:
    fmt, data = FILES[case]
    assert b"\\ud83d" in data and b"\\udc00" in data
    assert (b"%d" % BIG) in data
    t = load_bytes(data)
    assert t.format == fmt
    result = repair(t.messages)
    assert not result.changes, result.changes
    if writes_back(fmt):  # a session log is written back over its file, by suture.writeback
        assert write_back(data, t, result).data == data
        return
    assert dump(t.messages, t, to=fmt) == data
    assert dump(result.messages, t, to=fmt) == data


@pytest.mark.parametrize("case", ["chat array", "chat jsonl", "messages"])
def test_suture_repair_writes_them_back_as_they_came(tmp_path: Path, case: str) -> None:
    _, data = FILES[case]
    path = tmp_path / ("in.jsonl" if case.endswith("jsonl") else "in.json")
    path.write_bytes(data)
    proc = run("repair", path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == data
    assert b"Traceback" not in proc.stderr


def test_converting_keeps_big_integers_in_tool_arguments() -> None:
    t = load_bytes(FILES["messages"][1])
    chat = codec.loads(dump(t.messages, t, to="chat"))
    assert chat[1]["tool_calls"][0]["function"]["arguments"] == f'{{"n":{BIG}}}'
    assert chat[0]["content"] == CUT


# -- a session log with a lone surrogate in a tool result --------------------------------------


def test_skip_bad_lines_does_not_drop_a_result_with_a_lone_surrogate(tmp_path: Path) -> None:
    sample = ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"
    lines = sample.read_bytes().splitlines(keepends=True)
    line = next(i for i, x in enumerate(lines) if b'"tool_result"' in x)
    lines[line] = lines[line].replace(b"checkout: KeyError", b"checkout \\ud83d: KeyError", 1)
    assert b"\\ud83d" in lines[line]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines))
    plain = run("repair", sample, "--skip-bad-lines")
    proc = run("repair", path, "--skip-bad-lines")
    assert proc.returncode == 0, proc.stderr
    assert b"skipped" not in proc.stderr
    assert proc.stderr == plain.stderr  # the same changes: no synthetic interrupt for it
    assert b"checkout \\ud83d: KeyError" in proc.stdout
    # The session is written back: the one line with the lone surrogate is the only difference.
    assert proc.stdout == plain.stdout.replace(b"checkout: KeyError", b"checkout \\ud83d: KeyError", 1)
    body = run("repair", path, "--skip-bad-lines", "--to", "messages")
    plain_body = run("repair", sample, "--skip-bad-lines", "--to", "messages")
    assert b"checkout \\ud83d: KeyError" in body.stdout
    assert body.stdout == plain_body.stdout.replace(b"checkout: KeyError", b"checkout \\ud83d: KeyError")


@pytest.mark.parametrize(
    "sample", ["messages/interrupted-and-restarted.json", "gemini/broken-no-ids.json", "pi/v1-clean.jsonl"]
)
def test_an_assistant_message_of_calls_alone_is_written_for_chat_with_null_content(sample: str) -> None:
    # OpenAI answers an empty content list 400 ("Invalid 'messages[1].content': empty array"):
    # a message of calls and nothing said is written as the API writes it, content null.
    from tests.conftest import SAMPLES

    path = SAMPLES / sample
    transcript = load_bytes(path.read_bytes())
    written = orjson.loads(dump(repair(transcript.messages).messages, transcript, to="chat"))
    calls = [m for m in written if m.get("tool_calls")]
    assert calls and all(m["content"] is None for m in calls if not m["content"])
    assert not [m for m in written if m.get("content") == []]
