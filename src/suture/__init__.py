"""suture: see why a provider rejects an LLM agent transcript, repair it, review every change.

The library in one breath::

    import suture
    transcript = suture.load_file("session.jsonl")      # detects the format
    result = suture.repair(transcript.messages)          # docs/contract.md, pure
    data = suture.dump(result.messages, transcript)      # bytes in the input's format
"""

from suture.formats import dump, load_bytes, load_file
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
    "Message",
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
