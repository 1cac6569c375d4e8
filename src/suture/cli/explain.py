"""``suture explain IN "ERROR TEXT"``: which messages a provider's 400 is about, and the fix.

Paste the provider's error (as ``ERROR`` or ``--error TEXT``; ``-`` reads it from stdin; without it, the last API error the
session recorded is used, as Claude Code logs them). suture recognises the rule behind
it, finds the ids and indices it names in the transcript, shows those messages, and shows the
repair's changes to them, or says that the repair does not fix this and what to do instead.
An error whose ids or index this file does not hold, or whose index names a message of another
role than the one it is about (an assistant message's thinking blocks at a user message), is
about another file, request or numbering, and says so. Where the session recorded the requests it sent (Claude Code 2.1.328 does), the request
behind the recorded error is rebuilt from the file and shown beside it: its size, the message the
error names by its index (``messages.N`` counts that request's messages), and what suture's
check of that request finds. An error that is not about the history (the provider overloaded or
failing, a stream cut, a timeout, a rate limit) says so, and that resuming after a wait is what to
do, unless the file's provider rejects the history itself: then that is said instead
(:func:`~suture.checks.explain.rejected_history`). A history longer than the model's context window
says that it must be compacted, unless the error counts more tokens than the file can hold (not
this file's) or the session was compacted after it. Exit 0 when the error is recognised and its
messages found, or its cause is known and nothing else is to be done; 1 when they are not (not in
this file, not found, not recognised, or the history is rejected too); 2 when the input cannot be
read, or no error text is given and the file records none.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from suture import show
from suture.checks import TITLES
from suture.checks.explain import Elsewhere, Explanation, explain_transcript, rejected_history, repair_writes, summary
from suture.cli import EXIT_FOUND, EXIT_OK
from suture.cli._common import (
    STDIN,
    input_path,
    is_stdin,
    load_sent,
    made_in_sent,
    made_up,
    name_json,
    name_of,
    name_typed,
    out,
    out_json,
    unmade,
    unmade_json,
)
from suture.io import InputError
from suture.model import Message, Transcript
from suture.written import went_on_said

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
            "where the repair does not fix it, or that the error is not about the history (the provider's side, "
            "or a limit) or that the history is too long for the model. Exit 0 when found, or when the cause is "
            "known and nothing else is to be done; 1 when not (the error names ids, an index or a token count "
            "this file does not hold, or an index at a message of another role than the one it is about, or is "
            "not recognised, or the history is rejected too); 2 if the file cannot "
            "be read, or no error text is "
            "given and the file records none."
        ),
    )
    p.add_argument("input", metavar="IN", type=input_path, help="transcript file ('-': standard input)")
    p.add_argument(
        "error",
        metavar="ERROR",
        nargs="?",
        help="the provider's error text, or '-' to read it from stdin (default: the last API error the "
        "session itself recorded, where it has one, as Claude Code sessions do)",
    )
    p.add_argument(
        "--error",
        dest="error_option",
        metavar="TEXT",
        help="the provider's error text, as an option (the same as ERROR; give one of the two)",
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
    if not text.strip() and value == "-":
        raise InputError(
            "stdin held no error text: pipe the provider's message in (pbpaste | suture explain FILE -), "
            "or give it as ERROR or --error"
        )
    if not text.strip():
        raise InputError("the error text is empty: paste the provider's message, or pass '-' and pipe it in")
    return text


def run(args: argparse.Namespace) -> int:
    from suture.sent.recorded import recorded_in

    if args.error_option is not None:
        if args.error is not None:
            raise InputError("give the error text once: as ERROR or with --error, not both")
        args.error = args.error_option
    if args.input == STDIN and args.error == "-":
        raise InputError("standard input holds one thing: pipe in the transcript or the error text, not both")
    # As check reads it: the lines of a session log its agent skips (a last line cut off in a
    # crash) are skipped here too, each named on stderr.
    transcript = load_sent(args.input, args.format, args.skip_bad_lines)
    if args.error is None and not transcript.evidence:
        # Nothing to explain: a usage error (exit 2), as an empty error text is.
        raise InputError(
            f"{name_of(args.input)} records no API error: pass the provider's error text as ERROR "
            "or --error, or '-' to read it from stdin"
        )
    requests = recorded_in(args.input, transcript)  # a Claude Code session's own requests
    recorded_at, text = transcript.evidence[-1] if args.error is None else (None, _error_text(args.error))
    messages = transcript.messages
    found = explain_transcript(transcript, text, requests=requests)
    if recorded_at is not None and not args.json:
        more = len(transcript.evidence) - 1
        extra = f" (the last of {more + 1})" if more else ""
        if found.went_on:  # (so it is not what stopped the session)
            extra += f"; {went_on_said(found.went_on)}"
        out(f"The API error recorded at {recorded_at}{extra}:", f"  {show.prose(text)[:300]}", "")
    if is_stdin(args.input) and found.writes:  # (no file of its own to write in place: -o, put in place)
        found.writes = repair_writes(transcript, in_place=False)
    if not found.recognised:
        return _unrecognised(args, transcript, found)
    behind = found.request.recorded if found.request is not None else None
    # Ids suture made up for calls that have none (Gemini's): named by their place, or the session's own id.
    made = made_in_sent(transcript, found.request.sent) if found.session and found.request else ({}, {})
    if not made[0]:
        made = (made_up(transcript), {})
    if args.json:
        request = _request_json(behind, found) if behind is not None else None
        _json(args, transcript.format, messages, found, request, made)
    else:
        if behind is not None:
            if args.error is not None and behind.error is not None:
                out(f"The session recorded this error at {behind.error[0]}.")
            out(*_request_lines(behind, found), "")
        _human(args, transcript, found, made)
    return EXIT_OK if found.found else EXIT_FOUND


def _request_lines(request: RecordedRequest, found: Explanation) -> list[str]:
    from suture.sent.recorded import message_words

    lines = [f"The request behind it ({request.described()})."]
    index = found.named
    if index is not None and 0 <= index < len(request.messages):
        lines.append(f"  messages.{index} of that request: {message_words(request.messages[index])}")
    sent = found.request
    assert sent is not None
    problems = sent.check(sent.provider)
    if problems:
        lines.append(
            f"  suture's {TITLES.get(sent.provider, sent.provider)} check of that request: "
            + "; ".join(f"{v.rule} at {sent.where(v)}: {show.prose(v.problem)}" for v in problems[:3])
        )
    return lines


def _request_json(request: RecordedRequest, found: Explanation) -> dict[str, Any]:
    index = found.named
    sent = found.request
    assert sent is not None
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
        "problems": [{**v.to_json(), "at": sent.where(v)} for v in sent.check(sent.provider)],
        "body": request.body(),
    }


def _json(
    args: argparse.Namespace,
    fmt: str,
    messages: Sequence[Message],
    found: Explanation,
    request: dict[str, Any] | None = None,
    made: tuple[dict[str, str], dict[str, str]] = ({}, {}),
) -> None:
    rec, where = found.recognition, found.location
    assert rec is not None and where is not None
    rule = found.rule or rec.rule
    said = _said_json(
        {
            "file": name_json(args.input),
            "request": request,
            "format": fmt,
            "error": found.text,
            "recognised": True,
            "kind": found.kind,
            "rule": rec.rule.id,
            "title": rec.rule.title,
            "found_rule": rule.id if found.flagged else None,
            "providers": list(rec.providers),
            "provider": where.provider,
            "source": rec.rule.source,
            "named": {"ids": list(rec.ids), "index": rec.index, "block": rec.block},
            "sent": _sent_json(found),
            "in_file": not found.absent,
            "absent": found.absent,
            "found": found.found,
            "found_by": where.by if found.found else "",
            "first": found.first if found.found else None,
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
        },
        made,
    )
    out_json(said)


def _said_json(said: dict[str, Any], made: tuple[dict[str, str], dict[str, str]]) -> dict[str, Any]:
    """``explain --json`` where suture made up call ids (:func:`made_up`, :func:`made_in_sent`):
    each message, problem and change that names one names its place (or the session's own id)."""
    places, real = made
    if not places:
        return said
    sent = said.get("sent") or {}
    every = [said["messages"], said["violations"], said["changes"], sent.get("problems")]
    for listed in every:
        for item in listed or []:
            unmade_json(item, places, real)
    return said


def _sent_json(found: Explanation) -> dict[str, Any] | None:
    """For a session log: the request the error's indices count, where its index points there,
    what the provider's check finds, whether the agent sends it again or repairs it itself."""
    request = found.request
    if not found.session or request is None:
        return None
    sent = request.sent
    return {
        "request": request.label,
        "laid_out_as": request.layout,
        "as_written": request.written_view,
        "numbering": found.numbering or None,
        "exact": request.exact,
        "agent": sent.agent,
        "version": sent.version,
        "model": sent.model,
        "assumed": sent.assumed,
        "length": request.length,
        "index": found.named,
        "at": request.name(found.named) if found.named is not None else None,
        "written": list(request.written[found.named]) if found.named is not None else [],
        # A place the agent makes up on resume ([new]): what it is; the messages are the calls it answers.
        "made_up": request.added.get(found.named) if found.named is not None else None,
        "problems": [{**f.violation.to_json(), "at": f.where, "written": list(f.written)} for f in found.findings],
        "sends_again": found.flagged and (found.now is None or bool(found.now)),
        "agent_repairs": [f.to_json() for f in found.fixes],
        "suture_repair_writes": found.writes,
    }


def _human(
    args: argparse.Namespace,
    transcript: Transcript,
    found: Explanation,
    ids: tuple[dict[str, str], dict[str, str]] = ({}, {}),
) -> None:
    """``suture explain`` as text (``ids``: the call ids suture made up, each with its place, and
    of those the session's own ids: :func:`made_in_sent`)."""
    rec, where = found.recognition, found.location
    assert rec is not None and where is not None
    messages = transcript.messages
    request = found.request if found.session else None
    lines: list[str] = []
    w = lines.append
    r = rec.rule
    w(f"Recognised: {r.id} ({', '.join(r.providers)}): {r.title}")
    w(f"  source: {r.source}")
    if named := rec.named():
        w(f"  the error names: {named}")
    if found.flagged and found.rule is not None and found.rule.id != r.id:
        w(f"  suture's check finds {found.rule.id} there: {found.rule.title}")
    if found.others:
        w(f"  (the text also fits: {', '.join(o.rule.id for o in found.others[:3])})")
    w("")
    written = f"{len(messages)} messages as written" if request is not None else f"{len(messages)} messages"
    w(f"{name_of(args.input)} ({transcript.format}, {written}):")
    if request is not None:
        sent = request.sent
        if sent.assumed:
            w(f"  ({sent.assumed})")
        w(f"  The error counts {request.label}.")
        if found.numbering:
            w(f"  ({found.numbering})")
    made = request.added.get(found.named) if request is not None and found.named is not None else None
    if found.found:
        if request is not None and found.named is not None and made is not None:
            # A place the agent makes up on resume: what it is, then the call it answers.
            w(f"  {request.name(found.named)} there is [new]: {made}; it answers:")
        elif request is not None and found.named is not None:
            w(f"  {request.name(found.named)} there is written as:")
        elif request is not None and where.by == "ids":
            w("  The messages the error's ids name:")
        elif request is not None and where.by == "file":
            w("  The error names no message; the file as written has this problem at:")
        elif not found.flagged:
            w(f"  The messages the error names (by its {'ids' if where.by == 'ids' else 'index'}):")
        at = set(request.written[found.named]) if request is not None and found.named is not None else None
        for k, i in enumerate(found.indices):
            if made is None and at is not None and i not in at and (k == 0 or found.indices[k - 1] in at):
                w("  The message the problem there is about:")
            m = messages[i]
            source = f" ({m.source})" if m.source else ""
            left = "  (left out when sent)" if found.left_out(i) else ""
            w(f"  [{i}] {m.role}{source}  {summary(m)}{left}")
        if request is not None:
            for f in found.findings:
                title = TITLES.get(f.violation.provider, f.violation.provider)
                w(f"      {f.violation.rule} at {f.where} ({title}): {f.violation.problem}")
        else:
            for v in where.violations:
                w(f"      {v.rule} at {v.where} ({TITLES[v.provider]}): {v.problem}")
    w("")
    said = found.verdict()
    head, mark, rest = said.partition(" Repair: ")
    w(head)
    if mark:
        w("Repair: " + rest)
    if request is not None and found.flagged and found.fixed:
        w(f"  {_repair_command(args.input, transcript)}")
    if found.changes:
        w("Changes the repair makes to these messages:")
        for c in found.changes:
            to = f"[{c.output_index}]" if c.output_index is not None else "(dropped)"
            w(f"  {c.kind} [{c.input_index}] → {to}: {c.summary}")
    out(*(unmade(line, *ids) for line in lines))


def _repair_command(path: str, transcript: Transcript) -> str:
    """The command that writes the repair of ``path``: a session log in its place, for its agent
    to resume (the original kept as .bak), else beside it, named for what it writes."""
    from suture.formats import export_name
    from suture.writeback import writes_back

    if writes_back(transcript.format) and not is_stdin(path):
        return f"$ suture repair {shlex.quote(name_typed(path))} --in-place"  # (the session its agent resumes)
    stem, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        stem, ext = path, ""
    if is_stdin(path):  # (named stdin.json in a folder, as suture repair --out-dir names it)
        stem, ext = "stdin", ""
    if writes_back(transcript.format):
        ext = "jsonl"  # the session log itself, written back for its agent to resume: JSONL
    elif export_name(transcript) != transcript.format:
        ext = "json"  # the repaired history as a request body: one JSON document
    target = f"{stem}.repaired.{ext}" if ext else f"{stem}.repaired"
    return f"$ suture repair {shlex.quote(name_typed(path))} -o {shlex.quote(show.path(target))}"


def _unrecognised(args: argparse.Namespace, transcript: Transcript, found: Explanation) -> int:
    """A text no rule recognises: not about the history (the provider's side, or a limit), or a
    history longer than the model's context window (exit 0 for either, where nothing else is to be
    done), or the closest rules (exit 1). Beside an error that is not about the history, whether
    the file's provider rejects the history itself (:func:`rejected_history`, as the app's
    headline judges it): then it is said, resuming as it is is not advised, and exit 1. A length
    error that counts more tokens than the file can hold is not this file's (exit 1)."""
    near = found.closest
    cause = found.elsewhere
    judged = rejected_history(transcript) if found.beside_history else None
    rejected = cause is not None and cause.rejected_too(judged is not None)
    said = found.verdict(rejected)
    done = cause is not None and not rejected and not found.absent
    if args.json:
        out_json(
            {
                "file": name_json(args.input),
                "error": found.text,
                "recognised": False,
                "kind": found.kind,
                "matched": cause.matched if cause is not None else None,
                "in_file": not found.absent,
                "absent": found.absent,
                "tokens": _tokens_json(cause),
                "history": None
                if not found.beside_history
                else {"rejected": rejected, "summary": judged.summary() if judged is not None else None},
                "verdict": said,
                "closest": [{"rule": r.id, "providers": list(r.providers), "title": r.title} for r in near],
            }
        )
        return EXIT_OK if done else EXIT_FOUND
    if cause is not None:
        name = name_typed(args.input)
        if judged is None:
            from suture.formats import own_provider

            # (Looked up where the error is beside the history: none rejects it then.)
            provider = own_provider(transcript) if found.beside_history else ""
            out(
                said,
                f"{provider} accepts the history itself ('suture check {name}' gives its verdict)."
                if provider
                else f"Run 'suture check {name}' to see whether the history itself is accepted.",
            )
        else:
            told = [said, f"  {judged.summary()} ('suture check {name}' lists what)"]
            if judged.contract.before and not judged.contract.after:  # (the repair leaves none)
                told += ["Repair: fixes it:", f"  {_repair_command(args.input, transcript)}"]
            out(*told)
        return EXIT_OK if done else EXIT_FOUND
    lines = [said]
    if near:
        lines.append("Closest rules:")
        for r in near:
            lines += [f"  {r.id} ({', '.join(r.providers)}): {r.title}", f"      e.g. {r.errors[0]}"]
    lines.append("Run 'suture check IN --provider all' to list every problem suture can see.")
    out(*lines)
    return EXIT_FOUND


def _tokens_json(cause: Elsewhere | None) -> dict[str, Any] | None:
    """For a context-window error: the tokens it counts, the most what is sent from the file can
    hold, and the line of a compaction that makes what is sent now shorter than its request."""
    if cause is None or cause.kind != "length":
        return None
    return {"named": cause.tokens, "most_sent": cause.most, "compacted": cause.compacted}
