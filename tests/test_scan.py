"""One file, one row: what ``suture scan`` and the sessions browser say about each session file,
the pool that scans many, and the cache that spares reading unchanged files."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suture.scan as scan_module
from suture.checks import verdict
from suture.formats import load_file
from suture.repair import repair
from suture.scan import (
    COLUMNS,
    LISTED,
    OK,
    OTHER,
    REJECTED,
    UNREADABLE,
    VERDICTS,
    Row,
    judge,
    listed,
    scan_bytes,
    scan_file,
    scan_path,
)
from suture.scan_cache import ScanCache, cache_dir
from suture.scan_pool import Progress, scan_all
from suture.sent import verdict as sent_verdict
from suture.sessions import Found, find
from suture.validity import violations
from tests.fakehome import SAMPLES, home_with_sessions

CC_ERROR = SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"
CC_REJECTED = SAMPLES / "recorded" / "claude-code-2.1.328" / "text-before-result" / "resumed.jsonl"
CODEX_CLEAN = SAMPLES / "codex" / "clean-rollout.jsonl"
PI_ABORTED = SAMPLES / "pi" / "branched-aborted.jsonl"
VERCEL_BROKEN = SAMPLES / "vercel" / "broken-v4-missing-result.json"
CHAT_CLEAN = SAMPLES / "chat" / "clean.json"


# -- one file -------------------------------------------------------------------------------------


def test_a_claude_code_session_row() -> None:
    """The verdict is on what Claude Code sends when it resumes the session: it answers the
    interrupted call itself, so the 400 the file records would not come again. What it repairs
    itself is counted apart; suture's own repair of the file still has changes to make."""
    row = scan_path(CC_ERROR)
    transcript = load_file(CC_ERROR)
    result = repair(transcript.messages)
    v = sent_verdict(transcript, None, result)
    assert verdict(transcript.messages, "anthropic").before  # the file as written breaks A1
    assert (row.verdict, row.problems, row.problem) == (OK, 0, "")
    assert (row.agent, row.format, row.provider) == ("claude-code", "claude-code", "anthropic")
    assert row.project == "/home/dev/shop"
    assert row.session.startswith("3f2a9c4e")
    assert row.messages == len(transcript.messages)
    assert row.changes == len(result.changes) > 0
    assert row.fixes == len(v.notes) == 2
    assert row.after_repair == len(v.contract.after) == 0
    assert row.last_error.startswith("API Error: 400")
    assert "\n" not in row.last_error
    # The last line's own time, not the file's.
    assert row.when == "2026-02-11T09:31:00Z"
    assert row.size == CC_ERROR.stat().st_size
    assert row.error == ""


def test_a_session_the_agent_would_send_rejected() -> None:
    """The real Claude Code was rejected when it resumed this session: so is the row, the first
    problem placed at the line of the file it comes from."""
    row = scan_path(CC_REJECTED)
    transcript = load_file(CC_REJECTED)
    v = sent_verdict(transcript)
    assert (
        (row.verdict, row.provider, row.problems)
        == (REJECTED, "anthropic", len(v.problems))
        == (
            REJECTED,
            "anthropic",
            1,
        )
    )
    first = v.problems[0]
    assert row.problem == f"{first.rule} {transcript.messages[v.at(first) or 0].source}: {first.problem}"
    assert row.problem.startswith("A1a line 22, message.content[1]: ")
    assert row.last_error.startswith("API Error: 400 messages.3: Did not find 1 `tool_result` block(s)")


def test_a_listed_row_is_what_the_folder_says() -> None:
    st_ = CC_ERROR.stat()
    row = listed(Found(str(CC_ERROR), st_.st_size, st_.st_mtime, "claude-code"))
    assert (row.verdict, row.agent, row.size, row.mtime) == (LISTED, "claude-code", st_.st_size, st_.st_mtime)
    assert row.when == scan_module._iso(st_.st_mtime)
    assert (row.messages, row.problems, row.project) == (0, 0, "")
    assert LISTED not in VERDICTS


