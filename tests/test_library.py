"""``import suture`` as a script uses it: the names it offers, its version, the errors it raises,
and the README's library example, run as written."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

import suture

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"
SESSION = ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"


def _python(code: str, cwd: Path = ROOT) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_every_name_in_all_is_there() -> None:
    for name in suture.__all__:
        assert getattr(suture, name) is not None, name
    assert {"InputError", "NotTranscript", "load_file", "dump", "repair"} <= set(suture.__all__)


def test_the_version_is_what_the_command_line_says() -> None:
    said = subprocess.run(
        [sys.executable, "-m", "suture", "--version"], capture_output=True, text=True, timeout=120, check=True
    )
    assert said.stdout == f"suture {suture.__version__}\n"
    assert suture.__version__ == version("suture")


def test_the_version_is_read_only_when_asked() -> None:
    # Reading package metadata is slow to import: ``import suture`` leaves it for __version__.
    code = (
        "import sys, suture; before = 'importlib.metadata' in sys.modules;"
        "v = suture.__version__; print(before, 'importlib.metadata' in sys.modules, v)"
    )
    assert _python(code).split() == ["False", "True", version("suture")]


def test_another_missing_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = suture.nothing_here  # type: ignore[attr-defined]
    assert not hasattr(suture, "__versoin__")


def test_load_file_raises_the_errors_suture_exports(tmp_path: Path) -> None:
    manifest = tmp_path / "package.json"
    manifest.write_text('{"name": "app", "version": "1.0.0", "dependencies": {}}')
    with pytest.raises(suture.NotTranscript) as caught:
        suture.load_file(manifest)
    assert isinstance(caught.value, suture.InputError)
    with pytest.raises(suture.InputError, match="no such file"):
        suture.load_file(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    with pytest.raises(suture.InputError) as caught_broken:
        suture.load_file(broken)
    assert not isinstance(caught_broken.value, suture.NotTranscript)


def test_a_format_name_given_for_the_transcript_says_to_pass_it_as_to() -> None:
    transcript = suture.load_file(WORKED)
    result = suture.repair(transcript.messages)
    with pytest.raises(TypeError) as caught:
        suture.dump(result.messages, "chat")  # type: ignore[arg-type]
    said = str(caught.value)
    assert "transcript is the Transcript" in said and "not a str" in said and "to='chat'" in said
    with pytest.raises(TypeError, match="transcript is the Transcript"):
        suture.dump(result.messages, None)  # type: ignore[arg-type]
    # As the message says, it works:
    assert suture.dump(result.messages, transcript, to="chat") == suture.dump(result.messages, transcript)


@pytest.mark.parametrize("which", ["Repair", "Transcript"])
def test_a_repair_or_transcript_given_for_the_messages_says_to_pass_its_messages(which: str) -> None:
    transcript = suture.load_file(WORKED)
    given = suture.repair(transcript.messages) if which == "Repair" else transcript
    with pytest.raises(TypeError, match=rf"pass the {which}'s \.messages, not the {which}"):
        suture.dump(given, transcript)  # type: ignore[arg-type]


def test_the_readme_library_example_runs_as_written(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    (example,) = [b.split("\n", 1)[1] for b in readme.split("```")[1::2] if b.startswith("python\n")]
    (tmp_path / "session.jsonl").write_bytes(SESSION.read_bytes())
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}')
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    done = subprocess.run(
        [sys.executable, "-c", example], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "package.json" in done.stdout and version("suture") in done.stdout


# -- what a script author is told: the library and the command line say the same ----------------

BROKEN_LINE = b'{"role": "user", "content": "hi"}\n{"role":"assistant","content":nul\n'


def test_a_damaged_jsonl_line_is_refused_as_the_command_line_refuses_it(tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(BROKEN_LINE)
    with pytest.raises(suture.InputError) as caught:
        suture.load_file(path)
    said = str(caught.value)
    assert said.startswith(f"{path}: line 2: ") and said.endswith("; pass skip_bad_lines=True to leave them out")
    with pytest.raises(suture.InputError) as from_bytes:
        suture.load_bytes(BROKEN_LINE)
    assert str(from_bytes.value) == said.removeprefix(f"{path}: ")
    with pytest.raises(suture.InputError, match="skip_bad_lines=True"):
        suture.formats.read_file(path)
    cli = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(path), "-o", str(tmp_path / "out.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 2
    assert cli.stderr == f"suture: error: {said.replace('skip_bad_lines=True', '--skip-bad-lines')}\n"
    # Asked to, the library reads the rest and names the line left out, as --skip-bad-lines does.
    kept = suture.load_file(path, skip_bad_lines=True)
    assert [m.role for m in kept.messages] == ["user"] and [p.line for p in kept.problems] == [2]
    assert suture.load_bytes(BROKEN_LINE, skip_bad_lines=True).problems == kept.problems


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: suture.load_bytes("text"), r"suture\.load_bytes\(data\): data is the file's bytes .*not a str"),
        (lambda: suture.load_bytes(WORKED), r"not a PosixPath; for a path, call suture\.load_file\(path\)"),
        (lambda: suture.load_file(WORKED.read_bytes()), r"suture\.load_file\(path\): path is .*not a bytes"),
        (lambda: suture.load_file(3), r"path is the file's path, a str or a pathlib\.Path, not a int"),
        (lambda: suture.violations([{"role": "user"}]), r"suture\.violations\(messages\): .* not a list of dict"),
        (lambda: suture.violations("hi"), r"messages is a list of suture\.Message, .* not a str"),
        (lambda: suture.repair([{"role": "user"}]), r"suture\.repair\(messages\): .* not a list of dict"),
    ],
)
def test_wrong_argument_types_are_type_errors_that_say_what_to_pass(call: Any, said: str) -> None:
    with pytest.raises(TypeError, match=said):
        call()


def test_dump_arguments_of_the_wrong_type_say_what_to_pass() -> None:
    transcript = suture.load_file(WORKED)
    with pytest.raises(TypeError, match=r"data is the bytes the transcript was read from .*not a str"):
        suture.dump(transcript.messages, transcript, data="[]")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"messages is a list of suture\.Message .*not a list of dict"):
        suture.dump([{"role": "user"}], transcript)  # type: ignore[list-item]
    written = suture.dump(transcript.messages, transcript, data=WORKED.read_bytes())
    assert json.loads(written) == json.loads(WORKED.read_bytes())


def test_violations_take_a_transcript_as_repair_does() -> None:
    transcript = suture.load_file(WORKED)
    assert suture.violations(transcript) == suture.violations(transcript.messages) != []
    assert suture.violations(suture.repair(transcript).messages) == []


SESSIONS = {
    "claude-code": ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl",
    "codex": ROOT / "sample_sessions" / "codex" / "broken-resumed.jsonl",
    "pi": ROOT / "sample_sessions" / "pi" / "branched-aborted.jsonl",
}


@pytest.mark.parametrize("agent", sorted(SESSIONS))
def test_dump_writes_no_session_log_and_names_what_does(agent: str, tmp_path: Path) -> None:
    """Every session-log format alike: ``dump`` refuses it (with or without the file's bytes) and
    names ``write_back``, which writes the bytes ``suture repair --to AGENT`` writes."""
    from suture.formats import written_formats
    from suture.writeback import write_back, written_as

    data = SESSIONS[agent].read_bytes()
    transcript = suture.load_bytes(data)
    result = suture.repair(transcript)
    assert agent in written_formats(agent)  # suture writes it: back over the file, not by dump
    for given in (None, data):
        with pytest.raises(suture.InputError) as caught:
            suture.dump(result.messages, transcript, to=agent, data=given)
        said = str(caught.value)
        assert said == (
            f"suture.dump writes request bodies, not {written_as(agent)}: "
            "suture.writeback.write_back(data, transcript, repaired) writes one back over the session it was read from"
        )
    out = tmp_path / f"{agent}.jsonl"
    cli = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(SESSIONS[agent]), "--to", agent, "-o", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert out.read_bytes() == write_back(data, transcript, result).data


def test_scan_file_takes_a_found_file_and_says_so_for_a_path() -> None:
    from suture.scan import scan_file, scan_path
    from suture.sessions import Found

    with pytest.raises(
        TypeError, match=r"scan_file\(found\): found is a suture\.sessions\.Found, not a str.*scan_path"
    ):
        scan_file(str(SESSION))  # type: ignore[arg-type]
    assert scan_path(SESSION).verdict == scan_file(Found(str(SESSION))).verdict == "ok"


def test_the_sent_verdict_names_its_keyword_where_the_file_names_no_provider() -> None:
    from suture.sent import verdict

    vercel = suture.load_file(ROOT / "sample_sessions" / "vercel" / "clean-v5.json")
    with pytest.raises(suture.InputError) as caught:
        verdict(vercel)
    assert "provider=" in str(caught.value) and "--provider" not in str(caught.value)
    assert verdict(vercel, provider="anthropic").provider == "anthropic"


@pytest.mark.parametrize("doc", ["README.md", "docs/contract.md", "docs/architecture.md"])
def test_every_library_name_the_docs_give_is_there_as_written(doc: str) -> None:
    """``suture.x.y`` in the docs resolves as written after importing what it names, and so does
    each ``from suture.x import y``: ``suture.repair`` is the function, so its module's names
    are reached by importing from it."""
    text = (ROOT / doc).read_text()
    named = [m.group(0) for m in re.finditer(r"(?<![\w./])suture(?:\.\w+)+", text)]
    for name in named:
        parts = name.split(".")
        for i in range(2, len(parts) + 1):
            try:
                importlib.import_module(".".join(parts[:i]))
            except ImportError:
                break
        assert _resolves(name), f"{doc}: {name}"
    for module, names in re.findall(r"from (suture[\w.]*) import ([\w, ]+)", text):
        imported = importlib.import_module(module)
        for name in names.split(","):
            assert hasattr(imported, name.strip()), f"{doc}: from {module} import {name.strip()}"


def _resolves(name: str) -> bool:
    value: object = suture
    for part in name.split(".")[1:]:
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


def test_the_readme_example_judges_a_session_log_by_what_its_agent_sends(tmp_path: Path) -> None:
    """On a session the agent mends itself on resume (Claude Code makes up the interrupted call's
    result), the README's example says what ``suture check`` says: no problems."""
    readme = (ROOT / "README.md").read_text()
    (example,) = [b.split("\n", 1)[1] for b in readme.split("```")[1::2] if b.startswith("python\n")]
    (tmp_path / "session.jsonl").write_bytes(SESSIONS["claude-code"].read_bytes())
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}')
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = [line for line in done.stdout.splitlines() if line.startswith("anthropic:")]
    assert verdicts and all(line.startswith("anthropic: no problems") for line in verdicts), done.stdout
    check = subprocess.run(
        [sys.executable, "-m", "suture", "check", str(tmp_path / "session.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout
