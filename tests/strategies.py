"""Hypothesis strategies for neutral histories (``suture.model``), for any test that needs one.

The histories are built to hit every corner of the contract (docs/contract.md): steers typed while tools ran, assistant
placeholders in every whitespace form of rule 1, duplicate and empty call ids, missing, extra and
shuffled results, results before any call, images (in orphan results too), thinking and unknown
parts, and roles other than the four the engine knows.

Everything here is format-neutral: messages carry ``raw=None`` unless a strategy says otherwise,
so a format adapter's ``dump`` writes them as fresh records. That makes them usable for a format's
round-trip properties too::

    from tests.strategies import histories

    @given(histories())
    def test_round_trip(messages): ...

Main entry points:

- :func:`histories` -- whole histories, mixing well-formed turns with damaged ones;
- :func:`turns` -- one assistant message with calls and a jumble of what followed it;
- :func:`messages` -- one message of any role, with no relation to its neighbours;
- :func:`contents`, :func:`placeholder_contents`, :func:`parts` -- message content;
- :func:`call_ids`, :func:`tool_names`, :func:`tool_calls` -- calls.

Profiles: the default one keeps the suite fast; ``SUTURE_HYPOTHESIS_PROFILE=ci`` (300 examples a
property) or ``=soak`` (3000) run more, for a nightly job or after changing the engine.

Ids and names are drawn from small pools by default, so collisions (a repeated id, a result for
a call of another turn, an original id equal to a generated ``call_{m}_{c}`` or ``x_1``) are
common rather than astronomically rare. Pass your own pools to change that.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

from suture.model import Content, ImagePart, Message, OtherPart, Part, TextPart, ThinkingPart, ToolCall

__all__ = [
    "CALL_IDS",
    "NO_DEADLINE",
    "OTHER_ROLES",
    "TOOL_NAMES",
    "WHITESPACE",
    "assistant_texts",
    "call_ids",
    "contents",
    "histories",
    "image_parts",
    "messages",
    "other_parts",
    "parts",
    "placeholder_contents",
    "placeholders",
    "results",
    "steers",
    "text_parts",
    "thinking_parts",
    "tool_calls",
    "tool_names",
    "turns",
]

settings.register_profile("ci", max_examples=300, deadline=None)
settings.register_profile("soak", max_examples=3000, deadline=None)
if os.environ.get("SUTURE_HYPOTHESIS_PROFILE"):
    # SUTURE_HYPOTHESIS_PROFILE=soak pytest tests/test_repair_properties.py: hunt harder, once.
    settings.load_profile(os.environ["SUTURE_HYPOTHESIS_PROFILE"])

NO_DEADLINE = settings(deadline=None)
"""For property tests: a loaded CI machine must not fail a property by its clock. Example counts
still come from the active hypothesis profile."""

CALL_IDS: tuple[str, ...] = ("", "x", "y", "z", "x_1", "x_2", "call_1_0", "call_0_0", "call_2_1", "toolu_01")
"""The default id pool: empty ids, plain ones, ones that look like suture's own ``{base}_{k}``
and ``call_{m}_{c}`` (so a later original id can equal an earlier generated one)."""

TOOL_NAMES: tuple[str | None, ...] = (None, "", "read_file", "run_tests", "edit_file", "bash", "grep")
"""Tool names, with a missing one (``None``) and an empty one."""

WHITESPACE: tuple[str, ...] = ("", " ", "\n", "\t", "  \n\t ", "\r\n", "\u00a0", "\u2003", "\u3000")
"""Strings that are only whitespace, for rule 1 (placeholders)."""

OTHER_ROLES: tuple[str, ...] = ("developer", "function", "custom", "bashExecution")
"""Roles the engine does not know; the contract treats them like ``user``."""

_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
    min_size=1,
    max_size=12,
).filter(lambda s: s.strip() != "")
_WORDS = st.sampled_from(("fix the build", "2 failed", "ok", "<contents>", "done", "also check the lint", "é ✓ 中"))


def call_ids(pool: Sequence[str] = CALL_IDS) -> st.SearchStrategy[str]:
    """A call id or a result's ``tool_call_id``; ``""`` stands for a missing one."""
    return st.sampled_from(tuple(pool))


def tool_names(pool: Sequence[str | None] = TOOL_NAMES) -> st.SearchStrategy[str | None]:
    return st.sampled_from(tuple(pool))


def _texts() -> st.SearchStrategy[str]:
    return st.one_of(_WORDS, _TEXT)


