"""The built-in offline mode: no model, no prompt, the same tools a model would call.

It takes the turn's reading of the message (assistant.reading), acts through the tools (so memory
changes exactly as with a model), answers questions from memory with one search (offline.answers),
then words the tool results from their structured data. It is also the fallback when the configured
model cannot be reached: the reply then says so first.
"""
from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

from assistant.conversation import AssistantMessage, Item, ToolResults, ToolUse, UserMessage, last_user_text
from assistant.offline.agenda import agenda, coming_up, trips
from assistant.offline.answers import answer_from_memory, what_i_know
from assistant.outbound.gate import LOCAL_GATE, Gate
from assistant.providers.base import Delta
from assistant.reading import Reading
from assistant.reading.dates import stated_date
from assistant.reading.questions import chosen, read_choice
from assistant.reading.spans import DaySpan
from assistant.reading.understand import Action, is_small_talk, naming, read_message, split_task_and_time
from assistant.recall.evidence import search_words, topic_words
from assistant.recap import episode_lines
from assistant.responder import TurnInput
from assistant.runtime import Runtime
from assistant.tools import undo_text
from assistant.views import private_marked
from memory import changes, episodes, memories, reminders, supersession
from memory.errors import NotFound
from memory.memories import Memory
from memory.search import cited
from memory.store import Store
from memory.time.due_phrases import localize
from memory.time.instants import parse_stored
from memory.time.schedule import past_note

CAPABILITIES = ("Offline I understand:\n"
                "- remind me to <something> <when>   (\"remind me tomorrow at 8am to water the plants\", "
                "\"every Tuesday at 7pm\", \"two days before the budget review to check the numbers\")\n"
                "- remember that <something>\n"
                "- questions about what you told me   (\"what is the boiler code?\", \"when is my 1:1?\")\n"
                "- what's coming up? / what do I have tomorrow? / what did we talk about yesterday?\n"
                "- changing a reminder by its number or words: done with 5 / cancel the oven reminder / "
                "move the dentist call to 10am / snooze the laundry for 5 minutes / rename 5 to <text> / undo\n"
                "- forget <number or words>")
SHORT_CAPABILITIES = ("Without a chat model I can set reminders (\"remind me to call Bob at 5pm\"), change them "
                      "(done, cancel, move, snooze, rename, undo), remember things (\"remember that ...\"), answer "
                      "questions from memory, list what's coming up and recap our conversations; \"help\" shows "
                      "examples.")
HOW_TO_CONNECT = ("To chat, set ANTHROPIC_API_KEY (Anthropic), start Ollama (ollama serve, then "
                  "ollama pull {model}), or name an OpenAI-compatible server (LM Studio, llama-server, vLLM) as "
                  "[openai] base_url in the config, and restart.")
NO_MODEL = ("No chat model is configured, so I can only handle memory commands for now.\n\n" + HOW_TO_CONNECT +
            "\n\n" + CAPABILITIES)
WHICH_ONE = "Which one did you mean?"
DID_YOU_MEAN = "Did you mean"
CONFIRM_FORGET = "Forget #"  # the question before forgetting a memory named by words: "Forget #4 "..."?"
ASK_EVENT = "When is"
INCOGNITO_KEPT = "This is an incognito conversation: nothing of it is kept."
UNDO_HINT = " (say \"undo\" to put it back)"
_THANKS = re.compile(r"^\W*(thanks|thank you|thx|ty|cheers|much appreciated)\b", re.I)
_YES = re.compile(r"^\W*(y|yes|yeah|yep|yup|sure|ok|okay|please|do it|go ahead|correct|right|that's right)\W*$", re.I)
# The task is stored as said ("stretch my legs"); a confirmation speaks to the user ("your legs").
_PRONOUNS = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "i've": "you've", "i'll": "you'll",
             "myself": "yourself", "mine": "yours", "am": "are"}
ASK_WHEN = "When should I remind you"
# An answer to one of our questions that takes it back.
_CANCEL = re.compile(r"(?i)(never\s?mind|nevermind|cancel|forget it|no(pe)?|nothing|skip( it)?|stop|"
                     r"don'?t bother|not now|leave it)\W*")
_MENTIONED = re.compile(r"#(\d{1,12})\b")
# A statement that starts with its verb ("moved to Porto last month", "switched to Monzo").
_FRAGMENT = re.compile(r"^\W*(?:\w+ed|got|went|just|now|no longer)\b", re.I)
CHANGE_VERBS = {"cancel": "cancel", "move": "move", "snooze": "snooze", "rename": "rename", "done": "mark done",
                "forget": "forget"}
Plan = tuple[list[tuple[str, dict[str, Any]]], str]
# Requests that list the reminders they could mean and wait for a choice.
_CHOOSING = ("done", "cancel", "move", "snooze", "rename", "forget", "near_miss")


