"""The request an agent sends, numbered as its provider numbers it, each place traced to the file.

A provider's error counts the messages, items or contents of the request it was sent
(``messages.3``, ``input[5]``, ``contents[2]``). For a session log that request is not the file:
the agent builds it when it resumes (:func:`suture.sent.as_sent`), and puts into it what the file
does not hold (its system prompt, its instructions: :attr:`suture.sent.Sent.added`). A
:class:`SentRequest` is that request as a numbered list, with the as-written messages (positions
in ``Transcript.messages``) each place came from::

    from suture.sent.numbered import modelled, recorded

    req = modelled(transcript)            # suture's model of what the agent sends on resume
    req = recorded(transcript, request)   # a request the file recorded (Claude Code 2.1.328): exact
    req = as_written(transcript)          # the file sent as written (suture check's contract view)
    req.length                            # how many places the provider counts
    req.wire[n]                           # what is sent at place n (None: what the agent adds, not held here)
    req.written[n]                        # the as-written messages place n came from (() where none)
    req.added.get(n)                      # what the agent adds at place n, in a few words
    req.name(n)                           # "messages.3", "messages[3]", "input[3]", "contents[3]"
    req.messages, req.at[j]               # the history as neutral messages (what the checks read), and
                                          # the place of each
    req.body                              # the request body's list, place for place (what the agent
                                          # adds as a stand-in: body_of, what `suture sent --body` prints)
    req.check("anthropic")                # the provider's violations in what is sent, pointing into
                                          # the body (repoint: where the agent groups messages
                                          # otherwise than suture's writing of the provider's request)
    req.places(v)                         # the places a violation is about
    req.pointer(v)                        # where it points, in the request's numbering
    req.counts("gemini")                  # what that provider's pointer counts here, in a sentence
    req.find("input", 5, "openai-responses")  # the as-written messages at input[5]

For a request-format file (chat, messages, ...) the file is the request: :func:`modelled` numbers
the file's own history, one place per neutral message as the provider's wire groups them.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from suture.checks import Violation, check
from suture.checks._wire import contents, items, turns
from suture.checks.rules import RULES
from suture.model import Message, TextPart, ThinkingPart, Transcript, text_of
from suture.sent import RESUME_PROMPT, Added, Sent, agent_name, as_sent, wire_places
from suture.words import CONTRACT, SENT_AS_WRITTEN
from suture.written import lines_of

if TYPE_CHECKING:
    from suture.sent.recorded import RecordedRequest

__all__ = [
    "SentRequest",
    "as_written",
    "block_keys",
    "body_of",
    "list_key",
    "message_keys",
    "modelled",
    "place_name",
    "pointer_form",
    "recorded",
    "sent_request",
    "wire_format_of",
]

_KEYS = {"messages": "messages", "chat": "messages", "responses": "input", "gemini": "contents"}
"""The request key whose list a provider's index counts, by wire format."""
_NEW_PROMPT = "the new prompt the agent adds when it resumes"
_TURN = re.compile(r"messages\.(\d+)(?:\.content\.(\d+))?")
"""A place in Anthropic's numbering, as its errors and suture's checks write it: ``messages.6``,
``messages.6.content.0``."""
_NUMBER = re.compile(r"(?<![\w\].)])\[(\d+)\]")
"""A message named by its number in a problem's text (``the call at [4]``), not a list's place
(``input[4]``, ``messages.[4]``)."""


