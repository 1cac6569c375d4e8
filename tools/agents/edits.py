"""Hand edits made to a crashed session file before resume, per agent.

Each edit takes the file's lines (with their line ends) and returns the new lines. Lines the edit
does not touch stay byte-identical; a line it writes is compact JSON with non-ASCII kept, as the
agents write theirs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
from collections.abc import Callable
from typing import Any

NOTE = "Note added by hand."
LATER_PROMPT = "What is the status?"
LATER_ANSWER = "Still working on it."
#: A call id no call in any recorded session has (valid for every provider's id pattern).
ORPHAN_ID = "call_orphanResultWithNoCall01"
ORPHAN_OUTPUT = "output of a call that is not in this session"
COMPACTION_SUMMARY = "The user asked for a shell command to be run."


class EditError(RuntimeError):
    """The crashed file does not hold what the edit needs."""


def dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def parse(lines: list[str]) -> list[Any]:
    out: list[Any] = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(None)
    return out


def new_uuid(seed: str) -> str:
    h = hashlib.sha256(seed.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def later(ts: str | None, seconds: float = 1.0) -> str:
    """An ISO timestamp ``seconds`` after ``ts`` (UTC, milliseconds, ``Z``), as the agents write them."""
    base = dt.datetime.now(dt.UTC)
    if ts:
        with contextlib.suppress(ValueError):
            base = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    when = base + dt.timedelta(seconds=seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


# -- Claude Code ---------------------------------------------------------------------------------


def _cc_content(rec: Any) -> list[Any]:
    if not isinstance(rec, dict) or rec.get("type") not in ("user", "assistant"):
        return []
    content = (rec.get("message") or {}).get("content")
    return content if isinstance(content, list) else []


def _cc_last_chain_line(recs: list[Any]) -> dict[str, Any]:
    for rec in reversed(recs):
        if (
            isinstance(rec, dict)
            and rec.get("uuid")
            and rec.get("type") in ("user", "assistant", "attachment", "system")
        ):
            return rec
    raise EditError("no transcript line to attach to")


def _cc_line(template: dict[str, Any], parent: dict[str, Any], seed: str, message: dict[str, Any]) -> dict[str, Any]:
    keep = ("isSidechain", "userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch")
    line: dict[str, Any] = {"parentUuid": parent["uuid"]}
    line.update({k: template[k] for k in keep if k in template})
    line.update(
        {
            "type": message["role"],
            "message": message,
            "uuid": new_uuid(seed),
            "timestamp": later(parent.get("timestamp")),
        }
    )
    return line


def _cc_template(recs: list[Any], kind: str) -> dict[str, Any]:
    for rec in recs:
        if isinstance(rec, dict) and rec.get("type") == kind:
            return rec
    raise EditError(f"no {kind} line to copy fields from")


# -- Claude Code edits ----------------------------------------------------------------------------


def cc_text_before_result(lines: list[str]) -> list[str]:
    """The user record holding a tool_result gets a text block before it."""
    recs = parse(lines)
    for i in range(len(recs) - 1, -1, -1):
        content = _cc_content(recs[i])
        if recs[i].get("type") == "user" and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            rec = recs[i]
            rec["message"]["content"] = [{"type": "text", "text": NOTE}, *content]
            return [*lines[:i], dump(rec), *lines[i + 1 :]]
    raise EditError("no user record with a tool_result")


def cc_dangling_then_later_turns(lines: list[str]) -> list[str]:
    """A user prompt and an assistant answer hang off the assistant record whose call has no result."""
    recs = parse(lines)
    call = next(
        (
            r
            for r in reversed(recs)
            if isinstance(r, dict)
            and r.get("type") == "assistant"
            and any(b.get("type") == "tool_use" for b in _cc_content(r))
        ),
        None,
    )
    if call is None:
        raise EditError("no assistant record with a tool_use")
    user = _cc_line(_cc_template(recs, "user"), call, "later-user", {"role": "user", "content": LATER_PROMPT})
    tmpl = _cc_template(recs, "assistant")
    msg = dict(tmpl["message"])
    msg.update(
        {
            "id": "msg_01HandWrittenLaterAnswer0",
            "content": [{"type": "text", "text": LATER_ANSWER}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
        }
    )
    answer = _cc_line(tmpl, user, "later-answer", msg)
    return [*lines, dump(user), dump(answer)]


def cc_orphan_result(lines: list[str]) -> list[str]:
    """A user record with a tool_result for an id no call has, appended to the chain."""
    recs = parse(lines)
    parent = _cc_last_chain_line(recs)
    result = {"type": "tool_result", "tool_use_id": ORPHAN_ID, "content": ORPHAN_OUTPUT, "is_error": False}
    line = _cc_line(_cc_template(recs, "user"), parent, "orphan-result", {"role": "user", "content": [result]})
    return [*lines, dump(line)]


def cc_call_ids(recs: list[Any]) -> list[str]:
    return [
        str(b.get("id"))
        for r in recs
        if isinstance(r, dict) and r.get("type") == "assistant"
        for b in _cc_content(r)
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]


def cc_repeated_id(lines: list[str]) -> list[str]:
    return _repeat_id(lines, cc_call_ids, lambda r: r.get("type") in ("user", "assistant"))


def cc_entry_like_id(lines: list[str]) -> list[str]:
    """The second call and its result named as entry 1 of a batch call with the first call's id."""
    return _repeat_id(lines, cc_call_ids, lambda r: r.get("type") in ("user", "assistant"), suffix="_1")


