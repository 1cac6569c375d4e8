"""``suture check IN``: what would make a provider reject the transcript; exit 1 if anything.

For a session log (Claude Code, Codex, pi) the verdict is on what the agent sends when it resumes
the session (``suture.sent``), for the provider it talks to unless ``--provider`` names others:
its problems (exit 1 if any), then what the agent repairs itself (notes, never problems), the
records it does not send (the history before a compaction named under the file's header), and
the contract view: what suture's repair of the file as written changes (``suture repair``), each
of its problems listed as the app lists them. Lines the agent cannot read are skipped, as it skips them.

For any other file, without ``--provider`` it lists every way the transcript breaks the repair contract's Valid property (the
contract every provider's rules share). With ``--provider NAME|all`` (repeatable or
comma-separated) it runs those providers' own checks (``suture.checks``) on the original and on
the repaired history and shows, per provider, each problem: which message, which rule, the text
the provider would send, and whether the repair fixes it or what to do instead.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from suture import show
from suture.checks import PROVIDERS, RULES, TITLES, Verdict, Violation, resolve, verdicts
from suture.checks._base import LIST
from suture.cli import EXIT_FOUND, EXIT_OK
from suture.cli._common import (
    bad_lines_json,
    changes_said,
    input_path,
    loaded_sent,
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
from suture.formats import before_compaction, own_provider, skipped
from suture.io import InputError
from suture.model import Message, Skipped, Transcript
from suture.repair import Repair
from suture.validity import Breach, violations
from suture.words import AS_WRITTEN, SENT_AS_WRITTEN, count, either
from suture.words import CONTRACT as CONTRACT_VIEW

if TYPE_CHECKING:
    from suture.scan import AfterRepair
    from suture.sent import Sent, SentVerdict
    from suture.sent.numbered import SentRequest

NAMES = ("check",)
ORDER = 30

SHOWN = 20
"""Problems listed per provider and list in the terminal unless --all is given."""


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="list what would make a provider reject the transcript; exit 1 if anything",
        description=(
            "List every way the transcript breaks suture's Valid property (a call without exactly one "
            "result right after it, a result outside its call's turn, two calls with one id), or with "
            "--provider, every rule of those providers it breaks, before and after repair (without it, the "
            "file's own provider's verdict is given beside the list). "
            "Exit 1 if there is any (or the file's own provider rejects it), 0 if none, 2 if the file "
            "cannot be read."
        ),
    )
    p.add_argument("input", metavar="IN", type=input_path, help="transcript file ('-': standard input)")
    p.add_argument(
        "--provider",
        action="append",
        metavar="NAME",
        help="check this provider's rules (repeatable, or comma-separated; 'all' for every one): "
        + ", ".join(PROVIDERS),
    )
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument("--json", action="store_true", help="print a JSON object for scripts")
    p.add_argument(
        "--all",
        action="store_true",
        help=f"list every problem (default: the first {SHOWN} of each list)",
    )
    p.add_argument("--skip-bad-lines", action="store_true", help="check the readable lines of a damaged JSONL file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suture.sent import models

    providers = resolve(args.provider) if args.provider else ()
    if args.provider and not providers:  # --provider "" (or ","), as any unknown name is
        raise InputError(
            f"--provider {show.line(repr(','.join(args.provider)))} names no provider; "
            f"known providers: {', '.join(PROVIDERS)}, all"
        )
    data, transcript, args.others = loaded_sent(args.input, args.format, args.skip_bad_lines)
    if transcript.format in models():
        return _run_session(args, transcript, providers, data)
    if providers:
        return _run_providers(args, transcript, providers)
    found = violations(transcript.messages)
    # The Valid property is stricter than any one provider: the verdict of the file's own
    # provider (the one the app's headline and suture scan give) is said beside it.
    own = own_provider(transcript)
    mine = verdicts(transcript.messages, (own,))[own] if own else None
    made = made_up(transcript)
    if args.json:
        checked = {} if mine is None or own is None else {own: _request_entry(own, mine, transcript.messages)}
        report = _report(
            args,
            transcript,
            clean=not found and not (mine is not None and mine.before),
            valid=not found,
            problems=[{**v.to_json(), "source": str(transcript.messages[v.index].source or "")} for v in found],
            own_provider=_own_json(own, checked),
            repaired_messages=None if mine is None else len(mine.repair.messages),
            providers=checked,
        )
        out_json(_unmade_report(report, made))
    else:
        out(*(unmade(line, made) for line in _valid_lines(args, transcript, found, own, mine)))
    # Clean only where both hold: a history its own provider rejects (an id too long for it) is
    # no clean file, whatever the contract says of its calls and results.
    return EXIT_FOUND if found or (mine is not None and mine.before) else EXIT_OK


def _valid_lines(
    args: argparse.Namespace, transcript: Transcript, found: list[Breach], own: str | None, mine: Verdict | None
) -> list[str]:
    """``suture check`` without ``--provider`` on a request file, as text: the Valid property's
    problems (the first :data:`SHOWN` unless ``--all``), and the verdict of the file's own provider."""
    n = len(transcript.messages)
    name = name_of(args.input)
    if not found:
        rejects = f", but {own} rejects it" if mine is not None and mine.before else ""
        lines = [f"{name}: valid ({count(n, 'message')}, {transcript.format}){rejects}{_reads_too(args.others)}"]
    else:
        lines = [
            f"{name}: {count(len(found), 'problem')} ({count(n, 'message')}, {transcript.format}){_reads_too(args.others)}"
        ]
        limit = None if args.all else SHOWN
        for v in found[:limit]:
            source = transcript.messages[v.index].source
            where = f" ({source})" if source else ""
            lines.append(f"  [{v.index}]{where} {v.problem}")
        if limit is not None and len(found) > limit:
            lines.append(f"  … and {len(found) - limit:,} more; --all lists them, --json gives every field")
    if mine is not None:
        listed = f"; --provider {own} lists them" if mine.before else ""
        lines.append(
            f"  (Valid is suture's property of calls and results, stricter there than any one provider: "
            f"results in call order, say. This file's provider, "
            f"{mine.summary()}{listed})"
        )
    return lines


