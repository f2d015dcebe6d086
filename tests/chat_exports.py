"""ChatGPT and Claude data exports written from their documented shapes (STACK.md, "exports"), for tests
and the import benchmark: several hundred conversations, edited branches, images and other non-text parts,
tool calls and their output, hidden messages, code blocks, other languages, timestamps as floats and as ISO
strings, null titles. Deterministic for a given seed.

ChatGPT: conversations.json = [{id, title, create_time, update_time, mapping: {node: {id, message, parent,
children}}, current_node, ...}]; Claude: [{uuid, name, created_at, updated_at, chat_messages: [{uuid,
sender, text, content: [...], created_at, attachments, files}]}]. Both ship as a ZIP with more files
beside conversations.json.
"""
from __future__ import annotations

import io
import json
import random
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BASE = datetime(2023, 1, 10, 9, 0, tzinfo=UTC)

Json = dict[str, Any]  # an object of an export, as json.loads gives it

TOPICS = [
    ("Sourdough starter", "my sourdough starter smells like acetone, what am I doing wrong?",
     "A starter that smells of acetone is hungry: feed it more often, 1:5:5 starter to flour to water."),
    ("Trip to Lisbon", "plan three days in Lisbon for a trip in May",
     "Day 1: Alfama and the castle. Day 2: Belém. Day 3: a train to Sintra."),
    ("Python list comprehension", "how do I flatten a list of lists in python?",
     "Use a comprehension:\n\n```python\nflat = [x for row in rows for x in row]\n```\n\nor itertools.chain."),
    ("Bike gears", "my bike chain skips in the highest gear", "Check the cable tension first, then the chain wear."),
    ("Kündigung Mietvertrag", "wie kündige ich meinen Mietvertrag fristgerecht?",
     "Die Kündigungsfrist beträgt drei Monate; schicken Sie die Kündigung schriftlich."),
    ("東京の天気", "明日の東京の天気はどうですか？", "明日の東京は晴れ、最高気温は18度の予報です。"),
    ("Рецепт борщу", "як приготувати український борщ?", "Вам знадобиться буряк, капуста, картопля і квасоля."),
    ("Receta de paella", "¿cómo hago una paella valenciana?",
     "Sofríe el pollo y el conejo, añade el garrofó y el arroz."),
    ("Tax return", "what can I deduct for a home office?", "A share of rent and utilities in proportion to the room."),
    ("Garden tomatoes", "why are my tomato leaves turning yellow?", "Usually overwatering or a lack of nitrogen."),
]


def epoch(moment: datetime) -> float:
    return moment.timestamp()


@dataclass
class Expected:
    """What a test should find after importing a generated export."""

    conversations: int = 0  # with text
    messages: int = 0  # user and assistant messages with text, on the branches read
    without_text: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    titles: dict[str, str | None] = field(default_factory=dict)  # uid -> export title
    first_texts: dict[str, str] = field(default_factory=dict)  # uid -> first message text

    def skip(self, what: str, n: int = 1) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + n


class ChatGPTBuilder:
    """One ChatGPT conversation's mapping, node by node."""

    def __init__(self, cid: str, title: str | None, start: datetime, iso_times: bool = False) -> None:
        self.cid, self.title, self.start, self.iso = cid, title, start, iso_times
        self.mapping: dict[str, Json] = {}
        self.root = self._node("client-created-root", None, None)
        self.current = self.root
        self.clock = start
        self.count = 0

    def _time(self, moment: datetime | None) -> str | float | None:
        if moment is None:
            return None
        return moment.isoformat().replace("+00:00", "Z") if self.iso else epoch(moment)

    def _node(self, node_id: str, message: Json | None, parent: str | None) -> str:
        self.mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        if parent is not None:
            self.mapping[parent]["children"].append(node_id)
        return node_id

    def add(self, role: str, content: Json, *, parent: str | None = None, minutes: float = 1.0,
            hidden: bool = False, recipient: str = "all", no_time: bool = False) -> str:
        self.count += 1
        self.clock += timedelta(minutes=minutes)
        node_id = f"{self.cid}-m{self.count:03d}"
        message: Json = {"id": node_id, "author": {"role": role, "name": None, "metadata": {}},
                   "create_time": None if no_time else self._time(self.clock), "update_time": None,
                   "content": content, "status": "finished_successfully", "end_turn": True,
                   "weight": 0.0 if hidden else 1.0, "metadata": {"is_visually_hidden_from_conversation": True}
                   if hidden else {}, "recipient": recipient}
        self.current = self._node(node_id, message, parent or self.current)
        return self.current

    def text(self, role: str, text: str, **kw: Any) -> str:
        return self.add(role, {"content_type": "text", "parts": [text]}, **kw)

    def conversation(self, current: str | None = None) -> Json:
        return {"title": self.title, "create_time": self._time(self.start),
                "update_time": self._time(self.clock + timedelta(days=3)), "mapping": self.mapping,
                "moderation_results": [], "current_node": current or self.current, "plugin_ids": None,
                "conversation_id": self.cid, "conversation_template_id": None, "gizmo_id": None,
                "is_archived": False, "safe_urls": [], "id": self.cid}


