"""``suture.io``: telling JSON from JSONL, pending last lines, named bad lines, atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from suture.io import InputError, parse_document, read_input, write_atomic


def test_json_array() -> None:
    doc = parse_document(b'[{"role": "user", "content": "a"}]')
    assert doc.kind == "json"
    assert doc.value == [{"role": "user", "content": "a"}]
    assert not doc.pretty


def test_pretty_json_is_noticed() -> None:
    assert parse_document(b'[\n  {"role": "user"}\n]\n').pretty
    assert not parse_document(b'[{"role": "user"}]\n\n').pretty


def test_one_object_on_one_line_is_json() -> None:
    assert parse_document(b'{"role": "user", "content": "a"}\n').kind == "json"


def test_jsonl_records_carry_line_numbers_and_skip_blank_lines() -> None:
    doc = parse_document(b'{"a": 1}\n\n{"b": 2}\n   \n{"c": 3}\n')
    assert doc.kind == "jsonl"
    assert doc.records == [(1, {"a": 1}), (3, {"b": 2}), (5, {"c": 3})]
    assert doc.problems == [] and doc.pending == b""


def test_crlf_jsonl() -> None:
    doc = parse_document(b'{"a": 1}\r\n{"b": 2}\r\n')
    assert doc.records == [(1, {"a": 1}), (2, {"b": 2})]


def test_a_final_line_without_newline_that_does_not_parse_is_pending_to_the_live_reader() -> None:
    doc = parse_document(b'{"a": 1}\n{"b": 2}\n{"c": ', live=True)
    assert doc.kind == "jsonl"
    assert [r for _, r in doc.records] == [{"a": 1}, {"b": 2}]
    assert doc.pending == b'{"c": '
    assert doc.problems == []


def test_a_final_line_without_newline_that_does_not_parse_is_otherwise_a_problem() -> None:
    doc = parse_document(b'{"a": 1}\n{"b": 2}\n{"c": ')
    assert [r for _, r in doc.records] == [{"a": 1}, {"b": 2}]
    assert doc.pending == b""
    assert [p.line for p in doc.problems] == [3]
    assert doc.problems[0].message.startswith("cut off:")


def test_a_final_line_with_newline_that_does_not_parse_is_a_problem() -> None:
    doc = parse_document(b'{"a": 1}\n{"b": 2}\n{"c": \n')
    assert doc.pending == b""
    assert [p.line for p in doc.problems] == [3]


def test_a_bad_line_in_the_middle_is_named() -> None:
    doc = parse_document(b'{"a": 1}\n{"b" 2}\n{"c": 3}\n')
    assert [r for _, r in doc.records] == [{"a": 1}, {"c": 3}]
    assert len(doc.problems) == 1
    problem = doc.problems[0]
    assert problem.line == 2 and "column" in problem.message
    assert str(problem).startswith("line 2: ")


def test_a_broken_json_document_says_line_and_column() -> None:
    with pytest.raises(InputError) as caught:
        parse_document(b'[\n  {"role": "user",\n   "content": }\n]\n')
    message = str(caught.value)
    assert message.startswith("not valid JSON at line 3, column ")
    assert "\n" not in message


def test_a_truncated_json_document() -> None:
    with pytest.raises(InputError, match="not valid JSON at line 2"):
        parse_document(b'[{"role": "user", "content": "a"},\n {"role": "assistant", "con')


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b" \n\t\n", "only whitespace"),
        (b'\xef\xbb\xbf[{"role": "user"}]', "byte order mark"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (b'[{"role": "user", "content": "caf\xe9"}]', "not UTF-8"),
        (b'{"a": 1}\n{"b": "\xff"}\n', "line 2"),
        (b"hello world", "not valid JSON at line 1, column 1"),
    ],
    ids=["empty", "whitespace", "bom", "binary", "latin1", "latin1-in-jsonl", "text"],
)
def test_unusable_bytes(data: bytes, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_document(data)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_read_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_input(tmp_path / "nope.json")
    with pytest.raises(InputError, match="is a folder"):
        read_input(tmp_path)
    (tmp_path / "dangling").symlink_to(tmp_path / "gone.json")
    with pytest.raises(InputError, match="no such file"):
        read_input(tmp_path / "dangling")


def test_read_input_does_not_touch_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"[]")
    before = os.stat(path)
    assert read_input(path) == b"[]"
    after = os.stat(path)
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_write_atomic_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    assert write_atomic(target, b"one") == []
    assert target.read_bytes() == b"one"
    os.chmod(target, 0o600)
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_write_atomic_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.json", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o640


def test_write_atomic_failure_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        write_atomic(tmp_path / "folder", b"x")
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]
    assert list((tmp_path / "folder").iterdir()) == []


def test_write_atomic_to_a_device_writes_through() -> None:
    assert write_atomic("/dev/null", b"x") == []
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_what_is_built_with_the_collector_paused_is_frozen_only_when_kept() -> None:
    # A process that keeps what it loads (the app) takes it out of the collector's sight before
    # the collector resumes; any other caller's heap is left as it was.
    import gc

    from suture.io import gc_paused, keeping_built

    gc.unfreeze()
    try:
        with gc_paused():
            built = [{"n": i} for i in range(1000)]
        assert gc.get_freeze_count() == 0 and gc.isenabled()
        with keeping_built():
            with gc_paused(), gc_paused():  # nested: frozen once, on the way out of the outer
                assert not gc.isenabled()
                built = [{"n": i} for i in range(1000)]
            assert gc.isenabled()
            frozen = gc.get_freeze_count()
            assert frozen >= len(built)
        gc.unfreeze()
        with gc_paused():
            built = [{"n": i} for i in range(1000)]
        assert gc.get_freeze_count() == 0, "keeping_built ended: nothing frozen"
    finally:
        gc.unfreeze()