def _text(item: Item) -> str:
    return item.text if isinstance(item, UserMessage | AssistantMessage) else ""


class OfflineResponder:
    name = "offline"
    model = "built-in"
    local = True

    def __init__(self, runtime: Runtime, unreachable: str | None = None) -> None:
        self.runtime = runtime
        self.unreachable = unreachable  # why the configured model was not used, said before the answer
        self._unreachable_said = False  # why the model was not used: said once a turn (reset in prepare)
        self._reading: Reading | None = None  # the turn's reading of the message
        # What this turn's tool calls are for ("cancel" is a forget, "snooze" an update), and the request
        # they carry out (the suggestion a "yes" accepted), for wording their results.
        self._actions: list[str] = []
        self._request: str | None = None
        self._note = ""
        self._used: list[int] = []  # the memories this turn's answer showed (its Why record)
        self._incognito = False  # this turn is of an incognito conversation: nothing of it is kept

    def gate_for(self, store: Store, reading: Reading) -> Gate:
        return LOCAL_GATE  # nothing leaves the machine: the person's own values show on their own screen

    async def prepare(self, turn: TurnInput) -> None:
        self._reading, self._incognito = turn.reading, turn.incognito
        self._actions, self._request, self._note, self._used = [], None, "", []
        self._unreachable_said = False  # why the model was not used: said once a turn

    def plan(self, reading: Reading, conversation: list[Item]) -> tuple[list[tuple[str, dict[str, Any]]], str]:
        """What the offline mode would do for `reading` (the last item of `conversation` being its
        message): the tool calls, and what it would say. Used by the model responder to carry out a
        clear request the model did not; `word_results` then words what the calls did."""
        self._reading, self._actions, self._request, self._note = reading, [], None, ""
        return self._plan(reading.text, conversation)

    def recover(self) -> bool:
        return False  # nothing left to recover: no model

    def explain(self) -> dict[str, Any]:
        # Nothing left the machine; the reading (recorded by the agent) is what it understood, and these
        # are the memories the answer showed.
        return {"memories": list(self._used)} if self._used else {}

    def word_results(self, conversation: list[Item]) -> str:
        """The results of the calls `plan` gave (the conversation ends with them), in words."""
        return self._word_results(conversation)

    async def round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse]:
        last = conversation[-1]
        if isinstance(last, ToolResults):
            text = await asyncio.to_thread(self._word_results, conversation)
            if text:
                yield Delta(self._prefixed(text))
            return
        # Planning may search memory (SQLite, embeddings): never on the event loop.
        with cited() as used:
            calls, text = await asyncio.to_thread(self._plan, _text(last), conversation)
        self._used += [i for i in used if i not in self._used]
        if text:
            yield Delta(self._prefixed(text))
        elif calls and self.unreachable:
            yield Delta(self._prefixed(""))
        for n, (name, args) in enumerate(calls, start=1):
            yield ToolUse(f"offline_{n}", name, args)

    def _prefixed(self, text: str) -> str:
        if not self.unreachable or self._unreachable_said:
            return text
        self._unreachable_said = True  # a turn that acts says it before the action, not again after it
        note = f"(I couldn't reach the chat model: {self.unreachable}. I handled this offline.)"
        return f"{note}\n\n{text}" if text else note + "\n\n"

    # -- reading the message ----------------------------------------------------------------

    def _read(self, text: str) -> Action:
        """An earlier message's action (the request our question was about)."""
        return read_message(text, self.runtime.clock.now(), self.runtime.clock.zone)

    def _plan(self, text: str, conversation: list[Item]) -> Plan:
        if _CANCEL.fullmatch(text.strip()) and self._asked(conversation):
            return [], "OK, nothing was changed."
        for pending in (self._pending_reminder, self._pending_event, self._pending_choice, self._pending_suggestion,
                        self._pending_forget):
            plan = pending(text, conversation)
            if plan is not None:
                return plan
        reading = self._reading
        action = reading.action if reading is not None and reading.text == text else self._read(text)
        return self._act(action, text, conversation)

    def _act(self, reading: Action, text: str, conversation: list[Item]) -> Plan:
        intent = reading.intent
        if intent == "remind":
            return [("remember", _remember_args(reading, self.runtime.clock.now()))], ""
        if intent == "remind_no_time":
            if not reading.content:
                return [], "What should I remind you about, and when?"
            return [], f"{ASK_WHEN} to {reading.content}?" if reading.link == "to" else \
                f"{ASK_WHEN} {reading.link} {reading.content}?"
        if intent == "remind_relative":
            return self._remind_relative(reading)
        if intent == "remember":
            return [("remember", {"content": reading.content, "kind": reading.kind})], ""
        if intent == "upcoming":
            return self._agenda(reading)
        if intent == "known":
            return [], what_i_know(self.runtime)
        if intent == "recap":
            if reading.span:
                return [], self._recap(reading.span, conversation)
            return [("recall_recent", {"hours": 48, "limit": 10})], ""
        if intent in ("done", "cancel", "move", "snooze", "rename"):
            return self._change(reading, conversation)
        if intent == "undo":
            return [], undo_text(self.runtime, changes.undo_last_change(self.runtime.store))
        if intent == "forget":
            return self._forget(reading, conversation)
        if intent == "question":
            last = conversation[-1]
            asking = (last.message_id,) if isinstance(last, UserMessage) and last.message_id else ()
            return [], answer_from_memory(self.runtime, reading.content, exclude_message_ids=asking,
                                          focus=reading.focus)
        if intent == "help":
            return [], self._connect(NO_MODEL) if not self.unreachable else CAPABILITIES
        if intent == "near_miss":
            return [], self._near_miss(reading)
        if self.unreachable:
            if self._incognito:
                return [], f"I can answer properly once the model is reachable again. {INCOGNITO_KEPT}"
            return [], "Your message is saved; I can answer properly once the model is reachable again."
        if _THANKS.match(text):
            return [], "You're welcome."
        if is_small_talk(text):
            return [], f"Hi! I'm running without a chat model. {self._connect(HOW_TO_CONNECT)}\n\n{CAPABILITIES}"
        # What becomes of the message follows the conversation: in an incognito one nothing is kept.
        kept = (f"I'm running without a chat model, so I can't chat about that. {INCOGNITO_KEPT}"
                if self._incognito else
                "I'm running without a chat model, so I can't chat about that, but your message is kept and I can "
                "find it later. To keep something as a memory, say \"remember that ...\".")
        return [], f"{kept}\n\n{SHORT_CAPABILITIES}\n\n{self._connect(HOW_TO_CONNECT)}"

    def _connect(self, text: str) -> str:
        return text.replace("{model}", self.runtime.settings.ollama.model)

    @staticmethod
    def _asked(conversation: list[Item]) -> bool:
        """Whether the last reply was a question of ours (when? which one? did you mean?) awaiting an answer."""
        if len(conversation) < 2 or not isinstance(conversation[-2], AssistantMessage):
            return False
        asked = conversation[-2].text
        return ASK_WHEN in asked or asked.startswith((WHICH_ONE, DID_YOU_MEAN, ASK_EVENT, CONFIRM_FORGET))

    @staticmethod
    def _question_and_request(conversation: list[Item], opening: str) -> tuple[str, str] | None:
        """(our question, the user's request before it) when our last reply was a question of this kind."""
        if len(conversation) < 3:
            return None
        asked, request = conversation[-2], conversation[-3]
        if not isinstance(asked, AssistantMessage) or not isinstance(request, UserMessage) or opening not in asked.text:
            return None
        return asked.text, request.text

    def _pending_choice(self, text: str, conversation: list[Item]) -> Plan | None:
        """The answer to "Which one did you mean?": a number (an id offered, else a place in the list:
        "2" of "#14, #13" is #13), "the second", "both", "neither", or words naming one of those listed,
        carries out the request that asked, on each one chosen."""
        found = self._question_and_request(conversation, WHICH_ONE)
        if found is None or not found[0].startswith(WHICH_ONE):
            return None
        asked, request = found
        # When we asked again ("#3 is not one of these"), the request is the one before the first asking.
        at = len(conversation) - 3
        while self._read(request).intent not in _CHOOSING and at >= 2 and isinstance(conversation[at - 1],
                                                                                      AssistantMessage) \
                and _text(conversation[at - 1]).startswith(WHICH_ONE) and isinstance(conversation[at - 2], UserMessage):
            at -= 2
            request = _text(conversation[at])
        listed = [int(n) for n in re.findall(r"^- #(\d+)", asked, re.M)]
        choice = read_choice(text)
        if choice is not None:
            targets = chosen(choice, listed)
            if targets is None:
                offered = "\n".join(line for line in asked.splitlines() if line.startswith("- #"))
                why = (f"#{choice.numbers[0]} is not one of these" if choice.numbers else
                       f"There are {len(listed)} of them" if choice.two else "That is not one of these")
                return [], (f"{WHICH_ONE} {why}; say one of their numbers or \"the first\" (nothing was "
                            f"changed):\n{offered}")
            if not targets:
                return [], "OK, nothing was changed."
        else:
            _, words = naming(text)
            wanted = topic_words(words) if words and words != "that" else set()
            targets = [m.id for m in memories.memories_by_id(self.runtime.store, listed)
                       if wanted and wanted <= topic_words(m.content)]
            if len(targets) != 1:
                return None  # not a choice: read it as a message of its own
        reading = self._read(request)
        if reading.intent not in _CHOOSING or reading.intent == "near_miss":
            return None  # no request of a change to carry out: never guess one
        self._request = request
        calls: list[tuple[str, dict[str, Any]]] = []
        said: list[str] = []
        for target in targets:
            reading.target, reading.content = target, ""
            more, text_part = self._act(reading, request, conversation)
            calls += more
            if text_part:
                said.append(text_part)
        self._actions = [reading.intent] * len(calls)
        return calls, "\n".join(said) if not calls else ""

    def _pending_forget(self, text: str, conversation: list[Item]) -> Plan | None:
        """ "yes" to "Forget #4 "..."?" forgets that memory, and only it."""
        if len(conversation) < 2 or not isinstance(conversation[-2], AssistantMessage) or not _YES.match(text):
            return None
        match = re.match(rf"{re.escape(CONFIRM_FORGET)}(\d+) ", conversation[-2].text)
        if match is None:
            return None
        return [("forget", {"id": int(match.group(1))})], ""

    def _pending_suggestion(self, text: str, conversation: list[Item]) -> Plan | None:
        """ "yes" to "Did you mean "remind me to ..."?" carries out what was meant."""
        found = self._question_and_request(conversation, DID_YOU_MEAN)
        if found is None or not _YES.match(text):
            return None
        match = re.match(rf'{DID_YOU_MEAN} "(.+?)"\?', found[0])
        if match is None:
            return None
        self._request = match.group(1)
        reading = self._read(match.group(1))
        if reading.intent in ("near_miss", "chat"):
            return None
        return self._act(reading, match.group(1), conversation)

    def _pending_reminder(self, text: str, conversation: list[Item]) -> Plan | None:
        """The answer to "When should I remind you ...?": the time for the task asked about before."""
        # The request that asked, before our question (and before any answer we could not read as a time).
        at = len(conversation) - 2
        request, earlier = None, None
        while at >= 1 and isinstance(conversation[at], AssistantMessage) and \
                ASK_WHEN in _text(conversation[at]) and isinstance(conversation[at - 1], UserMessage):
            earlier = self._read(_text(conversation[at - 1]))
            if earlier.intent in ("remind_no_time", "remind_relative") and earlier.content:
                request = _text(conversation[at - 1])
                break
            at -= 2
        if request is None or earlier is None:
            return None
        due = self._time_answer(text)
        if due is None:
            if self._read(text).intent not in ("chat", "near_miss"):
                return None  # not a time but a request of its own: read it as such
            # Not read as a time ("after work"): say so and ask again; the task is not lost.
            task = f"{earlier.link} {_to_you(earlier.content)}"
            return [], (f'I could not read "{" ".join(text.split())[:60]}" as a time. {ASK_WHEN} {task}? '
                        '(a time such as "at 6pm", "tomorrow morning" or "in 2 hours")')
        self._request = request
        reading = Action("remind", earlier.content, due[2], due[0], due[1], link=earlier.link)
        return [("remember", _remember_args(reading, self.runtime.clock.now()))], ""

    def _pending_event(self, text: str, conversation: list[Item]) -> Plan | None:
        """The answer to "When is the budget report due?": the event's date, and so the reminder's."""
        found = self._question_and_request(conversation, ASK_EVENT)
        if found is None or not found[0].startswith(ASK_EVENT):
            return None
        earlier = self._read(found[1])
        if earlier.intent != "remind_relative" or earlier.offset is None:
            return None
        self._request = found[1]
        choice = read_choice(text)
        listed = [int(n) for n in re.findall(r"^- #(\d+)", found[0], re.M)]
        if choice is not None and listed:
            # "the second", "#6": the date one of the memories listed gives.
            picked = chosen(choice, listed)
            if picked is None or len(picked) != 1:
                return [], "Say which one (its number), or the date."
            for at, said, memory_id in self._event_dates(earlier.event):
                if memory_id == picked[0]:
                    return self._relative_due(earlier, at, earlier.event, said)
            return None
        due = self._time_answer(text)
        if due is None or due[1] is not None:
            return None
        return self._relative_due(earlier, due[0], earlier.event)

    def _time_answer(self, text: str) -> tuple[datetime, Any, str] | None:
        answer = re.sub(r"^\W*(remind me\s+|it'?s\s+|it is\s+|that'?s\s+)?", "", text.strip(), flags=re.I)
        clock = self.runtime.clock
        _, _, when, found = split_task_and_time(f"x {answer}", clock.now(), clock.zone)
        return (found[0], found[1], when) if found is not None else None

    # -- reminders relative to an event -------------------------------------------------------

    def _remind_relative(self, reading: Action) -> Plan:
        if not reading.content:
            return [], f"What should I remind you about {_offset_words(reading.offset)} {reading.event}?"
        if reading.due is not None:
            return self._relative_due(reading, reading.due + (reading.offset or timedelta(0)), reading.event)
        known = self._event_dates(reading.event)
        then = f"Then I'll remind you {_offset_words(reading.offset)} it {reading.link} {_to_you(reading.content)}."
        if not known:
            return [], f"{ASK_EVENT} {_to_you(reading.event)}? {then}"
        if len({at for at, _, _ in known}) > 1:
            # Several memories give it different dates: which one is meant is asked, never guessed.
            lines = [f"{ASK_EVENT} {_to_you(reading.event)}? I have more than one date for it; say which, or the date "
                     f"({then[:-1].lower()}):"]
            lines += [f"- #{memory_id} {said}" for _, said, memory_id in known[:6]]
            return [], "\n".join(lines)
        event_due, said, _ = known[0]
        return self._relative_due(reading, event_due, reading.event, said)

    def _relative_due(self, reading: Action, event_due: datetime, event: str, source: str = "") -> Plan:
        """The reminder `reading.offset` before the event; `source` says where its date came from."""
        clock = self.runtime.clock
        due = event_due - (reading.offset or timedelta(0))
        when = source or clock.short(event_due)
        about = f"{_offset_words(reading.offset)} {_to_you(event)} ({when})"
        if due < clock.now() - timedelta(minutes=1):
            return [], (f"{about[:1].upper()}{about[1:]} was {clock.short(due)}, which has already passed. "
                        f"{ASK_WHEN} {reading.link} {_to_you(reading.content)}?")
        self._note = f", {about}"
        return [("remember", {"content": reading.content, "due_at": due.isoformat(), "kind": "reminder"})], ""

    def _event_dates(self, event: str) -> list[tuple[datetime, str, int]]:
        """When an event is: (its date, where that comes from, the memory's id) for each open reminder about
        it and each current memory that gives its date ("my Lisbon flight is on Dec 10"), soonest first,
        one per date."""
        clock = self.runtime.clock
        wanted = topic_words(event) - {"due"}
        if not wanted:
            return []
        store = self.runtime.store
        found: dict[datetime, tuple[str, int]] = {}
        for r in reminders.open_matching(store, search_words(event)):
            if wanted <= topic_words(r.memory.content):
                found.setdefault(parse_stored(r.due_at), (f"#{r.memory.id} {r.memory.content}, "
                                                          f"{clock.short(r.due_at)}", r.memory.id))
        stated = [m for m in memories.matching(store, search_words(event)) if not m.due_at and
                  wanted <= topic_words(m.content)]
        gone = supersession.superseded_by(store, [m.id for m in stated])
        for m in stated:
            if m.id in gone:
                continue  # a date said before it moved
            date = stated_date(m.content, parse_stored(m.created_at), clock.zone, clock.default_time)
            if date is not None and date.granularity == "day":  # a reminder before "June" needs a day
                when = date.told(clock)
                found.setdefault(date.at, (f"{when}, as you told me {clock.day(m.created_at)}", m.id))
        return [(at, said, memory_id) for at, (said, memory_id) in sorted(found.items())]

    # -- actions ----------------------------------------------------------------------------

    def _change(self, reading: Action, conversation: list[Item]) -> Plan:
        """done, cancel, move, snooze or rename one reminder, named by its number or by words; when the
        words fit several, the candidates are listed and nothing changes."""
        clock = self.runtime.clock
        intent = reading.intent
        if intent == "rename" and not reading.new_text:
            return [], "Rename it to what? For example \"rename 5 to call the bank\"."
        chosen, reply = self._reminder(reading, conversation)
        if chosen is None:
            return [], reply
        assert chosen.due_at is not None  # _reminder chooses reminders only
        chosen_due = parse_stored(chosen.due_at)
        if intent in ("move", "snooze") and reading.due is None and reading.shift is None and reading.when:
            return [], (f"I couldn't read \"{reading.when}\" as a time, so #{chosen.id} {chosen.content} is unchanged. "
                        f"Say for example \"{intent} {chosen.id} to 6pm\" or \"{intent} {chosen.id} for 30 minutes\".")
        if intent == "move" and reading.due is None and reading.shift is None:
            return [], (f"Move #{chosen.id} {chosen.content} to when? For example \"move {chosen.id} to 6pm\", "
                        f"\"move {chosen.id} to friday at 10am\" or \"push {chosen.id} back an hour\".")
        self._actions = [intent]
        if intent == "done":
            return [("update_memory", {"id": chosen.id, "done": True})], ""
        if intent == "cancel":
            return [("forget", {"id": chosen.id})], ""
        if intent == "rename":
            return [("update_memory", {"id": chosen.id, "content": reading.new_text})], ""
        if intent == "snooze":
            due = reading.due or clock.now() + timedelta(minutes=10)
            if reading.shift is not None and chosen_due > clock.now():
                due = chosen_due + reading.shift  # not due yet: put off from its own time
            return [("update_memory", {"id": chosen.id, "due_at": due.isoformat()})], ""
        # move
        if reading.shift is not None:
            due = chosen_due + reading.shift
        elif reading.rule is not None:
            return [("update_memory", {"id": chosen.id, "due_at": _rule_phrase(reading)})], ""
        else:
            assert reading.due is not None  # a move without a time was answered above
            due = reading.due
            if reading.keep_day:
                # "move the dentist call to 10am": 10:00 on the day it is due, not the next 10:00 from now.
                wanted, day = clock.local(reading.due), clock.local(chosen_due)
                on_its_day = localize(datetime.combine(day.date(), wanted.time().replace(tzinfo=None)), clock.zone)
                due = on_its_day if on_its_day >= clock.now() else reading.due
        return [("update_memory", {"id": chosen.id, "due_at": due.isoformat()})], ""

    def _reminder(self, reading: Action, conversation: list[Item]) -> tuple[Memory | None, str]:
        """The one reminder a change is about, or (None, what to say: the candidates, or that none fits)."""
        store = self.runtime.store
        verb = CHANGE_VERBS[reading.intent]
        if reading.target is not None:
            try:
                memory = memories.get_memory(store, reading.target)
            except NotFound:
                return None, f"That didn't work: there is no reminder #{reading.target}."
            if memory.due_at is None:
                what = "forget" if reading.intent == "cancel" else "change"
                return None, (f"#{memory.id} is a {memory.kind}, not a reminder" +
                              (f"; to delete it say \"forget {memory.id}\"." if what == "forget" else "."))
            return memory, ""
        if reading.content in ("", "that"):
            last = self._last_reminder(conversation)
            if last is None:
                return None, f"Which reminder should I {verb}? Say its number or some of its words."
            return last, ""
        full, partial = self._match_reminders(reading.content)
        if len(full) == 1:
            return full[0].memory, ""
        candidates = full or partial
        if not candidates:
            return None, f"I couldn't find an open reminder matching \"{reading.content}\"."
        lines = [f"{WHICH_ONE} Say its number (nothing was changed):"]
        lines += [f"- #{r.memory.id} {r.memory.content} ({r.label.strip('[]')})" for r in candidates[:8]]
        if len(candidates) > 8:
            lines.append(f"(and {len(candidates) - 8} more)")
        return None, "\n".join(lines)

    def _last_reminder(self, conversation: list[Item]) -> Memory | None:
        """ "that", "it": the open reminder named last in this conversation, else the one that fell due last."""
        store = self.runtime.store
        for message in reversed(conversation[:-1]):
            for number in reversed(_MENTIONED.findall(_text(message))):
                try:
                    memory = memories.get_memory(store, int(number))
                except NotFound:
                    continue
                if memory.due_at is not None:
                    return memory
        fell_due = reminders.last_fell_due(store)
        return fell_due.memory if fell_due else None

    def _match_reminders(self, words: str) -> tuple[list[reminders.Reminder], list[reminders.Reminder]]:
        """(every open reminder about all the words, those about some): a reminder is only acted on by
        words when exactly one clearly matches."""
        wanted = topic_words(words)
        full: list[reminders.Reminder] = []
        partial: list[reminders.Reminder] = []
        if not wanted:
            return full, partial
        for r in reminders.open_matching(self.runtime.store, search_words(words)):
            have = topic_words(r.memory.content)
            if wanted <= have:
                full.append(r)
            elif wanted & have:
                partial.append(r)
        return full, partial

    def _forget(self, reading: Action, conversation: list[Item]) -> Plan:
        """Forget by number, by "that", or by words when exactly one memory holds them all."""
        if reading.target is not None:
            return [("forget", {"id": reading.target})], ""
        store = self.runtime.store
        if reading.content in ("", "that"):
            for message in reversed(conversation[:-1]):
                numbers = _MENTIONED.findall(_text(message))
                if numbers:
                    return [("forget", {"id": int(numbers[-1])})], ""
            return [], "What should I forget? Say its number, for example \"forget 12\", or some of its words."
        wanted = topic_words(reading.content)
        matched = memories.matching(store, search_words(reading.content)) if wanted else []
        found = [m for m in matched if wanted <= topic_words(m.content)] or \
            [m for m in matched if wanted & topic_words(m.content)]  # "my licence plate": the memory says "plate"
        if not found:
            return [], f"I have nothing in memory matching \"{reading.content}\", so nothing was forgotten."
        if len(found) == 1:
            # Named by words, never forgotten at once: the person sees what would go, whole, and says yes.
            memory = found[0]
            part = (f"\"{reading.content}\" is only part of it: forgetting takes the whole memory. "
                    if len(topic_words(memory.content)) > len(wanted) + 1 else "")
            return [], (f"{CONFIRM_FORGET}{memory.id} \"{private_marked(memory.content, memory.private)}\"? {part}"
                        f"Say \"yes\" to forget it (\"undo\" brings it back), or \"no\"; nothing was forgotten yet.")
        lines = [f"{WHICH_ONE} Say its number (nothing was forgotten yet):"]
        lines += [f"- #{m.id} {private_marked(m.content, m.private)} ({m.kind}, "
                  f"{self.runtime.clock.day(m.created_at)})" for m in found[:8]]
        if len(found) > 8:
            lines.append(f"(and {len(found) - 8} more)")
        return [], "\n".join(lines)

    def _near_miss(self, reading: Action) -> str:
        if reading.suggestion:
            return (f"{DID_YOU_MEAN} \"{reading.suggestion}\"? Say \"yes\" and I'll do it; nothing was changed.\n\n"
                    f"{SHORT_CAPABILITIES}")
        full, partial = self._match_reminders(reading.content)
        candidates = full or partial
        if not candidates:
            return f"I'm not sure what you mean by \"{reading.content}\". {SHORT_CAPABILITIES}"
        first = candidates[0].memory
        lines = [f"What should I do with {'it' if len(candidates) == 1 else 'which one'}?"]
        lines += [f"- #{r.memory.id} {r.memory.content} ({r.label.strip('[]')})" for r in candidates[:5]]
        lines.append(f"For example: \"done with {first.id}\", \"snooze {first.id} for 10 minutes\", "
                     f"\"move {first.id} to 6pm\", \"cancel {first.id}\", \"rename {first.id} to ...\".")
        return "\n".join(lines)

    def _agenda(self, reading: Action) -> Plan:
        """ "What's coming up?", the days asked about ("what do I have tomorrow?", "anything left for
        today?"), or the trips planned; the reminders it names are marked mentioned."""
        if reading.topic == "trip":
            text, named = agenda(self.runtime, reading.span, "trip") if reading.span else trips(self.runtime)
        elif reading.span is not None:
            text, named = agenda(self.runtime, reading.span)
        else:
            text, named = coming_up(self.runtime)
        return self._mark_mentioned(named), text

    def _mark_mentioned(self, items: list[reminders.Reminder]) -> list[tuple[str, dict[str, Any]]]:
        # Mentioning a reminder marks it reminded, exactly as the model is told to do.
        needs_mark = reminders.needing_mention(self.runtime.store, sorted({r.memory.id for r in items}))
        return [("update_memory", {"id": i, "reminded_at": "now"}) for i in sorted(needs_mark)]

    def _recap(self, span: DaySpan, conversation: list[Item]) -> str:
        """The conversations of the days asked about ("what did we talk about yesterday?"), and only those."""
        store, clock = self.runtime.store, self.runtime.clock
        last = conversation[-1]
        asking = last.message_id if isinstance(last, UserMessage) else None
        lines = []
        for c in episodes.conversations_between(store, span.start, span.end):
            if c.current:
                said = c.messages - (1 if asking and c.episode.id == self._episode_of(asking) else 0)
                if said <= 0:
                    continue
                current = episodes.in_progress(store)
                title = current.title if current and current.episode.id == c.episode.id else c.episode.title
                lines += episode_lines(clock, c.episode, f"(current conversation) {title or 'Untitled'}", summary=False)
                continue
            lines += episode_lines(clock, c.episode, width=200)
        if not lines:
            return f"We didn't talk {span.label}."
        return f"What we talked about {span.label}:\n" + "\n".join(lines)

    def _episode_of(self, message_id: int) -> int | None:
        found = episodes.messages_by_id(self.runtime.store, [message_id]).get(message_id)
        return found.episode_id if found else None

    # -- wording the results ----------------------------------------------------------------

    def _word_results(self, conversation: list[Item]) -> str:
        last = conversation[-1]
        assert isinstance(last, ToolResults)
        results = last.results
        before = conversation[-2] if len(conversation) > 1 else None
        calls = before.tool_calls if isinstance(before, AssistantMessage) else ()
        if calls and all(c.name == "update_memory" and "reminded_at" in c.input for c in calls):
            return ""  # the list was already said; marking it reminded needs no words
        request = self._request or last_user_text(conversation)
        actions = self._actions
        lines = []
        for n, r in enumerate(results):
            data = r.data or {}
            action = actions[n] if n < len(actions) else None
            if r.is_error:
                lines.append(f"That didn't work: {r.content.removeprefix('Error: ')}")
            elif r.name == "remember" and data:
                lines.append(self._confirm(data, request))
            elif r.name == "update_memory" and data:
                lines.append(self._changed_line(data, action))
            elif r.name == "forget" and data:
                said = f"Cancelled: {data['content']}" if action == "cancel" else f"Forgot #{data['id']}"
                said = f"{said} (#{data['id']})" if action == "cancel" else said
                lines.append(said + UNDO_HINT + ".")  # any forget comes back with undo, until the next change
            elif r.name == "recall_recent":
                if r.content.startswith("No episodes found"):
                    hours = re.search(r"last (\S+) hours", r.content)
                    lines.append(f"We haven't talked in the last {hours.group(1) if hours else 48} hours.")
                else:
                    lines.append("Here is what we talked about recently:\n" + r.content)
            else:
                lines.append(r.content + ".")
        return "\n".join(lines)

    def _confirm(self, memory: dict[str, Any], request: str) -> str:
        """"Okay, I'll remind you to call the bank on Mon Nov 23 10:00 (#1)."."""
        clock = self.runtime.clock
        if not memory.get("due_at"):
            content = memory["content"]
            # "moved to Porto last month" has no subject to follow "that".
            said = f": {content}" if _FRAGMENT.match(content) else f" that {content}"
            line = f"Okay, I'll remember{said} (#{memory['id']})."
            replaced = supersession.replaced(self.runtime.store, memory["id"])
            if replaced:
                older = replaced[0]
                line = (f"{line[:-1]}; it replaces #{older['id']} from {clock.day(older['created_at'])} "
                        f"({private_marked(older['content'], bool(older['private']))}).")
            return line
        link = self._read(request).link if request else "to"
        rule = memory.get("recurrence")
        if rule:
            when = f"{rule['text']} at {clock.local(memory['due_at']):%H:%M}, starting {clock.short(memory['due_at'])}"
        else:
            when = f"on {clock.short(memory['due_at'])}"
        passed = past_note(clock, memory["due_at"]) if not rule else None
        said = f"Okay, I'll remind you {link} {_to_you(memory['content'])} {when}{self._note} (#{memory['id']})."
        return f"{said} {passed[:1].upper()}{passed[1:]}." if passed else said

    def _changed_line(self, memory: dict[str, Any], action: str | None) -> str:
        clock = self.runtime.clock
        rule = memory.get("recurrence")
        if action in ("snooze", "move"):
            verb = "Snoozed" if action == "snooze" else "Moved"
            every = f", {rule['text']}" if rule else ""
            when = clock.short(memory["due_at"])
            return f"{verb}: {memory['content']} to {when}{every} (#{memory['id']}){UNDO_HINT}."
        if action == "rename":
            due = f", due {clock.short(memory['due_at'])}" if memory.get("due_at") else ""
            return f"Renamed #{memory['id']}: {memory['content']}{due}{UNDO_HINT}."
        hint = UNDO_HINT if action == "done" else ""  # said once the change is recorded for undo
        if rule and not memory.get("done_at"):
            return (f"Done: {memory['content']}. Next one: {clock.short(memory['due_at'])} "
                    f"({rule['text']}, #{memory['id']}){hint}.")
        return f"Done: {memory['content']} (#{memory['id']}){hint}."


