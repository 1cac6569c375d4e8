"""``suture FILE`` / ``suture view FILE``: open the app; ``suture demo``: open it on a bundled sample.

Textual is imported inside :func:`run` only, so the other subcommands start fast.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from suture.cli import EXIT_OK
from suture.io import InputError, open_file
from suture.settings import read_settings

if TYPE_CHECKING:
    import argparse

NAMES = ("view", "demo")
ORDER = 10

LEAVE_WAIT = 5.0
"""Seconds the app's background threads get to finish once it has closed."""


def add_arguments(sub: Any, name: str) -> None:
    if name == "demo":
        p = sub.add_parser(
            name,
            help="open the app on a bundled sample that shows every kind of change",
            description="Open the app on a small bundled transcript in which repair makes every kind of change.",
        )
        p.set_defaults(run=run, demo=True, input=None, format=None, read_only="", no_watch=True)
        return
    p = sub.add_parser(
        name,
        help="open the app: original and repaired side by side (also 'suture FILE')",
        description=(
            "Open a transcript in the app: the original and the repaired history side by side, every change "
            "marked. The file is watched and the view reloads when it changes. The input is never written "
            "unless you export over it and confirm."
        ),
    )
    p.add_argument("input", metavar="FILE", help="transcript file (a folder: its sessions, in the sessions browser)")
    add_app_options(p)
    p.set_defaults(run=run, demo=False)


FILE_OPTIONS: dict[str, Any] = {"format": None, "read_only": "", "no_watch": False}
"""The options of :func:`add_app_options` as they are when none is given."""


def add_app_options(p: argparse.ArgumentParser) -> None:
    """The options that say how the app reads a file (``view``, and ``serve`` passes them on)."""
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument(
        "--read-only",
        metavar="NAME,...",
        help="tools that only read: their interrupted calls are marked safe to run again",
    )
    p.add_argument("--no-watch", action="store_true", help="read the file once; do not reload when it changes")
    p.set_defaults(**FILE_OPTIONS)


def opened(path: str) -> argparse.Namespace:
    """The arguments of ``suture view FILE`` with no option, as its parser gives them, made
    without argparse (``suture FILE`` is read so: see :func:`suture.cli.main`)."""
    return cast("argparse.Namespace", SimpleNamespace(command="view", input=path, **FILE_OPTIONS, run=run, demo=False))


def refuse_file_options(args: argparse.Namespace) -> None:
    """InputError where options that say how to read a FILE were given with a folder (a folder
    opens in the sessions browser)."""
    given = [flag for flag, value in (("--format", args.format), ("--read-only", args.read_only)) if value]
    if args.no_watch:
        given.append("--no-watch")
    if given:
        raise InputError(f"{', '.join(given)}: for a FILE; a folder opens in the sessions browser")


DEMO_HINT = (
    "The repair makes every kind of change in this transcript. {app.next_change} goes to each change "
    "(the lines under the panes say what it is), {app.next_problem} to each provider problem, {view.open} "
    "shows a message whole, {app.provider} picks another provider, {app.export} exports; {app.help} lists "
    "every key."
)
"""What ``suture demo`` says to try, once its first screen is out (``{id}``: the key of that binding,
the settings file's where it binds it otherwise: :meth:`suture.tui.app.SutureApp.keyed`)."""


def demo_path() -> Path:
    """The bundled demo transcript (a real file inside the installed package)."""
    return Path(__file__).resolve().parent.parent / "tui" / "demo.json"


def need_terminal() -> None:
    """InputError unless stdin and stdout are a terminal the app can run in (or Textual is told
    to draw elsewhere: ``suture serve`` runs each page's app with its web driver). Run with its
    output going to a file, the app would write its screens into the file and wait for keys
    that never come."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return
    for name, stream in (("stdout", sys.stdout), ("stdin", sys.stdin)):
        if stream is None or not stream.isatty():
            raise InputError(
                f"the app needs a terminal, and {name} is not one; in a script, use 'suture check' or 'suture repair'"
            )


def run(args: argparse.Namespace) -> int:
    names = frozenset(n.strip() for n in (args.read_only or "").split(",") if n.strip())
    if args.format is not None:
        from suture.formats import get

        get(args.format)  # an unknown format: said here, in one line, as every command says it
    hint = ""
    if args.demo:
        path = demo_path()
        export_dir: Path | None = Path.cwd()
        title = "demo"
        hint = DEMO_HINT
    else:
        path = Path(args.input)
        if path.is_dir():  # its sessions, in the browser (as suture serve DIR shows them)
            import argparse

            from suture.cli import sessions

            refuse_file_options(args)
            return sessions.run(argparse.Namespace(paths=[str(path)], only=True, no_cache=False))
        open_file(path).close()  # a FIFO, a device: said here, in one line
        export_dir = None
        title = None
    keymap = read_settings().keymap  # a settings file suture cannot use: said here, before the app
    need_terminal()
    # The cycle collector waits while Textual and the app are imported and the first screen is
    # drawn: nothing made meanwhile is garbage, and each collection would walk it all again. The
    # app resumes the collector once that screen is out.
    paused = gc.isenabled()
    gc.disable()
    try:
        from suture.tui.app import SutureApp

        app = SutureApp(
            path,
            format=args.format,
            read_only=names,
            watch=not args.no_watch,
            export_dir=export_dir,
            title=title,
            collector_paused=paused,
            hint=hint,
            keymap=keymap,
        )
        loop = asyncio.new_event_loop()
        try:
            app.run(loop=loop)
        finally:
            _leave(loop)
    finally:
        if paused:  # (an app that ended before its first screen)
            gc.enable()
    return EXIT_OK


def _leave(loop: asyncio.AbstractEventLoop) -> None:
    """End the process once the app has closed, even if a background thread is still held up
    by the file system (a read or a write that does not return): the person asked to quit.
    Threads get a moment to finish (an export being written); any left then is abandoned."""
    loop.close()  # (its thread pool is told to stop; idle threads end)
    deadline = time.monotonic() + LEAVE_WAIT
    others = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    for thread in others:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    if any(thread.is_alive() for thread in others):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