@dataclass(slots=True)
class SentRequest:
    """A request as its provider numbers it, each place traced to the as-written messages."""

    key: str
    """``messages``, ``input`` or ``contents``: the list the provider's index counts."""
    wire_format: str
    provider: str
    wire: list[Any]
    written: list[tuple[int, ...]]
    added: dict[int, str]
    messages: list[Message]
    at: list[int | None]
    exact: bool
    """A request the file recorded (``True``), or suture's model of the next one."""
    label: str
    """What this request is, for a person: "the request Claude Code recorded at line 39"."""
    sent: Sent
    recorded: RecordedRequest | None = None
    stand_ins: frozenset[int] = frozenset()
    """Neutral messages that stand for what the agent adds (not from the file): they keep the
    checks' numbering the provider's, and no problem is about them."""
    in_sent: list[int | None] = field(default_factory=list)
    """For the request :func:`modelled` numbers, the message of ``sent.messages`` each of
    :attr:`messages` is (``None``: a stand-in); empty for a recorded request, whose messages are
    the ones it recorded."""
    layout: str | None = None
    """The provider whose request this numbers what is sent as, where that is not :attr:`body`
    (:meth:`laid_out`: suture's writing of that provider's request, as ``suture check
    --provider`` counts it); ``None`` for the request the agent sends, or a request file."""
    numbers: list[int | str] = field(default_factory=list)
    """For a request :meth:`laid_out` from another, the as-written number of each of
    :attr:`messages` (:meth:`number`) as that request numbers it; empty: read from this one."""
    written_view: bool = False
    """Whether this numbers the file as written (:func:`as_written`), not what the agent sends."""
    answers: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """For a place the agent makes up on resume from no record of the file (:attr:`added` says
    what it is), the as-written messages of the calls it answers (``()``: none)."""
    made: dict[int, str] = field(default_factory=dict)
    """For :func:`modelled`'s places that hold what the agent makes up on resume (a result for a
    call of the file, a reply), what that is in words; with records of the file beside it or not."""
    _checked: dict[str, list[Violation]] = field(default_factory=dict)
    _found: dict[str, list[Violation]] = field(default_factory=dict)
    _blocks: dict[int, tuple[int, int]] | None = None
    _body: list[Any] | None = None
    _turns: list[Any] | None = None

    @property
    def length(self) -> int:
        return len(self.wire)

    @property
    def agent(self) -> str | None:
        return self.sent.agent

    def name(self, n: int) -> str:
        """Place ``n`` as the provider writes it."""
        return place_name(self.wire_format, n)

    @property
    def body(self) -> list[Any]:
        """The list of the request body the provider's index counts (``messages``, ``input``,
        ``contents``), place for place: for a recorded request what it recorded, for a request
        file the file's own history, else what the agent sends with what it adds at its place
        (:func:`body_of`)."""
        if self._body is None:
            if self.recorded is not None or self.layout is not None:
                self._body = self.wire
            else:
                self._body = body_of(self.sent) if self.agent is not None else self.sent.wire
        return self._body

    def _raw_check(self, provider: str) -> list[Violation]:
        if provider not in self._found:
            last = len(self.messages)
            history = self.messages if self.exact or self.agent is None else [*self.messages, RESUME_PROMPT]
            found = [v for v in check(history, provider) if v.index < last and v.index not in self.stand_ins]
            self._found[provider] = found
        return self._found[provider]

    def check(self, provider: str) -> list[Violation]:
        """``provider``'s violations in what is sent (``Violation.index`` counts :attr:`messages`;
        ``where``, ``wire_index``, ``block`` and the places their texts name count :attr:`body`).
        What an agent sends on resume is judged with the new prompt after it."""
        if provider not in self._checked:
            self._checked[provider] = [self.repoint(v) for v in self._raw_check(provider)]
        return self._checked[provider]

    def own(self, provider: str) -> bool:
        """Whether ``provider`` is sent :attr:`body` itself: it takes the wire format the body is
        in (Bedrock Converse, which no agent sends, never is)."""
        return provider != "bedrock" and wire_format_of(provider) == self.wire_format

    def laid_out(self, provider: str) -> SentRequest:
        """What is sent, numbered as ``provider``'s request counts it: this request where
        ``provider`` is sent it (:meth:`own`), else the same messages laid out as suture writes
        ``provider``'s request (the numbering of ``suture check --provider``'s pointers for a
        provider the agent does not send to), each place traced to the as-written messages
        that are sent in it. A place the file holds nothing of is what the agent adds (a stand-in's
        ``added``), and for what an agent sends on resume, the new prompt follows."""
        if self.layout == provider or (self.layout is None and self.own(provider)):
            return self
        fmt = wire_format_of(provider)
        listed = self._listed(fmt, provider)
        at: list[int | None] = [None] * len(self.messages)
        written: list[tuple[int, ...]] = []
        added: dict[int, str] = {}
        answers: dict[int, tuple[int, ...]] = {}
        for n, members in enumerate(listed):
            for j in members:
                if 0 <= j < len(at) and at[j] is None:
                    at[j] = n
            numbers = [self.number(j) for j in members if j not in self.stand_ins]
            written.append(_ordered(i if isinstance(i, int) else None for i in numbers))
            if not written[-1]:
                places = [p for j in members if 0 <= j < len(self.at) and (p := self.at[j]) is not None]
                what = next((self.added[p] for p in places if p in self.added), None)
                added[n] = what or "what the agent adds when it sends"
                answers[n] = _ordered(i for p in places for i in self.answers.get(p, ()))
        if not self.exact and self.agent is not None:
            added[len(written)] = _NEW_PROMPT
            written.append(())
        who = agent_name(self.agent) if self.agent else "the file"
        return SentRequest(
            key=list_key(fmt),
            wire_format=fmt,
            provider=self.provider,
            wire=[None] * len(written),
            written=written,
            added=added,
            messages=self.messages,
            at=at,
            exact=self.exact,
            label=f"{self.label}, laid out as {provider}'s request ({who} sends to {self.provider})",
            sent=self.sent,
            stand_ins=self.stand_ins,
            in_sent=self.in_sent,
            layout=provider,
            numbers=[self.number(j) for j in range(len(self.messages))],
            written_view=self.written_view,
            answers=answers,
        )

    def block_written(self, n: int, block: int) -> tuple[int, ...]:
        """For a request :meth:`laid_out` as another provider's, the as-written message block
        ``block`` of place ``n`` is sent from (a turn joins several messages); ``()`` where
        that cannot be told."""
        if self.layout is None:
            return ()
        if list_key(self.wire_format) == "contents":
            listed = contents(self.messages)
        elif _anthropic_wire(self.wire_format):
            listed = turns(self.messages, merge=self.layout == "bedrock")
        else:
            return ()
        if not 0 <= n < len(listed) or not 0 <= block < len(listed[n].blocks):
            return ()
        found = self.number(listed[n].blocks[block].source)
        return (found,) if isinstance(found, int) else ()

    def counts(self, provider: str) -> str:
        """What ``provider``'s pointer (``messages.N``, ``input[N]``, ...) counts here, in a sentence."""
        form = pointer_form(provider)
        who = agent_name(self.agent) if self.agent else ""
        if self.own(provider):
            if self.agent is None:
                return f"{form} counts this file's {list_key(self.wire_format)}, as {provider}'s errors do"
            added = "".join(
                f"; {self.name(n)} is {what}" for n, what in sorted(self.added.items()) if n < len(self.body)
            ) + "".join(
                f"; {self.name(n)} holds {what}, which {who} writes itself when it resumes"
                for n, what in sorted(self.made.items())
                if n not in self.added
            )
            return f"{form} counts the request {who} sends on resume (suture sent --body), as {provider}'s errors do{added}"
        if who:
            said = f"{form} counts what {who} sends, laid out as {provider}'s request ({who} sends to {self.provider})"
        else:
            said = (
                f"{form} counts this file's history, laid out as {provider}'s request (the file is {self.wire_format})"
            )
        # What the agent adds (stand-ins), and what it makes up from no record of the file.
        made = {j for j in range(len(self.messages)) if j not in self.stand_ins and self.number(j) == "new"}
        if not self.stand_ins and not made:
            return said
        fmt = wire_format_of(provider)
        listed = self._listed(fmt, provider)
        counted = {j: n for n, members in enumerate(listed) for j in members if j in self.stand_ins or j in made}
        named: set[str] = set()
        for j in sorted(self.stand_ins | made):
            place = self.at[j] if j < len(self.at) else None
            what = self.added.get(place, "what the agent adds") if place is not None else "what the agent adds"
            n = counted.get(j)
            verb = "is"
            k = self.in_sent[j] if j < len(self.in_sent) else None
            words = self.sent.made_words(k) if j in made and k is not None else None
            if words is not None and n is not None:
                # (Beside records of the file, in a turn that joins them: it is one of what that place holds.)
                verb = "holds" if any(isinstance(self.number(i), int) for i in listed[n]) else "is"
                what = f"{words}, which it writes itself when it resumes, from no record of this file"
            said_here = f"; {place_name(fmt, n)} {verb} {what}" if n is not None else f"; {what} is not among them"
            if said_here not in named:
                named.add(said_here)
                said += said_here
        return said

    def find(self, key: str, n: int, provider: str | None) -> tuple[list[int], str]:
        """The as-written messages at place ``n`` of ``key`` (``messages``, ``input``,
        ``contents``) as ``provider``'s errors count it: of :attr:`body` where that is what the
        provider is sent, else of what is sent laid out as its request; and that place in words."""
        named = provider or self.provider
        if list_key(wire_format_of(named)) != key:
            # A list the provider's errors do not count (input[N] where Anthropic is judged): the
            # place in the request of the provider whose list it is (the agent's own where it is one).
            from suture.formats import provider_of

            agent_s = list_key(wire_format_of(self.provider)) == key
            # (the first wire format whose list it is: Anthropic's for messages)
            named = self.provider if agent_s else provider_of(next(f for f, k in _KEYS.items() if k == key))
        if key == self.key and (provider is None or self.own(named)):
            written = list(self.written[n]) if 0 <= n < len(self.written) else []
            # The messages sent at this place first: a message traced to a record of another
            # role (sent at a place before) comes after those of the place's own role.
            role: dict[int | str, str] = {}
            own: set[int | str] = set()
            traced: set[int | str] = set()
            for j, m in enumerate(self.messages):
                i = self.number(j)
                role.setdefault(i, m.role)
                if j < len(self.at) and self.at[j] == n:
                    (own if role[i] == m.role else traced).add(i)
            written.sort(key=lambda i: i in traced and i not in own)
            # Then the calls that what the agent makes up here answers (not sent at this place).
            answered = [i for i in self._answered_at(n) if i not in written]
            if n < len(self.written):
                what = self.added.get(n) if not written else None
                if what and answered:
                    return answered, f"{self.name(n)} ({what})"
                return [*written, *answered], self.name(n) + (
                    f" ({what}, which this file does not hold)" if what else ""
                )
            last = len(self.written) - 1
            new = ", the last the new prompt the agent adds" if self.added.get(last) == _NEW_PROMPT else ""
            return written, f"{self.name(n)} (the request has {len(self.written)}{new})"
        fmt = wire_format_of(named)
        listed = self._listed(fmt, named)
        members = listed[n] if 0 <= n < len(listed) else []
        found = sorted({i for j in members if isinstance(i := self.number(j), int)})
        said = f"{place_name(fmt, n)} of what is sent, laid out as {named}'s request"
        return found, said + ("" if n < len(listed) else f" (it has {len(listed)})")

    def _answered_at(self, n: int) -> list[int]:
        """The as-written messages of the calls that the results the agent makes up at place
        ``n`` answer (:meth:`suture.sent.Sent.made`)."""
        out: list[int] = []
        for j, place in enumerate(self.at):
            k = self.in_sent[j] if place == n and j < len(self.in_sent) else None
            fix = self.sent.made(k) if k is not None else None
            if fix is not None and fix.kind == "inserted_result" and fix.index is not None and fix.index not in out:
                out.append(fix.index)
        return out

    def _listed(self, fmt: str, provider: str) -> list[list[int]]:
        """The messages of :attr:`messages` at each place of ``provider``'s request in ``fmt``,
        as the checks group them (``suture.checks._wire``)."""
        key = list_key(fmt)
        if key == "input":
            return [[it.source] for it in items(self.messages)]
        if key == "contents":
            return [t.members for t in contents(self.messages)]
        if _anthropic_wire(fmt):
            return [t.members for t in turns(self.messages, merge=provider == "bedrock")]
        return [[j] for j in range(len(self.messages))]

    def sent_problems(self, provider: str) -> list[Violation]:
        """:meth:`check`'s violations as :meth:`to_sent` counts them (what the agent's verdict lists)."""
        return [s for v in self._raw_check(provider) if (s := self.to_sent(v)) is not None]

    def _own_turns(self, v: Violation) -> bool:
        """Whether ``v`` counts Anthropic's ``messages`` and :attr:`body` is what Anthropic is sent:
        then the checks' turns (suture's writing of the history) are read as the places of the body."""
        return (
            self.layout is None
            and v.provider == "anthropic"
            and RULES[v.rule].index == "turns"
            and _anthropic_wire(self.wire_format)
        )

    def repoint(self, v: Violation) -> Violation:
        """``v`` as the checks give it (numbered as suture writes the request for its provider),
        with its pointer and the places its texts name counting :attr:`body` instead, where that
        is the request its provider is sent and it groups the messages otherwise (an agent that
        sends a user message after results as a message of its own); and the messages its
        problem names by number (``the call at [4]``) named as written, as ``[n]`` is."""
        if self.agent is not None and _NUMBER.search(v.problem):
            v = replace(v, problem=_NUMBER.sub(lambda m: f"[{self.number(int(m.group(1)))}]", v.problem))
        if not self._own_turns(v):
            return v
        moved = {
            m.group(): self._moved(int(m.group(1)), m.group(2))
            for m in _TURN.finditer(f"{v.where} {v.error} {v.problem}")
        }
        if all(new is None or new[1] == old for old, new in moved.items()):
            return v

        def sub(text: str) -> str:
            return _TURN.sub(lambda m: found[1] if (found := moved.get(m.group())) is not None else m.group(), text)

        where = _TURN.match(v.where)
        wire_index, block = v.wire_index, v.block
        if where is not None and (found := moved.get(where.group())) is not None:
            wire_index, block = found[0], found[2]
        return replace(
            v, where=sub(v.where), error=sub(v.error), problem=sub(v.problem), wire_index=wire_index, block=block
        )

    def number(self, j: int) -> int | str:
        """The as-written number of :attr:`messages` ``j``, as ``suture check`` prints it in
        front of a problem about it (``new`` for one the agent makes up)."""
        if self.numbers:
            return self.numbers[j] if 0 <= j < len(self.numbers) else "new"
        found: int | None = None
        if self.in_sent:
            k = self.in_sent[j] if 0 <= j < len(self.in_sent) else None
            found = self.sent.origin[k] if k is not None and k < len(self.sent.origin) else None
        else:
            place = self.at[j] if 0 <= j < len(self.at) else None
            written = self.written[place] if place is not None and place < len(self.written) else ()
            found = written[0] if written else None
        return found if found is not None else "new"

    def _moved(self, w: int, b: str | None) -> tuple[int, str, int | None] | None:
        """Anthropic's ``messages.w`` (``.content.b``) as the checks number it: its place in
        :attr:`body`, that place written the same way, and its block there."""
        if self._turns is None:
            self._turns = turns(self.messages)
        listed = self._turns
        if w >= len(listed):  # the new prompt, after the history and what the agent adds
            n = len(self.body) + w - len(listed)
            return n, f"messages.{n}" + (f".content.{b}" if b is not None else ""), int(b) if b is not None else None
        turn = listed[w]
        if b is not None and int(b) < len(turn.blocks):
            found = self._block_place(turn.blocks[int(b)])
            if found is not None:
                return found[0], f"messages.{found[0]}.content.{found[1]}", found[1]
        places = [p for j in turn.members if 0 <= j < len(self.at) and (p := self.at[j]) is not None]
        if not places:
            return None
        n = min(places)
        return n, f"messages.{n}" + (f".content.{b}" if b is not None else ""), int(b) if b is not None else None

    def _block_place(self, block: Any) -> tuple[int, int] | None:
        """The place in :attr:`body` of the block a checks' ``Block`` was read from, and its index
        in that message's ``content``."""
        if self._blocks is None:
            self._blocks = {}
            for n, value in enumerate(self.body):
                content = value.get("content") if isinstance(value, dict) else None
                for k, part in enumerate(content if isinstance(content, list) else ()):
                    self._blocks.setdefault(id(part), (n, k))
        m = self.messages[block.source] if 0 <= block.source < len(self.messages) else None
        candidates = [block.raw]
        if m is not None and block.kind == "tool_result" and isinstance(m.content, list):
            candidates += [p.raw for p in m.content]
        for raw in candidates:
            if raw is not None and id(raw) in self._blocks:
                return self._blocks[id(raw)]
        return None

    def to_sent(self, v: Violation) -> Violation | None:
        """``v`` (a violation as the checks give it for :attr:`messages`) with its pointer counting
        :attr:`body` (:meth:`repoint`), and its ``index`` and ``related`` counting
        ``sent.messages``, as :class:`suture.sent.SentVerdict` counts them. ``None`` for a
        stand-in, or a request that is not modelled."""
        v = self.repoint(v)

        def of(j: int) -> int | None:
            if j == len(self.messages):
                return len(self.sent.messages)  # the new prompt after the history
            return self.in_sent[j] if 0 <= j < len(self.in_sent) else None

        index = of(v.index)
        if index is None:
            return None
        related = tuple(r for r in map(of, v.related) if r is not None)
        return replace(v, index=index, related=related)

    def pointer(self, v: Violation) -> int | None:
        """The place ``v``'s own pointer (``Violation.where``) names, in this request's numbering
        (``v`` as :meth:`check` gives it)."""
        w = v.wire_index
        if w is None:
            return None
        if self._own_turns(v):
            return w  # (already a place of the body: repoint)
        kind = RULES[v.rule].index
        members: list[int] = []
        if kind in ("turns", "turns1"):
            listed = turns(self.messages, merge=v.provider == "bedrock")
            members = list(listed[w].members) if 0 <= w < len(listed) else []
        elif kind == "contents":
            listed = contents(self.messages)
            members = list(listed[w].members) if 0 <= w < len(listed) else []
        elif kind == "items":
            listed_items = items(self.messages)
            if not 0 <= w < len(listed_items):
                return None
            source = listed_items[w].source
            first = self.at[source] if 0 <= source < len(self.at) else None
            if first is None:
                return None
            # A message sent as several items (reasoning, text, calls) fills consecutive places.
            return first + sum(1 for it in listed_items[:w] if it.source == source)
        else:
            members = [w]
        found = [self.at[j] for j in members if 0 <= j < len(self.at) and self.at[j] is not None]
        return min(p for p in found if p is not None) if found else None

    def places(self, v: Violation) -> set[int]:
        """Every place ``v`` is about: its message, the messages its text names, its pointer."""
        out = {self.at[j] for j in (v.index, *v.related) if 0 <= j < len(self.at)}
        out.add(self.pointer(v))
        return {p for p in out if p is not None}

    def written_of(self, v: Violation) -> tuple[int, ...]:
        """The as-written messages ``v`` is about, its own message first."""
        out: list[int] = []
        for j in (v.index, *v.related):
            place = self.at[j] if 0 <= j < len(self.at) else None
            if place is None:
                continue
            for i in self.written[place]:
                if i not in out:
                    out.append(i)
        return tuple(out)

    def where(self, v: Violation) -> str:
        """``v``'s pointer in this request's numbering (``messages.3``), or its own where none."""
        place = self.pointer(v)
        return self.name(place) if place is not None else v.where


