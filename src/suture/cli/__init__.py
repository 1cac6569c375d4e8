"""The ``suture`` command line.

``suture FILE`` (or ``suture view FILE``) opens the app; ``suture`` alone in a terminal (or
``suture sessions``) opens the sessions browser; ``suture demo`` opens a bundled sample;
``suture repair``, ``suture check`` and ``suture formats`` work without the app and never import
Textual, so they start fast and compose in scripts. Every error a person can cause ends in one
line on stderr and exit code 2; where the command line asks for ``--json``, that line is given on
stdout too, as one JSON object (:func:`_error`).
"""

from __future__ import annotations

import errno
import importlib
import io
import os
import pkgutil
import sys
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from suture.io import InputError

if TYPE_CHECKING:
    import argparse

__all__ = ["main"]


@cache
def commands() -> dict[str, ModuleType]:
    """Subcommand name -> its module. Each module in this package not starting with ``_`` defines
    ``NAMES`` (the subcommands it serves), ``ORDER`` and ``add_arguments(subparsers, name)``, which
    sets ``run`` as the parser's default. No module imports Textual at import time."""
    found: list[ModuleType] = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            found.append(importlib.import_module(f"{__name__}.{info.name}"))
    found.sort(key=lambda m: getattr(m, "ORDER", 50))
    return {name: module for module in found for name in module.NAMES}


def _own_module(name: str) -> ModuleType | None:
    """The module of subcommand ``name`` when the module is named after it (``repair`` lives in
    ``repair.py``), found without importing the other commands: ``suture repair`` then loads
    only what repair needs, not every command's dependencies."""
    if not name.isidentifier() or name.startswith("_"):
        return None
    if not any(info.name == name for info in pkgutil.iter_modules(__path__)):
        return None
    module = importlib.import_module(f"{__name__}.{name}")
    return module if name in getattr(module, "NAMES", ()) else None


def _is_command(word: str) -> bool:
    """Whether ``word`` names a subcommand. Every name is an identifier, so a word that is not one
    (a path, a file name with a dot) is a file, told without importing every command's module:
    ``suture FILE`` then loads only what the app needs."""
    return word.isidentifier() and word in commands()


def _meant(words: Sequence[str]) -> str | None:
    """What to say of ``words[0]`` where it is a command mistyped or unknown, not a file to open:
    it names no file and is close to a command (``chek``: ``check``), or a word follows it that
    no option takes (``suture diff a b``: the app opens one file); ``None`` for a word that may
    be the file to open."""
    word = words[0]
    if not word.isidentifier() or os.path.lexists(word):
        return None
    import difflib

    close = difflib.get_close_matches(word, list(commands()), n=1, cutoff=0.75)
    if close:
        return f"unknown command '{word}' (did you mean {close[0]}?); 'suture --help' lists them"
    if len(words) > 1 and not words[1].startswith("-"):
        return f"unknown command '{word}'; 'suture --help' lists them"
    return None


# The exit codes every subcommand returns.
EXIT_OK = 0
"""Done, and nothing to report (no problem found, the file written)."""
EXIT_FOUND = 1
"""Done, and something to report: a problem, a rejected session, an error not explained."""
EXIT_BAD_INPUT = 2
"""Bad input: one line on stderr says what (an unreadable file, an unknown option)."""
EXIT_PIPE = 141
"""The reader of stdout went away before suture had written everything (``| head``): as a
process that a broken pipe ends (128 + SIGPIPE), never 0, so ``set -o pipefail`` does not take
an unfinished ``suture check`` for a clean file. Nothing is said on stderr."""


