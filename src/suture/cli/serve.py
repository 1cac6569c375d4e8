"""``suture serve FILE|DIR`` / ``suture serve --demo``: the app (for a folder, the sessions browser on
that folder's sessions) in a web browser, one app per page.

The server (:mod:`suture.web.server`, textual-serve) is imported inside :func:`run` only: it is an
optional extra, and the other subcommands start without it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from suture import show
from suture.cli import EXIT_OK
from suture.cli._common import err, out
from suture.cli.view import add_app_options, refuse_file_options
from suture.io import InputError, open_file

NAMES = ("serve",)
ORDER = 12

INSTALL_HINT = "suture serve needs the web extra: pip install 'suture[web]'"
DEFAULT_HOST = "127.0.0.1"


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="serve the app to a web browser (one app per page)",
        description=(
            "Serve the app to web browsers: each page that opens the address gets its own app on FILE (on a "
            "folder, the sessions browser on the sessions in it, and only those), "
            "with the same keys, mouse, live reload, export (written on this machine) and copy (to the "
            "browser's clipboard). Listens on 127.0.0.1 only unless --host says otherwise. "
            "Needs the web extra: pip install 'suture[web]'."
        ),
    )
    p.add_argument(
        "input",
        metavar="FILE|DIR",
        nargs="?",
        help="transcript file, or a folder: the sessions browser on its sessions",
    )
    p.add_argument("--demo", action="store_true", help="serve the bundled demo instead of a file")
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help="address to listen on (default: 127.0.0.1, this machine only; any other lets others in)",
    )
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000; 0: any free port)")
    add_app_options(p)
    p.set_defaults(run=run)


def app_command(args: argparse.Namespace) -> tuple[list[str], str]:
    """The command line each page's app runs, and the name that titles the page. Raises
    :class:`InputError` for a FILE that cannot be served."""
    suture = [sys.executable, "-m", "suture"]
    if args.demo:
        if args.input is not None:
            raise InputError("give a FILE or --demo, not both")
        return [*suture, "demo"], "demo"
    if args.input is None:
        raise InputError("name a transcript FILE or a folder of sessions to serve (or --demo for the bundled sample)")
    path = Path(args.input)
    if path.is_dir():
        refuse_file_options(args)
        # The sessions browser on that folder only: serving one folder shows no other sessions.
        return [*suture, "sessions", "--only", str(path.absolute())], show.path(path.absolute().name or "/") + "/"
    _refuse_unreadable(path, args.format)
    # Absolute, so the app finds it whatever its folder; not resolved, so a link stays a link.
    argv = [*suture, "view", str(path.absolute())]
    if args.format:
        argv += ["--format", args.format]
    if args.read_only:
        argv += ["--read-only", args.read_only]
    if args.no_watch:
        argv.append("--no-watch")
    return argv, show.path(path.name)


class _FirstPiece(Exception):
    """The first piece of a large file read as a transcript: the rest need not be read here."""


def _refuse_unreadable(path: Path, format: str | None) -> None:
    """InputError (one line, as ``suture check`` says it) for a FILE the app could not show: not
    a regular file (a FIFO, a device), unreadable, or no transcript suture reads (``--format``:
    not one in that format). Served, it would start and show each page nothing but the error.
    Read as the app reads it: a large file no further than its first piece, as each page's app
    reads the whole of it again (a session log of a million messages is read in seconds)."""
    from suture.live import LiveFile
    from suture.tail import Partial

    open_file(path).close()  # a FIFO or a device: said without waiting on it

    def first_piece(partial: Partial) -> None:
        if partial.transcript is not None:
            raise _FirstPiece

    try:
        update = LiveFile(path, format).poll(progress=first_piece)
    except _FirstPiece:
        return
    if update.kind == "error":
        if format:  # not in the format named: why not, and what it reads as, as check says it
            from suture.cli._common import read_detected

            read_detected(str(path), format)
        raise InputError(f"{path}: {update.error}")


def exposure_warning(host: str, port: int) -> str | None:
    """The warning for a host that others can reach, or ``None`` for a loopback one."""
    from suture.web.server import is_loopback

    if is_loopback(host):
        return None
    return (
        f"suture: warning: listening on {host}: anyone who can reach port {port} can read these "
        "transcripts and export files on this machine"
    )


def _say(line: str) -> None:
    out(line)
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port}: not a port (0 to 65535)")
    argv, name = app_command(args)
    try:
        from suture.web.server import AppServer
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] in ("textual_serve", "aiohttp", "aiohttp_jinja2", "jinja2"):
            raise InputError(INSTALL_HINT) from None
        raise
    server = AppServer(argv, name=name, host=args.host, port=args.port, say=_say)

    def ready(url: str) -> None:
        # Once bound: the port said is the one listened on (--port 0 picks one).
        from urllib.parse import urlsplit

        warning = exposure_warning(args.host, urlsplit(url).port or args.port)
        if warning:
            err(warning)
        _say(f"suture: serving {name} at {url} (each page gets its own app; Ctrl+C stops)")

    asyncio.run(server.serve_until_stopped(ready))
    return EXIT_OK