def _ordered(values: Iterable[int | None]) -> tuple[int, ...]:
    out: list[int] = []
    for v in values:
        if v is not None and v not in out:
            out.append(v)
    return tuple(out)


def sent_request(transcript: Transcript) -> SentRequest | None:
    """What the agent that wrote ``transcript`` sends on resume, numbered (:func:`modelled`);
    ``None`` for a request file, which is its own request."""
    from suture.sent import models

    return modelled(transcript) if transcript.format in models() else None


def body_of(sent: Sent) -> list[Any]:
    """The list of the request body the agent sends on resume (its ``messages`` or ``input``),
    as the provider counts it: ``sent.wire``, with a stand-in at the place of each message the
    agent adds that the file does not hold (``Sent.added``; :func:`stand_in`). For a request
    file, its own history."""
    out = list(sent.wire)
    for a in sorted(sent.added, key=lambda a: a.position):
        out.insert(min(a.position, len(out)), stand_in(sent.wire_format, a))
    return out


def stand_in(wire_format: str, added: Added) -> dict[str, Any]:
    """A message in ``wire_format`` that stands for one the agent adds when it sends, which the
    file does not hold: it says what it is, in the shape the agent sends it (``Added.parts``,
    ``Added.item``)."""
    text = f"({added.what}: added when the request is sent; the file does not hold it)"
    key = list_key(wire_format)
    if key == "contents":
        return {"role": "user", "parts": [{"text": text}]}
    content: Any = [{"type": "input_text" if key == "input" else "text", "text": text}] if added.parts else text
    shaped = {"type": "message"} if added.item else {}
    return {**shaped, "role": added.role, "content": content}