def chatgpt_export(count: int = 300, seed: int = 7, turns: int = 2, start: datetime = BASE,
                   spacing: timedelta = timedelta(hours=20)) -> tuple[list[Json], Expected]:
    """`count` conversations; every kind of thing the reader must skip appears in them."""
    rng = random.Random(seed)
    out: list[Json] = []
    expected = Expected()
    for number in range(count):
        topic, question, answer = TOPICS[number % len(TOPICS)]
        cid = f"6a{number:06x}-c0de-4a11-9bee-{seed:04d}{number:08d}"
        title = None if number % 7 == 3 else "New chat" if number % 19 == 10 else f"{topic} {number}"
        b = ChatGPTBuilder(cid, title, start + spacing * number, iso_times=number % 11 == 5)
        uid = f"chatgpt:{cid}"
        expected.titles[uid] = None if title == "New chat" else title  # ChatGPT's name for no title
        kept = 0
        b.add("system", {"content_type": "text", "parts": [""]}, hidden=True)
        expected.skip("system messages")
        if number % 5 == 0:  # custom instructions: a hidden user message
            b.add("user", {"content_type": "user_editable_context", "user_profile": "I bake bread",
                           "user_instructions": "Be brief"}, hidden=True)
            expected.skip("hidden messages")
        if number % 13 == 4:  # a conversation of images only: no text at all
            b.add("user", {"content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc", "size_bytes": 9,
                 "width": 10, "height": 10}]})
            expected.skip("non-text parts")
            b.text("assistant", "")
            expected.skip("empty messages")
            expected.without_text += 1
            expected.skip("conversations without text")
            out.append(b.conversation())
            continue
        if number % 8 == 7:  # an empty message is skipped
            b.text("user", "   ")
            expected.skip("empty messages")
        for turn in range(turns):
            q = f"{question} (part {turn + 1})" if turn else question
            if turn == 0 and number % 4 == 1:  # a photo with the question
                b.add("user", {"content_type": "multimodal_text", "parts": [
                    {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-x", "size_bytes": 1,
                     "width": 1, "height": 1}, q]})
                expected.skip("non-text parts")
            else:
                b.text("user", q, no_time=number % 17 == 2 and turn == 1)
            if turn == 0:
                expected.first_texts[uid] = q
            kept += 1
            if number % 6 == 2 and turn == 0:  # code interpreter: a tool call and its output
                b.add("assistant", {"content_type": "code", "language": "python", "text": "print(1 + 1)"},
                      recipient="python")
                b.add("tool", {"content_type": "execution_output", "text": "2"})
                expected.skip("tool messages", 2)
            b.text("assistant", answer + ("" if turn == 0 else f" (more, {rng.randint(1, 99)})"))
            kept += 1
        if number % 9 == 0:  # an edited question: the old branch must not be read
            edited_parent = b.mapping[b.current]["parent"]
            assert edited_parent
            user_node = edited_parent
            parent_of_user = b.mapping[user_node]["parent"]
            b.text("user", f"OLD BRANCH question {number}", parent=parent_of_user)
            b.text("assistant", f"OLD BRANCH answer {number}")
            # The person went back to the newer branch: current_node is its leaf.
            newer_leaf = b.mapping[user_node]["children"][0]
            out.append(b.conversation(current=newer_leaf))
        else:
            out.append(b.conversation())
        expected.conversations += 1
        expected.messages += kept
    return out, expected