# -- shared ----------------------------------------------------------------------------------------


def _replace_id(rec: Any, old: str, new: str) -> Any:
    if isinstance(rec, dict):
        return {k: _replace_id(v, old, new) for k, v in rec.items()}
    if isinstance(rec, list):
        return [_replace_id(v, old, new) for v in rec]
    return new if rec == old else rec


def _repeat_id(
    lines: list[str],
    ids_of: Callable[[list[Any]], list[str]],
    history: Callable[[dict[str, Any]], bool],
    suffix: str = "",
) -> list[str]:
    """The second call and its result take the first call's id (and ``suffix``), in history lines only."""
    recs = parse(lines)
    distinct = list(dict.fromkeys(ids_of(recs)))
    if len(distinct) < 2:
        raise EditError(f"fewer than two tool calls in the file ({distinct})")
    first, second = distinct[0], distinct[1]
    out = list(lines)
    for i, rec in enumerate(recs):
        if isinstance(rec, dict) and history(rec) and second in lines[i]:
            out[i] = dump(_replace_id(rec, second, first + suffix))
    return out


# -- Codex edits -----------------------------------------------------------------------------------


def _codex_item(recs: list[Any], at: int, payload: dict[str, Any], ordinal: int) -> str:
    """A response_item rollout line timed just after line ``at``."""
    ts = recs[at].get("timestamp") if isinstance(recs[at], dict) else None
    return dump({"timestamp": later(ts, 0.001), "ordinal": ordinal, "type": "response_item", "payload": payload})


def _codex_last_ordinal(recs: list[Any]) -> int:
    return max((r["ordinal"] for r in recs if isinstance(r, dict) and isinstance(r.get("ordinal"), int)), default=0)


def _codex_message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def codex_call_ids(recs: list[Any]) -> list[str]:
    return [
        str(r["payload"].get("call_id"))
        for r in recs
        if isinstance(r, dict)
        and r.get("type") == "response_item"
        and isinstance(r.get("payload"), dict)
        and r["payload"].get("type") in ("function_call", "custom_tool_call")
    ]


def _codex_call_line(recs: list[Any]) -> int:
    for i in range(len(recs) - 1, -1, -1):
        r = recs[i]
        if (
            isinstance(r, dict)
            and r.get("type") == "response_item"
            and (r.get("payload") or {}).get("type") == "function_call"
        ):
            return i
    raise EditError("no function_call item in the rollout")


