"""The built-in offline mode: no model, the same tools a model would call.

It reads the user's last message (assistant.phrasing), acts through the tools (so memory changes
exactly as with a model), answers questions from memory (assistant.answers), then words the tool
results from their structured data. It is also the fallback when the configured model cannot be
reached: the reply then says so first.
"""
from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

from assistant.offline.answers import answer_from_memory
from assistant.offline.understand import Reading, is_small_talk, read_message, split_task_and_time
from assistant.providers.base import Delta, SystemPrompt, ToolSpec, ToolUse
from assistant.recall.evidence import content_words
from assistant.runtime import Runtime
from memory import reminders

CAPABILITIES = ("Offline I understand:\n"
                "- remind me to <something> <when>   (\"remind me tomorrow at 8am to water the plants\", "
                "\"every Tuesday at 7pm\")\n"
                "- remember that <something>\n"
                "- questions about what you told me   (\"what is the boiler code?\", \"when did Sara move?\")\n"
                "- what's coming up? / what did we talk about?\n"
                "- done with <id or words> / forget <id>")
HOW_TO_CONNECT = ("To chat, set ANTHROPIC_API_KEY (Anthropic) or start Ollama (ollama serve, then "
                  "ollama pull {model}) and restart.")
NO_MODEL = ("No chat model is configured, so I can only handle memory commands for now.\n\n" + HOW_TO_CONNECT +
            "\n\n" + CAPABILITIES)
WHICH_ONE = "Which one did you mean?"
_THANKS = re.compile(r"^\W*(thanks|thank you|thx|ty|cheers|much appreciated)\b", re.I)
# The task is stored as said ("stretch my legs"); a confirmation speaks to the user ("your legs").
_PRONOUNS = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "i've": "you've", "i'll": "you'll",
             "myself": "yourself", "mine": "yours", "am": "are"}
ASK_WHEN = "When should I remind you"
# An answer to one of our questions that takes it back.
_CANCEL = re.compile(r"(?i)(never\s?mind|nevermind|cancel|forget it|no(pe)?|nothing|skip( it)?|stop|"
                     r"don'?t bother|not now|leave it)\W*")


