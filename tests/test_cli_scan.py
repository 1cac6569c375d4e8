"""``suture scan``, run as a person runs it: in a subprocess, on fake agent homes and folders."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from suture.scan import COLUMNS
from tests.fakehome import SAMPLES, env_for, home_with_sessions

CLEAN = SAMPLES / "codex" / "clean-rollout.jsonl"
BROKEN = SAMPLES / "recorded" / "claude-code-2.1.328" / "text-before-result" / "resumed.jsonl"
"""The real Claude Code was rejected when it resumed this session."""
SELF_REPAIRED = SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"
"""Broken as written, but Claude Code repairs it itself when it resumes it."""


def scan(*args: str | Path, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "suture", "scan", *map(str, args)],
        capture_output=True,
        text=True,
        env=env_for(home, **env),
        timeout=120,
    )


def summary(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("suture: scanned ")
    return lines[0]


def json_rows(proc: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in proc.stdout.splitlines()]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with one clean session, one broken one and one file that is no transcript."""
    f = tmp_path / "sessions"
    f.mkdir()
    (f / "clean.jsonl").write_bytes(CLEAN.read_bytes())
    (f / "broken.jsonl").write_bytes(BROKEN.read_bytes())
    (f / "notes.json").write_bytes(b'{"not": "a transcript"}')
    return f