def codex_later_turns(lines: list[str]) -> list[str]:
    """A user message and an assistant message appended after the call that has no output."""
    recs = parse(lines)
    last = len(recs) - 1
    n = _codex_last_ordinal(recs)
    return [
        *lines,
        _codex_item(recs, last, _codex_message("user", LATER_PROMPT), n + 1),
        _codex_item(recs, last, _codex_message("assistant", LATER_ANSWER), n + 2),
    ]


def codex_orphan_output(lines: list[str]) -> list[str]:
    recs = parse(lines)
    payload = {"type": "function_call_output", "call_id": ORPHAN_ID, "output": ORPHAN_OUTPUT}
    return [*lines, _codex_item(recs, len(recs) - 1, payload, _codex_last_ordinal(recs) + 1)]


def codex_item_between(lines: list[str]) -> list[str]:
    """An assistant message item right after the function_call line, before its output."""
    recs = parse(lines)
    at = _codex_call_line(recs)
    item = _codex_item(recs, at, _codex_message("assistant", NOTE), int(recs[at].get("ordinal", 0)))
    return [*lines[: at + 1], item, *lines[at + 1 :]]


def codex_repeated_id(lines: list[str]) -> list[str]:
    return _repeat_id(lines, codex_call_ids, lambda r: r.get("type") == "response_item")


# -- pi edits --------------------------------------------------------------------------------------


def _pi_entries(recs: list[Any]) -> list[dict[str, Any]]:
    return [r for r in recs if isinstance(r, dict) and r.get("type") != "session" and r.get("id")]


def _pi_ms(ts: str) -> int:
    return int(dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


def _pi_entry(parent: dict[str, Any], seed: str, message: dict[str, Any]) -> dict[str, Any]:
    ts = later(parent.get("timestamp"))
    return {
        "type": "message",
        "id": new_uuid(seed)[:8],
        "parentId": parent["id"],
        "timestamp": ts,
        "message": {**message, "timestamp": _pi_ms(ts)},
    }


def _pi_answer(template: dict[str, Any] | None, text: str) -> dict[str, Any]:
    keep = ("api", "provider", "model", "usage")
    base = {k: template["message"][k] for k in keep if template is not None and k in template["message"]}
    return {"role": "assistant", "content": [{"type": "text", "text": text}], **base, "stopReason": "stop"}


def _pi_turns_after(recs: list[Any], parent: dict[str, Any], seed: str) -> list[str]:
    assistant = next((e for e in _pi_entries(recs) if (e.get("message") or {}).get("role") == "assistant"), None)
    user = _pi_entry(parent, f"{seed}-user", {"role": "user", "content": [{"type": "text", "text": LATER_PROMPT}]})
    answer = _pi_entry(user, f"{seed}-answer", _pi_answer(assistant, LATER_ANSWER))
    return [dump(user), dump(answer)]


def pi_later_turns(lines: list[str]) -> list[str]:
    """A user message and an assistant answer appended to the chain after the call with no result."""
    recs = parse(lines)
    entries = _pi_entries(recs)
    if not entries:
        raise EditError("no pi entries")
    return [*lines, *_pi_turns_after(recs, entries[-1], "later")]


def _pi_result(parent: dict[str, Any], call_id: str, seed: str, text: str, is_error: bool) -> str:
    msg = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "bash",
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    }
    return dump(_pi_entry(parent, seed, msg))


def pi_orphan_result(lines: list[str]) -> list[str]:
    recs = parse(lines)
    entries = _pi_entries(recs)
    return [*lines, _pi_result(entries[-1], ORPHAN_ID, "orphan-result", ORPHAN_OUTPUT, False)]


