"""The built-in offline mode: no model, a handful of phrasings, the same tools a model would call.

It reads the user's last message, answers by calling tools (so memory changes exactly as with a
model), then words the tool results. Anything else gets a plain note that no model is configured.
"""
from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from assistant.providers.base import Delta, SystemPrompt, ToolSpec, ToolUse
from assistant.runtime import Runtime
from memory import knowledge, reminders
from memory.dates import parse_due
from memory.errors import InvalidInput

NO_MODEL = ("No chat model is configured, so I can only handle memory commands for now.\n\n"
            "To chat, set `ANTHROPIC_API_KEY` (Anthropic) or start Ollama (`ollama serve`, then "
            "`ollama pull llama3.2`) and restart. Offline I understand:\n"
            "- remind me to <something> <when>   (\"remind me to call mom tomorrow at 6pm\")\n"
            "- remember that <something>\n"
            "- what's coming up? / what's due?\n"
            "- what did we talk about? / recap\n"
            "- done with <id or words>\n"
            "- forget <id>")

_DATE_START = re.compile(
    r"^(today|tonight|tomorrow|this|next|on|at|in|by|noon|midnight|morning|evening|afternoon|"
    r"mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d)", re.I)
_REMIND = re.compile(r"^\W*(please\W+)?(can you\W+)?(remind me|set a reminder|add a reminder)\W+(to\W+|about\W+|that\W+)?"
                     r"(?P<rest>.+?)[.!?]*$", re.I | re.S)
_REMEMBER = re.compile(r"^\W*(please\W+)?(remember|note)\W+(that\W+)?(?P<rest>.+?)[.!]*$", re.I | re.S)
_UPCOMING = re.compile(r"\b(what'?s|what is|anything|what have i got)\b.*\b(coming up|due|upcoming|planned|on my plate)"
                       r"|^\W*(reminders|upcoming|agenda)\W*$|\bmy reminders\b", re.I)
_RECAP = re.compile(r"\bwhat did we (talk|chat)|\brecap\b|\bcatch me up\b|\bwhat have we discussed\b|"
                    r"\bwhere were we\b", re.I)
_DONE = re.compile(r"^\W*(i'?m\W+)?(done|finished|completed?)\W+(with\W+)?(#?(?P<id>\d+)|(?P<words>.+?))[.!]*$", re.I)
_FORGET = re.compile(r"^\W*forget\W+(memory\W+)?#?(?P<id>\d+)\W*$", re.I)


def split_reminder(runtime: Runtime, text: str) -> tuple[str, str] | None:
    """("call mom", "tomorrow at 6pm") from "call mom tomorrow at 6pm": the longest date-like tail."""
    words = text.split()
    for start in range(1, len(words)):
        tail = " ".join(words[start:])
        if not _DATE_START.match(tail):
            continue
        try:
            parse_due(tail, runtime.clock.now(), runtime.clock.zone)
        except InvalidInput:
            continue
        content = re.sub(r"\W+(on|at|by)$", "", " ".join(words[:start])).strip(" ,")
        if content:
            return content, tail
    return None


class OfflineProvider:
    name = "offline"
    model = "built-in"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def stream(self, system: SystemPrompt, conversation: list[dict[str, Any]],
                     tools: list[ToolSpec]) -> AsyncIterator[Delta | ToolUse]:
        last = conversation[-1]
        if last["role"] == "tool":
            yield Delta(self._word_results(conversation))
            return
        calls, text = self._plan(last["text"])
        if text:
            yield Delta(text)
        for n, (name, args) in enumerate(calls, start=1):
            yield ToolUse(f"offline_{n}", name, args)

    def _plan(self, text: str) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        stripped = text.strip()
        match = _REMIND.match(stripped)
        if match and not _RECAP.search(stripped):
            parts = split_reminder(self.runtime, match.group("rest"))
            if parts is None:
                return [], ("I couldn't find a time in that. Say when, for example: "
                            "\"remind me to water the plants tomorrow at 9am\".")
            return [("remember", {"content": parts[0], "due_at": parts[1], "kind": "reminder"})], ""
        match = _FORGET.match(stripped)
        if match:
            return [("forget", {"id": int(match.group("id"))})], ""
        match = _DONE.match(stripped)
        if match:
            if match.group("id"):
                return [("update_memory", {"id": int(match.group("id")), "done": True})], ""
            target = self._find_reminder(match.group("words"))
            if target is None:
                return [], f"I couldn't find an open reminder matching \"{match.group('words')}\"."
            return [("update_memory", {"id": target, "done": True})], ""
        match = _REMEMBER.match(stripped)
        if match:
            return [("remember", {"content": match.group("rest"), "kind": "note"})], ""
        if _UPCOMING.search(stripped):
            return self._upcoming()
        if _RECAP.search(stripped):
            return [("recall_recent", {"hours": 48, "limit": 10})], ""
        return [], NO_MODEL

    def _find_reminder(self, words: str) -> int | None:
        wanted = {w for w in re.findall(r"\w+", words.lower()) if len(w) > 2}
        best, best_score = None, 0
        for r in reminders.list_open_reminders(self.runtime.store, within_days=3650):
            score = len(wanted & set(re.findall(r"\w+", r.memory.content.lower())))
            if score > best_score:
                best, best_score = r.memory.id, score
        return best

    def _upcoming(self) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        store, clock = self.runtime.store, self.runtime.clock
        items = reminders.list_open_reminders(store, 7)
        if not items:
            return [], "Nothing is due in the next 7 days."
        now = clock.now()
        lines = ["Coming up:"] + [f"- #{r.memory.id} {r.label} {r.memory.content} "
                                  f"({reminders.relative_time(r.memory.due_at, now, clock)})" for r in items]
        # Mentioning a reminder marks it reminded, exactly as the model is told to do.
        needs_mark = {r.memory.id for r in reminders.get_upcoming(store, 7)}
        calls = [("update_memory", {"id": r.memory.id, "reminded_at": "now"}) for r in items if r.memory.id in needs_mark]
        return calls, "\n".join(lines)

    def _word_results(self, conversation: list[dict[str, Any]]) -> str:
        results = conversation[-1]["results"]
        calls = conversation[-2].get("tool_calls", []) if len(conversation) > 1 else []
        if calls and all(c["name"] == "update_memory" and "reminded_at" in c["input"] for c in calls):
            return ""  # the list was already said; marking it reminded needs no words
        lines = []
        for r in results:
            if r["is_error"]:
                lines.append(f"That didn't work: {r['content'].removeprefix('Error: ')}")
            elif r["name"] == "remember":
                lines.append(self._confirm(r["content"]))
            elif r["name"] == "recall_recent":
                lines.append("Here is what we talked about recently:\n" + r["content"])
            else:
                lines.append(r["content"] + ".")
        return "\n".join(lines)

    def _confirm(self, content: str) -> str:
        """"Okay, I'll remind you to call the bank on Mon Nov 23 10:00 (#1)." from a remember result."""
        match = re.match(r"Remembered #(\d+)", content)
        if match is None:
            return content
        memory = knowledge.get_memory(self.runtime.store, int(match.group(1)))
        if memory.due_at:
            return (f"Okay, I'll remind you to {memory.content} on {self.runtime.clock.short(memory.due_at)} "
                    f"(#{memory.id}).")
        return f"Okay, I'll remember that {memory.content} (#{memory.id})."