def modelled(transcript: Transcript, sent: Sent | None = None) -> SentRequest:
    """What the agent that wrote ``transcript`` sends when it resumes it, numbered as the provider
    numbers it: the history, what the agent adds (``Sent.added``) at its place, and the new
    prompt last. For a request file, the file's own history."""
    sent = sent if sent is not None else as_sent(transcript)
    if sent.agent is None:
        return _request_file(transcript, sent)
    total = len(sent.wire) + len(sent.added)
    wire: list[Any] = [None] * total
    filled = [False] * total
    placed = [sent.position(k) for k in range(len(sent.wire))]
    for k, n in enumerate(placed):
        if n < total:
            wire[n] = sent.wire[k]
            filled[n] = True
    added: dict[int, str] = {}
    roles: dict[int, str] = {}
    extra = iter(sorted(sent.added, key=lambda a: a.position))
    for n in range(total):
        if not filled[n]:
            a = next(extra, None)
            added[n] = a.what if a is not None else "what the agent adds when it sends"
            roles[n] = a.role if a is not None else "system"
    wire.append(None)
    added[total] = _NEW_PROMPT
    in_wire = sent.places
    written: list[tuple[int, ...]] = [() for _ in wire]
    for k, n in enumerate(placed):
        if n < total and k < len(sent.written):
            written[n] = sent.written[k]
    # The history with a stand-in for each message the agent adds, so that the checks number the
    # request as the provider does (their texts then agree with the places named here).
    ordered: list[tuple[int, int, Message, bool]] = []
    for j, ks in enumerate(in_wire):
        ordered.append((placed[ks[0]] if ks else total, j, sent.messages[j], False))
    for n, role in roles.items():
        ordered.append((n, -1, Message(role, f"({added[n]})"), True))
    ordered.sort(key=lambda t: (t[0], t[1]))
    messages, at, stand_ins, in_sent = _with_stand_ins(ordered, sent.wire_format)
    who = agent_name(sent.agent)
    made = _made_up(sent, placed)
    answers: dict[int, tuple[int, ...]] = {}
    for n, value in enumerate(wire):
        if value is not None and n not in added and not written[n]:
            # A message the agent writes itself on resume (a result for a call it answers itself,
            # a reply after the last user message), and what it is.
            words = [w for _, w, _ in made.get(n, ())]
            what = f"{'; '.join(words)}, which it" if words else f"a message {who}"
            added[n] = f"{what} writes itself when it resumes, from no record of this file"
            answers[n] = _ordered(i for _, _, i in made.get(n, ()))
    return SentRequest(
        key=list_key(sent.wire_format),
        wire_format=sent.wire_format,
        provider=sent.provider,
        wire=wire,
        written=written,
        added=added,
        messages=messages,
        at=at,
        exact=False,
        label=f"what {who} {sent.model} sends when it resumes this file",
        sent=sent,
        stand_ins=stand_ins,
        in_sent=in_sent,
        answers=answers,
        made={n: "; ".join(w for _, w, _ in found) for n, found in made.items()},
    )


