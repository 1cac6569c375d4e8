"""The command line, run as a person runs it: ``python -m suture ...`` in a subprocess.

Every command leaves its input's bytes and modification time alone; every bad input ends in
exit code 2 and exactly one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import suture
from suture.repair import interrupted_text
from tests.helpers.cli import one_error_line, run

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"
CHANGE_KEYS = {"kind", "input_index", "output_index", "span", "call_id", "new_id", "summary"}

CLEAN = [
    {"role": "user", "content": "run the tests"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "12 passed"},
    {"role": "assistant", "content": "All green."},
]


class Untouched:
    """Fingerprints (bytes, mtime) of files before a command; ``check()`` asserts them after."""

    def __init__(self, *paths: Path) -> None:
        self.before = {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in paths}

    def check(self) -> None:
        for p, (data, mtime) in self.before.items():
            assert p.read_bytes() == data, p
            assert os.stat(p).st_mtime_ns == mtime, p


@pytest.fixture
def worked(tmp_path: Path) -> Iterator[Path]:
    """A private copy of the worked example, checked unchanged after the test."""
    path = tmp_path / "worked-example.json"
    shutil.copyfile(WORKED, path)
    guard = Untouched(path)
    yield path
    guard.check()


@pytest.fixture
def clean(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "clean.json"
    path.write_bytes(orjson.dumps(CLEAN, option=orjson.OPT_INDENT_2))
    guard = Untouched(path)
    yield path
    guard.check()


def expected_repair(path: Path, read_only: frozenset[str] = frozenset()) -> bytes:
    transcript = suture.load_file(path)
    result = suture.repair(transcript.messages, read_only.__contains__ if read_only else None)
    return suture.dump(result.messages, transcript, data=path.read_bytes())  # (laid out as the file)


# -- repair --------------------------------------------------------------------------------------


def test_repair_to_stdout(worked: Path) -> None:
    proc = run("repair", worked)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.encode() == expected_repair(worked)
    out = orjson.loads(proc.stdout)
    assert [m["role"] for m in out] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    lines = proc.stderr.splitlines()
    assert lines == [
        "suture: 6 changes (1 dropped placeholder, 1 renamed id, 1 synthetic interrupt, 2 moved results, "
        "1 orphan note); 6 messages and 3 tool results, in and out; interrupted: x_1"
    ]


def test_repair_dash_is_stdout(worked: Path) -> None:
    proc = run("repair", worked, "-o", "-")
    assert proc.returncode == 0
    assert proc.stdout.encode() == expected_repair(worked)


def test_repair_to_a_file_is_atomic(worked: Path, tmp_path: Path) -> None:
    out = tmp_path / "fixed.json"
    out.write_text("old contents")
    os.chmod(out, 0o640)
    proc = run("repair", worked, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert out.read_bytes() == expected_repair(worked)
    assert os.stat(out).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fixed.json", "worked-example.json"]
    assert len(proc.stderr.splitlines()) == 1


def test_a_repair_that_changes_nothing_but_writes_a_rejected_body_does_not_say_none_was_needed(
    tmp_path: Path,
) -> None:
    """A Claude Code session written as an Anthropic request keeps its whitespace-only text block
    before a thinking block (A7, A12: no repair of suture's changes them): the warning names the
    problems, and the summary says the repair changes nothing, not that nothing is needed."""
    out = tmp_path / "short.json"
    proc = run(
        "repair", ROOT / "sample_sessions" / "real" / "claude-code" / "short.jsonl", "--to", "messages", "-o", out
    )
    assert proc.returncode == 0, proc.stderr
    warning, summary = proc.stderr.splitlines()
    assert "Anthropic Messages would reject it: 2 problems the repair does not fix (A7, A12)" in warning
    # Claude Code leaves that block out when it sends: the warning says where to see its request.
    assert warning.endswith("(the request Claude Code itself sends on resume is another: suture sent --body shows it)")
    assert summary == "suture: the repair changes nothing (3 messages and 2 tool results)"


def test_repair_of_a_clean_file_says_so(clean: Path) -> None:
    proc = run("repair", clean)
    assert proc.returncode == 0
    assert orjson.loads(proc.stdout) == CLEAN
    assert proc.stderr == "suture: no changes needed (3 messages and 1 tool result)\n"


def test_quiet(worked: Path) -> None:
    proc = run("repair", worked, "-q")
    assert proc.returncode == 0 and proc.stderr == ""


def test_report_shape(worked: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = run("repair", worked, "--report", report, "-o", tmp_path / "out.json")
    assert proc.returncode == 0, proc.stderr
    value = orjson.loads(report.read_bytes())
    # The chat request body written is checked by OpenAI Chat's rules: nothing left to reject.
    assert set(value) == {"changes", "interrupted", "provider_check"} and value["provider_check"] == []
    assert value["interrupted"] == ["x_1"]
    assert all(set(c) == CHANGE_KEYS for c in value["changes"])
    assert [{k: v for k, v in c.items() if k != "summary"} for c in value["changes"]] == [
        {"kind": "moved_result", "input_index": 3, "output_index": 3, "span": 0, "call_id": "y", "new_id": None},
        {
            "kind": "dropped_placeholder",
            "input_index": 4,
            "output_index": None,
            "span": None,
            "call_id": None,
            "new_id": None,
        },
        {"kind": "moved_result", "input_index": 5, "output_index": 2, "span": 0, "call_id": "x", "new_id": None},
        {"kind": "renamed_id", "input_index": 6, "output_index": 5, "span": 1, "call_id": "x", "new_id": "x_1"},
        {
            "kind": "synthetic_interrupt",
            "input_index": 6,
            "output_index": 6,
            "span": 1,
            "call_id": "x_1",
            "new_id": None,
        },
        {"kind": "orphan_note", "input_index": 8, "output_index": 8, "span": None, "call_id": "z", "new_id": None},
    ]
    assert all(isinstance(c["summary"], str) and c["summary"] for c in value["changes"])


def test_report_into_a_folder(worked: Path, tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    proc = run("repair", worked, "--report", folder, "-q")
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads((folder / "worked-example.json.report.json").read_bytes())["interrupted"] == ["x_1"]


@pytest.mark.parametrize("spec", ["read_file", "grep, read_file", " read_file ,"])
def test_read_only(worked: Path, spec: str) -> None:
    proc = run("repair", worked, "--read-only", spec)
    assert proc.returncode == 0
    assert orjson.loads(proc.stdout)[6]["content"] == interrupted_text("read_file", True)
    assert proc.stdout.encode() == expected_repair(worked, frozenset({"read_file"}))


def test_read_only_other_tool_keeps_the_cautious_wording(worked: Path) -> None:
    proc = run("repair", worked, "--read-only", "grep")
    assert orjson.loads(proc.stdout)[6]["content"] == interrupted_text("read_file", False)


def test_jsonl_stays_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in orjson.loads(WORKED.read_bytes())))
    guard = Untouched(path)
    proc = run("repair", path)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert len(lines) == 9 and all(orjson.loads(line) for line in lines)
    guard.check()


def test_hostile_ids_keep_the_summary_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    call = {"id": "a\n\x1b[31mb", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    path.write_bytes(orjson.dumps([{"role": "assistant", "content": None, "tool_calls": [call]}]))
    proc = run("repair", path)
    assert proc.returncode == 0
    assert len(proc.stderr.splitlines()) == 1
    assert "\x1b" not in proc.stderr


# -- check ---------------------------------------------------------------------------------------


def test_check_clean_is_exit_0(clean: Path) -> None:
    proc = run("check", clean)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_check_broken_is_exit_1_and_lists_problems(worked: Path) -> None:
    proc = run("check", worked)
    assert proc.returncode == 1
    for index in ("[1]", "[6]", "[8]"):
        assert index in proc.stdout
    assert "Traceback" not in proc.stderr


def test_check_of_the_repaired_file_is_exit_0(worked: Path, tmp_path: Path) -> None:
    fixed = tmp_path / "fixed.json"
    assert run("repair", worked, "-o", fixed).returncode == 0
    assert run("check", fixed).returncode == 0


# -- bad input -----------------------------------------------------------------------------------


def _bad_files(tmp: Path) -> dict[str, tuple[Path, str]]:
    """case -> (path, a phrase the error line must contain)."""
    files: dict[str, tuple[bytes | None, str]] = {
        "empty": (b"", "empty"),
        "whitespace": (b"  \n\n", "whitespace"),
        "not-json": (b'[{"role": "user",\n  "content": }]', "line 2, column"),
        "truncated": (b'[{"role": "user", "content": "a"},\n{"role": "tool"', "line 2"),
        "not-a-transcript": (b'{"hello": "world"}', "not a transcript"),
        "number": (b"42", "not a transcript"),
        "content-number": (b'[{"role": "user", "content": 5}]', "$[0].content"),
        "binary": (b"\x00\x01\x02PNG", "binary"),
        "bom": (b'\xef\xbb\xbf[{"role": "user", "content": "a"}]', "byte order mark"),
        "latin1": (b'[{"role": "user", "content": "caf\xe9"}]', "UTF-8"),
    }
    out = {}
    for case, (data, phrase) in files.items():
        path = tmp / f"{case}.json"
        assert data is not None
        path.write_bytes(data)
        out[case] = (path, phrase)
    return out


BAD_CASES = [
    "empty",
    "whitespace",
    "not-json",
    "truncated",
    "not-a-transcript",
    "number",
    "content-number",
    "binary",
    "bom",
    "latin1",
]


@pytest.mark.parametrize("command", ["repair", "check"])
@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_file(tmp_path: Path, case: str, command: str) -> None:
    path, phrase = _bad_files(tmp_path)[case]
    guard = Untouched(path)
    line = one_error_line(run(command, path))
    assert phrase in line
    assert str(path) in line
    guard.check()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{c}.json" for c in BAD_CASES)


@pytest.mark.parametrize("command", ["repair", "check"])
def test_missing_file(tmp_path: Path, command: str) -> None:
    assert "no such file" in one_error_line(run(command, tmp_path / "nope.json"))


def test_folder_for_check(tmp_path: Path) -> None:
    assert "folder" in one_error_line(run("check", tmp_path))


def test_folder_for_repair_without_out_dir(tmp_path: Path) -> None:
    shutil.copyfile(WORKED, tmp_path / "a.json")
    assert "--out-dir" in one_error_line(run("repair", tmp_path))


@pytest.mark.parametrize("command", ["repair", "check"])
def test_unknown_format(worked: Path, command: str) -> None:
    line = one_error_line(run(command, worked, "--format", "nonesuch"))
    assert "unknown format 'nonesuch'" in line and "chat" in line


def test_format_that_does_not_fit(worked: Path) -> None:
    assert "not in the" in one_error_line(run("repair", worked, "--format", "gemini"))


def test_output_equal_to_input_is_refused(worked: Path) -> None:
    line = one_error_line(run("repair", worked, "-o", worked))
    assert "input" in line


def test_output_equal_to_input_by_another_path(worked: Path) -> None:
    other = worked.parent / "." / worked.name
    one_error_line(run("repair", worked, "-o", other, cwd=worked.parent))
    link = worked.parent / "link.json"
    link.symlink_to(worked)
    one_error_line(run("repair", worked, "-o", link))


def test_report_equal_to_input_is_refused(worked: Path) -> None:
    one_error_line(run("repair", worked, "--report", worked))


def test_output_in_a_missing_folder(worked: Path, tmp_path: Path) -> None:
    line = one_error_line(run("repair", worked, "-o", tmp_path / "no" / "such" / "out.json"))
    assert "cannot write" in line


def test_broken_jsonl_line_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role":"user","content":"a"}\n{"role": "assistant", oops}\n{"role":"user","content":"b"}\n')
    guard = Untouched(path)
    line = one_error_line(run("repair", path))
    assert "line 2" in line and "--skip-bad-lines" in line
    one_error_line(run("check", path))
    proc = run("repair", path, "--skip-bad-lines")
    assert proc.returncode == 0
    assert [orjson.loads(x)["content"] for x in proc.stdout.splitlines()] == ["a", "b"]
    assert "line 2" in proc.stderr
    assert "Traceback" not in proc.stderr
    guard.check()


@pytest.mark.parametrize("command", ["repair", "check"])
def test_a_cut_off_last_jsonl_line_is_reported_like_any_damaged_line(tmp_path: Path, command: str) -> None:
    """A writer that crashed mid-line: only the live app may take the line as still being written."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role":"user","content":"a"}\n{"role":"user","content":"b"}\n{"role":"assi')
    proc = run(command, path)
    assert proc.returncode == 2
    one_error_line(proc)
    assert "line 3: cut off: the file ends inside this line" in proc.stderr
    assert "--skip-bad-lines" in proc.stderr
    proc = run(command, path, "--skip-bad-lines")
    assert proc.returncode == 0, proc.stderr
    assert "skipped line 3: cut off" in proc.stderr
    if command == "repair":
        assert [orjson.loads(x)["content"] for x in proc.stdout.splitlines()] == ["a", "b"]


def test_usage_errors_are_one_line(worked: Path) -> None:
    one_error_line(run("repair", worked, "--no-such-option"))
    one_error_line(run("repair"))


# -- several inputs ------------------------------------------------------------------------------


def _inputs(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(WORKED, folder / "a.json")
    (folder / "b.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in orjson.loads(WORKED.read_bytes())))
    (folder / "c.json").write_bytes(orjson.dumps(CLEAN))
    return [folder / "a.json", folder / "b.jsonl", folder / "c.json"]


def test_several_inputs_into_an_out_dir(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    guard = Untouched(*inputs)
    out = tmp_path / "out"
    proc = run("repair", *inputs, "--out-dir", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert sorted(p.name for p in out.iterdir()) == ["a.json", "b.jsonl", "c.json"]
    for path in inputs:
        assert (out / path.name).read_bytes() == expected_repair(path)
    lines = proc.stderr.splitlines()
    assert [line.split(": ")[1] for line in lines] == [str(p) for p in inputs]
    assert "no changes needed" in lines[2]
    guard.check()


def test_a_folder_as_input(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    (tmp_path / "in" / "README.md").write_text("not a transcript")
    (tmp_path / "in" / ".hidden.json").write_text("[]")
    out, reports = tmp_path / "out", tmp_path / "reports"
    proc = run("repair", tmp_path / "in", "--out-dir", out, "--report", reports)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a.json", "b.jsonl", "c.json"]
    assert sorted(p.name for p in reports.iterdir()) == [f"{p.name}.report.json" for p in inputs]
    report = orjson.loads((reports / "b.jsonl.report.json").read_bytes())
    assert report["interrupted"] == ["x_1"] and len(report["changes"]) == 6
    assert len(proc.stderr.splitlines()) == 3


def test_a_bad_input_among_good_ones(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    bad = tmp_path / "in" / "broken.json"
    bad.write_bytes(b"[{")
    out = tmp_path / "out"
    proc = run("repair", inputs[0], bad, tmp_path / "missing.json", inputs[2], "--out-dir", out)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 4
    assert lines[1].startswith("suture: error: ") and str(bad) in lines[1]
    assert "no such file" in lines[2]
    assert sorted(p.name for p in out.iterdir()) == ["a.json", "c.json"]


def test_out_dir_equal_to_the_input_folder_is_refused(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    guard = Untouched(*inputs)
    proc = run("repair", tmp_path / "in", "--out-dir", tmp_path / "in")
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert "holds the inputs" in line and "choose another folder" in line
    guard.check()


def test_two_inputs_with_one_name_are_refused(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    shutil.copyfile(inputs[0], other / "a.json")
    out = tmp_path / "out"
    line = one_error_line(run("repair", inputs[0], other / "a.json", "--out-dir", out))
    assert line == (
        f"suture: error: {other / 'a.json'}: has the same name as {inputs[0]}; both would be written to "
        f"{out / 'a.json'}; nothing written"
    )
    assert not out.exists()
    # More clashes than one: still one line, the first named and the rest counted.
    third = tmp_path / "third"
    third.mkdir()
    shutil.copyfile(inputs[0], third / "a.json")
    line = one_error_line(run("repair", inputs[0], other / "a.json", third / "a.json", "--out-dir", out))
    assert line.startswith(f"suture: error: {other / 'a.json'}: has the same name as {inputs[0]}; ")
    assert line.endswith(" (and 1 more); nothing written")
    assert not out.exists()


def test_several_inputs_need_an_out_dir(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    assert "--out-dir" in one_error_line(run("repair", *inputs))
    assert "--out-dir" in one_error_line(run("repair", *inputs, "-o", tmp_path / "x.json"))


def test_out_dir_that_is_a_file(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    one_error_line(run("repair", *inputs, "--out-dir", inputs[2]))


def test_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = run("repair", tmp_path / "empty", "--out-dir", tmp_path / "out")
    assert "no .json or .jsonl" in one_error_line(proc)


def test_report_to_a_new_folder_named_with_a_slash(worked: Path, tmp_path: Path) -> None:
    proc = run("repair", worked, "--report", f"{tmp_path / 'reports'}{os.sep}", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "reports" / "worked-example.json.report.json").is_file()


def test_output_that_names_a_folder(worked: Path, tmp_path: Path) -> None:
    assert "--out-dir" in one_error_line(run("repair", worked, "-o", tmp_path))
    assert "--out-dir" in one_error_line(run("repair", worked, "-o", f"{tmp_path / 'new'}{os.sep}"))
    assert not (tmp_path / "new").exists()


def test_one_input_into_an_out_dir(worked: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run("repair", worked, "--out-dir", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / worked.name).read_bytes() == expected_repair(worked)
    assert proc.stderr.splitlines() == [
        f"suture: {worked}: 6 changes (1 dropped placeholder, 1 renamed id, 1 synthetic interrupt, "
        "2 moved results, 1 orphan note); 6 messages and 3 tool results, in and out; interrupted: x_1"
    ]


def test_summary_counts_what_a_person_counts_when_one_record_holds_two_results(tmp_path: Path) -> None:
    """Two tool results in one Claude Code record, in the wrong order: the summary counts the
    messages and the tool results apart, the same way in and out."""
    sample = Path(__file__).parent.parent / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"
    records = [orjson.loads(line) for line in sample.read_bytes().splitlines()]
    results = [r for r in records if r.get("type") == "user" and isinstance(r["message"]["content"], list)]
    assert len(results) == 2
    blocks = [*results[1]["message"]["content"], *results[0]["message"]["content"]]  # (the wrong order)
    # The record keeps the later result's place in the chain (the next line hangs off it).
    merged = {**results[1], "message": {**results[1]["message"], "content": blocks}}
    kept = [r for r in records if r is not results[0]]
    kept[kept.index(results[1])] = merged  # after both calls
    path = tmp_path / "one-record.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in kept))
    proc = run("repair", path, "--to", "messages", "-o", tmp_path / "out.json")
    assert proc.returncode == 0, proc.stderr
    warning, summary = proc.stderr.splitlines()
    assert summary == "suture: 2 changes (2 moved results); 3 messages and 2 tool results, in and out"
    # The sample's whitespace-only text block before its thinking: Anthropic rejects the body.
    assert warning.startswith("suture: warning: ") and "Anthropic Messages would reject it" in warning


@pytest.mark.parametrize("command", [("check",), ("sent",), ("repair",), ("explain", "--error", "messages.1: x")])
def test_a_dash_reads_the_input_from_standard_input(command: tuple[str, ...]) -> None:
    # As from the file itself: `cat f | suture check -` says what `suture check f` says.
    name, *rest = command
    piped = run(name, "-", *rest, stdin=WORKED.read_text())
    named = run(name, WORKED, *rest)
    assert piped.returncode == named.returncode and piped.returncode in (0, 1)
    # Standard input is named as a person calls it, in a line, and as typed in a command.
    said = piped.stdout.replace("standard input", str(WORKED)).replace("suture repair - ", f"suture repair {WORKED} ")
    assert "/dev/stdin" not in piped.stdout + piped.stderr
    assert said.replace("stdin.repaired", str(WORKED.with_suffix(".repaired"))) == named.stdout


def test_standard_input_is_the_transcript_or_the_error_text_not_both() -> None:
    assert "not both" in one_error_line(run("explain", "-", "-", stdin=""))


@pytest.mark.parametrize("to", ["codex", "claude-code", "pi"])
def test_a_session_is_not_made_from_another_format(to: str) -> None:
    # A session log suture writes only over its own: one made anew would lack what the agent
    # needs to resume it (Codex's session line).
    line = one_error_line(run("repair", "--to", to, WORKED))
    assert "--to " in line  # says what to write instead


def _commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    from suture.cli import build_parser

    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    yield from commands.choices.items()


@pytest.mark.parametrize(("name", "parser"), list(_commands()), ids=[name for name, _ in _commands()])
def test_every_option_a_command_offers_is_in_the_readme(name: str, parser: argparse.ArgumentParser) -> None:
    readme = (ROOT / "README.md").read_text()
    for action in parser._actions:
        spellings = [o for o in action.option_strings if o not in ("-h", "--help")]
        if spellings and action.help != argparse.SUPPRESS:
            said = (re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", readme) for o in spellings)
            assert any(said), f"suture {name} {'/'.join(spellings)} is not in README.md"


def test_the_readme_says_when_the_input_is_written() -> None:
    # Wherever the README says the input is never written, it says what writes it: --in-place,
    # after a copy kept as NAME.bak.
    text = " ".join((ROOT / "README.md").read_text().split())
    claims = [s for s in re.split(r"(?<=\.) ", text) if re.search(r"input( file)? is never written", s)]
    assert claims
    for claim in claims:
        assert "--in-place" in claim and "NAME.bak" in claim, claim


def test_a_conversion_error_among_several_inputs_names_its_input(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent / "sample_sessions"
    for name in ("gemini/clean-request.json", "chat/clean.json"):
        shutil.copy(root / name, tmp_path / Path(name).name)
    proc = run("repair", "clean-request.json", "clean.json", "--out-dir", "out", "--to", "responses", cwd=tmp_path)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("suture: error: ")]
    assert errors == [
        "suture: error: clean-request.json: responses cannot express this history: message 2 (assistant, "
        "contents[1]) would not keep its thinking"
    ]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["clean.json"]  # the other is written


@pytest.mark.parametrize("provider", [None, "anthropic", "session"])
def test_check_json_lists_the_lines_it_left_out(tmp_path: Path, provider: str | None) -> None:
    # --skip-bad-lines: what stderr warns of is in the report too, for a script that reads it.
    root = Path(__file__).resolve().parent.parent / "sample_sessions"
    if provider == "session":
        lines = (root / "claude-code" / "parallel-calls.jsonl").read_bytes().splitlines(keepends=True)
        path = tmp_path / "session.jsonl"
        path.write_bytes(lines[0] + b"{broken\n" + b"".join(lines[1:]))
        args: list[str] = []
    else:
        path = tmp_path / "chat.jsonl"
        path.write_bytes(b'{"role":"user","content":"hi"}\n{broken\n{"role":"assistant","content":"yo"}\n')
        args = ["--provider", provider] if provider else []
    proc = run("check", path, "--skip-bad-lines", "--json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    bad = orjson.loads(proc.stdout)["bad_lines"]
    assert [b["line"] for b in bad] == [2] and bad[0]["problem"].startswith("not valid JSON")
    assert "skipped line 2: not valid JSON" in proc.stderr


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ('{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n', "stdin.jsonl"),
        ('[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]', "stdin.json"),
    ],
)
def test_standard_input_into_an_out_dir_is_named_for_what_is_written(tmp_path: Path, given: str, name: str) -> None:
    proc = run("repair", "-", "--out-dir", "out", cwd=tmp_path, stdin=given)
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == [name]
