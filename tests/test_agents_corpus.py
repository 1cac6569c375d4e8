"""The recorded corpus (sample_sessions/recorded): every shape folder is complete and well formed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.agents.corpus import first_resume, problems, read_requests, shape_folders, table
from tools.agents.record import CORPUS, SHAPES

FOLDERS = shape_folders(CORPUS)


def test_the_corpus_is_there() -> None:
    names = {(f.parent.name, f.name) for f in FOLDERS}
    assert ("claude-code-2.1.328", "killed-during-tool") in names
    assert ("claude-code-2.1.328", "text-before-result") in names


def test_the_measured_versions_are_the_versions_recorded() -> None:
    """A release is modelled as itself (no "resume is assumed" note) exactly when the corpus holds
    it resuming every shape that applies to its agent; the harness pins the newest of them."""
    from suture.sent import measured
    from tools.agents.drivers import AGENTS
    from tools.agents.record import applies

    for name, agent in AGENTS.items():
        recorded = {
            f.parent: json.loads((f / "shape.json").read_text())["version"]
            for f in FOLDERS
            if f.parent.name.startswith(f"{name}-")
        }
        assert sorted(set(recorded.values())) == sorted(measured(name))
        assert agent.version == measured(name)[-1]
        every = {s.name for s in SHAPES.values() if applies(agent, s)}
        for parent in recorded:
            assert {g.name for g in parent.iterdir() if g.is_dir()} == every, parent.name
        # The pinned release is recorded talking to every provider the harness records it with.
        assert {v.folder for v in agent.variants()} <= {p.name for p in recorded}, name


def test_pi_is_recorded_talking_to_each_provider_in_its_own_folder() -> None:
    from tools.agents.drivers import AGENTS

    folders = {v.provider: v.folder for v in AGENTS["pi"].variants()}
    assert folders == {
        "openai-chat": "pi-0.73.1",
        "anthropic": "pi-0.73.1-anthropic",
        "openai-responses": "pi-0.73.1-responses",
        "gemini": "pi-0.73.1-gemini",
    }
    for provider, name in folders.items():
        metas = [json.loads((f / "shape.json").read_text()) for f in FOLDERS if f.parent.name == name]
        assert metas and {m["provider"] for m in metas} == {provider}, name
        assert all(m["commands"][-1].startswith("pi --session ") for m in metas)


def test_problems_finds_a_shape_in_another_provider_s_folder(tmp_path: Path) -> None:
    folder = _copy(CORPUS / "pi-0.73.1-anthropic" / "killed-during-tool", tmp_path)
    meta = json.loads((folder / "shape.json").read_text())
    meta["provider"] = "openai-chat"
    (folder / "shape.json").write_text(json.dumps(meta))
    assert any("do not match folder pi-0.73.1-anthropic" in p for p in problems(folder))


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_a_measured_version_is_modelled_as_itself(folder: Path) -> None:
    from suture.formats import load_file
    from suture.sent import as_sent, measured

    meta = json.loads((folder / "shape.json").read_text())
    sent = as_sent(load_file(folder / "session.jsonl"))
    if meta["agent"] == "pi":  # a pi session records its format's version, not pi's
        assert (sent.version, sent.model) == (None, measured("pi")[-1])
        assert sent.assumed == f"the file does not say which pi version wrote it; pi {sent.model}'s resume is assumed"
    else:
        assert (sent.version, sent.model, sent.assumed) == (meta["version"], meta["version"], None)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_shape_folder_is_complete(folder: Path) -> None:
    assert problems(folder) == []
    meta = json.loads((folder / "shape.json").read_text())
    shape = SHAPES[meta["shape"]]
    assert meta["agent"] in shape.agents
    assert meta["hand_edit"] == shape.note(meta["agent"])


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_resume_only_appends(folder: Path) -> None:
    """The agents append to a session on resume; what the crash (and edit) left stays byte-identical."""
    assert (folder / "resumed.jsonl").read_bytes().startswith((folder / "session.jsonl").read_bytes())


def test_natural_crashes_are_accepted_and_text_before_result_is_rejected() -> None:
    for folder in FOLDERS:
        meta = json.loads((folder / "shape.json").read_text())
        if meta["hand_edit"] is None:
            assert meta["resume"]["outcome"] == "accepted", folder
    tbr = CORPUS / "claude-code-2.1.328" / "text-before-result"
    meta = json.loads((tbr / "shape.json").read_text())
    assert meta["resume"]["outcome"] == "rejected"
    assert "Did not find 1 `tool_result` block(s) at the beginning of this message" in meta["resume"]["error"]
    first = first_resume(read_requests(tbr))
    assert first is not None
    assert any(
        isinstance(m["content"], list) and [b["type"] for b in m["content"]][:2] == ["text", "tool_result"]
        for m in first["body"]["messages"]
    )


def _copy(folder: Path, tmp_path: Path) -> Path:
    dest = tmp_path / folder.parent.name / folder.name
    shutil.copytree(folder, dest)
    return dest


def test_problems_finds_a_missing_file_and_a_wrong_outcome(tmp_path: Path) -> None:
    folder = _copy(CORPUS / "claude-code-2.1.328" / "killed-during-tool", tmp_path)
    meta = json.loads((folder / "shape.json").read_text())
    meta["resume"] = {"outcome": "rejected", "status": 400, "error": "made up"}
    (folder / "shape.json").write_text(json.dumps(meta))
    assert any("does not match the first resume request" in p for p in problems(folder))
    (folder / "resumed.jsonl").unlink()
    assert problems(folder) == ["missing resumed.jsonl"]


def test_problems_finds_an_untrimmed_prompt(tmp_path: Path) -> None:
    folder = _copy(CORPUS / "claude-code-2.1.328" / "killed-during-tool", tmp_path)
    lines = (folder / "requests.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["body"]["system"] = "the whole system prompt"
    lines[0] = json.dumps(first)
    (folder / "requests.jsonl").write_text("\n".join(lines) + "\n")
    assert problems(folder) == ["request 1: system is not trimmed to its hash"]


def test_table_has_a_row_per_shape_with_the_recorded_answer() -> None:
    rows = table(CORPUS).splitlines()[2:]
    assert len(rows) == len(FOLDERS)
    for folder, row in zip(FOLDERS, rows, strict=True):
        meta = json.loads((folder / "shape.json").read_text())
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[:2] == [folder.parent.name, folder.name]
        assert cells[3].split()[0] == meta["resume"]["outcome"]


FIRST_DONE = [f for f in FOLDERS if f.name == "parallel-first-done-killed"]


@pytest.mark.parametrize("folder", FIRST_DONE, ids=[f.parent.name for f in FIRST_DONE])
def test_parallel_first_done_killed_has_the_first_call_answered_and_the_second_cut_off(folder: Path) -> None:
    """The state the shape names is the one recorded: one response with two calls, the first
    one's result (its printed text) in the file, none for the second."""
    from suture.formats import load_file
    from suture.model import text_of

    messages = load_file(folder / "session.jsonl").messages
    [turn] = [m for m in messages if m.tool_calls]
    first, _ = (c.id for c in turn.tool_calls)
    results = {m.tool_call_id: text_of(m.content) for m in messages if m.role == "tool"}
    assert list(results) == [first]
    assert "a-answered" in results[first]


def test_the_recorder_knows_a_result_from_the_call_that_prints_it(tmp_path: Path) -> None:
    """``Context.wait_result`` looks for the answered command's text in a result line: the call's
    line, which holds the command, is not taken for it."""
    from typing import Any, cast

    from tools.agents.drivers import AGENTS, answered_command
    from tools.agents.record import Context

    class Written:
        name = "claude-code"

        def session_file(self, home: Path, work: Path) -> Path:
            return tmp_path / "session.jsonl"

    command, text = answered_command(tmp_path / "a")
    call = AGENTS["claude-code"].shell_call(command)
    line = {"type": "assistant", "message": {"content": [{"type": "tool_use", "input": call.arguments}]}}
    (tmp_path / "session.jsonl").write_text(json.dumps(line) + "\n")
    ctx = Context(cast(Any, Written()), cast(Any, None), tmp_path, tmp_path, tmp_path)
    assert not ctx.wait_result(text, timeout=0.5)
    result = {"type": "user", "message": {"content": [{"type": "tool_result", "content": text + "\n"}]}}
    with (tmp_path / "session.jsonl").open("a") as f:
        f.write(json.dumps(result) + "\n")
    assert ctx.wait_result(text, timeout=0.5)
