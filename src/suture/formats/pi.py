"""pi (and openclaw) coding-agent session JSONL: ``~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl``.

The first line is a header (``type: "session"``, ``cwd``, ``version``). Every other line is an
entry; from version 2 on entries carry ``id`` and ``parentId`` and form a tree, since a person can
go back to any entry and continue from there. The history is the branch that ends at the last
entry of the file, walked back through ``parentId`` to the root (pi's own ``buildSessionContext``
does the same from its current leaf). Version 1 entries have no ids: the file order is the
history. Shapes from badlogic/pi-mono ``packages/coding-agent/docs/session.md`` and
``packages/ai/src/types.ts``.

- ``message`` entries hold a pi message: ``user``; ``assistant`` with ``text``, ``thinking``
  (``thinkingSignature``) and ``toolCall`` blocks; ``toolResult`` (``toolCallId``, ``toolName``,
  ``isError``). An aborted or failed stream is saved as an assistant message with
  ``stopReason: "aborted" | "error"``. pi never sends such a turn again (pi-ai
  ``transformMessages`` skips it, so its calls need no results), so it is not history: it goes
  to ``Transcript.skipped``, and a result written for one of its calls is an orphan.
- ``bashExecution`` (a ``!`` command the person ran; ``excludeFromContext`` ones are skipped),
  ``custom``, ``branchSummary`` and ``compactionSummary`` messages, and ``custom_message`` and
  ``branch_summary`` entries, reach the model as user text: they are kept under their own role,
  which the engine treats like ``user``.
- A ``compaction`` entry on the branch replaces what came before it with its summary, then the
  entries from ``firstKeptEntryId`` on, as pi does.
- An assistant turn the provider failed (``stopReason: "error"``) also goes to
  ``Transcript.evidence`` with its ``errorMessage``: it says why the session stopped.
- Lines that are not JSON are skipped by pi; they stay in ``Transcript.problems``.
- ``model_change``, ``thinking_level_change``, ``label``, ``session_info`` and ``custom`` entries
  are not messages and are skipped.

Export: the request format of the provider the session last talked to (the ``api`` of the last
assistant message on the branch, else the latest ``model_change`` or the header's ``provider``):
``anthropic-messages`` sessions export as Anthropic messages, OpenAI Responses sessions as
Responses input, ``openai-completions`` as chat, Google sessions as Gemini contents. Anthropic
is the default: it is pi's default provider, and the request format whose rules a pi session
most often breaks (the real sample is one). pi session files themselves are not written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from suture import show
from suture.formats import CERTAIN, LIKELY, About, FormatError, first_text
from suture.formats._shared import image_size
from suture.formats.messages import type_name
from suture.io import Document, InputError, gc_paused
from suture.model import (
    Content,
    ImagePart,
    LoadProblem,
    Message,
    OtherPart,
    Part,
    Skipped,
    Source,
    TextPart,
    ThinkingPart,
    ToolCall,
    Transcript,
)
from suture.words import count

__all__ = ["ADAPTER", "branch"]

_ROLES = frozenset(
    {"user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage", "branchSummary", "compactionSummary"}
)
_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
# pi's ``api`` names (packages/ai/src/types.ts) and the suture format of each one's requests.
_API_FORMATS = {
    "anthropic-messages": "messages",
    "openai-responses": "responses",
    "openai-codex-responses": "responses",
    "azure-openai-responses": "responses",
    "openai-completions": "chat",
    "google-generative-ai": "gemini",
    "google-gemini-cli": "gemini",
    "google-vertex": "gemini",
}
_PROVIDER_FORMATS = {"anthropic": "messages", "openai": "responses", "google": "gemini"}
DEFAULT_EXPORT = "messages"


def _part(block: Any, where: str, signed: bool = False) -> Part:
    if not isinstance(block, dict):
        raise FormatError(where, f"a content block must be an object, got {type_name(block)}")
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(block["text"], block)
    if kind == "image":
        data = block.get("data") if isinstance(block.get("data"), str) else None
        media = block.get("mimeType") if isinstance(block.get("mimeType"), str) else None
        return ImagePart(block, media, image_size(data), data=data)
    if kind == "thinking":
        text = block.get("thinking")
        # ``thinkingSignature`` is Anthropic's signature only in an Anthropic turn; pi keeps
        # other providers' reasoning state there too (an OpenAI reasoning item, serialised).
        signature = block.get("thinkingSignature") if signed else None
        return ThinkingPart(
            text if isinstance(text, str) else "",
            block,
            signature=signature if isinstance(signature, str) and signature.strip() else None,
        )
    return OtherPart(block, str(kind) if kind is not None else "block")


def _content(value: Any, where: str) -> Content:
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise FormatError(f"{where}.content", f"must be a string or a list of blocks, got {type_name(value)}")
    return [_part(b, f"{where}.content[{k}]") for k, b in enumerate(value)]


def _bash_text(message: dict[str, Any]) -> str:
    """A ``!`` command as the model sees it: the command, then its output."""
    command = message.get("command")
    output = message.get("output")
    text = f"Ran `{command if isinstance(command, str) else ''}`\n```\n{output if isinstance(output, str) else ''}\n```"
    code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(code, int) and code != 0:
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated"):
        text += "\n\n(output truncated)"
    return text


def _string(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FormatError(where, f"must be a string, got {type_name(value)}")
    return value


def _records(doc: Document) -> list[tuple[int, Any]]:
    """A JSONL document's records; a one-line file (a new session's header) parses as JSON."""
    if doc.kind == "jsonl":
        return doc.records
    return [(1, doc.value)] if isinstance(doc.value, dict) else []


class _Export(Struct):
    """What decides the export format, read so far: the ``api`` of the latest assistant message,
    and a provider named after it (a ``model_change``, or the header before any message)."""

    api: str | None
    provider: Any

    def format(self) -> str:
        found = self.api
        if isinstance(self.provider, str) and self.provider in _PROVIDER_FORMATS:
            found = _PROVIDER_FORMATS[self.provider]
        found = found or DEFAULT_EXPORT
        from suture.formats import adapters

        return found if found in {a.name for a in adapters()} else DEFAULT_EXPORT


class PiAdapter:
    name = "pi"
    title = "pi / openclaw session JSONL (a tree: the branch ending at the last entry)"
    order = 80
    export_format = DEFAULT_EXPORT
    request_formats = tuple(sorted(set(_API_FORMATS.values())))
    """The request formats a pi session's history is sent in: its provider's (``--to``)."""

    def sniff(self, doc: Document) -> int:
        score = 0
        for _, record in _records(doc)[:50]:
            if not isinstance(record, dict):
                continue
            kind = record.get("type")
            if kind == "session" and ("cwd" in record or "version" in record):
                return CERTAIN
            message = record.get("message")
            if (
                kind == "message"
                and isinstance(message, dict)
                and isinstance(message.get("role"), str)
                and message["role"] in _ROLES
            ):
                if "uuid" in record or "sessionId" in record:
                    return 0  # a Claude Code record
                score = LIKELY
        return score

    def skipped(self, transcript: Transcript) -> list[str]:
        """What the file holds that pi does not send: entries off the branch it resumes, and those
        before a compaction on it."""
        entries, branch = transcript.meta.get("entries", 0), transcript.meta.get("branch", 0)
        if entries <= branch:
            return []
        return [
            f"{entries - branch:,} of {entries:,} entries are not sent: they are on other branches of the "
            "session, or before a compaction"
        ]

    def load(self, doc: Document) -> Transcript:
        if doc.kind != "jsonl" and not isinstance(doc.value, dict):
            raise FormatError("", "not a pi session: expected JSONL entries")
        problems = list(doc.problems)
        header: dict[str, Any] = {}
        entries: list[tuple[int, dict[str, Any]]] = []
        for line, record in _records(doc):
            if not isinstance(record, dict):
                problems.append(LoadProblem(line, f"an entry must be an object, got {type_name(record)}"))
                continue
            if record.get("type") == "session" and not header and not entries:
                header = record
                continue
            entries.append((line, record))
        branch = self._branch(entries, problems)
        branch = self._after_compaction(branch)

        messages: list[Message] = []
        evidence: list[tuple[Source, str]] = []
        skipped: list[Skipped] = []
        state = _Export(None, header.get("provider"))
        with gc_paused():
            self._read(branch, messages, problems, evidence, skipped, state)
        with_ids = [e["id"] for _, e in entries if isinstance(e.get("id"), str)]
        meta = {
            "version": header.get("version", 1),
            "header": header,
            "branch": len(branch),
            "entries": len(entries),
            "tip": with_ids[-1] if with_ids else None,
            "export": state,
        }
        return Transcript(
            messages,
            self.name,
            meta=meta,
            problems=problems,
            evidence=evidence,
            skipped=skipped,
            export_format=state.format(),
        )

    def _read(
        self,
        branch: Sequence[tuple[int, dict[str, Any]]],
        messages: list[Message],
        problems: list[LoadProblem],
        evidence: list[tuple[Source, str]],
        skipped: list[Skipped],
        state: _Export,
    ) -> None:
        for line, entry in branch:
            kind = entry.get("type")
            if kind == "model_change" and isinstance(entry.get("provider"), str):
                state.provider = entry["provider"]
            try:
                message = self._message(entry, line)
            except FormatError as e:
                problems.append(LoadProblem(line, f"{e.where}: {e.problem}" if e.where else e.problem))
                continue
            if message is None:
                continue
            raw = message.raw if isinstance(message.raw, dict) else {}
            if message.role == "assistant" and isinstance(raw.get("api"), str) and raw["api"] in _API_FORMATS:
                state.api = _API_FORMATS[raw["api"]]
                state.provider = None
            stop = raw.get("stopReason") if message.role == "assistant" else None
            if stop == "error":
                # The provider failed this turn: the session's own record of why it stopped.
                error = raw.get("errorMessage")
                evidence.append((Source(line=line), f"error: {error}" if error else "error"))
            if stop in ("error", "aborted"):
                calls = f" and its {count(len(message.tool_calls), 'call')}" if message.tool_calls else ""
                skipped.append(
                    Skipped(
                        Source(line=line),
                        "errored_turn",
                        f"a turn that ended with stopReason {stop!r}: pi does not send it{calls}",
                    )
                )
                continue
            messages.append(message)

    def extend(self, transcript: Transcript, doc: Document, start: int) -> tuple[Transcript, int] | None:
        """The transcript with appended entries (``suture.tail.Extends``): entries that continue
        the branch tip (or, without ids, the file) add messages; anything else (a new branch, a
        compaction, a bad entry) needs a full read (``None``)."""
        if doc.kind != "jsonl" or transcript.format != self.name or transcript.problems or doc.problems:
            return None
        tip = transcript.meta.get("tip")
        old_state = transcript.meta.get("export")
        if not isinstance(old_state, _Export):
            return None
        new = doc.records[start:]
        for _, entry in new:
            if not isinstance(entry, dict) or entry.get("type") in ("session", "compaction"):
                return None
            entry_id = entry.get("id")
            if tip is None:
                if entry_id is not None:
                    return None
            elif not isinstance(entry_id, str) or entry.get("parentId") != tip:
                return None
            else:
                tip = entry_id
        messages = list(transcript.messages)
        problems: list[LoadProblem] = []
        evidence = list(transcript.evidence)
        skipped = list(transcript.skipped)
        state = _Export(old_state.api, old_state.provider)
        with gc_paused():
            self._read(new, messages, problems, evidence, skipped, state)
        if problems:
            return None
        meta = {
            **transcript.meta,
            "branch": transcript.meta["branch"] + len(new),
            "entries": transcript.meta["entries"] + len(new),
            "tip": tip,
            "export": state,
        }
        out = Transcript(
            messages,
            self.name,
            meta=meta,
            problems=[],
            evidence=evidence,
            skipped=skipped,
            export_format=state.format(),
        )
        return out, len(transcript.messages)

    def _branch(
        self, entries: list[tuple[int, dict[str, Any]]], problems: list[LoadProblem]
    ) -> list[tuple[int, dict[str, Any]]]:
        with_ids = [(line, e) for line, e in entries if isinstance(e.get("id"), str)]
        if not with_ids:
            return entries  # version 1: a list, in file order
        by_id = {e["id"]: (line, e) for line, e in with_ids}
        path: list[tuple[int, dict[str, Any]]] = []
        seen: set[str] = set()
        current: tuple[int, dict[str, Any]] | None = with_ids[-1]
        while current is not None:
            line, entry = current
            if entry["id"] in seen:
                problems.append(
                    LoadProblem(line, f"entry {show.line(entry['id'])} is its own ancestor; the branch stops here")
                )
                break
            seen.add(entry["id"])
            path.append(current)
            parent = entry.get("parentId")
            if parent is None:
                break
            current = by_id.get(parent) if isinstance(parent, str) else None
            if current is None:
                problems.append(
                    LoadProblem(
                        line, f"entry {show.line(entry['id'])}'s parent {show.line(repr(parent))} is not in the file"
                    )
                )
        path.reverse()
        return path

    def _after_compaction(self, branch: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
        last = max((i for i, (_, e) in enumerate(branch) if e.get("type") == "compaction"), default=None)
        if last is None:
            return branch
        compaction = branch[last][1]
        kept = last
        first = compaction.get("firstKeptEntryId")
        for i, (_, e) in enumerate(branch[:last]):
            if first is not None and e.get("id") == first:
                kept = i
                break
        return [branch[last], *branch[kept:last], *branch[last + 1 :]]

    def _message(self, entry: dict[str, Any], line: int) -> Message | None:
        kind = entry.get("type")
        source = Source(line=line)
        if kind == "compaction":
            summary = _string(entry.get("summary"), "summary")
            return Message("compactionSummary", summary, raw=entry, source=source)
        if kind == "branch_summary":
            summary = _string(entry.get("summary"), "summary")
            return Message("branchSummary", summary, raw=entry, source=source)
        if kind == "custom_message":
            return Message("custom", _content(entry.get("content"), "entry"), raw=entry, source=source)
        if kind != "message":
            return None
        message = entry.get("message")
        if not isinstance(message, dict):
            raise FormatError("message", f"must be an object, got {type_name(message)}")
        role = message.get("role")
        if not isinstance(role, str):
            raise FormatError(
                "message.role", "is missing" if role is None else f"must be a string, got {type_name(role)}"
            )
        where = "message"
        if role == "assistant":
            return self._assistant(message, source)
        if role == "toolResult":
            is_error = message.get("isError")
            name = message.get("toolName")
            return Message(
                "tool",
                _content(message.get("content"), where),
                tool_call_id=_string(message.get("toolCallId"), "message.toolCallId"),
                name=name if isinstance(name, str) else None,
                is_error=is_error if isinstance(is_error, bool) else None,
                raw=message,
                source=source,
            )
        if role == "bashExecution":
            if message.get("excludeFromContext"):
                return None
            return Message(role, _bash_text(message), raw=message, source=source)
        if role in ("branchSummary", "compactionSummary"):
            return Message(role, _string(message.get("summary"), "message.summary"), raw=message, source=source)
        return Message(role, _content(message.get("content"), where), raw=message, source=source)

    def _assistant(self, message: dict[str, Any], source: Source) -> Message:
        content = message.get("content")
        if content is None or isinstance(content, str):
            return Message("assistant", content, raw=message, source=source)
        if not isinstance(content, list):
            raise FormatError("message.content", f"must be a list of blocks, got {type_name(content)}")
        parts: list[Part] = []
        calls: list[ToolCall] = []
        signed = message.get("api") == "anthropic-messages" or message.get("provider") == "anthropic"
        for k, block in enumerate(content):
            here = f"message.content[{k}]"
            if isinstance(block, dict) and block.get("type") == "toolCall":
                name = block.get("name")
                if name is not None and not isinstance(name, str):
                    raise FormatError(f"{here}.name", f"must be a string, got {type_name(name)}")
                calls.append(ToolCall(_string(block.get("id"), f"{here}.id"), name, block.get("arguments"), block))
            else:
                parts.append(_part(block, here, signed))
        return Message("assistant", parts, tuple(calls), raw=message, source=source)

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Never: suture writes a session only back over the one it was read from
        (``suture.writeback``); the history exports as its provider's request body."""
        from suture.formats import written_back_said

        raise InputError(written_back_said(self.name))

    def about(self, doc: Document) -> About:
        """The working folder and session id of the ``session`` header."""
        header = [(n, r) for n, r in _records(doc)[:1] if isinstance(r, dict) and r.get("type") == "session"]
        cwd, session = first_text(header, "cwd", "id")
        return About(cwd, session)


ADAPTER = PiAdapter()


def branch(entries: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The entries (``(line, entry)``, the header left out) on the branch pi resumes, root
    first: from the last entry with an id back through ``parentId`` (version 1 files, whose
    entries have no ids: every entry, in file order)."""
    return ADAPTER._branch(entries, [])