def _to_you(task: str) -> str:
    """ "stretch my legs" as said back: "stretch your legs"."""
    return re.sub(r"\b(i'm|i've|i'll|myself|mine|my|me|i)\b",
                  lambda m: _PRONOUNS[m.group(0).lower()], task, flags=re.I)


def _rule_phrase(reading: Action) -> str:
    return re.sub(r"^(for|on)\s+(?!the\b)", "", reading.when.strip(" ,.;:-?!"), flags=re.I)


def _remember_args(reading: Action, now: datetime | None = None) -> dict[str, Any]:
    # A rule goes to the tool as its phrase (the tool stores the rule); a one-off as its instant,
    # unless that has passed: then as said, so the tool's one rule for a passed time applies ("tonight"
    # said at 22:50 is due at once, as in the app and the CLI; "yesterday at 3pm" is refused).
    due = reading.rule and _rule_phrase(reading)
    if not due and now is not None and reading.when and reading.due is not None and reading.due <= now:
        due = reading.when
    if not due:
        assert reading.due is not None  # a reminder read with a time
        due = reading.due.isoformat()
    return {"content": reading.content, "due_at": due, "kind": "reminder"}


def _offset_words(offset: timedelta | None) -> str:
    """ "two days before", "an hour after", "a week before"."""
    if offset is None:
        return "before"
    direction = "before" if offset >= timedelta(0) else "after"
    seconds = abs(int(offset.total_seconds()))
    for size, unit in ((604800, "week"), (86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            words = {1: "a" if unit != "hour" else "an", 2: "two", 3: "three", 4: "four", 5: "five"}
            return f"{words.get(n, str(n))} {unit}{'s' if n > 1 else ''} {direction}"
    return f"{seconds // 60} minutes {direction}"