def text_parts(text: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[TextPart]:
    return st.builds(TextPart, text if text is not None else _texts())


@st.composite
def image_parts(draw: st.DrawFn) -> ImagePart:
    """An inline image. ``raw`` holds ``data`` (base64) and ``media_type``, which a format
    adapter that did not load it can turn into its own image part; every image is distinct."""
    media = draw(st.sampled_from(("image/png", "image/jpeg", "image/webp")))
    payload = base64.b64encode(draw(st.binary(min_size=1, max_size=12))).decode()
    return ImagePart({"type": "image", "data": payload, "media_type": media}, media, len(payload))


def thinking_parts() -> st.SearchStrategy[ThinkingPart]:
    """Reasoning; its text may be only whitespace (it still makes a message no placeholder)."""
    return st.builds(ThinkingPart, st.one_of(_texts(), st.sampled_from(WHITESPACE)))


def other_parts() -> st.SearchStrategy[OtherPart]:
    """A part the neutral model has no type for (audio, a refusal, a file, ...)."""
    return st.builds(
        lambda kind, n: OtherPart({"type": kind, "n": n}, kind),
        st.sampled_from(("input_audio", "refusal", "file", "redacted_thinking")),
        st.integers(0, 9),
    )


def parts(images: bool = True, thinking: bool = True, other: bool = True) -> st.SearchStrategy[Part]:
    """Any content part; text is most common."""
    options: list[st.SearchStrategy[Any]] = [text_parts(), text_parts(st.sampled_from(WHITESPACE))]
    if images:
        options.append(image_parts())
    if thinking:
        options.append(thinking_parts())
    if other:
        options.append(other_parts())
    return st.one_of(*options)


def placeholder_contents() -> st.SearchStrategy[Content]:
    """Every content form of rule 1's placeholder: missing/``None``, ``""``, a whitespace string,
    an empty list, a list of text parts whose text is all whitespace."""
    return st.one_of(
        st.none(),
        st.sampled_from(WHITESPACE),
        st.just([]),
        st.lists(text_parts(st.sampled_from(WHITESPACE)), min_size=1, max_size=3),
    )


def contents(
    images: bool = True, thinking: bool = True, other: bool = True, empty: bool = True
) -> st.SearchStrategy[Content]:
    """Message content: a string or a list of parts; with ``empty``, also the whitespace forms."""
    options: list[st.SearchStrategy[Any]] = [
        _texts(),
        st.lists(parts(images, thinking, other), min_size=1, max_size=3),
    ]
    if empty:
        options.append(placeholder_contents())
    return st.one_of(*options)


def tool_calls(
    ids: Sequence[str] = CALL_IDS, names: Sequence[str | None] = TOOL_NAMES, min_size: int = 1, max_size: int = 3
) -> st.SearchStrategy[tuple[ToolCall, ...]]:
    """The calls of one assistant message; ids may repeat inside the message."""
    call = st.builds(
        ToolCall,
        call_ids(ids),
        tool_names(names),
        st.one_of(st.just("{}"), st.just('{"path": "a.py"}'), st.just("{not json"), st.none()),
    )
    return st.lists(call, min_size=min_size, max_size=max_size).map(tuple)


def placeholders() -> st.SearchStrategy[Message]:
    """An assistant message rule 1 drops: no calls, only whitespace."""
    return st.builds(lambda c: Message("assistant", c), placeholder_contents())


def assistant_texts() -> st.SearchStrategy[Message]:
    """An assistant message with no calls that is not a placeholder (it ends a span)."""
    return st.builds(lambda c: Message("assistant", c), contents(empty=False))


def steers() -> st.SearchStrategy[Message]:
    """A user message (often typed while tools ran), or one of another role."""
    role = st.sampled_from(("user", "user", "user", "system", *OTHER_ROLES))
    return st.builds(lambda r, c: Message(r, c), role, contents())


def _result(tool_call_id: str, fields: tuple[Content, str | None, bool | None]) -> Message:
    content, name, is_error = fields
    return Message("tool", content, tool_call_id=tool_call_id, name=name, is_error=is_error)


def _result_fields(images: bool = True) -> st.SearchStrategy[tuple[Content, str | None, bool | None]]:
    return st.tuples(contents(images=images, thinking=False), tool_names(), st.sampled_from((None, None, True, False)))


_RESULT_FIELDS = _result_fields()


def results(ids: st.SearchStrategy[str] | None = None, images: bool = True) -> st.SearchStrategy[Message]:
    """A ``tool`` result, with string or list content (images included), an optional name and
    error flag; ``tool_call_id`` ``""`` stands for a missing one."""
    fields = _RESULT_FIELDS if images else _result_fields(images)
    return st.builds(_result, ids if ids is not None else call_ids(), fields)


def messages(ids: Sequence[str] = CALL_IDS) -> st.SearchStrategy[Message]:
    """One message of any role, with no relation to its neighbours."""
    return st.one_of(
        steers(),
        results(call_ids(ids)),
        placeholders(),
        assistant_texts(),
        st.builds(lambda calls, c: Message("assistant", c, calls), tool_calls(ids), contents()),
    )


def turns(ids: Sequence[str] = CALL_IDS) -> st.SearchStrategy[list[Message]]:
    """An assistant message with calls, then what followed it before the next assistant message:
    results for some of its calls (a few twice), results for ids it never called, user steers,
    placeholders, in any order. The result ids are mostly the calls' own, so pairing happens."""
    ids = tuple(ids)
    if ids not in _TURNS:
        _TURNS[ids] = _turns(
            tool_calls(ids),
            st.lists(st.one_of(steers(), placeholders(), results(call_ids(ids))), max_size=3),
        )
    return _TURNS[ids]


_TURNS: dict[tuple[str, ...], st.SearchStrategy[list[Message]]] = {}
_ASSISTANT_CONTENT = st.one_of(st.none(), contents())


@st.composite
def _turns(
    draw: st.DrawFn, calls_st: st.SearchStrategy[tuple[ToolCall, ...]], others: st.SearchStrategy[list[Message]]
) -> list[Message]:
    calls = draw(calls_st)
    assistant = Message("assistant", draw(_ASSISTANT_CONTENT), calls)
    own = [c.id for c in calls]
    answered = draw(st.lists(st.integers(0, len(own) - 1), max_size=len(own) + 1))
    follow = [_result(own[i], draw(_RESULT_FIELDS)) for i in answered]
    follow += draw(others)
    order = draw(st.permutations(follow))
    return [assistant, *order]


def histories(
    ids: Sequence[str] = CALL_IDS, min_turns: int = 0, max_turns: int = 5
) -> st.SearchStrategy[list[Message]]:
    """A whole history: a mix of damaged turns (:func:`turns`) and loose messages of any role,
    which puts results before any call, after text replies, and placeholders everywhere."""
    return st.lists(
        st.one_of(turns(ids), st.lists(messages(ids), min_size=1, max_size=2)),
        min_size=min_turns,
        max_size=max_turns,
    ).map(lambda segments: [m for segment in segments for m in segment])