class OfflineProvider:
    name = "offline"
    model = "built-in"

    def __init__(self, runtime: Runtime, unreachable: str | None = None) -> None:
        self.runtime = runtime
        self.unreachable = unreachable  # why the configured model was not used, said before the answer

    async def stream(self, system: SystemPrompt, conversation: list[dict[str, Any]],
                     tools: list[ToolSpec]) -> AsyncIterator[Delta | ToolUse]:
        last = conversation[-1]
        if last["role"] == "tool":
            text = await asyncio.to_thread(self._word_results, conversation)
            if text:
                yield Delta(self._prefixed(text))
            return
        # Planning may search memory (SQLite, embeddings): never on the event loop.
        calls, text = await asyncio.to_thread(self._plan, last["text"], conversation)
        if text:
            yield Delta(self._prefixed(text))
        elif calls and self.unreachable:
            yield Delta(self._prefixed(""))
        for n, (name, args) in enumerate(calls, start=1):
            yield ToolUse(f"offline_{n}", name, args)

    def _prefixed(self, text: str) -> str:
        if not self.unreachable:
            return text
        note = f"(I couldn't reach the chat model: {self.unreachable}. I handled this offline.)"
        return f"{note}\n\n{text}" if text else note + "\n\n"

    # -- reading the message ----------------------------------------------------------------

    def _read(self, text: str) -> Reading:
        return read_message(text, self.runtime.clock.now(), self.runtime.clock.zone)

    def _plan(self, text: str, conversation: list[dict[str, Any]]) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        if _CANCEL.fullmatch(text.strip()) and self._asked(conversation):
            return [], "OK, nothing was changed."
        pending = self._pending_reminder(text, conversation) or self._pending_choice(text, conversation)
        if pending is not None:
            return pending
        reading = self._read(text)
        intent = reading.intent
        if intent == "remind":
            return [("remember", _remember_args(reading))], ""
        if intent == "remind_no_time":
            if not reading.content:
                return [], "What should I remind you about, and when?"
            return [], f"{ASK_WHEN} to {reading.content}?" if reading.link == "to" else \
                f"{ASK_WHEN} {reading.link} {reading.content}?"
        if intent == "remember":
            return [("remember", {"content": reading.content, "kind": "note"})], ""
        if intent == "upcoming":
            return self._upcoming()
        if intent == "recap":
            return [("recall_recent", {"hours": 48, "limit": 10})], ""
        if intent == "done":
            return self._done(reading)
        if intent == "forget":
            if reading.target is not None:
                return [("forget", {"id": reading.target})], ""
            return [], f"To forget something, tell me its number, for example \"forget 12\" ({reading.content!r} " \
                       "could match more than one thing)."
        if intent == "question":
            asking = tuple(m for m in [conversation[-1].get("message_id")] if m)
            return [], answer_from_memory(self.runtime, reading.content, exclude_message_ids=asking)
        if intent == "help":
            return [], self._connect(NO_MODEL) if not self.unreachable else CAPABILITIES
        if self.unreachable:
            return [], "Your message is saved; I can answer properly once the model is reachable again."
        if _THANKS.match(text):
            return [], "You're welcome."
        if is_small_talk(text):
            return [], f"Hi! I'm running without a chat model. {self._connect(HOW_TO_CONNECT)}\n\n{CAPABILITIES}"
        return [], ("I'm running without a chat model, so I can't chat about that, but your message is kept and "
                    "I can find it later. To keep something as a memory, say \"remember that ...\".\n\n"
                    f"{self._connect(HOW_TO_CONNECT)}")

    def _connect(self, text: str) -> str:
        return text.replace("{model}", self.runtime.settings.ollama.model)

    @staticmethod
    def _asked(conversation: list[dict[str, Any]]) -> bool:
        """Whether the last reply was a question of ours (when? which one?) awaiting an answer."""
        if len(conversation) < 2 or conversation[-2].get("role") != "assistant":
            return False
        asked = conversation[-2].get("text") or ""
        return ASK_WHEN in asked or asked.startswith(WHICH_ONE)

    def _pending_choice(self, text: str, conversation: list[dict[str, Any]]):
        """The answer to "Which one did you mean?": a bare number (or #number) completes that reminder."""
        if len(conversation) < 2:
            return None
        asked = conversation[-2]
        match = re.fullmatch(r"\W*#?(\d+)\W*", text)
        if match is None or asked.get("role") != "assistant" or not (asked.get("text") or "").startswith(WHICH_ONE):
            return None
        return [("update_memory", {"id": int(match.group(1)), "done": True})], ""

    def _pending_reminder(self, text: str, conversation: list[dict[str, Any]]):
        """The answer to "When should I remind you ...?": the time for the task asked about before."""
        if len(conversation) < 3:
            return None
        asked, request = conversation[-2], conversation[-3]
        if asked.get("role") != "assistant" or ASK_WHEN not in (asked.get("text") or ""):
            return None
        earlier = self._read(request.get("text", ""))
        if earlier.intent != "remind_no_time" or not earlier.content:
            return None
        answer = re.sub(r"^\W*(remind me\s+)?", "", text.strip(), flags=re.I)
        _, _, when, found = split_task_and_time(f"x {answer}", self.runtime.clock.now(), self.runtime.clock.zone)
        if found is None:
            return None  # not a time: read it as a message of its own
        reading = Reading("remind", earlier.content, when, found[0], found[1], link=earlier.link)
        return [("remember", _remember_args(reading))], ""

    # -- actions ----------------------------------------------------------------------------

    def _done(self, reading: Reading) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        if reading.target is not None:
            return [("update_memory", {"id": reading.target, "done": True})], ""
        matches, partial = self._match_reminders(reading.content)
        if len(matches) == 1:
            return [("update_memory", {"id": matches[0].memory.id, "done": True})], ""
        candidates = matches or partial
        if not candidates:
            return [], f"I couldn't find an open reminder matching \"{reading.content}\"."
        lines = ["Which one did you mean? Say \"done with <number>\":"]
        lines += [f"- #{r.memory.id} {r.memory.content} ({r.label.strip('[]')})" for r in candidates[:8]]
        return [], "\n".join(lines)

    def _match_reminders(self, words: str) -> tuple[list[reminders.Reminder], list[reminders.Reminder]]:
        """(every open reminder containing all the words, those containing some): a reminder is only
        completed by words when exactly one clearly matches."""
        wanted = content_words(words)
        full, partial = [], []
        if not wanted:
            return full, partial
        for r in reminders.list_open_reminders(self.runtime.store, within_days=3650):
            have = content_words(r.memory.content)
            if wanted <= have:
                full.append(r)
            elif wanted & have:
                partial.append(r)
        return full, partial

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

    # -- wording the results ----------------------------------------------------------------

    def _word_results(self, conversation: list[dict[str, Any]]) -> str:
        results = conversation[-1]["results"]
        calls = conversation[-2].get("tool_calls", []) if len(conversation) > 1 else []
        if calls and all(c["name"] == "update_memory" and "reminded_at" in c["input"] for c in calls):
            return ""  # the list was already said; marking it reminded needs no words
        request = next((c.get("text", "") for c in reversed(conversation) if c.get("role") == "user"), "")
        lines = []
        for r in results:
            data = r.get("data") or {}
            if r["is_error"]:
                lines.append(f"That didn't work: {r['content'].removeprefix('Error: ')}")
            elif r["name"] == "remember" and data:
                lines.append(self._confirm(data, request))
            elif r["name"] == "update_memory" and data:
                lines.append(self._done_line(data))
            elif r["name"] == "recall_recent":
                if r["content"].startswith("No episodes found"):
                    hours = re.search(r"last (\S+) hours", r["content"])
                    lines.append(f"We haven't talked in the last {hours.group(1) if hours else 48} hours.")
                else:
                    lines.append("Here is what we talked about recently:\n" + r["content"])
            else:
                lines.append(r["content"] + ".")
        return "\n".join(lines)

    def _confirm(self, memory: dict[str, Any], request: str) -> str:
        """"Okay, I'll remind you to call the bank on Mon Nov 23 10:00 (#1)."."""
        clock = self.runtime.clock
        if not memory.get("due_at"):
            return f"Okay, I'll remember that {memory['content']} (#{memory['id']})."
        link = self._read(request).link if request else "to"
        rule = memory.get("recurrence")
        if rule:
            when = f"{rule['text']} at {clock.local(memory['due_at']):%H:%M}, starting {clock.short(memory['due_at'])}"
        else:
            when = f"on {clock.short(memory['due_at'])}"
        return f"Okay, I'll remind you {link} {_to_you(memory['content'])} {when} (#{memory['id']})."

    def _done_line(self, memory: dict[str, Any]) -> str:
        rule = memory.get("recurrence")
        if rule and not memory.get("done_at"):
            return (f"Done: {memory['content']}. Next one: {self.runtime.clock.short(memory['due_at'])} "
                    f"({rule['text']}, #{memory['id']}).")
        return f"Done: {memory['content']} (#{memory['id']})."


def _to_you(task: str) -> str:
    """ "stretch my legs" as said back: "stretch your legs"."""
    return re.sub(r"\b(i'm|i've|i'll|myself|mine|my|me|i)\b",
                  lambda m: _PRONOUNS[m.group(0).lower()], task, flags=re.I)


def _remember_args(reading: Reading) -> dict[str, Any]:
    # A rule goes to the tool as its phrase (the tool stores the rule); a one-off as its instant.
    due = reading.rule and re.sub(r"^(for|on)\s+(?!the\b)", "", reading.when.strip(" ,.;:-?!"), flags=re.I)
    return {"content": reading.content, "due_at": due or reading.due.isoformat(), "kind": "reminder"}