def _reads_too(others: Sequence[str]) -> str:
    """What a header adds where detection found other formats the file fits (``Detection.others``),
    and what naming one does: `` (it reads as Anthropic Messages just as well: --format messages judges
    it by the rules of Anthropic Messages)``; ``""`` where none."""
    from suture.formats import get, provider_of

    if not others:
        return ""
    titles = [get(name).title.split(" (")[0] for name in others]
    if len(others) > 1:
        return f" (it reads as {either(titles)} just as well: --format {either(list(others))} judges it as that format)"
    provider = provider_of(others[0])
    rules = f"the rules of {TITLES[provider]}" if provider else "the Valid property every provider shares"
    return f" (it reads as {titles[0]} just as well: --format {others[0]} judges it by {rules})"


def _source(messages: Sequence[Message], index: int) -> str:
    if 0 <= index < len(messages):
        return str(messages[index].source or "")
    return ""


def _violation_json(v: Violation, messages: Sequence[Message]) -> dict[str, Any]:
    """A problem as JSON; ``n`` is its ``[n]``: its message's index in ``messages``."""
    return {
        **v.to_json(),
        "n": None if v.index == LIST else v.index,
        "source": _source(messages, v.index),
        "rule_title": RULES[v.rule].title,
    }


_REPORT_KEYS = (
    "file",
    "format",
    "other_formats",
    "messages",
    "bad_lines",
    "clean",
    "valid",
    "problems",
    "own_provider",
    "repaired_messages",
    "providers",
    "agent",
    "version",
    "model",
    "assumed",
    "sent_messages",
    "request",
    "skipped",
    "history_not_sent",
    "before_compaction",
    "stricter",
    "export",
    "recorded_error",
)
"""The fields of ``suture check --json``, in their order: the same for a request file, with or
without ``--provider``, and for a session log; a field that does not apply is ``null`` (README:
"check --json")."""

_PROVIDER_KEYS = (
    "title",
    "verdict",
    "problems",
    "after_repair",
    "summary",
    "before",
    "after",
    "sent",
    "notes",
    "contract",
)
"""The fields of each entry of ``providers``, the same for every file; ``null`` where one does not apply."""