def _made_up(sent: Sent, placed: Sequence[int]) -> dict[int, list[tuple[int, str, int | None]]]:
    """The messages the agent makes up on resume (:meth:`Sent.made`), by their place in the
    request: each one's index in ``sent.messages``, what it is in words, and the as-written
    message of the call it answers (``None``: none)."""
    out: dict[int, list[tuple[int, str, int | None]]] = {}
    for j, ks in enumerate(sent.places):
        words = sent.made_words(j) if ks and ks[0] < len(placed) else None
        fix = sent.made(j) if words else None
        if words and fix is not None:
            out.setdefault(placed[ks[0]], []).append((j, words, fix.index if fix.kind == "inserted_result" else None))
    return out


def _with_stand_ins(
    ordered: Sequence[tuple[int, int, Message, bool]], wire_format: str
) -> tuple[list[Message], list[int | None], frozenset[int], list[int | None]]:
    """Neutral messages in request order, their places, which are stand-ins, and the index each
    had in ``ordered``'s own numbering (``None`` for a stand-in). Anthropic counts a ``system``
    message inside ``messages`` where suture's wire model lifts it out, so there a stand-in right
    after a user message is a user message of its own (Anthropic reads consecutive user messages
    as one: it changes no pairing); elsewhere it keeps its role."""
    messages: list[Message] = []
    at: list[int | None] = []
    stand_ins: set[int] = set()
    sources: list[int | None] = []
    anthropic = _anthropic_wire(wire_format)
    for place, j, m, stand_in in ordered:
        if stand_in or (anthropic and m.role in ("system", "developer")):
            if anthropic and messages and messages[-1].role == "user":
                m = Message("user", text_of(m.content) or f"({m.role})")
            stand_ins.add(len(messages))
            sources.append(None)
        else:
            sources.append(j)
        messages.append(m)
        at.append(place)
    return messages, at, frozenset(stand_ins), sources


