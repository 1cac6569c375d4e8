"""The command line's parser classes: argparse, imported once a command line is parsed with it.

``suture FILE`` alone is read without it (:func:`suture.cli.view.opened`), so the app's first
screen does not wait for argparse and the message catalogues it loads.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

import suture
from suture import show
from suture.cli import EXIT_BAD_INPUT, EXIT_OK, _error, _flushed

__all__ = ["Parser", "VersionAction"]


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2, pointing at the help of
    the subcommand in use (argparse reports a subcommand's unknown options from the top)."""

    command: str | None = None
    json: bool = False
    """Whether the command line asks for ``--json`` of a command that has it: the error is then
    given on stdout too, as JSON (:func:`suture.cli._error`)."""

    dashed: tuple[str, ...] = ()
    """The words of the command line that start with ``-`` and name a file: a usage error says
    how to name it (:meth:`error`)."""

    @staticmethod
    def files_dashed(args: Sequence[str]) -> tuple[str, ...]:
        """The words of ``args`` that start with ``-`` and name a file (:attr:`dashed`)."""
        if "--" in args:  # (what follows it is no option: the error is of another word)
            return ()
        return tuple(a for a in args if len(a) > 1 and a.startswith("-") and os.path.lexists(a))

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse, but an optional positional left empty because an option came between it
        and the one before (``suture explain IN --json ERROR``) takes the first value left over:
        argparse matches the positionals in one go where the first of them comes, so ERROR was
        "unrecognized", though options go anywhere else."""
        parsed, extras = super().parse_known_args(args, namespace)
        for action in self._actions:
            if action.option_strings or action.nargs != argparse.OPTIONAL:
                continue
            if getattr(parsed, action.dest, None) != action.default:
                continue
            k: int | None
            if "--" in extras[:-1]:  # what follows -- is a value whatever it starts with: "-32600 …"
                k = extras.index("--")
                del extras[k]
            else:
                k = next((i for i, s in enumerate(extras) if s == "-" or not s.startswith("-")), None)
            if k is None:
                break
            setattr(parsed, action.dest, self._get_values(action, [extras.pop(k)]))
        return parsed, extras

    def error(self, message: str) -> None:  # type: ignore[override]
        prog = self.prog if self.prog != "suture" or not Parser.command else f"suture {Parser.command}"
        said = f"{message} (see '{prog} --help')"
        named = next((a for a in Parser.dashed if a not in self._option_string_actions), None)
        if named is not None:  # (a file whose name starts with "-" is read as an option)
            shown = show.path(named)
            said = f"{said}; {shown} is read as an option: name the file ./{shown}"
        _error(said, json=Parser.json)
        raise SystemExit(EXIT_BAD_INPUT)


class VersionAction(argparse.Action):
    """``--version``, looking the version up only when asked (package metadata is slow to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise SystemExit(_flushed(EXIT_OK, f"suture {suture.__version__}\n"))
