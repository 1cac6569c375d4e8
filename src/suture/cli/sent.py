"""``suture sent IN``: the history the agent sends when it resumes the session, as JSON.

For a session log (Claude Code, Codex, pi) this is what the agent builds from the file on resume
(``suture.sent``): in the wire format of its provider (Anthropic ``messages``, Responses
``input`` items, Chat ``messages``), with the results it makes up, without what it leaves out.
For a request file it is the file's own history. The JSON list goes to stdout; a line on stderr
says whose behaviour was modelled, how many things the agent repairs itself (``suture check``
lists them), and which lines of the file it does not send (those before a compaction).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from suture.cli import EXIT_OK
from suture.cli._common import err, input_path, load_sent, name_of, out_json
from suture.words import count

NAMES = ("sent",)
ORDER = 32


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="print the history the agent sends when it resumes the session (JSON)",
        description=(
            "Print, as JSON on stdout, the history the agent that wrote the session sends when it "
            "resumes it: what it inserts, drops and merges on the way, in the wire format of its "
            "provider. For a request file (chat, messages, responses, ...) it is the file's own "
            "history. Exit 0, or 2 if the file cannot be read."
        ),
    )
    p.add_argument("input", metavar="IN", type=input_path, help="transcript or session file ('-': standard input)")
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument(
        "--body",
        action="store_true",
        help='the request body\'s list as the provider numbers it ({"messages": [...]}, {"input": [...]}): '
        "what the agent adds that the file does not hold is in it, as a stand-in at its place, so "
        "messages.N / input[N] of a provider's error is the Nth entry",
    )
    p.add_argument("--skip-bad-lines", action="store_true", help="use the readable lines of a damaged JSONL file")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary line on stderr")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suture.formats import skipped
    from suture.sent import as_sent
    from suture.sent.numbered import body_of, list_key

    transcript = load_sent(args.input, args.format, args.skip_bad_lines)
    sent = as_sent(transcript)
    out_json({list_key(sent.wire_format): body_of(sent)} if args.body else sent.wire)
    if not args.quiet:
        err(summary(sent, args.input, args.body, skipped(transcript)))
    return EXIT_OK


def summary(sent: Any, path: str, body: bool = False, history: Sequence[str] = ()) -> str:
    """One line: who sends it, to whom, how many entries the request holds (as ``suture check``
    counts them: :func:`suture.sent.numbered.held`) and how many of them the list printed has,
    what the agent repairs itself, and ``history``: what of the file it does not send
    (:func:`suture.formats.skipped`: the lines before a compaction)."""
    from suture.sent import agent_name
    from suture.sent.numbered import held, list_key, place_name, unit

    noun = unit(list_key(sent.wire_format))
    if sent.agent is None:
        return f"suture: {name_of(path)}: {sent.wire_format}: the file's own history, {count(len(sent.wire), noun)}"
    who = agent_name(sent.agent)
    line = (
        f"suture: {name_of(path)}: {who} {sent.model} sends {sent.provider or 'its provider'} a request of "
        f"{count(held(sent), noun)} before the new prompt"
    )
    if sent.fixes:
        line += f"; it repairs {count(len(sent.fixes), 'thing')} itself (suture check lists them)"
    if sent.skipped:
        line += f"; {count(len(sent.skipped), 'record')} it does not send"
    if sent.added:
        # The file does not hold them, but the provider's indices count them.
        places = "; ".join(f"{place_name(sent.wire_format, a.position)}: {a.what}" for a in sent.added)
        one = len(sent.added) == 1
        if body:
            line += f"; this list has all {held(sent):,}, with {'a stand-in' if one else 'stand-ins'} for what {who} adds ({places})"
        else:
            line += (
                f"; this list has {len(sent.wire):,} of them, leaving out what {who} adds ({places}; "
                f"--body puts {'it' if one else 'them'} in)"
            )
    for sentence in history:
        line += f"; {sentence}"
    if sent.assumed:
        line += f" ({sent.assumed})"
    return line