def test_a_clean_codex_rollout_row() -> None:
    row = scan_path(CODEX_CLEAN)
    assert (row.verdict, row.agent, row.provider, row.problems, row.changes) == (OK, "codex", "openai-responses", 0, 0)
    assert row.project == "/home/dev/ledger"
    assert row.when.startswith("2026-11-18T09:14")


def test_a_pi_session_row_records_its_last_error() -> None:
    row = scan_path(PI_ABORTED)
    assert (row.agent, row.project) == ("pi", "/Users/dev/notes-app")
    assert row.last_error == "error: terminated"


def test_the_content_decides_the_agent_not_the_folder() -> None:
    """A file found in Claude Code's folder is Claude Code's session only when it is one."""
    st_ = CHAT_CLEAN.stat()
    in_folder = scan_file(Found(str(CHAT_CLEAN), st_.st_size, st_.st_mtime, "claude-code"))
    assert in_folder == scan_path(CHAT_CLEAN)
    assert (in_folder.agent, in_folder.format) == ("", "chat")
    session = scan_file(Found(str(CODEX_CLEAN), agent="claude-code"))
    assert (session.agent, session.format) == ("codex", "codex")


def test_a_request_file_is_judged_for_its_own_provider_and_dated_by_the_file() -> None:
    row = scan_path(CHAT_CLEAN)
    assert (row.verdict, row.agent, row.format, row.provider) == (OK, "", "chat", "openai-chat")
    st_ = CHAT_CLEAN.stat()
    assert row.when == scan_module._iso(st_.st_mtime)


@pytest.mark.parametrize(
    ("content", "provider", "problem"),
    [
        (b"[]", "openai-chat", "O6 messages: the request's messages list is empty"),
        (
            b'{"model":"claude-sonnet-4-5","max_tokens":9,"system":"hi","messages":[]}',
            "anthropic",
            "A14 messages: the request's messages list is empty",
        ),
        (b'{"contents":[]}', "gemini", "G6 contents: the request's contents list is empty"),
    ],
)
def test_a_request_with_no_message_is_a_rejected_row_said_at_its_list(
    tmp_path: Path, content: bytes, provider: str, problem: str
) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    row = scan_path(path)
    assert (row.verdict, row.provider, row.problems, row.after_repair) == (REJECTED, provider, 1, 1)
    assert row.problem.startswith(problem)


def test_a_format_without_one_provider_is_judged_by_the_valid_property() -> None:
    transcript = load_file(VERCEL_BROKEN)
    result = repair(transcript.messages)
    j = judge(transcript, result)
    assert j.provider == ""
    assert j.problems == len(violations(transcript.messages)) > 0
    assert j.after_repair == len(violations(result.messages)) == 0
    assert j.verdict == REJECTED


