"""ChatGPT and Claude data exports read as conversations (SPEC F13).

Both exports hold a `conversations.json`: a top-level list of conversations.
- ChatGPT: {id, title, create_time, update_time, mapping: {node id: {id, message, parent, children}},
  current_node}. Editing a message forks the tree; the person last saw the branch from `current_node` back
  to the root, and only that branch is read. A message is {id, author: {role}, create_time, content:
  {content_type, parts | text}, recipient, metadata}.
- Claude: {uuid, name, created_at, updated_at, chat_messages: [{uuid, sender: human | assistant, text,
  content: [{type, text}, ...], created_at, attachments, files}]}.
Timestamps are epoch seconds (floats) or ISO 8601 strings in either; both are read, as UTC.

What is kept: the text the user and the assistant said to each other, in order. What is skipped, and
counted: system messages, tool calls and tool output (code-interpreter runs, browsing, image generation),
hidden messages (custom instructions, the model's private reasoning), empty messages, and non-text parts
(images, files, audio); a conversation left with no text is skipped whole.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from memory.errors import InvalidInput, MemoryLibError
from memory.time.instants import to_utc_iso
from memory.transfer.checks import LONE_SURROGATE, DuplicateId, IdsSeen, holds_lone_surrogate

CHATGPT, CLAUDE = "chatgpt", "claude"
FORMAT_NAMES = {CHATGPT: "ChatGPT", CLAUDE: "Claude"}
# What is skipped, counted under these names (the keys of `--json`'s `skipped`), each with its singular.
SKIPPED_ONE = {"system messages": "system message", "tool messages": "tool message",
               "hidden messages": "hidden message", "empty messages": "empty message",
               "non-text parts": "non-text part", "conversations without text": "conversation without text"}


class ExportInvalid(InvalidInput):
    """A conversations.json that is not what its format documents; names where, and nothing is written."""

    def __init__(self, where: str, why: str) -> None:
        self.where = where
        super().__init__(f"{where}: {why}; nothing was imported")


@dataclass
class ChatMessage:
    uid: str
    role: str  # user | assistant
    text: str
    created_at: str  # UTC ISO 8601


@dataclass
class ChatConversation:
    uid: str
    title: str | None
    started_at: str
    ended_at: str
    messages: list[ChatMessage] = field(default_factory=list)


@dataclass
class ChatExport:
    """What a conversations.json holds, ready to store: conversations with text, and what was skipped.

    The conversations are held here whole (read_export), or, read from a file (memory.transfer.sniff:
    `spill` set), written as they are read to an unnamed temporary file, 0600 and gone with the process,
    with only their headers (uid, title, times; no messages) here: a 189 MB export of long messages is
    then never in memory at once. `full` gives one conversation whole."""

    format: str
    conversations: list[ChatConversation]
    skipped: Counter[str] = field(default_factory=Counter)
    spill: IO[bytes] | None = None
    _at: dict[str, tuple[int, int]] = field(default_factory=dict)  # uid -> where its messages are in `spill`

    def keep(self, conversation: ChatConversation) -> None:
        if self.spill is None:
            self.conversations.append(conversation)
            return
        data = json.dumps([[m.uid, m.role, m.text, m.created_at] for m in conversation.messages],
                          ensure_ascii=False).encode("utf-8", "surrogatepass")
        try:
            self.spill.seek(0, 2)
            self._at[conversation.uid] = (self.spill.tell(), len(data))
            self.spill.write(data)
        except OSError as exc:  # a full temporary folder: said as it is, nothing was written to the store
            raise MemoryLibError(f"the export cannot be read: the temporary folder {tempfile.gettempdir()} has "
                                 f"no room for its conversations ({exc.strerror or exc}); nothing was imported "
                                 "(TMPDIR names another folder)") from None
        self.conversations.append(ChatConversation(conversation.uid, conversation.title, conversation.started_at,
                                                   conversation.ended_at))

    def full(self, conversation: ChatConversation) -> ChatConversation:
        """`conversation` with its messages (read back from the spill when it was written there)."""
        at = self._at.get(conversation.uid)
        if self.spill is None or at is None:
            return conversation
        self.spill.seek(at[0])
        said = json.loads(self.spill.read(at[1]).decode("utf-8", "surrogatepass"))
        return ChatConversation(conversation.uid, conversation.title, conversation.started_at, conversation.ended_at,
                                [ChatMessage(*m) for m in said])


def export_format(data: Any) -> str | None:
    """chatgpt or claude when `data` (a parsed top-level JSON list) looks like that export, else None."""
    if not isinstance(data, list):
        return None
    for item in data[:50]:
        if isinstance(item, dict):
            if "mapping" in item or "current_node" in item:
                return CHATGPT
            if "chat_messages" in item or ("uuid" in item and "name" in item):
                return CLAUDE
    return None


def read_export(data: list[Any], kind: str, check_text: bool = True) -> ChatExport:
    """The export's conversations, held in memory (see ExportReader)."""
    reader = ExportReader(ChatExport(kind, []))
    for item in data:
        reader.read(item, check_text)
    return reader.export