def pi_call_ids(recs: list[Any]) -> list[str]:
    return [
        str(b.get("id"))
        for e in _pi_entries(recs)
        if (e.get("message") or {}).get("role") == "assistant" and isinstance(e["message"].get("content"), list)
        for b in e["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "toolCall"
    ]


def pi_repeated_id(lines: list[str]) -> list[str]:
    return _repeat_id(lines, pi_call_ids, lambda r: r.get("type") == "message")


def pi_result_for_errored(lines: list[str]) -> list[str]:
    """A toolResult for the call of the last assistant turn pi marked ``stopReason: "error"``."""
    recs = parse(lines)
    errored = [
        e
        for e in _pi_entries(recs)
        if (e.get("message") or {}).get("role") == "assistant"
        and e["message"].get("stopReason") in ("error", "aborted")
    ]
    calls = [
        b
        for e in errored[-1:]
        for b in e["message"].get("content") or []
        if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    if not calls:
        raise EditError("no errored assistant turn with a tool call")
    return [
        *lines,
        _pi_result(errored[-1], str(calls[0]["id"]), "errored-result", "result written for an errored turn", True),
    ]


# -- forks -----------------------------------------------------------------------------------------


def cc_fork_in_chain(lines: list[str]) -> list[str]:
    """A user prompt and an answer hanging off the first prompt: a second branch beside the one with the call."""
    recs = parse(lines)
    first = next((r for r in recs if isinstance(r, dict) and r.get("type") == "user" and r.get("uuid")), None)
    if first is None:
        raise EditError("no user record")
    user = _cc_line(first, first, "fork-user", {"role": "user", "content": LATER_PROMPT})
    tmpl = _cc_template(recs, "assistant")
    msg = {
        **tmpl["message"],
        "id": "msg_01HandWrittenForkAnswer00",
        "content": [{"type": "text", "text": LATER_ANSWER}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
    }
    return [*lines, dump(user), dump(_cc_line(tmpl, user, "fork-answer", msg))]


def pi_fork_in_chain(lines: list[str]) -> list[str]:
    """A user message and an answer whose parent is the first user message: the last line starts a new branch."""
    recs = parse(lines)
    first = next((e for e in _pi_entries(recs) if (e.get("message") or {}).get("role") == "user"), None)
    if first is None:
        raise EditError("no user message")
    return [*lines, *_pi_turns_after(recs, first, "fork")]


def pi_compaction(lines: list[str]) -> list[str]:
    """A compaction entry as pi writes them: the first prompt summarized, the turn with the dangling call kept."""
    recs = parse(lines)
    entries = _pi_entries(recs)
    kept = next((e for e in entries if (e.get("message") or {}).get("role") == "assistant"), None)
    if kept is None:
        raise EditError("no assistant turn to keep")
    last = entries[-1]
    entry = {
        "type": "compaction",
        "id": new_uuid("compaction")[:8],
        "parentId": last["id"],
        "timestamp": later(last.get("timestamp")),
        "summary": COMPACTION_SUMMARY,
        "firstKeptEntryId": kept["id"],
        "tokensBefore": 1000,
    }
    return [*lines, dump(entry)]


def codex_compaction(lines: list[str]) -> list[str]:
    """A ``compacted`` rollout line whose replacement history is the first prompt and the call with no output."""
    recs = parse(lines)
    items = [
        r["payload"]
        for r in recs
        if isinstance(r, dict) and r.get("type") == "response_item" and isinstance(r.get("payload"), dict)
    ]
    prompt = next((p for p in reversed(items) if p.get("type") == "message" and p.get("role") == "user"), None)
    call = next((p for p in reversed(items) if p.get("type") == "function_call"), None)
    if prompt is None or call is None:
        raise EditError("no user prompt and function_call to keep")
    payload = {"message": COMPACTION_SUMMARY, "replacement_history": [prompt, call]}
    line = {
        "timestamp": later(recs[-1].get("timestamp"), 0.001),
        "ordinal": _codex_last_ordinal(recs) + 1,
        "type": "compacted",
        "payload": payload,
    }
    return [*lines, dump(line)]
