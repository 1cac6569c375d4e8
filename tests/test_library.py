"""``import suture`` as a script uses it: the names it offers, its version, the errors it raises,
and the README's library example, run as written."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

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