_KIND_FORMATS = {
    "turns": "messages",
    "turns1": "messages",
    "items": "responses",
    "contents": "gemini",
    "messages": "chat",
}
"""The wire format whose list a rule's index kind (``suture.checks.rules.Rule.index``) counts."""


def wire_format_of(provider: str) -> str:
    """The wire format whose list ``provider``'s errors count (``messages`` for Anthropic and
    Bedrock, ``responses``, ``gemini``, else ``chat``), read from its rules."""
    kinds = {r.index for r in RULES.values() if provider in r.providers and r.index}
    return next((_KIND_FORMATS[k] for k in sorted(kinds) if k in _KIND_FORMATS), "chat")


def pointer_form(provider: str) -> str:
    """How ``provider``'s errors name a place: ``messages.N``, ``messages[N]``, ``input[N]``, ``contents[N]``."""
    return place_name(wire_format_of(provider), 0).replace("0", "N")


def list_key(wire_format: str) -> str:
    """The list of a request in ``wire_format`` that a provider's index counts: ``messages``,
    ``input`` or ``contents``."""
    return _KEYS.get(wire_format, "messages")


_UNITS = {"input": "item", "contents": "content"}


def unit(key: str) -> str:
    """What one entry of a request's list ``key`` (:func:`list_key`) is called when counted:
    ``message``, ``item`` (Responses ``input``) or ``content`` (Gemini ``contents``)."""
    return _UNITS.get(key, "message")