def _shaped(keys: tuple[str, ...], fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with every one of ``keys``, in their order: ``null`` for those not given."""
    unknown = set(fields) - set(keys)
    assert not unknown, unknown  # (a field is added to the keys, and to README, first)
    return {key: fields.get(key) for key in keys}


def _report(args: argparse.Namespace, transcript: Transcript, **fields: Any) -> dict[str, Any]:
    """``suture check --json``: what every file has (its name, format, messages, lines left out),
    ``fields``, and ``null`` for every other field of :data:`_REPORT_KEYS`."""
    return _shaped(
        _REPORT_KEYS,
        {
            "file": name_json(args.input),
            "format": transcript.format,
            "other_formats": list(args.others),
            "messages": len(transcript.messages),
            "bad_lines": bad_lines_json(transcript),
            **fields,
        },
    )


def _request_entry(name: str, v: Verdict, messages: Sequence[Message]) -> dict[str, Any]:
    """A provider's verdict on a request file, as ``providers`` gives it: its problems before
    and after repair (``sent``, ``notes`` and ``contract`` are a session log's)."""
    return _shaped(
        _PROVIDER_KEYS,
        {
            "title": TITLES[name],
            "verdict": "rejected" if v.before else "accepted",
            "problems": len(v.before),
            "after_repair": len(v.after),
            "summary": v.summary(),
            "before": [_violation_json(x, messages) for x in v.before],
            "after": [_violation_json(x, v.repair.messages) for x in v.after],
        },
    )


def _own_json(own: str | None, checked: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """``own_provider``: the verdict of the provider the file is sent to (a request file's own,
    a session's agent's), where it is among those checked (``checked``: ``providers``)."""
    entry = checked.get(own) if own else None
    if entry is None:
        return None
    return {
        "name": own,
        "problems": entry["problems"],
        "after_repair": entry["after_repair"],
        "summary": entry["summary"],
    }


def _run_providers(args: argparse.Namespace, transcript: Transcript, providers: tuple[str, ...]) -> int:
    messages = transcript.messages
    results = verdicts(messages, providers)
    repaired = next(iter(results.values())).repair.messages
    broken = any(v.before for v in results.values())
    if args.json:
        checked = {name: _request_entry(name, v, messages) for name, v in results.items()}
        report = _report(
            args,
            transcript,
            clean=not broken,
            own_provider=_own_json(own_provider(transcript), checked),
            repaired_messages=len(repaired),
            providers=checked,
        )
        out_json(_unmade_report(report, made_up(transcript)))
        return EXIT_FOUND if broken else EXIT_OK
    from suture.io import gc_paused
    from suture.sent import as_sent
    from suture.sent.numbered import modelled

    with gc_paused():  # (what is sent, built: a few objects a message, no cycles to find)
        request = modelled(transcript, as_sent(transcript))
    out(
        f"{name_of(args.input)}: {count(len(messages), 'message')} ({transcript.format}); "
        f"repaired: {count(len(repaired), 'message')}{_reads_too(args.others)}",
        f"  ({NUMBERS}; after repair, in the repaired history)",
    )
    limit = None if args.all else SHOWN
    made = made_up(transcript)
    for name, v in results.items():
        out(*(unmade(line, made) for line in _render(name, v, messages, repaired, limit, request.counts(name))))
    return EXIT_FOUND if broken else EXIT_OK


def _unmade_report(
    report: dict[str, Any], made: Mapping[str, str], real: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``report`` (``check --json``) where suture made up call ids (``made``: each one's place,
    :func:`suture.cli._common.made_up`): every problem and note of a call so named has
    ``call_id`` ``null`` (or ``real``'s id, the one a session holds for it) and ``call_at`` its place."""
    if not made:
        return report
    listed = [report.get("problems")]
    for entry in (report.get("providers") or {}).values():
        listed += [entry.get(key) for key in ("before", "after", "sent", "notes")]
        contract = entry.get("contract") or {}
        listed += [contract.get("before"), contract.get("after")]
    for found in listed:
        for item in found or []:
            unmade_json(item, made, real)
    return report


def _render(
    name: str,
    v: Verdict,
    messages: Sequence[Message],
    repaired: Sequence[Message],
    limit: int | None,
    counts: str,
) -> list[str]:
    """The lines about one provider (each to be shown by :func:`suture.cli._common.out`)."""
    return ["", f"{v.summary()}  ({TITLES[name]})", f"  ({counts})", *_listed(v, messages, repaired, limit)]


def _listed(
    v: Verdict,
    messages: Sequence[Message],
    repaired: Sequence[Message],
    limit: int | None,
    after: str = "after repair",
    of: str = "",
    origin: Sequence[int | None] | None = None,
) -> list[str]:
    """A verdict's problems before repair (with whether the repair fixes each), then those left
    after it under ``after``, each list cut at ``limit``; ``of`` says whose places the provider's
    error counts before repair, where that is not what the lines above it say. ``origin`` (the
    repair's): a problem left after repair is numbered by the message of ``messages`` it came
    from (``[new]`` for one the repair made), as every other line of the file's is."""
    lines: list[str] = []
    for x in v.before[:limit]:
        lines.extend(_lines(x, messages, of=of))
        lines.append(f"      fixed by repair: {x.remedy}" if x.fixed else f"      not fixed by repair: {x.remedy}")
    lines.extend(_more(v.before, limit))
    if v.after:
        lines.append(f"  {after}:")
        for x in v.after[:limit]:
            came = origin[x.index] if origin is not None and 0 <= x.index < len(origin) else None
            role = repaired[x.index].role if 0 <= x.index < len(repaired) else "?"
            lines.extend(_lines(x, repaired, written=(came, role) if origin is not None else None))
            lines.append(f"      to do: {x.remedy}")
        lines.extend(_more(v.after, limit))
    return lines


def _more(found: list[Violation], limit: int | None) -> list[str]:
    if limit is None or len(found) <= limit:
        return []
    rest = found[limit:]
    rules = sorted({x.rule for x in rest})
    return [f"  … and {len(rest):,} more ({', '.join(rules)}); --all lists them, --json gives every field"]


NUMBERS = "[n] is the message's number in the file as suture reads it (the app's #n)"
"""What ``[n]`` means, the same for every provider: the pointer after it is the provider's own."""


def _lines(
    x: Violation,
    messages: Sequence[Message],
    source: str | None = None,
    written: tuple[int | None, str] | None = None,
    of: str = "",
) -> list[str]:
    """A problem in two lines: ``[n] role (source) pointer  rule: problem``, then the provider's
    text (``of``: whose places it counts, where the heading does not say it). ``n`` is the
    message's index in ``messages``, or for a session log ``written``: the as-written message
    (``None``: one the agent makes up, ``[new]``) and its role. A problem of the list itself (no
    message to send) has no ``[n]``: its pointer names the list."""
    if x.index == LIST:
        return [f"  {x.where}  {x.rule}: {x.problem}", f"      {x.provider} would say: {x.error}"]
    role = messages[x.index].role if 0 <= x.index < len(messages) else "?"
    source = _source(messages, x.index) if source is None else source
    where = f" {x.where}" + (f" ({of})" if of else "") if x.where else ""
    at = f" ({source})" if source else ""
    n: int | str = x.index
    if written is not None:
        n, role = (written[0] if written[0] is not None else "new"), written[1]
    return [
        f"  [{n}] {role}{at}{where}  {x.rule}: {x.problem}",
        f"      {x.provider} would say{', ' + of if of else ''}: {x.error}",
    ]


# -- session logs: the verdict on what is sent -------------------------------------------------

_REPAIR_OF_FILE = "suture's repair of the file as written"
CONTRACT = f"{CONTRACT_VIEW} ({_REPAIR_OF_FILE})"


def _contract_head(repaired: Repair, transcript: Transcript, turns: dict[int, int]) -> str:
    """The contract view's heading with what ``suture repair`` changes in the file (``repaired``:
    its repair), so that a provider's "no problems" beside it is not read as nothing to change;
    where it changes no message but writes a turn in another order (a Responses or Codex turn's
    outputs right after its calls, which a strict server needs), that it does (``turns``: those
    worked out for each repair so far, by its id: every provider's verdict shares one)."""
    n = len(repaired.changes)
    if n:
        changes = f"suture repair makes {changes_said(repaired)}"
    else:
        from suture.formats import reordered_said, reordered_turns

        if id(repaired) not in turns:
            turns[id(repaired)] = reordered_turns(repaired.messages, transcript)
        reordered = turns[id(repaired)]
        changes = (
            f"suture repair changes no message ({reordered_said(reordered)})"
            if reordered
            else "suture repair changes nothing"
        )
    return f"{CONTRACT_VIEW} ({_REPAIR_OF_FILE}; {changes})"


def _run_session(args: argparse.Namespace, transcript: Transcript, providers: tuple[str, ...], data: bytes) -> int:
    from suture.sent import as_sent, stricter, verdict
    from suture.sent.numbered import modelled

    sent = as_sent(transcript)
    repaired = None
    results = {}
    for name in providers or (sent.provider,):
        results[name] = verdict(transcript, name, repaired, sent)
        repaired = results[name].contract.repair
    rejected = any(v.rejected for v in results.values())
    # Where the agent's provider accepts what it sends and the stricter servers of its API would
    # not (a Codex session resumed against DeepSeek's Responses endpoint), say so beside it.
    stricter_of = {}
    for name in () if providers else (sent.provider,):
        found = stricter(transcript, results[name])
        if found is not None:
            stricter_of[name] = found
    request = modelled(transcript, sent)
    export = _export_aside(transcript, repaired, data)
    recorded = _recorded_error(args.input, transcript, repaired)
    made, real = made_in_sent(transcript, sent)
    if args.json:
        report = _session_json(args, (transcript, data), sent, request, results, rejected)
        report["stricter"] = {
            name: {"provider": v.provider, "problems": len(v.problems), "summary": v.summary()}
            for name, v in stricter_of.items()
        }
        report["export"] = export
        report["recorded_error"] = recorded
        out_json(_unmade_report(report, made, real))
    else:
        lines = _session_lines(args, transcript, sent, request, results, stricter_of)
        if recorded is not None:  # (right after the verdict of the provider the error came from)
            own = f"{sent.provider}:"
            at = next((k for k, line in enumerate(lines) if k and line.startswith(own)), None)
            if at is None:  # (that provider not checked: before the first verdict)
                at = (
                    next((k for k, line in enumerate(lines) if k and not line.startswith(" ") and line), len(lines)) - 1
                )
            lines.insert(at + 1, f"  {recorded['said']}")
        if export is not None:  # (after the contract view, before the records not sent)
            at = next((k for k, line in enumerate(lines) if line.startswith("Not sent by ")), len(lines))
            lines[at:at] = ["", export] if at == len(lines) else [export, ""]
        out(*(unmade(line, made, real) for line in lines))
    return EXIT_FOUND if rejected else EXIT_OK


def _export_aside(transcript: Transcript, repaired: Repair | None, data: bytes) -> str | None:
    """What the session ``suture repair`` writes does otherwise than the contract view's changes
    (``repaired``), in a sentence (:meth:`suture.writeback.Written.aside`): changes it leaves as
    written, a call's id written otherwise for how the agent reads ids. ``None`` where it writes
    what they say. Worked out from the bytes ``transcript`` was read from (``data``): standard
    input is not read twice, and a file an agent writes to meanwhile is judged as it was read."""
    from suture.writeback import written_if_other

    if repaired is None:
        return None
    written = written_if_other(transcript, repaired, lambda: data)
    if written is None:
        return None
    n = len(repaired.changes)
    if n:  # the changes named, as suture repair's own line names them
        aside = written.aside(n, f"suture repair makes {changes_said(repaired)} and")
    else:
        aside = written.aside(n, "suture repair")
    if aside is None:
        return None
    if n:
        return aside[0]
    from suture.formats import reordered_said, reordered_turns

    turns = reordered_turns(repaired.messages, transcript)  # why lines move where nothing changes
    return f"{aside[0]} ({reordered_said(turns)})" if turns and not written.ids else aside[0]


def _recorded_error(path: str, transcript: Transcript, repaired: Repair | None) -> dict[str, Any] | None:
    """The session's last recorded API error where suture recognises it as one its repair does
    not fix and its check of the request's shape does not judge (``suture explain`` tells it
    whole): a history longer than the model's context window, or what no check can see in a file
    (an invalid thinking signature). ``{"line", "kind", "rule", "error", "said"}``; ``None`` where
    the file records none, or the last is another (one the check judges, the provider's side)."""
    from suture.checks.explain import SHAPE_NOT_LENGTH, elsewhere, explain_transcript, recognise

    if not transcript.evidence:
        return None
    source, text = transcript.evidence[-1]
    at = str(source)
    explain = f"suture explain {name_typed(path)}"
    recognised = recognise(text)
    if recognised:
        rec = recognised[0]
        if not rec.unseen or rec.rule.fixed != "no":
            return _repaired_by_agent(transcript, (source.line, text), repaired, at, explain)
        said = (
            f"the session's last API error ({at}) is one suture's check cannot see in a file ({rec.rule.id}: "
            f"{show.prose(rec.rule.title)}), and its repair does not fix it: {explain}"
        )
        return {"line": source.line, "kind": "rule", "rule": rec.rule.id, "error": text, "said": said}
    cause = elsewhere(text)
    if cause is None or cause.kind != "length":
        return None
    cause = explain_transcript(transcript, text, repaired).elsewhere or cause
    if not cause.fits:
        since = ", more tokens than what is sent from this file can hold"
    elif cause.compacted is not None:
        since = f", before its compaction (line {cause.compacted}) shortened what is sent"
    else:
        since = ""
    said = (
        f"the session's last API error ({at}) says the history was longer than the model's context window"
        f"{since}; {SHAPE_NOT_LENGTH}: {explain}"
    )
    return {"line": source.line, "kind": "length", "rule": None, "error": text, "said": said}


def _repaired_by_agent(
    transcript: Transcript, recorded: tuple[int | None, str], repaired: Repair | None, at: str, explain: str
) -> dict[str, Any] | None:
    """:func:`_recorded_error` for an error the agent repairs itself when it resumes the file
    (:attr:`suture.checks.explain.Explanation.agent_repairs`): beside a verdict of no problems,
    the 400 the file records is said not to be what the agent gets now, and where it came from."""
    from suture.checks.explain import explain_transcript

    line, text = recorded
    explained = explain_transcript(transcript, text, repaired)
    if not explained.agent_repairs or explained.rule is None or explained.request is None:
        return None
    said = (
        f"the session's last API error ({at}, {explained.rule.id}) is about something {explained.agent} repairs itself "
        f"when it resumes this file, so it would not get it now; {explained.came_from()}: {explain}"
    )
    return {"line": line, "kind": "agent", "rule": explained.rule.id, "error": text, "said": said}


def _session_json(
    args: argparse.Namespace,
    read: tuple[Transcript, bytes],
    sent: Sent,
    request: SentRequest,
    results: dict[str, SentVerdict],
    rejected: bool,
) -> dict[str, Any]:
    """``suture check --json`` on a session log (``read``: as loaded, and the bytes it was read
    from): the verdicts on what the agent sends."""
    from suture.scan import AfterRepair
    from suture.sent.numbered import held

    transcript, data = read
    written = transcript.messages
    # The session suture repair writes, written back and read once for every provider's count.
    after = AfterRepair(transcript, next(iter(results.values())).contract.repair, data) if results else None
    checked = {name: _session_entry(name, v, sent, written, after) for name, v in results.items()}
    return _report(
        args,
        transcript,
        clean=not rejected,
        own_provider=_own_json(sent.provider, checked),
        repaired_messages=len(next(iter(results.values())).contract.repair.messages) if results else None,
        providers=checked,
        agent=sent.agent,
        version=sent.version,
        model=sent.model,
        assumed=sent.assumed,
        # The request's list before the new prompt, as the provider numbers it (what the text's
        # header counts): not sent.messages, where each tool result is a message of its own.
        sent_messages=held(sent),
        request={
            "key": request.key,
            "history": held(sent),
            "added": [{"place": a.position, "role": a.role, "what": a.what} for a in sent.added],
        },
        skipped=[_skipped_json(s) for s in sent.skipped],
        # The history the agent does not send (the lines before a compaction): in a sentence, as
        # the text and the app say it, and its records one each.
        history_not_sent=skipped(transcript),
        before_compaction=[_skipped_json(s) for s in before_compaction(transcript)],
    )


def _session_entry(
    name: str, v: SentVerdict, sent: Sent, written: Sequence[Message], after: AfterRepair | None
) -> dict[str, Any]:
    """A provider's verdict on what the agent sends from a session log, as ``providers`` gives
    it (``after``: the session suture repair writes, read back, or ``None``); ``before`` and
    ``after`` are a request file's."""
    return _shaped(
        _PROVIDER_KEYS,
        {
            "title": TITLES[name],
            "verdict": "rejected" if v.rejected else "accepted",
            "problems": len(v.problems),
            # what the agent sends from the session suture repair writes, as scan counts it
            "after_repair": after.problems(name, len(v.problems)) if after is not None else len(v.problems),
            "summary": v.summary(),
            "sent": [
                {
                    **_violation_json(x, sent.messages),
                    "n": v.at(x),
                    "place": v.place(x),
                    "written_index": v.at(x),
                    "written": list(v.written_of(x)),
                    # n is null for a message the agent makes up on resume ([new]): what it is
                    "made_up": sent.made_words(x.index),
                    "source": v.where(x, written),
                }
                for x in v.problems
            ],
            "notes": [f.to_json() for f in v.notes],
            "contract": {
                "label": CONTRACT,
                # what suture repair changes in the file, which the problems beside it do not count
                "changes": len(v.contract.repair.changes),
                "problems": len(v.contract.before),
                "after_repair": len(v.contract.after),
                "summary": v.contract.summary(),
                "before": [_violation_json(x, written) for x in v.contract.before],
                "after": [_violation_json(x, v.contract.repair.messages) for x in v.contract.after],
            },
        },
    )


def _skipped_json(s: Skipped) -> dict[str, str]:
    return {"source": str(s.source), "kind": s.kind, "reason": s.reason}


def _session_lines(
    args: argparse.Namespace,
    transcript: Transcript,
    sent: Sent,
    request: SentRequest,
    results: dict[str, SentVerdict],
    stricter_of: dict[str, SentVerdict],
) -> list[str]:
    """``suture check`` on a session log, as text. A problem's ``[n]`` is its message as written
    (the app's ``#n``); the provider's own pointer counts the request the agent sends, as the
    provider does: what the agent adds to the history is in it (each provider's line says where),
    so it is the index of the provider's 400."""
    from suture.sent import agent_name, served_words, stricter_words
    from suture.sent.numbered import held, pointer_form, unit

    written = transcript.messages
    who = agent_name(sent.agent or transcript.format)
    version = f" {sent.version}" if sent.version else ""
    head = (
        f"{name_of(args.input)}: {who}{version} session, {count(len(written), 'message')} as written, "
        f"{count(held(sent), unit(request.key))} in the request {who} sends on resume, before the new prompt"
        + _reads_too(args.others)
    )
    lines = [head]
    lines.extend(f"  {sentence}" for sentence in skipped(transcript))  # the lines before a compaction
    lines.append(f"  ({NUMBERS}, or [new] for one {who} makes up on resume)")
    if sent.assumed:
        lines.append(f"  ({sent.assumed})")
    limit = None if args.all else SHOWN
    served = served_words(transcript, sent)
    turns: dict[int, int] = {}  # (what the repair reorders, worked out once)
    for name, v in results.items():
        # What the provider's pointer counts: the request the agent sends (what it adds to the
        # history counted, as agents-resume.md measured it), or suture's writing for a provider
        # the agent does not send to.
        # (The contract view's lines below count the file sent as written, not that request.)
        form = pointer_form(name)
        also = f"; in the {CONTRACT_VIEW}, {form} counts {SENT_AS_WRITTEN}" if v.contract.before else ""
        lines.extend(["", f"{v.summary()}  ({TITLES[name]})", f"  ({request.counts(name)}{also})"])
        if served and name == sent.provider:
            lines.append(f"  ({served})")
        for x in v.problems[:limit]:
            index = v.at(x)
            role = (
                written[index].role if index is not None and 0 <= index < len(written) else sent.messages[x.index].role
            )
            lines.extend(_lines(x, sent.messages, v.where(x, written), (index, role)))
            lines.append(f"      to do: {x.remedy}")
        lines.extend(_more(v.problems, limit))
        if v.notes:
            lines.append(f"  {who} repairs this itself (not a problem):")
            lines.extend(f"    {f.summary}" for f in v.notes[:limit])
            if limit is not None and len(v.notes) > limit:
                lines.append(f"    … and {len(v.notes) - limit} more; --all lists them")
        # The contract view's problems, as the app lists them: their [n] counts the file as
        # written and the provider's error the file sent as written (after repair: the repaired file).
        lines.append(f"  {_contract_head(v.contract.repair, transcript, turns)}: {v.contract.summary()}")
        lines.extend(
            _listed(
                v.contract,
                written,
                v.contract.repair.messages,
                limit,
                after="after suture's repair (the error counts the repaired file)",
                of=AS_WRITTEN,
                origin=v.contract.repair.origin,
            )
        )
        stricter = stricter_of.get(name)
        if stricter is not None:
            them = "it" if len(stricter.problems) == 1 else "them"
            said = stricter_words(stricter.provider, count(len(stricter.problems), "problem"))
            lines.append(f"  ({said}; --provider {stricter.provider} lists {them})")
    if sent.skipped:
        lines.extend(["", f"Not sent by {who} (kept as evidence):"])
        lines.extend(f"  {s}" for s in sent.skipped[:limit])
        if limit is not None and len(sent.skipped) > limit:
            lines.append(f"  … and {len(sent.skipped) - limit} more; --all lists them")
    return lines
