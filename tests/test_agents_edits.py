"""The hand edits, applied to the recorded natural crashes: lines they do not touch stay byte-identical."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tools.agents import edits
from tools.agents.drivers import AGENTS
from tools.agents.record import CORPUS, SHAPES, killed_during_tool, stream_cut_after_call, tool_done_then_killed

BASE = {
    killed_during_tool: "killed-during-tool",
    tool_done_then_killed: "tool-done-then-killed",
    stream_cut_after_call: "stream-cut-after-call",
}

CASES = [(shape.name, agent) for shape in SHAPES.values() for agent in shape.edits if shape.crash in BASE]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.parametrize(("shape", "agent"), CASES, ids=[f"{a}/{s}" for s, a in CASES])
def test_edit_keeps_untouched_lines(shape: str, agent: str) -> None:
    spec = SHAPES[shape]
    base = CORPUS / AGENTS[agent].folder / BASE[spec.crash] / "session.jsonl"
    lines = _lines(base)
    out = spec.edits[agent](lines)
    assert out != lines
    for line in out:
        assert line.endswith("\n")
        json.loads(line)
    changed = sum((Counter(lines) - Counter(out)).values())
    assert changed <= 1
    before, after = set(lines), set(out)
    assert [x for x in out if x in before] == [x for x in lines if x in after]
    assert len(out) - (len(lines) - changed) <= 3


@pytest.mark.parametrize(("shape", "agent"), CASES, ids=[f"{a}/{s}" for s, a in CASES])
def test_recorded_file_is_the_edit_of_a_crash(shape: str, agent: str) -> None:
    """The recorded session.jsonl of a hand-edited shape holds what its edit writes."""
    recorded = (CORPUS / AGENTS[agent].folder / shape / "session.jsonl").read_text(encoding="utf-8")
    marks = [edits.NOTE, edits.LATER_PROMPT, edits.ORPHAN_ID, edits.COMPACTION_SUMMARY, "errored turn"]
    assert any(mark in recorded for mark in marks)


def test_repeated_id_needs_two_calls() -> None:
    lines = _lines(CORPUS / "claude-code-2.1.328" / "killed-during-tool" / "session.jsonl")
    with pytest.raises(edits.EditError, match="fewer than two tool calls"):
        edits.cc_repeated_id(lines)


@pytest.mark.parametrize("agent", ["claude-code", "codex", "pi"])
def test_repeated_id_gives_the_second_call_the_first_id(agent: str) -> None:
    recorded = CORPUS / AGENTS[agent].folder / "repeated-id" / "session.jsonl"
    recs = edits.parse(_lines(recorded))
    ids_of = {"claude-code": edits.cc_call_ids, "codex": edits.codex_call_ids, "pi": edits.pi_call_ids}[agent]
    ids = ids_of(recs)
    assert len(ids) == 2 and ids[0] == ids[1]


def test_entry_like_id_gives_the_second_call_the_first_id_and_1() -> None:
    recorded = CORPUS / AGENTS["claude-code"].folder / "entry-like-id" / "session.jsonl"
    first, second = edits.cc_call_ids(edits.parse(_lines(recorded)))
    assert second == f"{first}_1"
