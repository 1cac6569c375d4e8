"""Structure-aware fuzzing of the loaders and the engine.

Any JSON value, and near-valid transcripts with one thing broken, fed to every format adapter
(detected and forced) must either load or raise InputError; whatever loads must repair into a
history with no violation and dump without error, and the repaired dump must load again, still
with no violation. Bounded by hypothesis settings so it runs in
CI in seconds; crashes it ever found stay below as explicit examples.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from suture.formats import adapters, dump, load_bytes
from suture.io import InputError
from suture.repair import repair
from suture.validity import violations
from tests.helpers.documents import json_values

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _exercise(data: bytes, format: str | None) -> None:
    try:
        transcript = load_bytes(data, format)
    except InputError:
        return
    result = repair(transcript.messages)
    assert violations(result.messages) == []
    out = dump(result.messages, transcript)
    again = load_bytes(out, transcript.format if transcript.raw_is(transcript.format) else None)
    assert violations(again.messages) == []


@FUZZ
@given(json_values)
@example([{"role": "tool"}])
@example({"messages": [{"role": "assistant", "tool_calls": []}]})
def test_any_json_value_loads_or_says_why(value: Any) -> None:
    data = orjson.dumps(value)
    _exercise(data, None)
    for adapter in adapters():
        _exercise(data, adapter.name)


@FUZZ
@given(st.lists(json_values, min_size=1, max_size=6))
def test_any_jsonl_loads_or_says_why(records: list[Any]) -> None:
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    _exercise(data, None)


CALL = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
BASE: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    },
    {"role": "assistant", "content": None, "tool_calls": [CALL, {**CALL, "id": "c2"}]},
    {"role": "tool", "tool_call_id": "c2", "content": "two"},
    {"role": "user", "content": "wait"},
    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "one"}]},
    {"role": "assistant", "content": "  "},
]
PATHS = [(i, key) for i, m in enumerate(BASE) for key in m]


@FUZZ
@given(st.sampled_from(PATHS), json_values, st.booleans())
def test_near_valid_chat_loads_or_says_why(path: tuple[int, str], value: Any, drop: bool) -> None:
    messages = [dict(m) for m in BASE]
    index, key = path
    if drop:
        del messages[index][key]
    else:
        messages[index][key] = value
    _exercise(orjson.dumps(messages), None)
    _exercise(b"".join(orjson.dumps(m) + b"\n" for m in messages), None)


@pytest.mark.parametrize("cut", range(0, 400, 7))
def test_truncated_at_any_byte(cut: int) -> None:
    data = orjson.dumps(BASE)
    _exercise(data[:cut], None)


# -- whatever a transcript holds, the terminal only shows it ---------------------------------------

_UNSAFE = {"Cc", "Cf", "Zl", "Zp", "Cs"}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(call_id=st.text(min_size=1, max_size=20), name=st.text(max_size=12), text=st.text(max_size=20))
def test_command_output_shows_any_id_name_and_text_inertly(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], call_id: str, name: str, text: str
) -> None:
    """Ids, tool names and text of any characters (controls, newlines, bidi, invisible ones):
    no command's output has any of them raw (a newline is only ever one suture wrote)."""
    import unicodedata

    from suture.cli import main

    folder = tmp_path_factory.mktemp("fuzz-show")
    path = folder / "t.json"
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
    messages = [
        {"role": "user", "content": text},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "next"},
    ]
    path.write_bytes(orjson.dumps(messages))
    error = f"No tool output found for function call {call_id}."
    for argv in (
        ["check", str(path)],
        ["check", str(path), "--provider", "all", "--all"],
        ["explain", str(path), error],
        ["repair", str(path), "-o", str(folder / "out.json")],
    ):
        main(argv)
        captured = capsys.readouterr()
        for shown in (captured.out, captured.err):
            raw = [c for c in shown if c != "\n" and unicodedata.category(c) in _UNSAFE]
            assert not raw, (argv, raw)
