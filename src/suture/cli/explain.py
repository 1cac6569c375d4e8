"""``suture explain IN "ERROR TEXT"``: which messages a provider's 400 is about, and the fix.

Paste the provider's error (or ``-`` to read it from stdin; without it, the last API error the
session recorded is used, as Claude Code logs them). suture recognises the rule behind
it, finds the ids and indices it names in the transcript, shows those messages, and shows the
repair's changes to them, or says that the repair does not fix this and what to do instead.
An error whose ids or index this file does not hold is about another file or request, and says
so. Where the session recorded the requests it sent (Claude Code 2.1.328 does), the request
behind the recorded error is rebuilt from the file and shown beside it: its size, the message the
error names by its index (``messages.N`` counts that request's messages), and what suture's
check of that request finds. Exit 0 when the error is recognised and its messages found; 1 when they are not (not in this
file, not found, not recognised, or no error given and none recorded); 2 when the input cannot be
read.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from suture import show
from suture.checks import TITLES
from suture.checks.explain import Explanation, closest, explain, summary
from suture.cli import EXIT_FOUND, EXIT_OK
from suture.cli._common import load_strict, out, out_json
from suture.io import InputError
from suture.model import Message

if TYPE_CHECKING:
    from suture.sent.recorded import RecordedRequest

NAMES = ("explain",)
ORDER = 35


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="explain a provider's error: the messages it names and the change that repairs them",
        description=(
            "Recognise a provider's error text (paste it, or '-' to read it from stdin), find the "
            "messages it names in the transcript, and show the repair's changes to them or what to do "
            "where the repair does not fix it. Exit 0 when found; 1 when not (the error names ids or an index "
            "this file does not hold, or no error is given and none is recorded); 2 if the file cannot be read."
        ),
    )
    p.add_argument("input", metavar="IN", help="transcript file")
    p.add_argument(
        "error",
        metavar="ERROR",
        nargs="?",
        help="the provider's error text, or '-' to read it from stdin (default: the last API error the "
        "session itself recorded, where it has one, as Claude Code sessions do)",
    )
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument("--json", action="store_true", help="print a JSON object for scripts")
    p.add_argument("--skip-bad-lines", action="store_true", help="use the readable lines of a damaged JSONL file")
    p.set_defaults(run=run)


def _error_text(value: str) -> str:
    if value == "-":
        try:
            text = sys.stdin.read()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read the error text from stdin ({e})") from None
    else:
        text = value
    if not text.strip():
        raise InputError("the error text is empty: paste the provider's message, or pass '-' and pipe it in")
    return text


def run(args: argparse.Namespace) -> int:
    transcript = load_strict(args.input, args.format, args.skip_bad_lines)
    if args.error is None:
        if not transcript.evidence:
            # Nothing to explain is an answer (exit 1), not unreadable input (exit 2).
            hint = (
                f"{show.path(args.input)} records no API error: pass the provider's error text, "
                "or '-' to read it from stdin"
            )
            if args.json:
                out_json({"file": show.path_json(args.input), "recorded_error": None, "hint": hint})
            else:
                out(hint)
            return EXIT_FOUND
        recorded_at, text = transcript.evidence[-1]
        behind = _request_behind(args.input, recorded_at.line)
        if not args.json:
            more = len(transcript.evidence) - 1
            extra = f" (the last of {more + 1})" if more else ""
            out(f"The API error recorded at {recorded_at}{extra}:", f"  {show.prose(text)[:300]}", "")
            if behind is not None:
                out(*_request_lines(behind, text), "")
    else:
        text = _error_text(args.error)
        behind = None
    messages = transcript.messages
    found = explain(messages, text)
    if not found.recognised:
        return _unrecognised(args, text)
    if args.json:
        _json(args, transcript.format, messages, found, _request_json(behind, text) if behind is not None else None)
    else:
        _human(args, transcript.format, messages, found)
    return EXIT_OK if found.found else EXIT_FOUND


def _request_behind(path: str, line: int | None) -> RecordedRequest | None:
    """The request the session recorded right before the error at ``line``, rebuilt, where the
    file records its requests (a regular file: a pipe cannot be read a second time)."""
    from suture.sent.recorded import read, request_behind

    if line is None or not os.path.isfile(path):
        return None
    try:
        return request_behind(read(path), line)
    except InputError:
        return None


def _named_index(text: str) -> int | None:
    from suture.checks.explain import recognise

    found = recognise(text)
    return found[0].index if found else None


def _block_words(block: Any) -> str:
    if not isinstance(block, dict):
        return "?"
    kind = str(block.get("type"))
    if kind in ("tool_use", "tool_result"):
        return f"{kind} {show.line(str(block.get('id') or block.get('tool_use_id') or '(no id)'))}"
    if kind == "text":
        return f"text {show.prose(str(block.get('text') or ''))[:40]!r}"
    return kind


def _message_words(message: Any) -> str:
    if not isinstance(message, dict):
        return "(not rebuilt)"
    content = message.get("content")
    if isinstance(content, str):
        return f"{message.get('role')}: {show.prose(content)[:60]!r}"
    return f"{message.get('role')}: " + ", ".join(_block_words(b) for b in content or [])


def _request_lines(request: RecordedRequest, error: str) -> list[str]:
    from suture.checks import check

    n = len(request.messages)
    tools = len(request.tools) if isinstance(request.tools, list) else 0
    when = f", sent {request.timestamp}" if request.timestamp else ""
    rebuilt = (
        "every message rebuilt from the file"
        if not request.unresolved
        else "not rebuilt: " + ", ".join(str(u) for u in request.unresolved[:3])
    )
    lines = [f"The request behind it (recorded at line {request.line}{when}): {n} messages, {tools} tools; {rebuilt}."]
    index = _named_index(error)
    if index is not None and 0 <= index < n:
        lines.append(f"  messages.{index} of that request: {_message_words(request.messages[index])}")
    found = check(request.neutral(), "anthropic")
    if found:
        lines.append(
            "  suture's Anthropic check of that request: "
            + "; ".join(f"{v.rule} {show.prose(v.problem)}" for v in found[:3])
        )
    return lines


def _request_json(request: RecordedRequest, error: str) -> dict[str, Any]:
    from suture.checks import check

    index = _named_index(error)
    return {
        "line": request.line,
        "id": request.id,
        "timestamp": request.timestamp,
        "messages": len(request.messages),
        "complete": request.complete,
        "unresolved": [{"position": u.position, "hash": u.hash} for u in request.unresolved],
        "named": {
            "index": index,
            "message": request.messages[index] if index is not None and 0 <= index < len(request.messages) else None,
        },
        "problems": [v.to_json() for v in check(request.neutral(), "anthropic")],
        "body": request.body(),
    }


def _json(
    args: argparse.Namespace,
    fmt: str,
    messages: list[Message],
    found: Explanation,
    request: dict[str, Any] | None = None,
) -> None:
    rec, where = found.recognition, found.location
    assert rec is not None and where is not None
    out_json(
        {
            "file": show.path_json(args.input),
            "request": request,
            "format": fmt,
            "error": found.text,
            "recognised": True,
            "rule": rec.rule.id,
            "title": rec.rule.title,
            "providers": list(rec.providers),
            "provider": where.provider,
            "source": rec.rule.source,
            "named": {"ids": list(rec.ids), "index": rec.index, "block": rec.block},
            "in_file": not found.absent,
            "absent": found.absent,
            "found": found.found,
            "found_by": where.by if found.found else "",
            "messages": [
                {
                    "index": i,
                    "role": messages[i].role,
                    "summary": summary(messages[i]),
                    "source": str(messages[i].source or ""),
                }
                for i in found.indices
            ],
            "violations": [v.to_json() for v in where.violations] if not found.absent else [],
            "fixed_by_repair": found.fixed,
            "verdict": found.verdict(),
            "changes": [c.to_json() for c in found.changes],
            "also_matches": [r.rule.id for r in found.others],
        }
    )


def _human(args: argparse.Namespace, fmt: str, messages: list[Message], found: Explanation) -> None:
    rec, where = found.recognition, found.location
    assert rec is not None and where is not None
    lines: list[str] = []
    w = lines.append
    r = rec.rule
    w(f"Recognised: {r.id} ({', '.join(r.providers)}): {r.title}")
    w(f"  source: {r.source}")
    named = []
    if rec.index is not None:
        named.append(f"index {rec.index}" + (f", block {rec.block}" if rec.block is not None else ""))
    if rec.ids:
        named.append("ids " + ", ".join(rec.ids))
    if named:
        w(f"  the error names: {'; '.join(named)}")
    if found.others:
        w(f"  (the text also fits: {', '.join(o.rule.id for o in found.others[:3])})")
    w("")
    w(f"{show.path(args.input)} ({fmt}, {len(messages)} messages):")
    if found.found:
        if not found.flagged:
            w(f"  The messages the error names (by its {'ids' if where.by == 'ids' else 'index'}):")
        for i in found.indices:
            m = messages[i]
            source = f" ({m.source})" if m.source else ""
            w(f"  [{i}] {m.role}{source}  {summary(m)}")
        for v in where.violations:
            w(f"      {v.rule} at {v.where} ({TITLES[v.provider]}): {v.problem}")
    w("")
    w(found.verdict())
    if found.changes:
        w("Changes the repair makes to these messages:")
        for c in found.changes:
            to = f"[{c.output_index}]" if c.output_index is not None else "(dropped)"
            w(f"  {c.kind} [{c.input_index}] → {to}: {c.summary}")
    out(*lines)


def _unrecognised(args: argparse.Namespace, text: str) -> int:
    near = closest(text)
    if args.json:
        out_json(
            {
                "file": show.path_json(args.input),
                "recognised": False,
                "closest": [{"rule": r.id, "providers": list(r.providers), "title": r.title} for r in near],
            }
        )
        return EXIT_FOUND
    lines = ["suture does not recognise this error text."]
    if near:
        lines.append("Closest rules:")
        for r in near:
            lines += [f"  {r.id} ({', '.join(r.providers)}): {r.title}", f"      e.g. {r.errors[0]}"]
    lines.append("Run 'suture check IN --provider all' to list every problem suture can see.")
    out(*lines)
    return EXIT_FOUND