def claude_export(count: int = 200, seed: int = 11, start: datetime = BASE) -> tuple[list[Json], Expected]:
    rng = random.Random(seed)
    out: list[Json] = []
    expected = Expected()
    for number in range(count):
        topic, question, answer = TOPICS[(number + 3) % len(TOPICS)]
        uuid = f"c1a0de00-{number:04d}-4000-8000-{seed:012d}"
        moment = start + timedelta(hours=30 * number)

        def stamp(m: datetime, number: int = number) -> str | float:
            if number % 10 == 9:
                return epoch(m)  # a tool that rewrote the export with floats
            return m.isoformat(timespec="microseconds").replace("+00:00", "Z") if number % 2 else m.isoformat()

        name = "" if number % 6 == 1 else None if number % 6 == 4 else f"{topic} {number}"
        uid = f"claude:{uuid}"
        expected.titles[uid] = name or None
        messages: list[Json] = []
        if number % 15 == 7:  # a conversation that never said anything
            messages.append({"uuid": f"{uuid}-x", "text": "", "content": [], "sender": "human",
                             "created_at": stamp(moment), "updated_at": stamp(moment), "attachments": [],
                             "files": [{"file_name": "photo.jpg"}]})
            expected.skip("non-text parts")
            expected.skip("empty messages")
            expected.without_text += 1
            expected.skip("conversations without text")
        else:
            q_content: list[Json] = [{"type": "text", "text": question, "start_timestamp": stamp(moment),
                          "stop_timestamp": stamp(moment), "citations": []}]
            attachments: list[Json] = []
            if number % 4 == 0:
                attachments = [{"file_name": "notes.txt", "file_size": 12, "file_type": "txt",
                                "extracted_content": "some notes"}]
                expected.skip("non-text parts")
            messages.append({"uuid": f"{uuid}-q", "text": question, "content": q_content, "sender": "human",
                             "created_at": stamp(moment + timedelta(seconds=5)),
                             "updated_at": stamp(moment + timedelta(seconds=5)), "attachments": attachments,
                             "files": []})
            a_content: list[Json] = []
            if number % 5 == 2:
                a_content.append({"type": "thinking", "thinking": "let me think"})
                expected.skip("hidden messages")
            if number % 7 == 3:
                a_content += [{"type": "tool_use", "name": "web_search", "input": {"query": topic}},
                              {"type": "tool_result", "content": [{"type": "text", "text": "results"}]}]
                expected.skip("tool messages", 2)
            a_content.append({"type": "text", "text": answer, "citations": []})
            messages.append({"uuid": f"{uuid}-a", "text": answer, "content": a_content, "sender": "assistant",
                             "created_at": stamp(moment + timedelta(seconds=40 + rng.randint(0, 20))),
                             "updated_at": stamp(moment + timedelta(seconds=60)), "attachments": [], "files": []})
            expected.first_texts[uid] = question
            expected.conversations += 1
            expected.messages += 2
        out.append({"uuid": uuid, "name": name if number % 6 != 4 else None, "summary": "",
                    "created_at": stamp(moment), "updated_at": stamp(moment + timedelta(days=1)),
                    "account": {"uuid": "acc-1"}, "chat_messages": messages})
    return out, expected


def write_json(path: Path, conversations: list[Json]) -> Path:
    path.write_text(json.dumps(conversations, ensure_ascii=False), encoding="utf-8")
    return path


def write_zip(path: Path, conversations: list[Json], kind: str = "chatgpt", folder: str = "") -> Path:
    """The export's ZIP, with the other files each service puts beside conversations.json."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{folder}conversations.json", json.dumps(conversations, ensure_ascii=False))
        if kind == "chatgpt":
            archive.writestr(f"{folder}user.json", json.dumps({"id": "user-1", "email": "a@example.com"}))
            archive.writestr(f"{folder}chat.html", "<html><body>chats</body></html>")
            archive.writestr(f"{folder}message_feedback.json", "[]")
            archive.writestr(f"{folder}file-abc.png", b"\x89PNG\r\n\x1a\n" + bytes(64))
        else:
            archive.writestr(f"{folder}users.json", json.dumps([{"uuid": "acc-1"}]))
            archive.writestr(f"{folder}projects.json", "[]")
    return path


def zip_bytes(conversations: list[Json]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps(conversations))
    return buffer.getvalue()
