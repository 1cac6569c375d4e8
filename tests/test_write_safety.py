"""Writes never land on the wrong file: links are followed (a link stays a link), devices, FIFOs
and descriptor links are written straight through, a read-only file is refused, every output is
checked against every input and each other before anything is written, and a command's outputs
are written together or not at all. Stdout that is full, closed or gone ends in one line (or
none for a broken pipe), never a traceback."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from suture.io import InputError, output_target, write_atomic, write_files

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"


def run(
    *args: str | Path, cwd: Path | None = None, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "suture", *map(str, args)],
        stdout=stdout,
        stderr=stderr,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


def one_error_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert b"Traceback" not in proc.stderr
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("suture: error: ")
    return lines[0]


def fingerprint(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry of a folder: a link by where it points, a file by its bytes."""
    seen: dict[str, tuple[str, bytes]] = {}
    for entry in sorted(folder.rglob("*")):
        name = str(entry.relative_to(folder))
        if entry.is_symlink():
            seen[name] = ("link", os.readlink(entry).encode())
        elif entry.is_file():
            seen[name] = ("file", entry.read_bytes())
        else:
            seen[name] = ("other", b"")
    return seen


@pytest.fixture
def worked(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "in" / "worked-example.json"
    path.parent.mkdir()
    shutil.copyfile(WORKED, path)
    yield path


# -- links --------------------------------------------------------------------------------------


def test_a_link_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    chain = tmp_path / "chain.json"
    chain.symlink_to(link)
    assert write_atomic(chain, b"new") == []
    assert chain.is_symlink() and link.is_symlink()
    assert os.readlink(link) == "real.json"
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.json", "link.json", "real.json"]


def test_a_dangling_link_gets_its_target_created(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.json"
    link.symlink_to("sub/new.json")
    write_atomic(link, b"data")
    assert link.is_symlink()
    assert (tmp_path / "sub" / "new.json").read_bytes() == b"data"


def test_a_link_through_a_linked_folder(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to("real")
    (tmp_path / "real" / "f.json").write_bytes(b"old")
    (tmp_path / "real" / "l.json").symlink_to("f.json")
    write_atomic(tmp_path / "alias" / "l.json", b"new")
    assert (tmp_path / "real" / "l.json").is_symlink()
    assert (tmp_path / "real" / "f.json").read_bytes() == b"new"


def test_a_loop_of_links_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(InputError, match="links"):
        write_atomic(tmp_path / "a", b"x")
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()


def test_a_descriptor_link_is_written_through_the_descriptor(tmp_path: Path) -> None:
    """A link to /proc/self/fd/N (what /dev/stderr is) writes to descriptor N where it points:
    a log file keeps what it had and gets the bytes at its end; nothing is renamed over it."""
    log = tmp_path / "log"
    log.write_bytes(b"before\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        link = tmp_path / "err-link"
        link.symlink_to(f"/proc/self/fd/{fd}")
        inode = os.stat(log).st_ino
        target = output_target(link)
        assert (target.kind, target.fd) == ("fd", fd)
        write_atomic(link, b"report\n")
        assert os.readlink(link) == f"/proc/self/fd/{fd}"
        assert log.read_bytes() == b"before\nreport\n"
        assert os.stat(log).st_ino == inode
    finally:
        os.close(fd)


def test_a_descriptor_that_is_not_open(tmp_path: Path) -> None:
    fd = os.open(os.devnull, os.O_RDONLY)
    os.close(fd)
    link = tmp_path / "link"
    link.symlink_to(f"/proc/self/fd/{fd}")
    with pytest.raises(InputError, match="not open"):
        write_atomic(link, b"x")


# -- special files ---------------------------------------------------------------------------------


def test_a_fifo_no_one_reads_is_given_up(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="no one reads"):
        write_atomic(fifo, b"x", wait=0.2)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_with_a_reader_gets_the_bytes(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:  # (blocks until the writer opens: bounded by the join below)
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    write_atomic(fifo, b"payload" * 10_000, wait=30)
    reader.join(30)
    assert got == [b"payload" * 10_000]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_is_refused(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(InputError, match="socket"):
            write_atomic(path, b"x")


def test_a_full_device_is_one_error() -> None:
    with pytest.raises(InputError, match="No space left"):
        write_atomic("/dev/full", b"x")


# -- read-only files and folders -------------------------------------------------------------------


def test_a_read_only_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ro.json"
    path.write_bytes(b"keep")
    os.chmod(path, 0o444)
    with pytest.raises(InputError, match="read-only"):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"keep"
    assert [p.name for p in tmp_path.iterdir()] == ["ro.json"]


def test_a_folder_that_takes_no_temporary_file_means_writing_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The folder is made read-only by refusing the temporary file: as root, permissions
    would not stop it.)"""
    path = tmp_path / "out.json"
    path.write_bytes(b"a much longer old content")
    inode = os.stat(path).st_ino

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    notes = write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert os.stat(path).st_ino == inode
    assert len(notes) == 1 and "in place" in notes[0] and "\n" not in notes[0]


def test_a_new_file_in_a_folder_that_takes_none_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(InputError, match="Permission denied"):
        write_atomic(tmp_path / "new.json", b"x")


# -- all or nothing --------------------------------------------------------------------------------


def test_nothing_is_written_when_one_write_cannot_be_prepared(tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    first.write_bytes(b"old")
    ro = tmp_path / "ro.json"
    ro.write_bytes(b"keep")
    os.chmod(ro, 0o444)
    with pytest.raises(InputError, match="read-only"):
        write_files([(output_target(first), b"new"), (output_target(ro), b"new")])
    assert first.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.json", "ro.json"]


def test_a_stream_that_fails_stops_the_renames(tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    first.write_bytes(b"old")
    with pytest.raises(InputError, match="/dev/full"):
        write_files([(output_target(first), b"new"), (output_target("/dev/full"), b"report")])
    assert first.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["first.json"]


# -- the command line: links, clashes, partial writes ----------------------------------------------


def test_repair_writes_through_links_and_keeps_them(worked: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "real.json").write_bytes(b"old")
    (out / "o-link.json").symlink_to("real.json")
    (out / "r-link.json").symlink_to("gone-report.json")
    proc = run("repair", worked, "-o", out / "o-link.json", "--report", out / "r-link.json", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (out / "o-link.json").is_symlink() and (out / "r-link.json").is_symlink()
    assert orjson.loads((out / "real.json").read_bytes())[0]["role"] == "user"
    assert "changes" in orjson.loads((out / "gone-report.json").read_bytes())


def test_report_to_a_stderr_link_with_stderr_in_a_file(worked: Path, tmp_path: Path) -> None:
    """What ``--report /dev/stderr`` does under ``2>log``, with a link made here to
    /proc/self/fd/2 (never the real /dev/stderr): the log keeps its lines and gets the report."""
    link = tmp_path / "stderr-link"
    link.symlink_to("/proc/self/fd/2")
    log = tmp_path / "log"
    log.write_bytes(b"earlier line\n")
    with open(log, "ab") as err:
        proc = run("repair", worked, "-o", tmp_path / "out.json", "--report", link, stderr=err)
    assert proc.returncode == 0
    assert os.readlink(link) == "/proc/self/fd/2"
    text = log.read_bytes()
    assert text.startswith(b"earlier line\n{")
    report = text[len(b"earlier line\n") : text.rindex(b"}\n") + 2]
    assert orjson.loads(report)["interrupted"] == ["x_1"]
    assert text.endswith(b"interrupted: x_1\n")


def test_the_readme_commands_as_written(tmp_path: Path) -> None:
    """Every ``suture`` command of the README's shell blocks that runs as written (no pipe,
    redirection, placeholder or remote path), from the repository as a reader would, stderr a
    pipe, on a machine with one Claude Code session in its usual place. The README's first
    command writes its report to /dev/stderr, which must work and stay a link."""
    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("\n", 1)[1] for b in readme.split("```")[1::2] if b.startswith("sh\n")]
    commands = []
    for block in blocks:
        for line in block.splitlines():
            for part in line.split("&&"):
                words = part.split("#")[0].split()
                if words[:1] != ["suture"] or any(mark in part.split("#")[0] for mark in ("|", ">", "~", "://")):
                    continue
                if not any(w.isupper() or "[" in w or "..." in w for w in words):
                    commands.append(words[1:])
    assert ["repair", "sample_sessions/chat/worked-example.json", "--report", "/dev/stderr"] in commands
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-work-app"
    project.mkdir(parents=True)
    shutil.copy(ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl", project / "s.jsonl")
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONWARNINGS": "ignore"}
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        env.pop(name, None)
    for args in commands:
        proc = subprocess.run(
            [sys.executable, "-m", "suture", *args], capture_output=True, timeout=120, cwd=ROOT, env=env
        )
        assert proc.returncode in (0, 1), (args, proc.stderr[-2000:])
        assert b"Traceback" not in proc.stderr
        if "--report" in args and args[args.index("--report") + 1] == "/dev/stderr":
            report = proc.stderr[: proc.stderr.rindex(b"}\n") + 2]
            assert orjson.loads(report)["interrupted"] == ["x_1"]
            assert proc.stderr.endswith(b"interrupted: x_1\n")
    assert os.path.islink("/dev/stderr")


def test_out_dir_naming_an_input_folder_writes_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    shutil.copyfile(WORKED, a / "y.json")
    shutil.copyfile(WORKED, b / "y.json")
    (b / "y.json").write_bytes((b / "y.json").read_bytes() + b"\n")
    before = fingerprint(tmp_path)
    proc = run("repair", a / "y.json", b / "y.json", "--out-dir", b)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert fingerprint(tmp_path) == before
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(f"suture: error: --out-dir {b}: holds {b / 'y.json'}, an input, and each output")


def test_report_folder_naming_an_input_writes_nothing(tmp_path: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    shutil.copyfile(WORKED, d / "a.json")
    shutil.copyfile(WORKED, d / "a.json.report.json")  # an input, and where a.json's report would go
    before = fingerprint(tmp_path)
    proc = run("repair", d, "--out-dir", tmp_path / "o", "--report", d)
    assert proc.returncode == 2
    assert b"is the input file" in proc.stderr
    assert fingerprint(tmp_path) == before


def test_stdout_redirected_onto_the_input_says_so_in_the_users_terms(worked: Path) -> None:
    """``suture repair in.json > in.json``: the shell empties the input before suture runs. The
    error names standard output and the input, says the file is empty and why, and what to do;
    it names no ``-`` or ``-o`` the person did not type."""
    with worked.open("wb") as out:  # what the shell's > does: the file opened for writing, emptied
        proc = run("repair", worked, stdout=out)
    line = one_error_line(proc)
    assert line == (
        f"suture: error: standard output is {worked}, the input file, and it is empty: the shell's > empties "
        "the file before suture runs; suture writes over its input only with --in-place: redirect stdout to another file, "
        "or write with -o FILE"
    )
    assert worked.read_bytes() == b""


def test_stdout_appended_onto_the_input_is_refused_and_leaves_it_as_it_was(worked: Path) -> None:
    before = worked.read_bytes()
    with worked.open("ab") as out:  # >>: the input kept, stdout is the same file
        proc = run("repair", worked, stdout=out)
    line = one_error_line(proc)
    assert line == (
        f"suture: error: standard output is {worked}, the input file; suture writes over its input only with --in-place: "
        "redirect stdout to another file, or write with -o FILE"
    )
    assert worked.read_bytes() == before


def test_output_and_report_naming_one_file(worked: Path, tmp_path: Path) -> None:
    x = tmp_path / "x.json"
    line = one_error_line(run("repair", worked, "-o", x, "--report", x))
    assert "--report" in line
    assert not x.exists()
    x.write_bytes(b"keep")
    (tmp_path / "x-link.json").symlink_to("x.json")
    one_error_line(run("repair", worked, "-o", x, "--report", tmp_path / "x-link.json"))
    assert x.read_bytes() == b"keep"


def test_report_to_stdout_beside_the_transcript_is_refused(worked: Path) -> None:
    proc = run("repair", worked, "--report", "-")
    assert "stdout" in one_error_line(proc)
    assert proc.stdout == b""
    proc = run("repair", worked, "-o", "-", "--report", "-")
    one_error_line(proc)
    proc = run("repair", worked, "-o", "/dev/null", "--report", "-", "-q")
    assert proc.returncode == 0 and "changes" in orjson.loads(proc.stdout)


def test_a_report_that_cannot_be_written_leaves_no_output(worked: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    ro = tmp_path / "ro.report.json"
    ro.write_bytes(b"keep")
    os.chmod(ro, 0o444)
    assert "read-only" in one_error_line(run("repair", worked, "-o", out, "--report", ro))
    assert not out.exists()
    assert "No space left" in one_error_line(run("repair", worked, "-o", out, "--report", "/dev/full"))
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "ro.report.json"]


def test_output_over_a_read_only_file_is_refused(worked: Path, tmp_path: Path) -> None:
    ro = tmp_path / "ro.json"
    ro.write_bytes(b"keep")
    os.chmod(ro, 0o444)
    assert "read-only" in one_error_line(run("repair", worked, "-o", ro))
    assert ro.read_bytes() == b"keep"


# -- stdout: full, closed, gone --------------------------------------------------------------------

STDOUT_COMMANDS = [
    ["repair", str(WORKED)],
    ["check", str(WORKED)],
    ["check", str(WORKED), "--json"],
    ["check", str(WORKED), "--provider", "all"],
    ["explain", str(WORKED), "No tool output found for function call x_1."],
    ["scan", str(ROOT / "sample_sessions" / "chat"), "--no-cache"],
    ["scan", str(ROOT / "sample_sessions" / "chat"), "--no-cache", "--json"],
    ["formats"],
    ["--version"],
]


@pytest.mark.parametrize("args", STDOUT_COMMANDS, ids=" ".join)
def test_stdout_on_a_full_disk(args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        proc = run(*args, stdout=full)
    line = one_error_line(proc)
    assert "stdout" in line and "No space left" in line


@pytest.mark.parametrize("args", STDOUT_COMMANDS[:7], ids=" ".join)
def test_stdout_closed(args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "suture", *args],
        stdout=None,
        stderr=subprocess.PIPE,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        preexec_fn=lambda: os.close(1),
    )
    assert "stdout" in one_error_line(proc)  # type: ignore[arg-type]


def test_stdout_closed_does_not_matter_when_nothing_goes_there(worked: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(worked), "-o", str(tmp_path / "o.json")],
        stderr=subprocess.PIPE,
        timeout=120,
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o.json").read_bytes()[:1] == b"["
    assert worked.read_bytes() == WORKED.read_bytes()


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A transcript whose every output is far more than a pipe holds."""
    messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for k in range(3000):
        call = {"id": f"call_{k}", "type": "function", "function": {"name": "t", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "user", "content": f"and again {k}"})
    path = tmp_path_factory.mktemp("big") / "big.json"
    path.write_bytes(orjson.dumps(messages))
    return path


@pytest.mark.parametrize(
    "args", [["repair"], ["check", "--all"], ["check", "--json"], ["check", "--provider", "all", "--all"]], ids=" ".join
)
def test_a_reader_that_goes_away_is_no_error(big: Path, args: list[str]) -> None:
    """``suture … | head -c 1``: the pipe breaks; suture ends quietly, with 141 (as a process a
    broken pipe ends), not 0: under ``set -o pipefail`` an unfinished check is not a clean file."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "suture", args[0], str(big), *args[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(1)
    proc.stdout.close()
    stderr = proc.stderr.read()
    proc.wait(timeout=120)
    assert b"Traceback" not in stderr and b"Exception ignored" not in stderr, stderr
    assert b"error" not in stderr, stderr
    assert proc.returncode == 141


@pytest.mark.parametrize("args", [("repair", WORKED, "-o", ""), ("scan", WORKED.parent, "--out", "")])
def test_an_output_named_by_an_empty_string_is_refused_in_words(args: tuple[str | Path, ...], tmp_path: Path) -> None:
    proc = run(*args, cwd=tmp_path)
    assert (
        one_error_line(proc) == "suture: error: the output's name is empty: give a file name, or - for standard output"
    )
    assert proc.stdout == b""