def test_a_clean_folder_exits_0(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.jsonl").write_bytes(CLEAN.read_bytes())
    proc = scan(tmp_path / "s", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert summary(proc).endswith(": 0 would be rejected, 1 ok, 0 unreadable")


def table(proc: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """The table's rows by file name, after its heading."""
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["verdict", "agent", "last", "written", "msgs", "changes", "file"]
    return {Path(line.split("  — ")[0].split()[-1]).name: line for line in lines[1:]}


def test_any_rejected_file_exits_1_and_each_transcript_is_a_row(folder: Path, tmp_path: Path) -> None:
    proc = scan(folder, home=tmp_path)
    assert proc.returncode == 1, proc.stderr
    by_file = table(proc)
    # The file that is no transcript, met in the folder, is counted, not listed: --json lists it.
    assert set(by_file) == {"clean.jsonl", "broken.jsonl"}
    assert by_file["clean.jsonl"].startswith("ok ")
    assert by_file["broken.jsonl"].startswith("rejected ")
    assert "anthropic: A1a line 22, message.content[1]: the result for" in by_file["broken.jsonl"]
    assert "repair fixes it; last API error: API Error: 400" in by_file["broken.jsonl"]
    assert summary(proc).endswith(
        ": 1 would be rejected (1 fixed by repair), 1 ok, 0 unreadable,"
        " 1 other file (not transcripts; not listed above: --json lists them)"
    )
    assert {Path(str(r["path"])).name: r["verdict"] for r in json_rows(scan(folder, "--json", home=tmp_path))} == {
        "clean.jsonl": "ok",
        "broken.jsonl": "rejected",
        "notes.json": "other",
    }


def test_a_file_that_is_no_transcript_has_its_row_where_it_is_named_or_all_are(folder: Path, tmp_path: Path) -> None:
    """Named on the command line, the file is listed with why it is no transcript (beside the
    folder it is in, which lists it once); so are the files of a folder that holds nothing else."""
    proc = scan(folder, folder / "notes.json", home=tmp_path)
    by_file = table(proc)
    assert set(by_file) == {"clean.jsonl", "broken.jsonl", "notes.json"}
    assert by_file["notes.json"].startswith("other ")
    assert "  — not a transcript suture knows: no format fits" in by_file["notes.json"]
    assert summary(proc).endswith(", 1 other file (not transcripts)")
    (tmp_path / "others").mkdir()
    for name in ("a.json", "b.json"):
        (tmp_path / "others" / name).write_bytes(b'{"not": "a transcript"}')
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.jsonl").write_bytes(CLEAN.read_bytes())
    proc = scan(tmp_path / "others", tmp_path / "s" / "a.jsonl", tmp_path / "others" / "b.json", home=tmp_path)
    assert set(table(proc)) == {"a.jsonl", "b.json"}
    assert summary(proc).endswith(", 2 other files (not transcripts; 1 of them not listed above: --json lists them)")
    proc = scan(tmp_path / "others", home=tmp_path)
    assert proc.returncode == 2
    assert {name: line.split()[0] for name, line in table(proc).items()} == {"a.json": "other", "b.json": "other"}


def test_a_session_the_agent_repairs_itself_is_ok_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.jsonl").write_bytes(SELF_REPAIRED.read_bytes())
    proc = scan(tmp_path / "s", home=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [line] = proc.stdout.splitlines()[1:]
    assert line.startswith("ok ")
    assert "  — Claude Code repairs 2 things itself on resume; last API error: API Error: 400 " in line
    [row] = json_rows(scan(tmp_path / "s", "--json", home=tmp_path))
    assert (row["verdict"], row["problems"], row["fixes"]) == ("ok", 0, 2)
    assert row["changes"] > 0  # suture's repair of the file as written still changes it


def test_nothing_readable_exits_2(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(b"[1, 2")
    proc = scan(tmp_path / "bad.json", tmp_path / "missing.jsonl", home=tmp_path)
    assert proc.returncode == 2
    assert "no such file or folder" in proc.stdout
    assert summary(proc).endswith(": 0 would be rejected, 0 ok, 2 unreadable")


def test_a_broken_file_is_unreadable_and_a_file_of_another_kind_is_other(tmp_path: Path) -> None:
    """A transcript cut short cannot be read; JSON that is no transcript (a settings file, a
    request log) is another kind of file. Neither is a transcript that could be judged: exit 2."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "cut.json").write_bytes(b'[{"role": "user", "content": "hi"}')
    (tmp_path / "s" / "settings.json").write_bytes(b'{"theme": "dark"}')
    proc = scan(tmp_path / "s", "--json", home=tmp_path)
    assert proc.returncode == 2, proc.stderr
    rows = {Path(str(r["path"])).name: r for r in json_rows(proc)}
    assert {name: r["verdict"] for name, r in rows.items()} == {"cut.json": "unreadable", "settings.json": "other"}
    assert str(rows["settings.json"]["error"]).startswith("not a transcript suture knows: no format fits")
    assert summary(proc).endswith(": 0 would be rejected, 0 ok, 1 unreadable, 1 other file (not transcripts)")


def test_no_files_at_all_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = scan(tmp_path / "empty", home=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"suture: error: no session files found in {tmp_path / 'empty'}\n"


def test_no_files_in_a_home_names_the_hidden_folders_skipped(tmp_path: Path) -> None:
    """Hidden folders are not walked; a home whose sessions are all under ``.claude`` says so,
    the agent's folder first, and how to scan it."""
    home = tmp_path / "h"
    home_with_sessions(home)
    (home / ".git").mkdir()
    proc = scan(home, home=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"suture: error: no session files found in {home} (skipped hidden folders: .claude, .codex, .pi and 1 more; "
        f"to scan one, name it: suture scan {home / '.claude'})\n"
    )
    named = scan(home / ".claude", "--json", home=tmp_path)
    assert named.returncode == 0, named.stderr
    assert {r["agent"] for r in json_rows(named)} == {"claude-code"}


def test_a_path_with_no_files_among_others_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "a.jsonl").write_bytes(CLEAN.read_bytes())
    (tmp_path / "bad" / ".claude").mkdir(parents=True)
    (tmp_path / "bad" / "notes.txt").write_bytes(b"not json")
    proc = scan(tmp_path / "good", tmp_path / "bad", "--no-cache", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    warning, done = proc.stderr.splitlines()
    assert warning == (
        f"suture: warning: no session files found in {tmp_path / 'bad'} (skipped hidden folders: .claude; "
        f"to scan one, name it: suture scan {tmp_path / 'bad' / '.claude'})"
    )
    assert done.startswith("suture: scanned 1 file ")
    (tmp_path / "empty").mkdir()
    alone = scan(tmp_path / "bad", tmp_path / "empty", home=tmp_path)
    assert alone.returncode == 2
    assert alone.stderr.startswith(
        f"suture: error: no session files found in {tmp_path / 'bad'}, {tmp_path / 'empty'} "
    )
    assert len(alone.stderr.splitlines()) == 1


def test_json_lines_have_every_column(folder: Path, tmp_path: Path) -> None:
    proc = scan(folder, "--json", home=tmp_path)
    assert proc.returncode == 1
    rows = json_rows(proc)
    assert len(rows) == 3
    for row in rows:
        assert tuple(row) == COLUMNS
    verdicts = {Path(str(r["path"])).name: r["verdict"] for r in rows}
    assert verdicts == {"clean.jsonl": "ok", "broken.jsonl": "rejected", "notes.json": "other"}


def test_csv_has_a_header_and_a_row_per_file(folder: Path, tmp_path: Path) -> None:
    proc = scan(folder, "--csv", home=tmp_path)
    assert proc.returncode == 1
    table = list(csv.reader(io.StringIO(proc.stdout)))
    assert tuple(table[0]) == COLUMNS
    assert sorted(Path(r[0]).name for r in table[1:]) == ["broken.jsonl", "clean.jsonl", "notes.json"]
    json_proc = scan(folder, "--json", home=tmp_path)
    as_json = {r["path"]: r for r in json_rows(json_proc)}
    for r in table[1:]:
        assert r[COLUMNS.index("messages")] == str(as_json[r[0]]["messages"])
        # A truth value as JSON writes it, not as Python prints it.
        assert r[COLUMNS.index("subagent")] == orjson.dumps(as_json[r[0]]["subagent"]).decode() == "false"


def test_json_and_csv_together_are_a_usage_error(folder: Path, tmp_path: Path) -> None:
    proc = scan(folder, "--json", "--csv", home=tmp_path)
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr


def test_out_writes_json_lines_atomically(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    proc = scan(folder, "--out", out, home=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert summary(proc).endswith(f"; rows in {out}")
    rows = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert len(rows) == 3
    assert [p.name for p in tmp_path.iterdir() if "suture-tmp" in p.name] == []


def test_out_writes_parquet(folder: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet needs pyarrow (the parquet extra)")
    out = tmp_path / "rows.parquet"
    proc = scan(folder, "--out", out, home=tmp_path)
    assert proc.returncode == 1, proc.stderr
    table = pq.read_table(out)
    assert tuple(table.column_names) == COLUMNS
    assert sorted(table.column("verdict").to_pylist()) == ["ok", "other", "rejected"]


def test_with_no_path_the_agents_own_folders_are_scanned(tmp_path: Path) -> None:
    made = home_with_sessions(tmp_path / "home")
    proc = scan("--json", home=tmp_path / "home")
    assert proc.returncode == 1, proc.stderr
    paths = {str(r["path"]) for r in json_rows(proc)}
    assert paths == {str(p) for files in made.values() for p in files}
    agents = {str(r["agent"]) for r in json_rows(proc)}
    assert agents == {"claude-code", "codex", "pi"}


def test_a_request_file_in_an_agent_folder_is_no_agent_s_session(tmp_path: Path) -> None:
    """An OpenAI chat request kept among Claude Code's sessions gets the same row (no agent,
    judged as the chat request it is) whether it is named or found in the agent's folder."""
    project = tmp_path / "home" / ".claude" / "projects" / "-home-u-proj"
    project.mkdir(parents=True)
    notes = project / "notes.json"
    notes.write_bytes((SAMPLES / "chat" / "orphan-note.json").read_bytes())
    (project / "settings.json").write_bytes(b'{"theme": "dark"}')
    named = json_rows(scan("--no-cache", "--json", notes, home=tmp_path / "home"))
    found = {Path(str(r["path"])).name: r for r in json_rows(scan("--no-cache", "--json", home=tmp_path / "home"))}
    assert (named[0]["agent"], named[0]["format"], named[0]["provider"]) == ("", "chat", "openai-chat")
    assert {k: v for k, v in found["notes.json"].items() if k != "path"} == {
        k: v for k, v in named[0].items() if k != "path"
    }
    assert (found["settings.json"]["verdict"], found["settings.json"]["agent"]) == ("other", "")


def test_with_no_path_and_no_agent_folder_it_says_where_it_looked(tmp_path: Path) -> None:
    proc = scan(home=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"suture: error: no session files found in {tmp_path / '.claude' / 'projects'}, ")


def test_a_second_scan_reads_no_file(tmp_path: Path) -> None:
    """Across processes: after the first scan, a file's bytes are replaced by others of the same
    size and time; the second scan still gives the first row, so it did not read the file."""
    (tmp_path / "s").mkdir()
    target = tmp_path / "s" / "broken.jsonl"
    target.write_bytes(BROKEN.read_bytes())
    first = scan(tmp_path / "s", "--json", home=tmp_path)
    assert first.returncode == 1
    st = target.stat()
    target.write_bytes(b"x" * st.st_size)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = scan(tmp_path / "s", "--json", home=tmp_path)
    assert json_rows(second) == json_rows(first)
    assert ", 1 from the cache:" in summary(second)
    third = scan(tmp_path / "s", "--json", "--no-cache", home=tmp_path)
    assert [r["verdict"] for r in json_rows(third)] == ["unreadable"]


def test_untrusted_file_names_and_errors_are_escaped_in_the_table(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    evil = tmp_path / "s" / "a\x1b]0;owned\x07.json"
    evil.write_bytes(b'{"x": "\x1b[2J"}')
    proc = scan(tmp_path / "s", home=tmp_path)
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "\x1b" not in proc.stderr
    assert "a\\x1b]0;owned\\x07.json" in proc.stdout


def test_dask_without_the_fleet_extra_says_how_to_install_it(tmp_path: Path) -> None:
    body = (
        "import sys; sys.modules['distributed'] = None\n"
        "from suture.cli import main\n"
        f"raise SystemExit(main(['scan', {str(CLEAN)!r}, '--dask', 'local']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", body], capture_output=True, text=True, env=env_for(tmp_path), timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr == "suture: error: --dask needs Dask: pip install 'suture[fleet]' (dask, distributed, fsspec)\n"


def test_out_never_replaces_a_scanned_file(folder: Path, tmp_path: Path) -> None:
    target = folder / "broken.jsonl"
    before = target.read_bytes()
    proc = scan(folder, "--out", target, home=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"suture: error: {target}: is one of the files scanned; choose another --out\n"
    assert target.read_bytes() == before
    assert [p.name for p in folder.iterdir() if "suture-tmp" in p.name] == []


def test_a_file_name_that_is_not_utf8_is_a_row_in_every_output(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    odd = os.fsencode(folder) + b"/odd\xff.jsonl"
    with open(odd, "wb") as f:
        f.write(CLEAN.read_bytes())
    table = scan(folder, home=tmp_path)
    assert table.returncode == 0, table.stderr
    assert "odd\\xff.jsonl" in table.stdout
    [row] = json_rows(scan(folder, "--json", home=tmp_path))
    assert row["path"] == f"{folder}/odd\\xff.jsonl"
    assert row["verdict"] == "ok"
    rows = list(csv.reader(io.StringIO(scan(folder, "--csv", home=tmp_path).stdout)))
    assert rows[1][0] == f"{folder}/odd\\xff.jsonl"


def test_many_files_are_scanned_by_a_pool_of_processes(tmp_path: Path) -> None:
    """Enough files for the process pool (``python -m suture`` is the main module its workers
    import again: it must not run the command twice)."""
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(70):
        (folder / f"s{i}.jsonl").write_bytes(CLEAN.read_bytes())
    proc = scan(folder, "--json", "--no-cache", "-j", "2", home=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(json_rows(proc)) == 70
    assert summary(proc).endswith(": 0 would be rejected, 70 ok, 0 unreadable")


def test_csv_writes_a_file_name_as_it_is_where_csv_can_hold_it(tmp_path: Path) -> None:
    """A name with a newline and one with a backslash and an ``n`` are two names in the CSV (the
    newline in a quoted cell); a character a terminal acts on (ESC) is still escaped."""
    folder = tmp_path / "s"
    folder.mkdir()
    names = ["a\nb.jsonl", "a\\nb.jsonl", "tab\there.jsonl"]
    for name in [*names, "esc\x1b[31m.jsonl"]:
        (folder / name).write_bytes(CLEAN.read_bytes())
    proc = scan(folder, "--csv", "--no-cache", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    paths = sorted(row[0] for row in list(csv.reader(io.StringIO(proc.stdout, newline="")))[1:])
    assert paths == sorted([*(f"{folder}/{name}" for name in names), f"{folder}/esc\\x1b[31m.jsonl"])
    assert "\x1b" not in proc.stdout
