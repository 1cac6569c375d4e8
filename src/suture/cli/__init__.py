"""The ``suture`` command line.

``suture FILE`` (or ``suture view FILE``) opens the app; ``suture demo`` opens a bundled sample;
``suture repair``, ``suture check`` and ``suture formats`` work without the app and never import
Textual, so they start fast and compose in scripts. Every error a person can cause ends in one
line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType

from suture.io import InputError

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


EXIT_OK = 0
EXIT_FOUND = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        from suture.show import line

        sys.stderr.write(f"suture: error: {line(message)} (see 'suture {self.prog.split()[-1]} --help')\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("suture")
    except PackageNotFoundError:
        return "0+unknown"


class _VersionAction(argparse.Action):
    """``--version``, looking the version up only when asked (package metadata is slow to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        sys.stdout.write(f"suture {_version()}\n")
        parser.exit()


def build_parser(only: ModuleType | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that module's subcommands."""
    parser = _Parser(
        prog="suture",
        description=(
            "See why a provider rejects an LLM agent transcript, repair it, and review every change. "
            "'suture FILE' opens the app."
        ),
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if only is not None:
        for name in only.NAMES:
            only.add_arguments(sub, name)
        return parser
    for name, module in commands().items():
        module.add_arguments(sub, name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    own = _own_module(args_list[0]) if args_list else None
    if (
        own is None
        and args_list
        and args_list[0] not in commands()
        and not args_list[0].startswith("-")
        and "view" in commands()
    ):
        args_list.insert(0, "view")
    parser = build_parser(own)
    if not args_list:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    args = parser.parse_args(args_list)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except InputError as e:
        from suture.show import line

        sys.stderr.write(f"suture: error: {line(str(e))}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our stdout went away (| head): not an error of ours. Point stdout at
        # /dev/null so the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def entry() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
