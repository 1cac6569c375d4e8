"""``suture explain IN "ERROR TEXT"``: which messages a provider's 400 is about, and the fix.

Paste the provider's error (or ``-`` to read it from stdin; without it, the last API error the
session recorded is used, as Claude Code logs them). suture recognises the rule behind
it, finds the ids and indices it names in the transcript, shows those messages, and shows the
repair's changes to them, or says that the repair does not fix this and what to do instead.
Exit 0 when the error is recognised and its messages found, 1 when they are not found (or the
text is not recognised), 2 when the input cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from suture import show
from suture.checks import TITLES
from suture.checks.explain import Location, Recognition, closest, locate, recognise
from suture.cli._common import load_strict, out, out_json
from suture.io import InputError
from suture.model import ImagePart, Message, TextPart, text_of
from suture.repair import Change, Repair, repair

NAMES = ("explain",)
ORDER = 35


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="explain a provider's error: the messages it names and the change that repairs them",
        description=(
            "Recognise a provider's error text (paste it, or '-' to read it from stdin), find the "
            "messages it names in the transcript, and show the repair's changes to them or what to do "
            "where the repair does not fix it. Exit 0 when found, 1 when not, 2 if the file cannot be read."
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


def summary(m: Message, limit: int = 70) -> str:
    """One line about a message: its calls, its result id, its text."""
    bits = []
    if m.tool_calls:
        bits.append("calls " + ", ".join(f"{c.name or '?'} {c.id or '(no id)'}" for c in m.tool_calls))
    if m.role == "tool":
        bits.append(f"result for {m.tool_call_id or '(no id)'}")
    content = m.content
    if isinstance(content, list):
        content = "\n".join(p.text for p in content if isinstance(p, TextPart))
    text = " ".join(text_of(content).split())
    if text:
        bits.append(f"“{show.prose(text if len(text) <= limit else text[: limit - 1] + '…')}”")
    images = [p for p in (m.content if isinstance(m.content, list) else []) if isinstance(p, ImagePart)]
    if images:
        bits.append(f"{len(images)} image{'s' if len(images) > 1 else ''}")
    return "  ".join(bits) or "(empty)"


def _changes(result: Repair, indices: set[int], ids: set[str]) -> list[Change]:
    return [
        c
        for c in result.changes
        if c.input_index in indices or (c.call_id is not None and c.call_id in ids) or (c.new_id in ids)
    ]


def run(args: argparse.Namespace) -> int:
    transcript = load_strict(args.input, args.format, args.skip_bad_lines)
    if args.error is None:
        if not transcript.evidence:
            raise InputError(
                f"{show.path(args.input)}: records no API error; pass the provider's error text (or '-' to read it from stdin)"
            )
        recorded_at, text = transcript.evidence[-1]
        if not args.json:
            more = len(transcript.evidence) - 1
            extra = f" (the last of {more + 1})" if more else ""
            out(f"The API error recorded at {recorded_at}{extra}:", f"  {show.prose(text)[:300]}", "")
    else:
        text = _error_text(args.error)
    messages = transcript.messages
    recognised = recognise(text)
    if not recognised:
        return _unrecognised(args, text)
    rec = recognised[0]
    result = repair(messages)
    where = locate(messages, rec, result)
    ids = set(rec.ids) | {v.call_id for v in where.violations if v.call_id}
    related = set(where.indices) | {i for v in where.violations for i in v.related}
    changes = _changes(result, related, ids)
    if args.json:
        _json(args, transcript.format, messages, rec, where, changes, recognised[1:], text)
    else:
        _human(args, transcript.format, messages, rec, where, changes, recognised[1:])
    return 0 if where.found else 1


def _fix(rec: Recognition, where: Location) -> tuple[bool, str]:
    """Whether the repair fixes what the error is about, and the remedy or what the repair does."""
    if where.violations:
        fixed = all(v.fixed for v in where.violations)
        remedies = [v.remedy for v in where.violations if not v.fixed] or [where.violations[0].remedy]
        return fixed, remedies[0]
    return rec.rule.fixed == "yes", rec.rule.remedy


def _json(
    args: argparse.Namespace,
    fmt: str,
    messages: list[Message],
    rec: Recognition,
    where: Location,
    changes: list[Change],
    others: list[Recognition],
    text: str,
) -> None:
    fixed, remedy = _fix(rec, where)
    out_json(
        {
            "file": show.path_json(args.input),
            "format": fmt,
            "error": text,
            "recognised": True,
            "rule": rec.rule.id,
            "title": rec.rule.title,
            "providers": list(rec.providers),
            "provider": where.provider,
            "source": rec.rule.source,
            "named": {"ids": list(rec.ids), "index": rec.index, "block": rec.block},
            "found": where.found,
            "found_by": where.by,
            "messages": [
                {
                    "index": i,
                    "role": messages[i].role,
                    "summary": summary(messages[i]),
                    "source": str(messages[i].source or ""),
                }
                for i in where.indices
            ],
            "violations": [v.to_json() for v in where.violations],
            "fixed_by_repair": fixed,
            "remedy": remedy,
            "changes": [c.to_json() for c in changes],
            "also_matches": [r.rule.id for r in others],
        }
    )


def _human(
    args: argparse.Namespace,
    fmt: str,
    messages: list[Message],
    rec: Recognition,
    where: Location,
    changes: list[Change],
    others: list[Recognition],
) -> None:
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
    if others:
        w(f"  (the text also fits: {', '.join(o.rule.id for o in others[:3])})")
    w("")
    w(f"{show.path(args.input)} ({fmt}, {len(messages)} messages):")
    if not where.found:
        what = "the ids and indices it names" if named else "a problem of this rule"
        w(
            f"  not found: suture's {', '.join(r.providers)} check finds no {r.id} problem here, and no message matches {what}."
        )
        w("  Is this the transcript that was sent? (A provider counts messages as it received them.)")
    else:
        if where.by != "check":
            w(
                f"  suture's {where.provider} check does not flag {r.id} here: it may need what only the provider "
                "saw (the original thinking blocks, item state), or the request differed from this file."
            )
            w(f"  The messages the error names (by its {'ids' if where.by == 'ids' else 'index'}):")
        for i in where.indices:
            m = messages[i]
            source = f" ({m.source})" if m.source else ""
            w(f"  [{i}] {m.role}{source}  {summary(m)}")
        for v in where.violations:
            w(f"      {v.rule} at {v.where} ({TITLES[v.provider]}): {v.problem}")
    fixed, remedy = _fix(rec, where)
    w("")
    if where.found and fixed:
        w(f"Repair: fixes it: {remedy}.")
    elif where.found:
        w(f"Repair: does not fix this. What to do: {remedy}")
    else:
        w(f"What fixes it: {remedy}")
    if changes:
        w("Changes the repair makes to these messages:")
        for c in changes:
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
        return 1
    lines = ["suture does not recognise this error text."]
    if near:
        lines.append("Closest rules:")
        for r in near:
            lines += [f"  {r.id} ({', '.join(r.providers)}): {r.title}", f"      e.g. {r.errors[0]}"]
    lines.append("Run 'suture check IN --provider all' to list every problem suture can see.")
    out(*lines)
    return 1
