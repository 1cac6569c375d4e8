"""The format registry: detection by content, --format, undecidable files, `suture formats`, --to."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

import suture
import suture.formats as registry
from suture.formats import (
    CERTAIN,
    PLAUSIBLE,
    adapters,
    detect,
    dump,
    export_name,
    get,
    load_bytes,
    request_bodies,
    written_formats,
)
from suture.io import Document, InputError, parse_document
from suture.model import Transcript
from suture.words import either
from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"
SAMPLE_FILES = sorted(p for p in SAMPLES.glob("*/*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run(*args, quiet_warnings=True)


def test_every_format_has_a_sample() -> None:
    folders = {p.parent.name for p in SAMPLE_FILES}
    assert {a.name for a in adapters()} <= folders


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_sample_is_detected_as_its_folder_says(path: Path) -> None:
    assert detect(parse_document(path.read_bytes())).adapter.name == path.parent.name


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_detection_never_looks_at_the_file_name(path: Path, tmp_path: Path) -> None:
    for name in ("transcript.json", "session.jsonl", "notes.txt"):
        copy = tmp_path / name
        shutil.copyfile(path, copy)
        assert suture.load_file(copy).format == path.parent.name


def test_a_plain_history_valid_in_many_formats_loads_by_order() -> None:
    data = b'[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]'
    found = detect(parse_document(data))
    assert found.score == PLAUSIBLE
    assert found.adapter is min((a for a in adapters() if a.sniff(parse_document(data))), key=lambda a: a.order)
    assert len(found.others) >= 1
    assert [m.role for m in load_bytes(data).messages] == ["user", "assistant"]


def test_the_first_telling_message_decides() -> None:
    plain = [{"role": "user", "content": "hi"}] * 3
    anthropic = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "ls", "input": {}}]}
    chat = {"role": "assistant", "content": None, "tool_calls": [{"id": "t", "function": {"name": "ls"}}]}
    assert load_bytes(orjson.dumps([*plain, anthropic])).format == "messages"
    assert load_bytes(orjson.dumps([*plain, chat])).format == "chat"


def test_the_telling_message_decides_however_late_it_comes() -> None:
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}]
    anthropic = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "ls", "input": {}}]}
    t = load_bytes(orjson.dumps([*plain * 300, anthropic]))
    assert t.format == "messages"
    assert t.messages[-1].tool_calls[0].id == "t"


def test_format_overrides_detection() -> None:
    data = b'[{"role": "user", "content": "hi"}]'
    assert load_bytes(data).format != "messages"
    assert load_bytes(data, "messages").format == "messages"


def test_a_format_that_does_not_fit_says_so() -> None:
    with pytest.raises(InputError) as info:
        load_bytes(b'{"type": "session", "cwd": "/p"}\n', "messages")
    assert str(info.value) == "this file is not in the messages format"


def test_an_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(InputError) as info:
        get("nope")
    assert all(a.name in str(info.value) for a in adapters())


@dataclass
class _Certain:
    name: str
    order: int
    title: str = "test"
    export_format: str = ""

    def sniff(self, doc: Document) -> int:
        return CERTAIN

    def load(self, doc: Document) -> Transcript:
        raise AssertionError("not reached")

    def dump(self, messages: object, transcript: Transcript) -> bytes:
        raise AssertionError("not reached")


def test_an_undecidable_file_says_which_formats_it_could_be(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "adapters", lambda: (_Certain("one", 1), _Certain("two", 2)))
    with pytest.raises(InputError) as info:
        detect(parse_document(b"[]"))
    assert str(info.value) == "this file could be any of one, two; pass --format NAME to choose"


def _table() -> list[str]:
    """The lines of ``suture formats`` naming one format each (above its blank line)."""
    proc = _run("formats")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n\n")[0].splitlines()


def test_suture_formats_lists_every_format() -> None:
    listed = [line.split()[0] for line in _table()]
    assert listed == [a.name for a in adapters()]
    lines = {line.split()[0]: line for line in _table()}
    assert "writes the session back, for Claude Code to resume; --to messages: its request body" in lines["claude-code"]
    assert "--to responses: its request body" in lines["codex"]
    assert "(chat, gemini, messages or responses)" in lines["pi"]
    assert "exports as" not in lines["chat"]


def test_suture_formats_says_what_repair_to_writes() -> None:
    """Below the table, one line names every format --to writes any transcript as."""
    proc = _run("formats")
    last = proc.stdout.splitlines()[-1]
    assert last == f"suture repair --to writes any of them as {either(request_bodies())}, and a session log as itself"


def test_suture_formats_json_gives_what_each_format_is_written_as() -> None:
    proc = _run("formats", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = orjson.loads(proc.stdout)
    assert [f["name"] for f in listed] == [a.name for a in adapters()]
    by_name = {f["name"]: f for f in listed}
    for f in listed:
        assert f["writes"] == list(written_formats(f["name"])) and f["writes"][0] == f["name"]
        assert set(f["request_formats"]) == set(request_bodies()) <= set(f["writes"])
    assert by_name["claude-code"]["written_back"] == "Claude Code"
    assert by_name["claude-code"]["sent_as"] == ["messages"]
    assert by_name["pi"]["sent_as"] == ["chat", "gemini", "messages", "responses"]
    assert by_name["chat"]["written_back"] is None and by_name["chat"]["sent_as"] == ["chat"]
    # Every format is written as the AI SDK's messages and as each provider's request body.
    assert {"chat", "messages", "responses", "gemini", "vercel"} <= set(by_name["claude-code"]["writes"])


def test_suture_formats_json_says_what_repair_to_takes(tmp_path: Path) -> None:
    """For a file of each format, ``suture repair --to NAME`` takes exactly the formats ``suture
    formats --json`` lists in its ``writes``: every other format it refuses, saying what the file
    is written as (a conversion the history cannot hold is taken, and fails for that history)."""
    listed = {f["name"]: f["writes"] for f in orjson.loads(_run("formats", "--json").stdout)}
    inputs = {}
    for adapter in adapters():
        sample = sorted((SAMPLES / adapter.name).glob("*.json*"))[0]
        inputs[adapter.name] = tmp_path / "in" / f"{adapter.name}{sample.suffix}"
        inputs[adapter.name].parent.mkdir(exist_ok=True)
        shutil.copyfile(sample, inputs[adapter.name])
    for target in listed:
        out = tmp_path / f"to-{target}"
        proc = _run("repair", *map(str, inputs.values()), "--out-dir", str(out), "--to", target, "-q")
        errors = [line for line in proc.stderr.splitlines() if line.startswith("suture: error: ")]
        for source, path in inputs.items():
            said = [line.removeprefix(f"suture: error: {path}: ") for line in errors if f" {path}: " in line]
            refused = registry.not_written(target, source, "--to NAME")
            if target in listed[source]:
                assert refused not in said, (source, target)
                assert not said or "cannot express" in said[0], (source, target, said)
            else:
                assert said == [refused], (source, target, proc.stderr)


def test_suture_formats_tells_what_a_pi_session_is_written_as() -> None:
    """A pi session that talked to an OpenAI Chat provider is sent as chat: `suture formats`
    names chat among pi's request formats, and `suture repair` writes the session back."""
    recorded = ROOT / "sample_sessions" / "recorded" / "pi-0.73.1" / "killed-during-tool" / "session.jsonl"
    t = suture.load_file(recorded)
    assert export_name(t) == "chat"
    assert "chat" in get("pi").request_formats  # type: ignore[attr-defined]
    proc = _run("repair", str(recorded))
    assert proc.returncode == 0, proc.stderr
    assert suture.load_bytes(proc.stdout.encode()).format == "pi"