def held(sent: Sent) -> int:
    """How many places of the request the agent sends the history fills before the new prompt,
    as the provider numbers them: ``sent.wire`` and what the agent adds among them
    (``Sent.added``), the length of :func:`body_of`. What ``suture check`` and ``suture sent``
    both count as the messages sent."""
    return len(sent.wire) + len(sent.added)


def place_name(wire_format: str, n: int) -> str:
    """Place ``n`` of a request in ``wire_format`` as its provider's errors write it:
    ``messages.3`` (Anthropic), ``input[5]`` (Responses), ``contents[2]``, ``messages[3]``."""
    if _anthropic_wire(wire_format):
        return f"messages.{n}"
    return f"{list_key(wire_format)}[{n}]"


def _anthropic_wire(wire_format: str) -> bool:
    """Whether ``wire_format`` is Anthropic's Messages wire: ``messages.N`` counts its turns (a
    run of user messages is one), and a system message is not one of them."""
    from suture.formats import provider_of

    return provider_of(wire_format) == "anthropic"


def _request_file(transcript: Transcript, sent: Sent) -> SentRequest:
    """A request file: the history is the request, numbered as its provider groups the messages."""
    return _file_as_request(transcript, sent, transcript.format, "this file")


_AS_WRITTEN = f"{SENT_AS_WRITTEN}, as suture check's {CONTRACT} counts it"
"""What :func:`as_written` numbers, in words: what ``suture check``'s contract view counts."""


def as_written(transcript: Transcript, sent: Sent | None = None) -> SentRequest:
    """A session log as written, numbered as the provider its agent sends to numbers a request of
    those messages: what the contract view's problems and the errors ``suture check`` writes "of
    the file sent as written" count (each message as it is written, nothing the agent adds or
    repairs when it sends). For a request file, the file's own history (:func:`modelled`)."""
    sent = sent if sent is not None else as_sent(transcript)
    if sent.agent is None:
        return _request_file(transcript, sent)
    request = _file_as_request(transcript, sent, sent.wire_format, _AS_WRITTEN)
    request.layout = sent.provider  # suture's writing of the provider's request, not what is sent
    request.numbers = list(range(len(transcript.messages)))
    request.written_view = True
    return request


def _file_as_request(transcript: Transcript, sent: Sent, wire_format: str, label: str) -> SentRequest:
    """The file's messages as a request in ``wire_format``, numbered as its provider groups them."""
    messages = list(transcript.messages)
    key = list_key(wire_format)
    groups: list[list[int]]
    if key == "input":
        groups = [[it.source] for it in items(messages)]
    elif key == "contents":
        groups = [list(t.members) for t in contents(messages)]
    elif _anthropic_wire(wire_format):
        groups = [list(t.members) for t in turns(messages)]
    else:
        groups = [[i] for i in range(len(messages))]
    at: list[int | None] = [None] * len(messages)
    for n, members in enumerate(groups):
        for j in members:
            if at[j] is None:
                at[j] = n
    return SentRequest(
        key=key,
        wire_format=wire_format,
        provider=sent.provider,
        wire=[None] * len(groups),
        written=[_ordered(g) for g in groups],
        added={},
        messages=messages,
        at=at,
        exact=True,
        label=label,
        sent=sent,
    )