def build_parser(only: ModuleType | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that module's subcommands."""
    from suture.cli._parser import Parser, VersionAction

    parser = Parser(
        prog="suture",
        description=(
            "See why a provider rejects an LLM agent transcript, repair it, and review every change. "
            "'suture FILE' opens the app."
        ),
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    if only is not None:
        for name in only.NAMES:
            only.add_arguments(sub, name)
        return parser
    for name, module in commands().items():
        module.add_arguments(sub, name)
    return parser


def _opened_alone(own: ModuleType | None, args_list: list[str]) -> argparse.Namespace | None:
    """What the parser makes of ``suture view FILE`` with no option (``suture FILE`` comes here
    as that), worked out without building the parser: argparse and the message catalogues it
    loads would take part of the app's first screen. None for any other command line."""
    opened = getattr(own, "opened", None)
    if opened is None or len(args_list) != 2 or args_list[0] != "view" or args_list[1].startswith("-"):
        return None
    result: argparse.Namespace = opened(args_list[1])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    _standard_streams()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["--"]:
        args_list = ["view", *args_list]  # suture -- -x.json: a file whose name starts with '-'
    own = _own_module(args_list[0]) if args_list else None
    if own is None and args_list and not args_list[0].startswith("-") and not _is_command(args_list[0]):
        meant = _meant(args_list)
        if meant is not None:  # suture chek FILE: a command mistyped, not a file to open
            _error(meant)
            return EXIT_BAD_INPUT
        args_list.insert(0, "view")  # suture FILE
        own = _own_module("view")
    if not args_list:
        # A person at a terminal: the sessions browser. Without one (suture > out.txt), the one
        # line `suture sessions` says there, exit 2.
        own = _own_module("sessions")
        if own is not None:
            args_list = ["sessions"]
    args = _opened_alone(own, args_list)
    if args is None:
        parser = build_parser(own)
        if not args_list:
            parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
        from suture.cli._parser import Parser

        Parser.command = args_list[0] if own is not None or args_list[0] in commands() else None
        Parser.json = _asks_json(parser, args_list)
        Parser.dashed = Parser.files_dashed(args_list)
        try:
            args = parser.parse_args(args_list)
        except SystemExit as e:  # usage errors, --help, --version
            return _flushed(e.code if isinstance(e.code, int) else EXIT_BAD_INPUT)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return _flushed(run(args))
    except InputError as e:
        _error(str(e), json=bool(getattr(args, "json", False)))
        return EXIT_BAD_INPUT
    except StdoutError as e:
        drop_stdout()
        _error(f"cannot write to stdout ({e.strerror or e})")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our stdout went away (| head) before the command was done: not an error
        # of ours to report, but not a result either.
        drop_stdout()
        return EXIT_PIPE


def _error(message: str, json: bool = False) -> None:
    """Bad input's one line on stderr; with ``json`` (the command line asked for ``--json``),
    the same line on stdout too, as one JSON object (``{"error": …, "exit_code": 2}``): a script
    that reads stdout (``suture check --json f | jq``) is told what went wrong, not handed
    nothing."""
    from suture.show import dumps, line

    said = line(message)
    sys.stderr.write(f"suture: error: {said}\n")
    if not json:
        return
    try:  # (a stdout that cannot take it has had its say on stderr already)
        sys.stdout.flush()
        sys.stdout.buffer.write(dumps({"error": said, "exit_code": EXIT_BAD_INPUT}, indent=False))
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _asks_json(parser: argparse.ArgumentParser, args_list: Sequence[str]) -> bool:
    """Whether ``args_list`` asks for ``--json`` of a command that has it (before any ``--``):
    where the command line is refused, its one line goes to stdout as JSON too."""
    import argparse

    words = args_list[: args_list.index("--")] if "--" in args_list else args_list
    if not words or "--json" not in words:
        return False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and words[0] in action.choices:
            return "--json" in action.choices[words[0]]._option_string_actions
    return False


def _flushed(code: int, text: str = "") -> int:
    """``code``, once ``text`` and what is left for stdout are written; a stdout that cannot take
    it (a full disk) is one line and exit code 2, a reader that went away (a broken pipe) is no
    error (the command was done: its code stands)."""
    try:
        if text:
            sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()
    except OSError as e:
        drop_stdout()
        _error(f"cannot write to stdout ({e.strerror or e})")
        return EXIT_BAD_INPUT
    return code


def drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of what could not be written
    does not fail again at exit."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class StdoutError(OSError):
    """A write to stdout failed (a full disk, a closed descriptor): whatever command wrote it,
    it ends in one line, not a traceback. A broken pipe stays a BrokenPipeError."""


class _Closed(io.BytesIO):
    def write(self, data: Any) -> int:
        raise StdoutError(errno.EBADF, "it was closed when suture started")


class _ClosedStdout(io.TextIOWrapper):
    """What stdout is when suture was started with it closed (``>&-``): a write says so."""

    def __init__(self) -> None:
        super().__init__(_Closed(), encoding="utf-8")

    def write(self, text: str) -> int:
        raise StdoutError(errno.EBADF, "it was closed when suture started")

    def fileno(self) -> int:
        raise StdoutError(errno.EBADF, "it was closed when suture started")

    def isatty(self) -> bool:
        return False


class _GuardedStdout(io.RawIOBase):
    """The raw stdout under ``sys.stdout``, whose failed writes raise :class:`StdoutError`."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        try:
            return os.write(self.fd, data)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(e.errno, e.strerror) from None

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)


def _guard_stdout() -> None:
    """Put :class:`_GuardedStdout` under the process's own stdout (not under a capture)."""
    stream = sys.stdout
    if not isinstance(stream, io.TextIOWrapper) or stream is not sys.__stdout__:
        return
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    stream.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_GuardedStdout(fd)),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
    )


def _standard_streams() -> None:
    """Descriptors 0, 1 and 2 open, whatever suture was started with: a file suture opens must
    never take the number of a closed stdout, or text meant for the terminal would land in it."""
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
    for fd in closed:
        if os.open(os.devnull, os.O_RDWR) != fd:  # (the lowest free number: the one closed)
            return
    if 1 in closed:
        sys.stdout = _ClosedStdout()
    else:
        _guard_stdout()
    if 2 in closed:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115  (for the life of the process)


def entry() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
