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


# -- shared ----------------------------------------------------------------------------------------


def _replace_id(rec: Any, old: str, new: str) -> Any:
    if isinstance(rec, dict):
        return {k: _replace_id(v, old, new) for k, v in rec.items()}
    if isinstance(rec, list):
        return [_replace_id(v, old, new) for v in rec]
    return new if rec == old else rec


def _repeat_id(
    lines: list[str], ids_of: Callable[[list[Any]], list[str]], history: Callable[[dict[str, Any]], bool]
) -> list[str]:
    """The second call and its result take the first call's id, in history lines only."""
    recs = parse(lines)
    distinct = list(dict.fromkeys(ids_of(recs)))
    if len(distinct) < 2:
        raise EditError(f"fewer than two tool calls in the file ({distinct})")
    first, second = distinct[0], distinct[1]
    out = list(lines)
    for i, rec in enumerate(recs):
        if isinstance(rec, dict) and history(rec) and second in lines[i]:
            out[i] = dump(_replace_id(rec, second, first))
    return out