class ExportReader:
    """The conversations of an export read one at a time into `export`, held to the rules of every import
    file (memory.transfer.checks): text SQLite can keep (checked only when `check_text`: the item's text
    holds an escaped surrogate, or the caller could not look), and each id once; a conversation that is an
    identical copy of another is read once (known by a digest of it, not a copy)."""

    def __init__(self, export: ChatExport) -> None:
        self.export = export
        self.seen = IdsSeen()
        self.number = 0
        self._read = _chatgpt_conversation if export.format == CHATGPT else _claude_conversation

    def read(self, item: Any, check_text: bool = True) -> None:
        self.number += 1
        number, export = self.number, self.export
        if check_text and holds_lone_surrogate(item):
            ident = item.get("id" if export.format == CHATGPT else "uuid") if isinstance(item, dict) else None
            raise ExportInvalid(_where(number, ident), LONE_SURROGATE)
        conversation = self._read(item, number, export.skipped)
        if conversation is None:
            return
        where = _where(number, conversation.uid.split(":", 1)[1])
        try:
            if self.seen.again(conversation.uid, _digest(conversation), f"as conversation {number}", "its id"):
                return
        except DuplicateId as exc:
            raise ExportInvalid(where, str(exc)) from None
        if not conversation.messages:
            export.skipped["conversations without text"] += 1
            return
        export.keep(conversation)


def _digest(conversation: ChatConversation) -> bytes:
    """What tells two conversations apart, in 32 bytes (two equal conversations have equal digests)."""
    said = [conversation.uid, conversation.title, conversation.started_at, conversation.ended_at,
            [[m.uid, m.role, m.text, m.created_at] for m in conversation.messages]]
    return hashlib.sha256(json.dumps(said, ensure_ascii=False).encode("utf-8", "surrogatepass")).digest()


def _add_message(conversation: ChatConversation, message: ChatMessage, ident: str, seen: IdsSeen,
                 where: str) -> None:
    """A message into its conversation, once: an identical copy under its id is read once, a different
    message under the same id refused (messages.uid holds each once)."""
    try:
        if not seen.again(message.uid, message, "earlier in this conversation", f"message id {ident[:60]!r}"):
            conversation.messages.append(message)
    except DuplicateId as exc:
        raise ExportInvalid(where, str(exc)) from None