def block_keys(block: Any) -> set[tuple[str, str]]:
    """What identifies one block of a wire message: its call or result id, or its text."""
    if not isinstance(block, dict):
        return set()
    kind = block.get("type")
    if kind == "tool_use" and isinstance(block.get("id"), str):
        return {("call", block["id"])}
    if kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
        return {("result", block["tool_use_id"])}
    if kind in ("text", "thinking"):
        text = block.get("text", block.get("thinking"))
        if isinstance(text, str) and text.strip():
            return {("text", text.strip())}
    return set()


def _keys(value: Any) -> set[tuple[str, str]]:
    """What identifies the content of an Anthropic wire message: its call and result ids, its texts."""
    out: set[tuple[str, str]] = set()
    if not isinstance(value, dict):
        return out
    content = value.get("content")
    if isinstance(content, str) and content.strip():
        out.add(("text", content.strip()))
    for block in content if isinstance(content, list) else []:
        out |= block_keys(block)
    return out


def message_keys(m: Message) -> set[tuple[str, str]]:
    """What identifies the content of a neutral message, as :func:`block_keys` names it."""
    out = {("call", c.id) for c in m.tool_calls if c.id}
    if m.role == "tool":
        return out | ({("result", m.tool_call_id)} if m.tool_call_id else set())
    content = m.content
    if isinstance(content, str) and content.strip():
        out.add(("text", content.strip()))
    for part in content if isinstance(content, list) else []:
        if isinstance(part, (TextPart, ThinkingPart)) and part.text.strip():
            out.add(("text", part.text.strip()))
    return out


def recorded(transcript: Transcript, request: RecordedRequest, sent: Sent | None = None) -> SentRequest:
    """A request the session recorded (``suture.sent.recorded``), exactly as it was sent, each
    message traced to the as-written messages it came from: by its hash, to what the agent sends
    now (``as_sent``); by the line it was found at; or by the calls, results and texts it holds.
    A message traced to nothing is what the agent added when it sent (a ``system`` message)."""
    from suture.formats import get
    from suture.io import Document
    from suture.sent.recorded import message_hash

    sent = sent if sent is not None else as_sent(transcript)
    model = modelled(transcript, sent)
    body: list[Any] = request.body()["messages"]
    sendable = [m for m in body if isinstance(m, dict)]
    neutral = get("messages").load(Document("json", value={"messages": sendable})).messages
    now: dict[str, tuple[int, ...]] = {}
    for k, value in enumerate(sent.wire):
        if isinstance(value, dict):
            digest = message_hash({"role": value.get("role"), "content": value.get("content")})
            now.setdefault(digest, model.written[sent.position(k)])
    keyed: dict[tuple[str, str], list[int]] = {}
    for i, m in enumerate(transcript.messages):
        for key in message_keys(m):
            keyed.setdefault(key, []).append(i)
    written: list[tuple[int, ...]] = []
    added: dict[int, str] = {}
    for k, message in enumerate(request.messages):
        found: tuple[int, ...] = ()
        if message is not None:
            found = now.get(message_hash(message), ())
        line = request.lines[k] if k < len(request.lines) else None
        if not found and line is not None:
            found = tuple(i for i, m in enumerate(transcript.messages) if line in _lines(m))
        if not found and message is not None:
            found = _ordered(i for key in sorted(_keys(message)) for i in keyed.get(key, []))
            found = tuple(sorted(found))
        written.append(found)
        if not found:
            role = message.get("role") if isinstance(message, dict) else None
            who = agent_name(sent.agent) if sent.agent else "the agent"
            added[k] = (
                f"a {role} message {who} adds when it sends"
                if role == "system"
                else "a message suture cannot trace to this file"
                if message is not None
                else "a message suture could not rebuild from the file"
            )
    when = f", sent {request.timestamp}" if request.timestamp else ""
    who = agent_name(sent.agent) if sent.agent else "the agent"
    places = wire_places(body, neutral)
    ordered = [(ks[0] if ks else len(body), j, m, False) for j, (ks, m) in enumerate(zip(places, neutral, strict=True))]
    messages, at, stand_ins, _ = _with_stand_ins(ordered, "messages")
    return SentRequest(
        key="messages",
        wire_format="messages",
        provider=sent.provider or "anthropic",
        wire=body,
        written=written,
        added=added,
        messages=messages,
        at=at,
        exact=True,
        label=f"the request {who} recorded at line {request.line}{when}",
        sent=sent,
        recorded=request,
        stand_ins=stand_ins,
    )


def _lines(m: Message) -> set[int]:
    out = set(lines_of(m.source))
    if m.source is not None:
        out.update(line for line, _ in m.source.pieces if line is not None)
    return out
