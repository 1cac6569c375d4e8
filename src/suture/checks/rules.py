"""The rule table: every rejection rule suture checks or recognises, with its source.

Each rule names the providers that enforce it, the error text they send (as collected from real
400 responses; see the ``source`` of each), whether suture's repair is meant to fix it (``yes``:
a rule of the repair contract, docs/contract.md; ``no``; ``some``: some instances, the violation says which), and what a person must
do where it does not. ``patterns`` recognise the provider's text in ``suture explain``; they are
matched against a normalised copy of the pasted text (see :func:`normalise`), so they hold no
backticks or quotes and match across rewording of punctuation and line breaks.

``family`` lists the rules whose violations a provider reports with this rule's text (Anthropic
reports tool results that do not lead their message with the same text as missing ones).
``index`` says which numbering an index in the text uses (see ``suture.checks._wire``).
``unseen`` lists the texts (by their place in ``errors``) about what the history alone does not
show, which no check writes: a thinking block's signature, checked against the response it came
from, or whether the request has thinking on (:meth:`Rule.unseen_pattern` tells a pasted text of
one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["OUTPUT_BEFORE_CALL", "RULES", "Rule", "normalise", "rule"]

_IDS = r"(?P<ids>[\w.:\-]+(?:, ?[\w.:\-]+)*)"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    providers: tuple[str, ...]
    title: str
    errors: tuple[str, ...]
    source: str
    fixed: str
    remedy: str
    patterns: tuple[str, ...] = ()
    family: tuple[str, ...] = ()
    index: str | None = None
    fix: str = ""
    """What the repair does about it, for a rule it fixes only in some cases (``fixed == "some"``)."""
    unseen: tuple[int, ...] = ()
    """The ``errors`` (by index) no check writes: what the history alone does not show."""
    place: str = ""
    """``"first"`` or ``"last"`` for a rule about the message that starts or ends the request,
    whichever it is: where the repair drops that message, the one that then starts or ends it is
    the place to look for the problem after repair (``"first"`` for a problem at the first wire
    message only)."""
    kinds_by_text: bool = False
    """Its texts are problems of different kinds, which a repair fixes apart (B3: a conversation
    that starts with an assistant message is not two assistant messages in a row): a problem after
    repair is the same one as a problem before only where its text is the same. Only for texts
    with no field that a repair renumbers."""

    @property
    def repair_does(self) -> str:
        """What the repair does about a problem of this rule that it fixes."""
        return self.fix or (self.remedy if self.fixed == "yes" else "")

    def text(self, k: int = 0, /, **fields: object) -> str:
        """The provider's error text ``errors[k]`` with its ``{name}`` fields filled in: a checker
        writes a rule's text from here, never a copy of it. A rule whose text is ``as A1`` is
        reported with that rule's texts (``k`` counts those)."""
        first = self.errors[0]
        if first.startswith("as ") and first[3:] in RULES:
            return RULES[first[3:]].text(k, **fields)
        out = self.errors[k]
        for name, value in fields.items():
            out = out.replace("{" + name + "}", str(value))
        return out

    @property
    def members(self) -> tuple[str, ...]:
        return self.family or (self.id,)

    def unseen_pattern(self, k: int) -> bool:
        """Whether ``patterns[k]`` recognises only texts no check writes (:attr:`unseen`): an
        error of it is about something suture's checks cannot see, never one of the problems they
        find of this rule."""
        if not self.unseen or not 0 <= k < len(self.patterns):
            return False
        pattern = _compiled(self.id)[k]
        said = [j for j, _ in enumerate(self.errors) if pattern.search(normalise(_filled(self.text(j))))]
        return bool(said) and all(j in self.unseen for j in said)

    def compiled(self) -> list[re.Pattern[str]]:
        return _compiled(self.id)


def normalise(text: str) -> str:
    """A pasted error as the patterns expect it: JSON escapes undone, backticks and quotes removed,
    runs of whitespace (terminal line breaks) made one space."""
    t = text.replace("\\n", " ").replace("\\t", " ")
    t = t.replace("\\", "")
    t = re.sub(r"[`'\"“”‘’]", "", t)
    return re.sub(r"\s+", " ", t).strip()


_A12_REMEDY = (
    "Thinking blocks must go back exactly as the provider returned them, signature included, and "
    "suture never edits them. Restore the original blocks from the session, or remove the thinking "
    "blocks of earlier turns (keep the latest assistant message untouched), or send the request "
    "with thinking disabled."
)

_NO_MESSAGE = (
    "Add the message to send (a user message: the prompt); suture's repair adds no message, so a "
    "request with none stays rejected."
)