def test_a_subagent_file_is_marked(tmp_path: Path) -> None:
    made = home_with_sessions(tmp_path, real=True)
    rows = {r.path: r for r in map(scan_file, find([tmp_path / ".claude"]))}
    subagents = {p for p, r in rows.items() if r.subagent}
    assert subagents == {str(p) for p in made["claude-code"] if "subagents" in p.parts}


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b"", "the file is empty"),
        (b"\x00\x01binary", "this is a binary file, not a JSON or JSONL transcript"),
        (b"[1, 2", "not valid JSON"),
    ],
)
def test_a_file_that_is_no_transcript_is_an_unreadable_row(tmp_path: Path, content: bytes, error: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    row = scan_path(path)
    assert row.verdict == UNREADABLE
    assert row.error.startswith(error)
    assert str(path) not in row.error  # the path is the row's own column
    assert row.size == len(content)


@pytest.mark.parametrize("content", [b'{"hello": "world"}', b'{"model": "m", "input": 3}\n{"model": "m"}\n'])
def test_json_that_is_no_transcript_is_an_other_row(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    row = scan_path(path)
    assert row.verdict == OTHER
    assert row.error.startswith("not a transcript suture knows: no format fits")
    assert row.size == len(content)


def test_a_missing_file_is_an_unreadable_row(tmp_path: Path) -> None:
    row = scan_path(tmp_path / "gone.jsonl")
    assert (row.verdict, row.error) == (UNREADABLE, "no such file")


def test_a_bug_in_suture_costs_one_row(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> Row:
        raise KeyError("oops")

    monkeypatch.setattr(scan_module, "scan_bytes", broken)
    row = scan_path(CHAT_CLEAN)
    assert row.verdict == UNREADABLE
    assert row.error == "suture could not scan this file (KeyError: 'oops')"


def test_unreadable_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    """As the agent skips them: the rest is judged as it would be without the line."""
    lines = CC_REJECTED.read_bytes().splitlines(keepends=True)
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"".join([*lines[:3], b"{not json\n", *lines[3:]]))
    row = scan_path(path)
    whole = scan_path(CC_REJECTED)
    assert row.skipped == 1
    assert (row.verdict, row.problems, row.messages) == (whole.verdict, whole.problems, whole.messages)
    assert row.verdict == REJECTED
    assert row.problem == whole.problem.replace("line 22", "line 23")


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(data=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_give_a_row_and_never_raise(data: bytes) -> None:
    try:
        row = scan_bytes(data, "x.jsonl")
    except Exception as e:
        assert isinstance(e, scan_module.InputError)
        return
    assert row.verdict in (OK, REJECTED)


def test_a_row_survives_json() -> None:
    row = scan_path(CC_ERROR)
    assert Row.from_json(row.to_json()) == row
    assert tuple(row.to_json()) == COLUMNS


# -- the cache ------------------------------------------------------------------------------------


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file the scan reads, in this process."""
    seen: list[str] = []
    real = scan_module._read

    def counting(path: str) -> bytes:
        seen.append(path)
        return real(path)

    monkeypatch.setattr(scan_module, "_read", counting)
    return seen


def _agents(home: Path) -> list[Path]:
    return [home / ".claude", home / ".codex", home / ".pi"]


def _scan(paths: list[Path], cache: ScanCache | None, progress: Progress | None = None) -> list[Row]:
    return sorted(scan_all(find(paths), jobs=1, cache=cache, progress=progress), key=lambda r: r.path)


def test_a_second_scan_of_an_unchanged_tree_reads_no_file(tmp_path: Path, reads: list[str]) -> None:
    made = home_with_sessions(tmp_path / "home", real=True)
    n = sum(len(v) for v in made.values())
    cache = ScanCache(tmp_path / "cache")
    first = _scan(_agents(tmp_path / "home"), cache)
    assert len(reads) == n
    reads.clear()
    progress = Progress()
    again = _scan(_agents(tmp_path / "home"), ScanCache(tmp_path / "cache"), progress)
    assert reads == []
    assert again == first
    assert (progress.cached, progress.done, progress.total) == (n, n, n)


def test_a_changed_file_is_read_again(tmp_path: Path, reads: list[str]) -> None:
    made = home_with_sessions(tmp_path / "home")
    cache = ScanCache(tmp_path / "cache")
    _scan(_agents(tmp_path / "home"), cache)
    grown = made["claude-code"][0]
    with open(grown, "ab") as f:
        f.write(
            b'{"type":"user","uuid":"u-new","parentUuid":null,"sessionId":"s","timestamp":"2027-01-01T00:00:00Z",'
            b'"message":{"role":"user","content":"one more thing"}}\n'
        )
    touched = made["pi"][0]
    os.utime(touched, (2_000_000_000, 2_000_000_000))  # same bytes, another time: read again
    reads.clear()
    rows = {r.path: r for r in _scan(_agents(tmp_path / "home"), cache)}
    assert sorted(reads) == sorted([str(grown), str(touched)])
    assert rows[str(grown)].when == "2027-01-01T00:00:00Z"


def test_the_cache_lives_outside_the_scanned_tree_and_follows_xdg(tmp_path: Path) -> None:
    assert cache_dir({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "suture"
    assert cache_dir({"HOME": "/h", "XDG_CACHE_HOME": str(tmp_path / "x")}) == tmp_path / "x" / "suture"
    assert cache_dir({"HOME": "/h", "SUTURE_CACHE_DIR": str(tmp_path / "s")}) == tmp_path / "s"
    home_with_sessions(tmp_path / "home")
    before = {p for p in (tmp_path / "home").rglob("*")}
    _scan(_agents(tmp_path / "home"), ScanCache(tmp_path / "cache"))
    assert {p for p in (tmp_path / "home").rglob("*")} == before


def test_rows_of_other_code_are_never_used(tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    home_with_sessions(tmp_path / "home")
    _scan(_agents(tmp_path / "home"), ScanCache(tmp_path / "cache"))
    monkeypatch.setattr("suture.scan_cache.code_fingerprint", lambda: "another-suture")
    reads.clear()
    _scan(_agents(tmp_path / "home"), ScanCache(tmp_path / "cache"))
    assert reads  # a new suture read every file again


def test_the_code_fingerprint_follows_every_byte_of_suture(tmp_path: Path) -> None:
    """A change of suture's code gives other rows: the cache is another. An edit that keeps a
    module's size and time (an archive or an installer that keeps times) counts too."""
    import shutil

    import suture
    from suture.scan_cache import code_fingerprint, fingerprint_of

    copy = tmp_path / "suture"
    shutil.copytree(Path(suture.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert fingerprint_of(copy) == code_fingerprint()
    module = copy / "scan.py"
    st_ = module.stat()
    data = module.read_bytes()
    module.write_bytes(data.replace(b"REJECTED if self.problems else OK", b"OK if self.problems else REJECTED"))
    os.utime(module, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    assert module.stat().st_size == st_.st_size and module.read_bytes() != data
    assert fingerprint_of(copy) != code_fingerprint()


def test_a_cache_folder_that_cannot_be_written_only_costs_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = ScanCache(blocker / "cache")
    assert not cache.usable
    rows = _scan([SAMPLES / "codex"], cache)
    assert rows == _scan([SAMPLES / "codex"], None)
    assert len(rows) == 2


def test_a_file_that_could_not_be_read_is_not_kept(tmp_path: Path) -> None:
    cache = ScanCache(tmp_path / "cache")
    found = Found(str(tmp_path / "later.jsonl"), 10, 1.0)
    row = scan_file(found)
    assert row.verdict == UNREADABLE
    list(scan_all([found], jobs=1, cache=cache))
    assert cache.get(found) is None


def _writer(folder: str, start: int) -> None:
    cache = ScanCache(folder)
    for k in range(start, start + 200, 10):
        batch = [(Found(f"/f{i}", i, float(i)), Row(path=f"/f{i}", verdict=OK, messages=i)) for i in range(k, k + 10)]
        cache.put(batch)
    cache.close()


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    folder = str(tmp_path / "cache")
    ScanCache(folder).close()
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(folder, start)) for start in (0, 200, 400)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    cache = ScanCache(folder)
    got = [cache.get(Found(f"/f{i}", i, float(i))) for i in range(600)]
    assert [r.messages if r else None for r in got] == list(range(600))


# -- the pool -------------------------------------------------------------------------------------


def test_the_process_pool_gives_the_rows_of_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home_with_sessions(tmp_path, real=True)
    one = _scan(_agents(tmp_path), None)
    monkeypatch.setattr("suture.scan_pool._POOL_FILES", 0)
    monkeypatch.setattr("suture.scan_pool._POOL_BYTES", 0)
    progress = Progress()
    pooled = sorted(scan_all(find(_agents(tmp_path)), jobs=2, progress=progress), key=lambda r: r.path)
    assert pooled == one
    assert progress.done == progress.total == len(one)
    assert 1 <= len(progress.processes) <= 2
    assert os.getpid() not in {pid for _, pid in progress.processes}
    assert progress.pool_error == ""


def test_where_no_pool_can_start_every_file_is_scanned_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home_with_sessions(tmp_path, real=True)
    one = _scan(_agents(tmp_path), None)
    monkeypatch.setattr("suture.scan_pool._POOL_FILES", 0)
    monkeypatch.setattr("suture.scan_pool._POOL_BYTES", 0)

    def no_pool(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr("suture.scan_pool.ProcessPoolExecutor", no_pool)
    progress = Progress()
    rows = sorted(scan_all(find(_agents(tmp_path)), jobs=2, progress=progress), key=lambda r: r.path)
    assert rows == one
    assert {pid for _, pid in progress.processes} == {os.getpid()}
    assert progress.pool_error == "no process pool (BlockingIOError: [Errno 11] Resource temporarily unavailable)"


def test_a_pool_process_has_everything_a_scan_imports_before_its_first_file() -> None:
    """What the fork server imports before it forks the pool's processes (``PRELOAD``) is all a
    scan of every sample file imports: no process pays for imports in its first batch."""
    import subprocess
    import sys

    script = f"""
import importlib, sys
from suture.scan_pool import PRELOAD
for name in PRELOAD:
    importlib.import_module(name)
before = set(sys.modules)
from suture.scan import scan_found
from suture.sessions import find
rows = [scan_found(f)[0] for f in find([{str(SAMPLES)!r}])]
print(len({{r.format for r in rows if r.format}}), sorted(m for m in set(sys.modules) - before if m.startswith("suture")))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    formats, imported = proc.stdout.split(" ", 1)
    assert int(formats) >= 8  # every format was scanned
    assert imported.strip() == "[]"


def test_a_cancelled_scan_starts_no_more_batches(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"{i}.json").write_bytes(CHAT_CLEAN.read_bytes())
    rows = list(scan_all(find([tmp_path]), jobs=1, cancelled=lambda: True))
    assert rows == []


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            [
                {"type": "summary", "summary": "s", "leafUuid": "x"},
                {
                    "type": "user",
                    "uuid": "u",
                    "cwd": "/w",
                    "sessionId": "s1",
                    "message": {"role": "user", "content": "hi"},
                },
            ],
            ("claude-code", "/w", "s1"),
        ),
        (
            [
                {"timestamp": "t", "type": "session_meta", "payload": {"id": "c1", "cwd": "/c"}},
                {
                    "timestamp": "t",
                    "type": "response_item",
                    "payload": {"type": "message", "role": "user", "content": []},
                },
            ],
            ("codex", "/c", "c1"),
        ),
        (
            [
                {"type": "session", "version": 3, "id": "p1", "cwd": "/p", "timestamp": "2025-11-20T10:00:00Z"},
                {"type": "message", "id": "m", "parentId": None, "message": {"role": "user", "content": "hi"}},
            ],
            ("pi", "/p", "p1"),
        ),
        ([{"role": "user", "content": "hi", "cwd": "/x"}, {"role": "assistant", "content": "yo"}], ("", "", "")),
    ],
)
def test_what_a_session_file_says_about_its_session(lines: list[object], expected: tuple[str, str, str]) -> None:
    data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    row = scan_bytes(data, "/x/s.jsonl")
    assert (row.agent, row.project, row.session) == expected


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(0, 40_000_000), max_size=400), workers=st.integers(1, 16))
def test_batches_keep_every_file_once_in_order_small_at_first(sizes: list[int], workers: int) -> None:
    from suture.scan_pool import _BATCH_FILES, _FIRST_FILES, _batches

    todo = [Found(f"/f{i}", size) for i, size in enumerate(sizes)]
    batches = list(_batches(todo, workers))
    assert [f for b in batches for f in b] == todo
    assert all(b for b in batches)
    assert all(len(b) <= _FIRST_FILES for b in batches[:workers])
    assert all(len(b) <= _BATCH_FILES for b in batches)
