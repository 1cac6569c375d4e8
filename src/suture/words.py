"""How suture words a count: ``1 call``, ``16 calls``, ``1,204 messages``, never ``call(s)``;
and the names every surface gives the same things.

The one place the command line, the app and the formats' notes turn a number and a noun into
words. Pure: no I/O, no Textual, no import (the app's first screen imports it).
"""

from __future__ import annotations

__all__ = ["AS_WRITTEN", "CONTRACT", "after_repair", "count", "either"]

CONTRACT = "contract view"
"""What the problems of a session log's file as written are called: suture's repair contract on
the file (what ``suture repair`` changes), not what the agent sends (``SentVerdict.contract``)."""

SENT_AS_WRITTEN = "the file sent as written"
"""What a contract-view problem's pointer and error (``messages.3``) count: the file sent as
written, not the request the agent sends (which a problem in what is sent counts)."""

AS_WRITTEN = f"of {SENT_AS_WRITTEN}"
"""Whose places a contract-view problem's pointer and error count (:data:`SENT_AS_WRITTEN`)."""


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun that goes with it: ``one`` for exactly one, else ``many`` (``one`` with
    an ``s`` when not given), the number with thousands separators.

    >>> count(1, "call"), count(16, "call"), count(0, "reply", "replies"), count(1204, "message")
    ('1 call', '16 calls', '0 replies', '1,204 messages')
    """
    return f"{n:,} {one if n == 1 else (many if many is not None else one + 's')}"


def with_article(word: str) -> str:
    """``word`` after the indefinite article that goes with it, by its first letter (``an``
    before a, e, i, o; a word in ``u`` takes ``a``, as the roles and block types suture names do).

    >>> with_article("assistant"), with_article("user"), with_article("image block")
    ('an assistant', 'a user', 'an image block')
    """
    return f"{'an' if word[:1].lower() in 'aeio' else 'a'} {word}"


def either(names: tuple[str, ...] | list[str]) -> str:
    """``names`` as a choice in words: ``a, b or c`` (one name alone as it is).

    >>> either(["chat", "messages", "gemini"]), either(["chat"])
    ('chat, messages or gemini', 'chat')
    """
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def after_repair(after: int, short: bool = False) -> str:
    """What a verdict's figures say is left once repaired, after the figure before it:
    ``3 problems → 0 after repair`` (a request file), ``rejected, 1 problem in what Claude Code
    sends → 0 after repair`` (a session log), ``3→0`` where ``short``.

    >>> after_repair(0), after_repair(1204), after_repair(2, short=True)
    ('→ 0 after repair', '→ 1,204 after repair', '→2')
    """
    return f"→{after:,}" if short else f"→ {after:,} after repair"
