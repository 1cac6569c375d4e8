"""The app's command line: bad input ends in one line and exit 2, Textual loads only for the app."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest


def suture(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suture", *args], capture_output=True, text=True, cwd=cwd)


def test_missing_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args in (("nothing-here.json",), ("view", "nothing-here.json")):
        done = suture(*args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and "no such file" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_folder_opens_its_sessions_in_the_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # suture DIR: the sessions browser on that folder only, as suture serve DIR shows it.
    import suture.cli.sessions
    from suture.cli import main

    opened: list[argparse.Namespace] = []
    monkeypatch.setattr(suture.cli.sessions, "run", lambda args: opened.append(args) or 0)
    for args in ([str(tmp_path)], ["view", str(tmp_path)]):
        assert main(args) == 0
    assert [(a.paths, a.only) for a in opened] == [([str(tmp_path)], True)] * 2


def test_options_for_a_file_given_with_a_folder_are_one_line_and_exit_2(tmp_path: Path) -> None:
    for flags in (["--format", "chat"], ["--no-watch"], ["--read-only", "ls"]):
        done = suture("view", *flags, str(tmp_path))
        assert done.returncode == 2
        assert done.stderr == f"suture: error: {flags[0]}: for a FILE; a folder opens in the sessions browser\n"


@pytest.mark.parametrize("argv", [["view", "x.jsonl"], ["view", ""], ["view", "a b/c d.json"], ["view", "view"]])
def test_suture_file_alone_reads_as_its_parser_reads_it(argv: list[str]) -> None:
    # suture FILE (and suture view FILE) with no option is read without argparse: the same
    # arguments as the parser gives, each option at its default.
    from suture.cli import _opened_alone, _own_module, build_parser

    own = _own_module("view")
    alone = _opened_alone(own, argv)
    assert alone is not None and vars(alone) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv", [["view", "--no-watch", "x.json"], ["view", "-"], ["view"], ["demo"], ["view", "a", "b"]]
)
def test_any_other_command_line_is_read_by_the_parser(argv: list[str]) -> None:
    from suture.cli import _opened_alone, _own_module

    assert _opened_alone(_own_module("view"), argv) is None
    assert _opened_alone(_own_module("repair"), ["view", "x.json"]) is None


def test_view_and_demo_are_listed() -> None:
    done = suture("--help")
    assert "view" in done.stdout + done.stderr and "demo" in done.stdout + done.stderr
    assert suture("demo", "--help").returncode == 0


def test_view_module_does_not_import_textual() -> None:
    code = "import sys, suture.cli, suture.cli.view, suture.live, suture.tui.rows, suture.tui.records; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_demo_file_ships_inside_the_package() -> None:
    from suture.cli.view import demo_path

    path = demo_path()
    assert path.is_file()
    assert "suture" in path.parts and "tui" in path.parts


def test_the_app_without_a_terminal_says_so_instead_of_drawing_into_a_file(tmp_path: Path) -> None:
    # `suture FILE > out.txt`: the app would write its screens into the file and wait for keys.
    path = tmp_path / "t.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    for args in ((str(path),), ("view", str(path)), ("demo",), ("sessions", "--only", str(tmp_path))):
        done = subprocess.run(
            [sys.executable, "-m", "suture", *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert done.returncode == 2, args
        assert done.stderr.count("\n") == 1 and "needs a terminal" in done.stderr, done.stderr
        assert done.stdout == ""


def test_an_unknown_format_for_the_app_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    done = suture("view", "--format", "nope", str(path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "unknown format 'nope'" in done.stderr


def test_check_counts_one_message_in_words(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    first = suture("check", str(path)).stdout.splitlines()[0]
    assert first.startswith(f"{path}: valid (1 message, chat) (it reads as ")  # (and what else it reads as)


def test_a_mistyped_command_is_named_not_taken_for_a_file(tmp_path: Path) -> None:
    done = suture("chek", "x.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "suture: error: unknown command 'chek' (did you mean check?); 'suture --help' lists them\n"
    # A file of that name is the file to open (here: the app needs a terminal).
    (tmp_path / "chek").write_text('[{"role": "user", "content": "hi"}]')
    done = subprocess.run(
        [sys.executable, "-m", "suture", "chek"], capture_output=True, text=True, cwd=tmp_path, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2 and "needs a terminal" in done.stderr


def test_a_command_suture_does_not_have_is_named_when_words_follow_it(tmp_path: Path) -> None:
    # The app opens one file: a word no file is named by, with more words after it, is a command.
    done = suture("diff", "a.json", "b.json", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "suture: error: unknown command 'diff'; 'suture --help' lists them\n")
    # Alone, or followed by an option, it is still the file to open, and said to be missing.
    assert suture("diff", cwd=tmp_path).stderr == "suture: error: diff: no such file\n"
    assert suture("diff", "--no-watch", cwd=tmp_path).stderr == "suture: error: diff: no such file\n"
