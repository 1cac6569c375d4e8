"""``suture sessions [DIR...]`` (and ``suture`` alone, in a terminal): the sessions browser.

Every session Claude Code, Codex and pi keep (their folders found as ``suture scan`` finds them)
plus the folders and files given, newest first, with the verdict on each; Enter opens one side by
side, Esc comes back. Textual is imported inside :func:`run` only.
"""

from __future__ import annotations

import argparse
from typing import Any

from suture.cli import EXIT_OK
from suture.cli.view import need_terminal
from suture.io import InputError
from suture.settings import read_settings

NAMES = ("sessions",)
ORDER = 12


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="browse every agent session on this machine (also 'suture' alone): verdicts, then side by side",
        description=(
            "Open the sessions browser: every session Claude Code, Codex and pi keep (their own folders, or "
            "$CLAUDE_CONFIG_DIR, $CODEX_HOME, $PI_CODING_AGENT_DIR), plus the folders and files given, newest "
            "first, with the verdict on what each would send on resume. It fills in as it scans and keeps up "
            "as sessions change. Enter opens a session side by side; Esc comes back; / filters; v picks a verdict."
        ),
    )
    p.add_argument("paths", metavar="DIR", nargs="*", help="more folders (or files) to look in")
    p.add_argument("--only", action="store_true", help="look only in the folders given, not the agents' own")
    p.add_argument("--no-cache", action="store_true", help="read every file, and keep nothing for next time")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os

    from suture.sessions import agent_places

    for path in args.paths:
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or folder")
    if args.only and not args.paths:
        raise InputError("--only needs folders to look in")
    keymap = read_settings().keymap  # a settings file suture cannot use: said here, before the app
    need_terminal()
    from suture.tui.sessions import SessionsApp, SessionsScreen

    places = [] if args.only else agent_places()
    app = SessionsApp(SessionsScreen(args.paths, places, cache=not args.no_cache), keymap=keymap)
    app.run()
    return EXIT_OK
