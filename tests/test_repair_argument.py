"""``suture.repair`` takes a loaded transcript's messages, or the Transcript itself (what
``suture.load_file`` returns); anything else is one TypeError at the call that says what to pass,
not an error from deep inside the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import suture

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_sessions" / "chat" / "moved-result.json"


def test_a_transcript_is_repaired_as_its_messages() -> None:
    transcript = suture.load_file(SAMPLE)
    result = suture.repair(transcript)
    assert result.changes  # the sample needs a repair
    expected = suture.repair(transcript.messages)
    assert (result.messages, result.changes, result.origin) == (
        expected.messages,
        expected.changes,
        expected.origin,
    )
    assert suture.dump(result.messages, transcript) == suture.dump(expected.messages, transcript)


def test_a_session_log_is_repaired_as_the_messages_it_loads_as() -> None:
    transcript = suture.load_file(ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl")
    assert suture.repair(transcript).messages == suture.repair(transcript.messages).messages


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ([{"role": "user", "content": "hi"}], "not a list of dict"),
        (str(SAMPLE), "not a str"),
        (None, "not a NoneType"),
        ({"messages": []}, "not a dict"),
    ],
)
def test_anything_else_is_a_type_error_that_says_what_to_pass(given: Any, said: str) -> None:
    with pytest.raises(TypeError) as raised:
        suture.repair(given)
    assert str(raised.value) == (
        "suture.repair(messages): messages is a list of suture.Message, or the Transcript that "
        f"suture.load_file or suture.load_bytes returns, {said}"
    )


def test_a_repair_passed_back_is_told_to_pass_its_messages() -> None:
    result = suture.repair(suture.load_file(SAMPLE))
    with pytest.raises(TypeError, match=r"not a Repair \(pass its \.messages\)$"):
        suture.repair(result)  # type: ignore[arg-type]


def test_no_messages_is_an_empty_history() -> None:
    assert not suture.repair([]).messages and not suture.repair(()).changes