def test_repair_to_converts_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = _run("repair", str(SAMPLES / "chat" / "worked-example.json"), "--to", "messages", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert suture.load_file(out).format == "messages"


def test_repair_to_a_format_that_cannot_express_it_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = _run("repair", str(SAMPLES / "messages" / "clean-request.json"), "--to", "chat", "-o", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "chat cannot express this history" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_dump_to_the_own_format_is_the_plain_dump() -> None:
    t = suture.load_file(SAMPLES / "messages" / "clean-request.json")
    assert dump(t.messages, t, to="messages") == dump(t.messages, t)


def test_the_engine_and_the_app_never_test_a_format_name() -> None:
    names = "|".join(re.escape(a.name) for a in adapters())
    test = re.compile(
        rf"""([=!]=\s*["']({names})["'])|(["']({names})["']\s*[=!]=)|(in\s*[(\[{{][^)\]}}]*["']({names})["'])"""
    )
    offenders = []
    for path in (ROOT / "src" / "suture").rglob("*.py"):
        if "formats" in path.relative_to(ROOT / "src" / "suture").parts:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if test.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_converts_to_every_format_or_says_why(path: Path) -> None:
    t = suture.load_file(path)
    repaired = suture.repair(t.messages).messages
    for adapter in adapters():
        try:
            data = dump(repaired, t, to=adapter.name)
        except InputError as e:
            assert "\n" not in str(e)
            continue
        back = load_bytes(data, adapter.name)
        assert [e for _, e in registry.essences(back.messages)] == [e for _, e in registry.essences(repaired)]
