"""Finding sessions where each agent keeps them, and in folders a person names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from suture.sessions import Found, Listing, agent_places, find, is_url
from tests.fakehome import env_for, home_with_sessions, populate


def _found(env: dict[str, str], *paths: str) -> list[Found]:
    return list(find(paths, agent_places(env)))


def test_defaults_are_under_home(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    places = {p.agent: p.root for p in agent_places(env)}
    assert places == {
        "claude-code": tmp_path / ".claude" / "projects",
        "codex": tmp_path / ".codex" / "sessions",
        "pi": tmp_path / ".pi" / "agent" / "sessions",
    }


def test_every_agents_sessions_are_found_in_a_fake_home(tmp_path: Path) -> None:
    made = home_with_sessions(tmp_path, real=True)
    found = _found(env_for(tmp_path))
    by_agent: dict[str, set[str]] = {}
    for f in found:
        by_agent.setdefault(f.agent, set()).add(f.path)
    assert by_agent == {agent: {str(p) for p in files} for agent, files in made.items()}
    # The subagent file of a Claude Code session is found too.
    assert any("/subagents/" in f.path for f in found)
    for f in found:
        assert f.error == ""
        assert f.size == os.path.getsize(f.path)
        assert f.mtime == os.path.getmtime(f.path)


@pytest.mark.parametrize(
    ("variable", "agent"),
    [("CLAUDE_CONFIG_DIR", "claude-code"), ("CODEX_HOME", "codex"), ("PI_CODING_AGENT_DIR", "pi")],
)
def test_each_agents_variable_moves_its_folder(tmp_path: Path, variable: str, agent: str) -> None:
    home = tmp_path / "home"
    elsewhere = tmp_path / "elsewhere"
    home_with_sessions(home)
    moved = populate(elsewhere / "claude-code", elsewhere / "codex", elsewhere / "pi")[agent]
    found = _found(env_for(home, **{variable: str(elsewhere / agent)}))
    of_agent = {f.path for f in found if f.agent == agent}
    # Only the folder the variable names is searched for that agent; the others stay at home.
    assert of_agent == {str(p) for p in moved}
    others = {f.agent for f in found if str(home) in f.path}
    assert others == {"claude-code", "codex", "pi"} - {agent}


def test_a_missing_agent_folder_is_no_error(tmp_path: Path) -> None:
    assert _found(env_for(tmp_path)) == []


def test_a_named_folder_is_walked_for_json_and_jsonl_files(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/one.jsonl", "a/b/two.json", "a/notes.txt", "a/.hidden.jsonl", "a/b/three.JSONL.bak"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "a" / ".git").mkdir()
    (tmp_path / "a" / ".git" / "x.json").write_text("{}")
    got = sorted(Path(f.path).relative_to(tmp_path).as_posix() for f in find([tmp_path / "a"]))
    assert got == ["a/b/two.json", "a/one.jsonl"]


def test_a_named_file_is_taken_whatever_its_name(tmp_path: Path) -> None:
    path = tmp_path / "session.log"
    path.write_text("{}")
    assert [f.path for f in find([path])] == [str(path)]


def test_a_missing_path_is_a_found_with_its_error(tmp_path: Path) -> None:
    [f] = find([tmp_path / "nope"])
    assert f.error == "no such file or folder"


def test_a_folder_that_cannot_be_listed_is_a_found_with_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.jsonl").write_text("{}")
    (tmp_path / "ok.jsonl").write_text("{}")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path) == str(locked):  # what a folder without read permission does (root reads all)
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = {f.path: f.error for f in find([tmp_path])}
    assert found == {str(tmp_path / "ok.jsonl"): "", str(locked): "cannot list this folder (Permission denied)"}


def test_each_file_once_however_it_is_reached(tmp_path: Path) -> None:
    made = home_with_sessions(tmp_path)
    env = env_for(tmp_path)
    twice = _found(env, str(tmp_path / ".claude"), str(made["pi"][0]))
    assert len(twice) == len({f.path for f in twice}) == sum(len(v) for v in made.values())


def test_the_listing_says_what_each_path_gave_and_the_hidden_folders_passed_over(tmp_path: Path) -> None:
    """Counted before files already found through another path are left out: a path named twice
    gave files, though it yields none the second time."""
    home_with_sessions(tmp_path / "h")
    (tmp_path / "h" / ".claude" / ".backup").mkdir()
    (tmp_path / "h" / ".hidden.jsonl").write_bytes(b"{}")
    claude = str(tmp_path / "h" / ".claude")
    listing = Listing()
    found = list(find([str(tmp_path / "h"), claude, claude], (), listing))
    assert found and all(f.path.startswith(claude + os.sep) for f in found)
    assert listing.files[str(tmp_path / "h")] == 0
    assert listing.files[claude] == len(found)
    assert listing.empty() == [str(tmp_path / "h")]
    assert sorted(listing.hidden[str(tmp_path / "h")]) == [
        str(tmp_path / "h" / x) for x in (".claude", ".codex", ".pi")
    ]
    assert listing.hidden[claude] == [os.path.join(claude, ".backup")]


def test_newest_first_within_a_folder(tmp_path: Path) -> None:
    for name, seconds in (("old.jsonl", 1_000_000), ("new.jsonl", 1_000_020), ("mid.jsonl", 1_000_010)):
        p = tmp_path / name
        p.write_text("{}")
        os.utime(p, (seconds, seconds))
    assert [Path(f.path).name for f in find([tmp_path])] == ["new.jsonl", "mid.jsonl", "old.jsonl"]


def test_a_symlinked_folder_loop_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text("{}")
    (tmp_path / "loop").symlink_to(tmp_path)
    assert [Path(f.path).name for f in find([tmp_path])] == ["s.jsonl"]


def test_urls() -> None:
    assert is_url("s3://bucket/key.jsonl")
    assert is_url("memory://x/y")
    assert is_url("file:///tmp/x")
    assert not is_url("/tmp/x.jsonl")
    assert not is_url("C:\\x\\y.jsonl")
    assert not is_url("weird name://x")


def test_urls_are_listed_through_fsspec() -> None:
    fsspec = pytest.importorskip("fsspec", reason="fsspec comes with the fleet extra")
    fs = fsspec.filesystem("memory")
    fs.pipe({"/fleet/a/one.jsonl": b"{}\n", "/fleet/b/two.json": b"{}", "/fleet/b/skip.txt": b"x"})
    got = sorted(f.path for f in find(["memory://fleet"]))
    assert got == ["memory:///fleet/a/one.jsonl", "memory:///fleet/b/two.json"]
    assert all(f.size is not None for f in find(["memory://fleet"]))
    [missing] = find(["memory://nowhere/at/all.jsonl"])
    assert missing.error.startswith("cannot list")