_TABLE: tuple[Rule, ...] = (
    # -- Anthropic Messages (also Vertex and Bedrock-hosted Claude) -----------------------------
    Rule(
        "A1",
        ("anthropic",),
        "every tool_use needs a tool_result at the start of the next user message",
        (
            "messages.{N}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
            "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
            "messages.{N}: Did not find {count} `tool_result` block(s) at the beginning of this message. Messages "
            "following `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
        ),
        "anthropics/claude-code#5989, #37, #473; N, the message after the calls: Mirascope/mirascope#2503",
        "some",
        "the repair puts every call's result right after it (a synthetic one where none exists)",
        (
            r"(?:messages\.(?P<n>\d+): )?tool_use ids were found without tool_result blocks(?: immediately after)?(?:: "
            + _IDS
            + ")?",
            r"(?:messages\.(?P<n>\d+): )?did not find \d+ tool_result block\(?s?\)? at the beginning of this message",
        ),
        ("A1", "A1a", "A1b"),
        "turns",
    ),
    Rule(
        "A1a",
        ("anthropic",),
        "tool_result blocks must be the leading run of their user message (order among them is free)",
        ("as A1",),
        "V1ki/dsh-plugin-subscriptions#22; QwenLM/qwen-code#8165",
        "yes",
        "the repair writes results first, then the user text that arrived among them",
        index="turns",
    ),
    Rule(
        "A1b",
        ("anthropic",),
        "text after tool_use in the same assistant message also breaks A1",
        ("as A1",),
        "anomalyco/opencode packages/llm/test/fixtures/recordings/anthropic-messages/"
        "rejects-malformed-assistant-tool-order-without-patch.json",
        "no",
        "Move the text before the tool_use blocks of that assistant message (or into a message of its own "
        "before it); suture keeps blocks in the order they were written.",
        index="turns",
    ),
    Rule(
        "A2",
        ("anthropic",),
        "a tool_result must answer a tool_use of the previous message",
        (
            "messages.{N}.content.{M}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each "
            "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
        ),
        "router-for-me/CLIProxyAPI#497",
        "yes",
        "the repair moves the result to its call's turn, or keeps it as a user note where it has no call",
        (
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?unexpected tool_use_id found in tool_result blocks: "
            + _IDS,
        ),
        index="turns",
    ),
    Rule(
        "A3",
        ("anthropic",),
        "tool_use ids must be unique in the whole request",
        ("messages.{N}.content.{M}: `tool_use` ids must be unique",),
        "anthropics/claude-code#20901, #28515",
        "yes",
        "the repair renames the later call (id_1, id_2, ...) and its result",
        (r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?tool_use ids must be unique",),
        index="turns",
    ),
    Rule(
        "A4",
        ("anthropic",),
        "one tool_use has a single tool_result",
        (
            "messages.{N}.content.{M}: each tool_use must have a single result. Found multiple tool_result "
            "blocks with id: {id}",
        ),
        "JohnnyZ93/oai-compatible-copilot#270 (text seen through a proxy; unconfirmed)",
        "yes",
        "the repair keeps the first result and turns the second into a user note",
        (
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?each tool_use must have a single result\.? "
            r"found multiple tool_result blocks with id:? " + _IDS,
        ),
        index="turns",
    ),
    Rule(
        "A5",
        ("anthropic",),
        "tool ids match ^[a-zA-Z0-9_-]+$ (an empty id fails)",
        (
            "messages.{N}.content.{M}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
            "messages.{N}.content.{M}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        ),
        "CommandCodeAI/command-code#323; anomalyco/opencode#1279",
        "some",
        "Rename the id, in the call and its result alike, to letters, digits, _ and -; suture keeps "
        "non-empty ids as they are.",
        (
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+)\.)?(?:tool_use\.id|tool_result\.tool_use_id): "
            r"string should match pattern",
        ),
        index="turns",
        fix="the repair gives a call without an id the id call_{m}_{c}, and keeps a result no call answers as a user note",
    ),
    Rule(
        "A6",
        ("anthropic",),
        "tool_use blocks only in assistant messages, tool_result blocks only in user messages",
        (
            "`tool_result` blocks can only be in `user` messages",
            "`tool_use` blocks can only be in `assistant` messages",
        ),
        "tghamm/Anthropic.SDK#128",
        "no",
        "Move the block into a message of the right role, or delete it.",
        (
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+)[.:]? ?)?tool_(?:result|use) blocks can only be in (?:user|assistant) messages",
        ),
        index="turns",
    ),
    Rule(
        "A7",
        ("anthropic",),
        "no empty or whitespace-only text block",
        (
            "messages: text content blocks must be non-empty",
            "messages: text content blocks must contain non-whitespace text",
        ),
        "anthropics/claude-code#59812, #23440",
        "some",
        "Delete the empty text block or give it text (the repair drops it only from an assistant "
        "message that holds nothing else).",
        (r"text content blocks must (?:be non-empty|contain non-whitespace text)",),
        index="turns",
        fix="the repair drops an assistant message that holds nothing but whitespace",
    ),
    Rule(
        "A8",
        ("anthropic",),
        "no empty message, except an optional final assistant message",
        ("messages.{N}: all messages must have non-empty content except for the optional final assistant message",),
        "anthropics/claude-code#6774",
        "some",
        "Delete the empty message or give it content (the repair drops empty assistant messages only).",
        (r"(?:messages\.(?P<n>\d+): )?all messages must have non-empty content",),
        index="turns",
        fix="the repair drops empty assistant messages",
    ),
    Rule(
        "A9",
        ("anthropic",),
        "the final assistant message cannot end with whitespace",
        ("messages: final assistant content cannot end with trailing whitespace",),
        "tailcallhq/forgecode#1872",
        "no",
        "Strip the trailing whitespace from the final assistant message, or drop that message.",
        (r"final assistant content cannot end with trailing whitespace",),
        index="turns",
    ),
    Rule(
        "A10",
        ("bedrock",),
        "the first message must be a user message (Claude on Bedrock; Anthropic only in the past)",
        ('messages: first message must use the "user" role',),
        "lobehub/lobe-chat#1601; anthropics/anthropic-sdk-typescript#622",
        "some",
        "Start the conversation with a user message (add one before the first assistant message).",
        (r"first message must use the user role",),
        ("B3",),
        "turns",
        fix="the repair drops an empty assistant message at the start",
    ),
    Rule(
        "A11",
        ("bedrock",),
        "roles alternate (Anthropic only in the past: it now merges same-role messages)",
        ('messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',),
        "coaidev/coai#209",
        "some",
        "Merge the consecutive messages of one role, or put a message of the other role between them.",
        (r"roles must alternate between user and assistant",),
        ("B3",),
        "turns",
        fix="the repair drops empty assistant messages and puts results after an assistant message with calls",
    ),
    Rule(
        "A12",
        ("anthropic",),
        "thinking blocks: first in their message, kept byte-exact with their signature, never last",
        (
            "messages.{N}.content.0: If an assistant message contains any thinking blocks, the first block "
            "must be thinking or redacted_thinking. Found {found}.",
            "messages.{N}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When "
            "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding "
            "the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks "
            "from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation "
            "at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
            "messages.{N}: The final block in an assistant message cannot be `thinking`.",
            "messages.{N}.content.{M}: Invalid `signature` in `thinking` block",
            "messages.{N}.content.{M}: `thinking` or `redacted_thinking` blocks in the latest assistant message "
            "cannot be modified. These blocks must remain as they were in the original response.",
            "messages.{N}.content.{M}: When thinking is disabled, an `assistant` message in the final position "
            "cannot contain `thinking`.",
            "messages.{N}.content.{M}.thinking.signature: Field required",
        ),
        "anomalyco/opencode#3077; anthropics/claude-code#20705, #19539, #10627, #63246; "
        "anthropics/anthropic-sdk-python#1598; tailcallhq/forgecode#2107, #1853; "
        "code-yeongyu/oh-my-openagent#2775",
        "no",
        _A12_REMEDY,
        (
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?if an assistant message contains any thinking "
            r"blocks,? the first block must be thinking",
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+)\.type: )?expected thinking or redacted_thinking,? but found \w+",
            r"a final assistant message must start with a thinking block",
            r"(?:messages\.(?P<n>\d+): )?the final block in an assistant message cannot be thinking",
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?invalid signature in thinking block",
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?thinking or redacted_thinking blocks in the latest "
            r"assistant message cannot be modified",
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+)\.)?thinking\.signature: field required",
            r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+): )?when thinking is disabled,? an assistant message "
            r"in the final position cannot contain thinking",
        ),
        index="turns",
        # A signature is checked against the response it came from, and whether thinking is on is
        # the request's: a history shows neither.
        unseen=(3, 4, 5),
    ),
    Rule(
        "A13",
        ("anthropic",),
        "a tool_result with is_error true has content",
        ("messages.{N}.content.{M}.tool_result: content cannot be empty if `is_error` is true",),
        "jlevy/markform#153; bytedance/trae-agent#230; UKGovernmentBEIS/inspect_ai#169",
        "no",
        "Give the failed result a text that says what went wrong, or drop its is_error flag; suture does "
        "not make up tool output.",
        (r"(?:messages\.(?P<n>\d+)\.content\.(?P<m>\d+)\.tool_result: )?content cannot be empty if is_error is true",),
        index="turns",
    ),
    Rule(
        "A14",
        ("anthropic",),
        "the request has at least one message (the system prompt is not one)",
        ("messages: at least one message is required",),
        "langgenius/dify#25953; devoxx/DevoxxGenieIDEAPlugin#567; decolua/9router#419",
        "no",
        _NO_MESSAGE,
        (r"(?:messages: )?at least one message is required",),
        index="turns",
    ),
    # -- OpenAI Chat Completions (and the chat-compatible providers that reuse its texts) --------
    Rule(
        "O1",
        ("openai-chat", "kimi", "deepseek"),
        "every tool_calls id needs a tool message right after the assistant message",
        (
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: {ids} "
            "(param: messages.[{N}].role)",
            # DeepSeek's wording.
            "An assistant message with 'tool_calls' must be followed by tool messages responding to "
            "each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        ),
        "sdcb/chats#132; zed-industries/zed#51944; gptme/gptme#3421; MoonshotAI/kimi-cli#2405; agno-agi/agno#3105",
        "yes",
        "the repair puts every call's result right after it (a synthetic one where none exists)",
        (
            r"an assistant message with tool_calls must be followed by tool messages responding to each "
            r"tool_call_id\.?(?: the following tool_call_ids did not have response messages: " + _IDS + ")?",
        ),
        index="messages",
    ),
    Rule(
        "O2",
        ("openai-chat", "deepseek"),
        "a tool message must answer a call of the assistant message before it",
        (
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
            "'tool_calls'. (param: messages.[{N}].role)",
            "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message.",
            # DeepSeek's wording.
            "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
        ),
        "sdcb/chats#132; run-llama/llama_index#10493; itmisx/deepx-code#94",
        "yes",
        "the repair moves the result to its call's turn, or keeps it as a user note where it has no call",
        (
            r"messages with role tool must be a response to a prece?eding message with tool_calls",
            r"tool_call_id of (?P<id>[^\s,]+) not found in tool_calls of previous message",
        ),
        index="messages",
    ),
    Rule(
        "O3",
        ("openai-chat",),
        "tool messages carry a tool_call_id and calls an id",
        (
            "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
            "Missing required parameter: 'messages[{N}].tool_calls[{C}].id'.",
        ),
        "langchain-ai/langchain#22600",
        "yes",
        "the repair gives a call without id the id call_{m}_{c}; a result without id pairs with such a call "
        "or becomes a user note",
        (
            r"missing parameter tool_call_id: messages with role tool must have a tool_call_id",
            r"missing required parameter: messages\[(?P<n>\d+)\]\.tool_calls\[(?P<c>\d+)\]\.id",
        ),
        index="messages",
    ),
    Rule(
        "O4",
        ("openai-chat",),
        "one tool message per tool_call_id in the whole request",
        ("Invalid parameter: Duplicate value for 'tool_call_id' of '{id}', in messages[{A}] and messages[{B}].",),
        "agno-agi/agno#5116",
        "yes",
        "the repair gives each call a unique id and keeps one result per call (others become user notes)",
        (
            r"duplicate value for tool_call_id of (?P<id>[^\s,]+),? in messages\[(?P<n2>\d+)\] and messages\[(?P<n>\d+)\]",
        ),
        index="messages",
    ),
    Rule(
        "O5",
        ("openai-chat",),
        "call ids are at most 40 characters",
        (
            "Invalid 'messages[{N}].tool_calls[{C}].id': string too long. Expected a string with maximum length "
            "40, but got a string with length {L} instead.",
        ),
        "vercel/ai#5171",
        "no",
        "Shorten the id to 40 characters or fewer, the same in the call and its result (vLLM's "
        "chatcmpl-tool-… ids are 46); suture keeps ids as they are and its _1 suffix can lengthen one.",
        (r"invalid messages\[(?P<n>\d+)\]\.tool_calls\[(?P<c>\d+)\]\.id: string too long",),
        index="messages",
    ),
    Rule(
        "O6",
        ("openai-chat",),
        "the messages array is not empty",
        ("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",),
        "CopilotKit/CopilotKit#529 (param: messages, code: empty_array)",
        "no",
        _NO_MESSAGE,
        (r"invalid messages: empty array\.? expected an array with minimum length 1",),
        index="messages",
    ),
    Rule(
        "O7",
        ("openai-chat",),
        "images only in user messages (GPT-5.2 no longer answers 400 for a tool message's image, but "
        "does not read it: openai/openai-openapi#523)",
        (
            "Invalid 'messages[{N}]'. Image URLs are only allowed for messages with role 'user', but this "
            "message with role '{role}' contains an image URL.",
        ),
        "OpenHands/OpenHands#7700 (role tool); openai/openai-node#1030 (role assistant)",
        "no",
        "Move the image into a user message of its own right after the tool results (and keep a text "
        "result in the tool message); suture moves no part from one message to another, so the repair "
        "leaves it, except in a result it keeps as a user note.",
        (
            r"(?:invalid messages\[(?P<n>\d+)\]\.? )?image urls are only allowed for messages with role user,? "
            r"but this message with role (?P<role>\w+) contains an image url",
        ),
        index="messages",
    ),
    Rule(
        "O8",
        ("openai-chat",),
        "an assistant message's content is not an empty list (null where it only makes calls)",
        (
            "Invalid 'messages[{N}].content': empty array. Expected an array with minimum length 1, but got an "
            "empty array instead.",
        ),
        # For an assistant message; no report found for a user or system one (a system message's
        # empty list was answered 200 in 2024: openai/openai-python#1812), so only this is checked.
        "langchain-ai/langchainjs#11416, #11419 (assistant message with tool_calls); n8n-io/n8n#38526",
        "some",
        "Write the content of an assistant message that only makes calls as null (or give it text); "
        "suture keeps a record it read as it was.",
        (r"invalid messages\[(?P<n>\d+)\]\.content: empty array",),
        index="messages",
        fix="the repair drops an assistant message that holds nothing and makes no call",
    ),
    # -- OpenAI Responses ------------------------------------------------------------------------
    Rule(
        "R1",
        ("openai-responses", "openai-responses-strict"),
        "every function_call needs a function_call_output",
        ("No tool output found for function call {call_id}.",),
        "tjardoo/openai-client#124",
        "yes",
        "the repair adds a synthetic output for a call that has none",
        (r"no tool output found for function call (?P<id>\S+)",),
        index="items",
    ),
    Rule(
        "R2",
        ("openai-responses", "openai-responses-strict"),
        "every function_call_output needs its function_call",
        ("No tool call found for function call output with call_id {call_id}.",),
        "continuedev/continue#10092",
        "yes",
        "the repair keeps an output with no call as a user note",
        (r"no tool call found for function call output with call_id (?P<id>\S+)",),
        index="items",
    ),
    Rule(
        "R3",
        ("openai-responses", "openai-responses-strict"),
        "input item ids are unique",
        ("Duplicate item found with id {id}. Remove duplicate items from your input and try again.",),
        "vercel/ai#7883",
        "no",
        "Remove the duplicated items (a turn replayed twice) or drop their item ids; suture does not edit item ids.",
        (r"duplicate item found with id (?P<id>\S+?)\.? remove duplicate items",),
        index="items",
    ),
    Rule(
        "R4",
        ("openai-responses", "openai-responses-strict"),
        "call_id is at most 64 characters",
        (
            "Invalid 'input[{N}].call_id': string too long. Expected a string with maximum length 64, but got a "
            "string with length {L} instead.",
        ),
        "AnswerDotAI/fastllm#45",
        "no",
        "Shorten the call_id to 64 characters or fewer, the same in the call and its output; suture keeps "
        "call_ids as they are.",
        (r"invalid input\[(?P<n>\d+)\]\.call_id: string too long",),
        index="items",
    ),
    Rule(
        "R5",
        ("openai-responses", "openai-responses-strict"),
        "an item id's prefix matches its type (fc_, msg_, rs_)",
        ("Invalid 'input[{N}].id': '{id}'. Expected an ID that begins with '{prefix}'.",),
        "openai/codex#33176",
        "no",
        "Drop the item's id or give it the prefix of its type (fc_ for function_call, msg_ for message, "
        "rs_ for reasoning); suture does not edit item ids.",
        (r"invalid input\[(?P<n>\d+)\]\.id: (?P<id>\S+?)\.? expected an id that begins with \w+",),
        index="items",
    ),
    Rule(
        "R6",
        ("openai-responses", "openai-responses-strict"),
        "a reasoning item stays paired with the item that followed it",
        (
            # OpenAI also names the reasoning item (": 'rs_…'"), which is not in the input to name.
            "Item '{id}' of type 'function_call' was provided without its required 'reasoning' item.",
            "Item '{id}' of type 'reasoning' was provided without its required following item.",
        ),
        "continuedev/continue#10018, #8933",
        "no",
        "Keep each reasoning item immediately before the item that followed it in the response, or drop "
        "the item ids of both (and send reasoning as encrypted content with store=false).",
        (
            r"item (?P<id>\S+) of type function_call was provided without its required reasoning item:? ?(?P<id2>[\w\-]+)?",
            r"item (?P<id>\S+) of type reasoning was provided without its required following item",
        ),
        index="items",
    ),
    Rule(
        "R7",
        ("openai-responses-strict",),
        "a turn's outputs come right after its calls: no message, reasoning or other item between a call and "
        "its output (OpenAI itself pairs by call_id anywhere later)",
        ("No tool output found for tool call {call_id}",),
        "deepseek-ai/awesome-deepseek-integration#740; kolega-ai/kolega-code#403; MayDay-wpf/snow-app#9",
        "some",
        "Move the item out from between the turn's calls and their outputs: a message the model wrote "
        "between two calls after the outputs, a reasoning item before the turn's first call (or drop it); "
        "suture keeps the items of a turn up to its last call in the order they were written.",
        (r"no tool output found for tool call (?P<id>\S+)",),
        index="items",
        fix="suture writes a turn's outputs right after its last call (what the model wrote after its calls "
        "follows them) and moves outputs that arrived later to their call",
    ),
    Rule(
        "R8",
        ("openai-responses", "openai-responses-strict"),
        "every call and every output item carries a call_id",
        ("Missing required parameter: 'input[{N}].call_id'.",),
        "OpenAI Responses API reference (call_id is required on function_call and function_call_output)",
        "yes",
        "the repair gives a call without a call_id the id call_{m}_{c}, and pairs an output without one with "
        "such a call or keeps it as a user note",
        (r"missing required parameter: input\[(?P<n>\d+)\]\.call_id",),
        index="items",
    ),
    Rule(
        "R9",
        ("openai-responses-strict",),
        "one output per call_id in the whole input",
        (
            "Duplicate function_call_output for call_id '{call_id}'. Each function_call must have exactly one "
            "matching function_call_output",
        ),
        "NousResearch/hermes-agent#102629, #111231; mnfst/llm-gateway#2858",
        "yes",
        "the repair keeps the first output of a call and turns a second one into a user note; a call that "
        "reuses an earlier call's id is renamed (id_1), with its output",
        (r"duplicate function_call_output for call_id (?P<id>\S+?)\.? each function_call must have exactly one",),
        index="items",
    ),
    # -- Gemini ------------------------------------------------------------------------------------
    Rule(
        "G1",
        ("gemini",),
        "a function response turn comes right after its function call turn",
        ("Please ensure that function response turn comes immediately after a function call turn.",),
        "GoogleCloudPlatform/generative-ai#368",
        "yes",
        "the repair puts every call's result right after it (a synthetic one where none exists)",
        (r"function response turn comes immediately after a function call turn",),
        index="contents",
    ),
    Rule(
        "G2",
        ("gemini",),
        "a function call turn follows a user turn or a function response turn",
        (
            "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        ),
        "google-gemini/gemini-cli#11814",
        "some",
        "Merge the model turn before the call into the call's turn, or put a user turn between them "
        "(the repair only drops empty model turns).",
        (r"function call turn comes immediately after a user turn or after a function response turn",),
        index="contents",
        fix="the repair drops the empty model turn before the call, or puts results after the call turn before it",
    ),
    Rule(
        "G3",
        ("gemini",),
        "as many function responses as function calls in the turn",
        (
            "Please ensure that the number of function response parts is equal to the number of function call "
            "parts of the function call turn.",
        ),
        "google-gemini/gemini-cli#4217",
        "yes",
        "the repair gives every call exactly one result (a synthetic one where none exists)",
        (r"number of function response parts is equal to the number of function call parts",),
        index="contents",
    ),
    Rule(
        "G4",
        ("gemini",),
        "function calls echo their thoughtSignature (Gemini 3)",
        (
            "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
            "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
            "data, function call `default_api:{name}` , position {P}. Please refer to "
            "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
        ),
        "csells/dartantic#86; lbjlaq/Antigravity-Manager#139",
        "no",
        "Send each functionCall part back with the thoughtSignature the model returned with it; suture keeps "
        "a Gemini file's parts as they are. Where it was lost, Gemini documents the placeholder signature "
        "skip_thought_signature_validator (what suture writes on calls it converts from another format).",
        (r"function call is missing a thought_signature",),
        index="contents",
    ),
    Rule(
        "G5",
        ("gemini",),
        "no content with empty parts",
        ("* GenerateContentRequest.contents[{N}].parts: contents.parts must not be empty.",),
        "vercel/ai#3775; langchain-ai/langchain-google#691",
        "some",
        "Give the message content or delete it (the repair drops empty model turns only).",
        (r"(?:contents\[(?P<n>\d+)\]\.parts: )?contents\.parts must not be empty",),
        index="contents",
        fix="the repair drops empty model turns",
    ),
    Rule(
        "G6",
        ("gemini",),
        "the request has contents (systemInstruction is not one)",
        ("* GenerateContentRequest.contents: contents is not specified",),
        "langchain-ai/langchain-google#1393; ikechan8370/chatgpt-plugin#733",
        "no",
        _NO_MESSAGE,
        (r"(?:generatecontentrequest\.contents: )?contents is not specified",),
        index="contents",
    ),
    # -- Mistral (mistral-common validator) --------------------------------------------------------
    Rule(
        "M1",
        ("mistral",),
        "tool call ids are exactly 9 characters of a-z, A-Z, 0-9",
        ("Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9.",),
        "mistralai/mistral-common src/mistral_common/protocol/instruct/validator.py",
        "no",
        "Rewrite every call id and its result's tool_call_id to 9 letters or digits (the same new id in "
        "both, e.g. from a hash of the old one); suture keeps ids as they are.",
        (r"tool call id was (?:(?P<id>\S+) )?but must be a-z, a-z, 0-9,? with a length of 9",),
        index="messages",
    ),
    Rule(
        "M2",
        ("mistral",),
        "as many tool results as calls before the next assistant message",
        ("Not the same number of function calls and responses",),
        "mistralai/mistral-common validator.py",
        "yes",
        "the repair gives every call exactly one result (a synthetic one where none exists)",
        (r"not the same number of function calls and responses",),
        index="messages",
    ),
    Rule(
        "M3",
        ("mistral",),
        "role order: after a tool result only an assistant message or another result",
        ("Unexpected role '{role}' after role '{previous}'",),
        "mistralai/mistral-common validator.py; BerriAI/litellm#17761",
        "no",
        "Mistral accepts only an assistant message or another result after a tool result (and no result "
        "after a user or system message): move the user message after the next assistant message, or "
        "insert an assistant message before it. The repair does neither (the contract adds no assistant "
        "message): user text that arrived among results it writes after them, still right after a result.",
        (r"unexpected role (?P<role>\w+) after role (?P<previous>\w+)",),
        index="messages",
    ),
    Rule(
        "M4",
        ("mistral",),
        "the last message is a user or tool message (or an assistant prefix)",
        (
            "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant",
            "Expected last role User or Tool (or Assistant with prefix or continue_final_message set to True) "
            "for serving but got {role}",
        ),
        "huggingface/smolagents#757; mistralai/mistral-common validator.py",
        "some",
        "End the request with a user or tool message, or send the final assistant message with prefix: true.",
        (r"expected last role user or tool .{0,90}?but got (?P<role>\w+)",),
        index="messages",
        fix="the repair adds the missing results of the last calls, or drops the empty assistant message at the "
        "end, so the request ends with a tool or user message",
        place="last",
    ),
    Rule(
        "M5",
        ("mistral",),
        "ids unique and expected within one assistant message and its results",
        (
            "Duplicate tool call id {id} in tool results",
            "Unexpected tool call id {id} in tool results",
            "Duplicate tool call id {id} in assistant message",
        ),
        "mistralai/mistral-common validator.py (MistralRequestValidatorV13)",
        "some",
        "the repair gives each call a unique id and exactly one result in its turn (the validator does not "
        "pair calls in the very first message: start the history with a user message)",
        (r"(?:duplicate|unexpected) tool call id (?:(?P<id>\S+) )?in (?:tool results|assistant message)",),
        index="messages",
    ),
    Rule(
        "M6",
        ("mistral",),
        "the conversation has at least one message",
        ("Conversation must have at least one message",),
        "mistralai/mistral-common validator.py (_validate_message_list_structure); "
        "epam/ai-dial-adapter-openai tests/integration_tests (Mistral answers 400)",
        "no",
        _NO_MESSAGE,
        (r"conversation must have at least one message",),
        index="messages",
    ),
    # -- Moonshot / Kimi -----------------------------------------------------------------------------
    Rule(
        "K1",
        ("kimi",),
        "no two tool calls share an id anywhere in the request",
        ("Invalid request: tool call id {id} is duplicated",),
        "openclaw/openclaw#51593, #84730",
        "yes",
        "the repair renames the later call (id_1, id_2, ...) and its result",
        (r"tool call id (?:(?P<id>\S+) )?is duplicated",),
        index="messages",
    ),
    Rule(
        "K2",
        ("kimi",),
        "no empty assistant message",
        ("Invalid request: the message at position {N} with role 'assistant' must not be empty",),
        "labring/FastGPT#3575",
        "yes",
        "the repair drops empty assistant messages",
        (r"the message at position (?P<n>\d+) with role assistant must not be empty",),
        index="messages",
    ),
    # -- Bedrock Converse ------------------------------------------------------------------------------
    Rule(
        "B1",
        ("bedrock",),
        "no more toolResult blocks than the previous turn's toolUse blocks",
        (
            "The number of toolResult blocks at messages.{N}.content exceeds the number of toolUse blocks of "
            "previous turn.",
        ),
        "pydantic/pydantic-ai#2327",
        "yes",
        "the repair keeps one result per call in its turn; others become user notes",
        (r"number of toolresult blocks at messages\.(?P<n>\d+)\.content exceeds the number of tooluse blocks",),
        index="turns",
    ),
    Rule(
        "B2",
        ("bedrock",),
        "every toolUse has its toolResult in the next user message",
        ("Expected toolResult blocks at messages.{N}.content for the following Ids: {ids}",),
        "agno-agi/agno#6698",
        "yes",
        "the repair puts every call's result right after it (a synthetic one where none exists)",
        (r"expected toolresult blocks at messages\.(?P<n>\d+)\.content for the following ids: " + _IDS,),
        index="turns",
    ),
    Rule(
        "B3",
        ("bedrock",),
        "the conversation starts with a user message and roles alternate",
        (
            "A conversation must start with a user message. Try again with a conversation that starts with a "
            "user message.",
            "A conversation must alternate between user and assistant roles. Make sure the conversation "
            "alternates between user and assistant roles and try again.",
        ),
        "elastic/kibana#246393; langgenius/dify#9294",
        "some",
        "Start the conversation with a user message, and merge consecutive assistant messages into one "
        "(or put a user message between them); the repair only drops empty assistant messages.",
        (
            r"a conversation must start with a user message",
            r"a conversation must alternate between user and assistant roles",
        ),
        index="turns",
        fix="the repair drops empty assistant messages and puts results after an assistant message with calls",
        place="first",
        kinds_by_text=True,
    ),
    Rule(
        "B6",
        ("bedrock",),
        "toolUseId is 1-64 characters of [a-zA-Z0-9_-]",
        (
            # {N} and {M} count from 1; {F} is toolUse or toolResult.
            "Value '{id}' at 'messages.{N}.member.content.{M}.member.{F}.toolUseId' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
            "Value '{id}' at 'messages.{N}.member.content.{M}.member.{F}.toolUseId' failed to satisfy "
            "constraint: Member must have length greater than or equal to 1",
            "Value '{id}' at 'messages.{N}.member.content.{M}.member.{F}.toolUseId' failed to satisfy "
            "constraint: Member must have length less than or equal to 64",
        ),
        "AWS Bedrock runtime API reference, ToolUseBlock and ToolResultBlock (documented constraint)",
        "some",
        "Rename the id, in the call and its result alike, to 1-64 letters, digits, _ or -; suture keeps "
        "non-empty ids as they are.",
        (
            r"(?:value (?P<id>\S+) at )?(?:messages\.(?P<n>\d+)\.member\.content\.(?P<m>\d+)\.member\.)?"
            r"tool(?:use|result)\.tooluseid(?: failed to satisfy constraint)?",
        ),
        index="turns1",
        fix="the repair gives a call without an id the id call_{m}_{c}, and keeps a result no call answers as a user note",
    ),
    # -- DeepSeek ----------------------------------------------------------------------------------------
    Rule(
        "D1",
        ("deepseek",),
        "in thinking mode, assistant messages with tool calls send their reasoning_content back",
        (
            "Missing `reasoning_content` field in the assistant message at message index {N}. For more "
            "information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
        ),
        "continuedev/continue#10193, #11285",
        "no",
        "Send back the reasoning_content the model returned on that assistant message (an empty string "
        "where none was kept), or turn thinking mode off; suture does not make up reasoning.",
        (r"missing reasoning_content field in the assistant message at message index (?P<n>\d+)",),
        index="messages",
    ),
)

RULES: dict[str, Rule] = {r.id: r for r in _TABLE}

OUTPUT_BEFORE_CALL = (
    "suture repair keeps an output that comes before its call as a user note (its text kept) and gives "
    "the call an output saying it was interrupted, right after it; it moves nothing (the contract pairs "
    "a call only with what follows it; suture repair --report lists both changes)"
)
"""What R7's repair does where the output comes before its call, in place of the rule's ``fix``
(which is about outputs that come after their call, and are moved to it)."""

_CACHE: dict[str, list[re.Pattern[str]]] = {}


def _compiled(rule_id: str) -> list[re.Pattern[str]]:
    found = _CACHE.get(rule_id)
    if found is None:
        found = [re.compile(p, re.IGNORECASE) for p in RULES[rule_id].patterns]
        _CACHE[rule_id] = found
    return found


def _filled(text: str) -> str:
    """A rule's text with a ``0`` for each of its ``{fields}``, as a provider would fill them."""
    return re.sub(r"\{\w+\}", "0", text)


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]