def instant(value: Any, where: str) -> str | None:
    """An export's timestamp (epoch seconds as a number or ISO 8601 text; None: not given) as stored UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ExportInvalid(where, f"the time {value!r} is not a timestamp")
    if isinstance(value, int | float):
        seconds = float(value) / (1000 if value > 1e11 else 1)  # some tools write milliseconds
        try:
            return to_utc_iso(datetime.fromtimestamp(seconds, UTC))
        except (OverflowError, OSError, ValueError):
            raise ExportInvalid(where, f"the time {value!r} is out of range") from None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ExportInvalid(where, f"the time {value[:40]!r} is not ISO 8601") from None
        return to_utc_iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    raise ExportInvalid(where, f"the time {str(value)[:40]!r} is not a timestamp")


# What the services call a conversation nobody titled: a title is made here instead, as for a typed one.
_NO_TITLE = {"new chat", "new conversation", "untitled", "untitled conversation"}


def _title(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() and value.strip().casefold() not in _NO_TITLE else None


def _where(number: int, ident: Any) -> str:
    shown = f" (id {str(ident)[:60]})" if isinstance(ident, str) and ident else ""
    return f"conversation {number}{shown}"


def _span(conversation: ChatConversation, start: str | None, end: str | None, where: str) -> ChatConversation | None:
    """Fill the conversation's start and end from its own times, else from its messages'."""
    times = [m.created_at for m in conversation.messages]
    conversation.started_at = start or (min(times) if times else "")
    # The end is the last message kept: an export's update_time moves when a conversation is only
    # renamed or opened, long after anything was said.
    conversation.ended_at = max(times) if times else (end or conversation.started_at)
    if not conversation.started_at:
        if conversation.messages:
            raise ExportInvalid(where, "has no time at all")
        return conversation
    conversation.ended_at = max(conversation.ended_at, conversation.started_at)
    return conversation


# -- ChatGPT -----------------------------------------------------------------------------------------

_CHATGPT_HIDDEN = {"user_editable_context", "thoughts", "reasoning_recap", "model_editable_context"}
_CHATGPT_TOOL_OUTPUT = {"execution_output", "tether_browsing_display", "tether_quote", "system_error",
                        "computer_output", "sonic_webpage", "app_pairing_content"}


def _chatgpt_branch(mapping: dict[str, Any], current: Any, where: str) -> list[dict[str, Any]]:
    """The nodes from the root to `current` (the branch the person last saw)."""
    if not isinstance(current, str) or current not in mapping:
        # No current node: the newest leaf (what the person saw last, as far as the file tells).
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children")]
        if not leaves:
            return []

        def made(node: dict[str, Any]) -> float:
            message = node.get("message") or {}
            value = message.get("create_time") if isinstance(message, dict) else None
            return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

        current = max(leaves, key=made).get("id")
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = current
    while isinstance(node_id, str) and node_id in mapping:
        if node_id in seen:
            raise ExportInvalid(where, f"its message tree has a loop at node {node_id[:40]}")
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise ExportInvalid(where, f"node {node_id[:40]} of its mapping is not an object")
        branch.append(node)
        node_id = node.get("parent")
    branch.reverse()
    return branch


def _chatgpt_text(message: dict[str, Any], skipped: Counter[str]) -> str | None:
    """The text of one ChatGPT message, or None when it is not part of the conversation as read."""
    author = message.get("author") or {}
    role = author.get("role") if isinstance(author, dict) else None
    metadata = message.get("metadata") or {}
    content = message.get("content") or {}
    kind = content.get("content_type") if isinstance(content, dict) else None
    if role == "system":
        skipped["system messages"] += 1
        return None
    if role == "tool" or kind in _CHATGPT_TOOL_OUTPUT:
        skipped["tool messages"] += 1
        return None
    if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation") or kind in _CHATGPT_HIDDEN:
        skipped["hidden messages"] += 1
        return None
    if role not in ("user", "assistant"):
        skipped["system messages"] += 1
        return None
    recipient = message.get("recipient")
    if role == "assistant" and recipient not in (None, "all"):
        skipped["tool messages"] += 1  # a call to a tool (python, browser, image generation)
        return None
    if kind == "code":
        code = content.get("text")
        language = content.get("language") or ""
        if isinstance(code, str) and code.strip():
            return f"```{'' if language == 'unknown' else language}\n{code}\n```"
        skipped["empty messages"] += 1
        return None
    parts = content.get("parts") if isinstance(content, dict) else None
    if kind not in ("text", "multimodal_text") and not isinstance(parts, list):
        other = content.get("text") if isinstance(content, dict) else None
        # A kind this reader does not know, with text: not said as text; without: empty.
        skipped["non-text parts" if isinstance(other, str) and other.strip() else "empty messages"] += 1
        return None
    texts = []
    for part in parts or []:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("content_type") in (
                None, "text"):
            texts.append(part["text"])
        else:
            skipped["non-text parts"] += 1  # an image, a file, audio
    text = "\n".join(t for t in texts if t.strip())
    if text.strip():
        return text
    if not parts or texts:  # parts that were only images were counted as such
        skipped["empty messages"] += 1
    return None


def _chatgpt_conversation(item: Any, number: int, skipped: Counter[str]) -> ChatConversation | None:
    ident = item.get("id") or item.get("conversation_id") if isinstance(item, dict) else None
    where = _where(number, ident)
    if not isinstance(item, dict):
        raise ExportInvalid(where, "is not an object")
    mapping = item.get("mapping")
    if not isinstance(mapping, dict):
        raise ExportInvalid(where, "has no mapping (the ChatGPT message tree)")
    if not isinstance(ident, str) or not ident.strip():
        raise ExportInvalid(where, "has no id")
    title = item.get("title")
    start = instant(item.get("create_time"), where)
    end = instant(item.get("update_time"), where)
    conversation = ChatConversation(f"{CHATGPT}:{ident}", _title(title), start or "", end or "")
    seen = IdsSeen()  # of its messages: their uids are the conversation's
    last = start
    for node in _chatgpt_branch(mapping, item.get("current_node"), where):
        message = node.get("message")
        if not isinstance(message, dict):
            continue  # the root: no message
        text = _chatgpt_text(message, skipped)
        if text is None:
            continue
        node_id = message.get("id") or node.get("id")
        if not isinstance(node_id, str):
            raise ExportInvalid(where, "has a message without an id")
        created = instant(message.get("create_time"), f"{where}, message {node_id[:40]}") or last
        if created is None:
            raise ExportInvalid(where, f"message {node_id[:40]} has no time, nor has the conversation")
        last = created
        _add_message(conversation, ChatMessage(f"{CHATGPT}:{ident}:{node_id}", message["author"]["role"], text,
                                               created), node_id, seen, where)
    return _span(conversation, start, end, where)


# -- Claude ------------------------------------------------------------------------------------------

_CLAUDE_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def _claude_text(message: dict[str, Any], skipped: Counter[str]) -> str | None:
    role = _CLAUDE_ROLES.get(str(message.get("sender")))
    if role is None:
        skipped["system messages"] += 1
        return None
    for attachment in (message.get("attachments") or []) + (message.get("files") or []):
        skipped["non-text parts"] += 1 if attachment else 0
    content = message.get("content")
    if isinstance(content, list) and content:
        texts = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif kind in ("tool_use", "tool_result"):
                skipped["tool messages"] += 1
            elif kind in ("thinking", "redacted_thinking"):
                skipped["hidden messages"] += 1
            else:
                skipped["non-text parts"] += 1
        text = "\n\n".join(t for t in texts if t.strip())
    else:
        given = message.get("text")
        text = given if isinstance(given, str) else ""
    if not text.strip():
        skipped["empty messages"] += 1
        return None
    return text


def _claude_conversation(item: Any, number: int, skipped: Counter[str]) -> ChatConversation | None:
    ident = item.get("uuid") if isinstance(item, dict) else None
    where = _where(number, ident)
    if not isinstance(item, dict):
        raise ExportInvalid(where, "is not an object")
    messages = item.get("chat_messages")
    if not isinstance(messages, list):
        raise ExportInvalid(where, "has no chat_messages list")
    if not isinstance(ident, str) or not ident.strip():
        raise ExportInvalid(where, "has no uuid")
    title = item.get("name")
    start = instant(item.get("created_at"), where)
    end = instant(item.get("updated_at"), where)
    conversation = ChatConversation(f"{CLAUDE}:{ident}", _title(title), start or "", end or "")
    seen = IdsSeen()  # of its messages: their uids are the conversation's
    last = start
    for index, message in enumerate(messages, start=1):
        if not isinstance(message, dict):
            raise ExportInvalid(where, f"message {index} is not an object")
        text = _claude_text(message, skipped)
        if text is None:
            continue
        message_id = message.get("uuid")
        key = message_id if isinstance(message_id, str) and message_id else f"#{index}"
        created = instant(message.get("created_at"), f"{where}, message {index}") or last
        if created is None:
            raise ExportInvalid(where, f"message {index} has no time, nor has the conversation")
        last = created
        _add_message(conversation, ChatMessage(f"{CLAUDE}:{ident}:{key}", _CLAUDE_ROLES[str(message["sender"])],
                                               text, created), key, seen, where)
    return _span(conversation, start, end, where)

