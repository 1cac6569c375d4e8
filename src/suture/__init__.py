"""suture: see why a provider rejects an LLM agent transcript, repair it, review every change.

The library in one breath::

    import suture
    transcript = suture.load_file("session.jsonl")      # detects the format
    result = suture.repair(transcript.messages)          # docs/contract.md, pure
    body = suture.dump(result.messages, transcript)      # a request body, in its export format

``suture.InputError`` is what any of them raises for input suture cannot use (one line, fit to
show), a JSONL line that cannot be read included (``load_file(path, skip_bad_lines=True)`` loads
the rest); ``suture.NotTranscript``, one kind of it, for a file no format recognises. A session
log is written back by ``suture.writeback.write_back``; arguments of the wrong type are a
TypeError that says what to pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from suture.formats import NotTranscript, dump, load_bytes, load_file
from suture.io import InputError
from suture.model import (
    ImagePart,
    Message,
    OtherPart,
    Source,
    TextPart,
    ThinkingPart,
    ToolCall,
    Transcript,
)
from suture.repair import Change, ChangeKind, Repair, Span, repair
from suture.validity import Breach, violations

__all__ = [
    "Breach",
    "Change",
    "ChangeKind",
    "ImagePart",
    "InputError",
    "Message",
    "NotTranscript",
    "OtherPart",
    "Repair",
    "Source",
    "Span",
    "TextPart",
    "ThinkingPart",
    "ToolCall",
    "Transcript",
    "dump",
    "load_bytes",
    "load_file",
    "repair",
    "violations",
]

if TYPE_CHECKING:
    __version__: str


def __getattr__(name: str) -> str:
    """``suture.__version__``: the installed package's version (what ``suture --version`` says),
    read from its metadata when first asked, since importing that reader is slow."""
    if name != "__version__":
        raise AttributeError(f"module 'suture' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("suture")
    except PackageNotFoundError:  # run from its source, not installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
