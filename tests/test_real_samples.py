"""Every real transcript in ``sample_sessions/real``: detect, load, repair, export, load again.

The folder names the format (``claude-code/``, ``pi/``, ...).
Print the figures (messages per file, changes by kind) with::

    python -m tests.test_real_samples
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import suture
from suture.formats import detect, dump, get
from suture.formats import essences as _essences
from suture.io import parse_document
from suture.model import Message
from suture.repair import ChangeKind, repair
from tests.conftest import REAL


def _files() -> list[Path]:
    return sorted(p for p in REAL.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))


FILES = _files()
CLAUDE_CODE = [p for p in FILES if p.parent.name == "claude-code"]


def essences(messages: list[Message]) -> list[dict[str, Any]]:
    return [e for _, e in _essences(messages)]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for n, line in enumerate(path.read_bytes().splitlines(), 1):
        if line.strip():
            yield n, orjson.loads(line)


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_detected_as_its_folder_says(path: Path) -> None:
    assert detect(parse_document(path.read_bytes())).adapter.name == path.parent.name


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_loads_repairs_exports_and_loads_again(path: Path) -> None:
    t = suture.load_file(path)
    assert t.problems == []
    assert t.messages
    assert all(m.source is not None for m in t.messages)
    result = repair(t.messages)
    assert repair(result.messages).changes == []
    data = dump(result.messages, t)
    export = t.export_format or get(t.format).export_format
    back = suture.load_bytes(data, export)
    assert essences(back.messages) == essences(result.messages)
    assert repair(back.messages).changes == []
    assert dump(back.messages, back) == data


@pytest.mark.parametrize("path", CLAUDE_CODE, ids=_id)
def test_claude_code_loader_never_invents_an_interrupt_or_an_orphan(path: Path) -> None:
    """A call whose result is anywhere in its turn is paired: neither a synthetic result nor an
    orphan note may come from how the loader put the file's lines together."""
    t = suture.load_file(path)
    result = repair(t.messages)
    boundary = t.meta.get("compacted", {}).get("line", 0)
    results_in_file = set()
    calls_in_file = set()
    for n, record in _records(path):
        content = (record.get("message") or {}).get("content") if n > boundary else None
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                results_in_file.add(block.get("tool_use_id"))
            if block.get("type") == "tool_use":
                calls_in_file.add(block.get("id"))
    for change in result.changes:
        if change.kind is ChangeKind.SYNTHETIC_INTERRUPT:
            assert change.call_id not in results_in_file, change.summary
        if change.kind is ChangeKind.ORPHAN_NOTE:
            assert change.call_id not in calls_in_file, change.summary
    # These sessions are complete: every call has its result, so nothing is made up at all.
    assert result.counts()[ChangeKind.SYNTHETIC_INTERRUPT] == 0
    assert result.counts()[ChangeKind.ORPHAN_NOTE] == 0


@pytest.mark.parametrize("path", CLAUDE_CODE, ids=_id)
def test_claude_code_assistant_messages_are_one_per_response(path: Path) -> None:
    t = suture.load_file(path)
    boundary = t.meta.get("compacted", {}).get("line", 0)
    responses = set()
    results = 0
    for n, record in _records(path):
        message = record.get("message")
        if n <= boundary or not isinstance(message, dict) or (record.get("isSidechain") and not t.meta["sidechain"]):
            continue
        if record.get("type") == "assistant" and message.get("model") != "<synthetic>":
            responses.add(message.get("id"))
        if record.get("type") == "user" and isinstance(message.get("content"), list):
            results += sum(1 for b in message["content"] if b.get("type") == "tool_result")
    assert sum(1 for m in t.messages if m.role == "assistant") == len(responses)
    assert sum(1 for m in t.messages if m.role == "tool") == results


@pytest.mark.parametrize("path", [p for p in FILES if p.parent.name == "pi"], ids=_id)
def test_pi_interrupts_only_calls_without_a_result_anywhere(path: Path) -> None:
    t = suture.load_file(path)
    answered = {
        r["message"].get("toolCallId")
        for _, r in _records(path)
        if isinstance(r.get("message"), dict) and r["message"].get("role") == "toolResult"
    }
    result = repair(t.messages)
    for change in result.changes:
        if change.kind is ChangeKind.SYNTHETIC_INTERRUPT:
            assert change.call_id not in answered
        assert change.kind is not ChangeKind.ORPHAN_NOTE


def figures() -> list[str]:
    lines = []
    for path in FILES:
        t = suture.load_file(path)
        result = repair(t.messages)
        counts = ", ".join(f"{k}={v}" for k, v in result.counts().items() if v) or "no changes"
        lines.append(
            f"{_id(path)}: {t.format}, {len(t.messages)} messages, {len(t.evidence)} evidence, "
            f"{len(t.problems)} problems; {counts}"
        )
    return lines


if __name__ == "__main__":
    sys.stdout.write("\n".join(figures()) + "\n")


def test_the_real_sessions_are_in_the_repository() -> None:
    assert {p.parent.name for p in FILES} == {"claude-code", "pi"}
    assert len(CLAUDE_CODE) == 5
