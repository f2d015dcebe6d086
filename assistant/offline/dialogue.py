"""The answers to the offline mode's own questions: when? ("When should I remind you to ...?"), when is
the event?, which one? (a list of what a request could mean), did you mean "..."?, forget #N? The answer
carries out the request that asked; "no", "never mind" takes it back.

A question is data kept with the answer that asked it (an OpenQuestion: what it asks, the request it is
about, the memories it offered), never read back from its wording: rewording a question changes nothing
here, and a model's answer that happens to ask "Which one did you mean?" is no question of ours."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from assistant.conversation import Item
from assistant.offline.acts import act
from assistant.offline.phrases import ASK_WHEN, WHICH_ONE, to_you
from assistant.offline.plan import Call, Plan, Situation, asked_before, read_action, remember_args, said
from assistant.offline.relative import event_dates, relative_due
from assistant.offline.reminder_changes import offered_lines
from assistant.reading.actions import Change, Chat, Forget, NearMiss, Remind, RemindNoTime, RemindRelative
from assistant.reading.questions import chosen, read_choice
from assistant.reading.understand import naming, split_task_and_time, task_and_link
from assistant.recall.evidence import topic_words
from assistant.runtime import Runtime
from memory import memories
from memory.turn_records import Asking, OpenQuestion

_YES = re.compile(r"^\W*(y|yes|yeah|yep|yup|sure|ok|okay|please|do it|go ahead|correct|right|that's right)\W*$", re.I)
# An answer to one of our questions that takes it back.
_CANCEL = re.compile(r"(?i)(never\s?mind|nevermind|cancel|forget it|no(pe)?|nothing|skip( it)?|stop|"
                     r"don'?t bother|not now|leave it)\W*")


def answer_to_question(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """What `text` (the last item of `conversation`) does as the answer to the question our answer before
    it asked, or None when it is no such answer: a message of its own."""
    question = asked_before(conversation)
    if question is None:
        return None
    if _CANCEL.fullmatch(text.strip()):
        return said("OK, nothing was changed.")
    match question.kind:
        case Asking.WHEN:
            return _when(runtime, text, question)
        case Asking.WHAT:
            return _what(runtime, text, question)
        case Asking.EVENT:
            return _event(runtime, text, question)
        case Asking.WHICH:
            return _which(runtime, text, question, conversation, situation)
        case Asking.SUGGESTION:
            return _suggestion(runtime, text, question, conversation, situation)
        case Asking.FORGET:
            return Plan([("forget", {"id": question.ids[0]})]) if _YES.match(text) and question.ids else None
    return None


def _which(runtime: Runtime, text: str, question: OpenQuestion, conversation: list[Item],
           situation: Situation) -> Plan | None:
    """The answer to "Which one did you mean?": a number (an id offered, else a place in the list:
    "2" of "#14, #13" is #13), "the second", "both", "neither", or words naming one of those listed,
    carries out the request that asked, on each one chosen."""
    request = question.request
    action = read_action(runtime, request)
    if not isinstance(action, Change | Forget):
        return None  # no request of a change to carry out: never guess one
    listed = list(question.ids)
    choice = read_choice(text)
    if choice is not None:
        targets = chosen(choice, listed)
        if targets is None:
            offered = "\n".join(offered_lines(runtime, question, forgetting=isinstance(action, Forget)))
            why = (f"#{choice.numbers[0]} is not one of these" if choice.numbers else
                   f"There are {len(listed)} of them" if choice.two or choice.yes else "That is not one of these")
            return said(f"{WHICH_ONE} {why}; say one of their numbers or \"the first\" (nothing was "
                        f"changed):\n{offered}", question)
        if not targets:
            return said("OK, nothing was changed.")
    else:
        _, words = naming(text)
        wanted = topic_words(words) if words and words != "that" else set()
        targets = [m.id for m in memories.memories_by_id(runtime.store, listed)
                   if wanted and wanted <= topic_words(m.content)]
        if len(targets) != 1:
            return None  # not a choice: read it as a message of its own
    calls: list[Call] = []
    told: list[str] = []
    for target in targets:
        plan = act(runtime, replace(action, target=target, content=""), request, conversation, situation)
        calls += plan.calls
        if plan.said:
            told.append(plan.said)
    return Plan(calls, "\n".join(told) if not calls else "", [action] * len(calls), request)


def _suggestion(runtime: Runtime, text: str, question: OpenQuestion, conversation: list[Item],
                situation: Situation) -> Plan | None:
    """ "yes" to "Did you mean "remind me to ..."?" carries out what was meant."""
    if not _YES.match(text):
        return None
    meant = question.request
    action = read_action(runtime, meant)
    if isinstance(action, NearMiss | Chat):
        return None
    return replace(act(runtime, action, meant, conversation, situation), request=meant)


def _when(runtime: Runtime, text: str, question: OpenQuestion) -> Plan | None:
    """The answer to "When should I remind you ...?": the time for the task asked about before."""
    earlier = read_action(runtime, question.request)
    if not isinstance(earlier, RemindNoTime | RemindRelative) or not earlier.content:
        return None
    due = _time_answer(runtime, text)
    if due is None:
        if not isinstance(read_action(runtime, text), Chat | NearMiss):
            return None  # not a time but a request of its own: read it as such
        # Not read as a time ("after work"): say so and ask again; the task is not lost.
        task = f"{earlier.link} {to_you(earlier.content)}"
        return said(f'I could not read "{" ".join(text.split())[:60]}" as a time. {ASK_WHEN} {task}? '
                    '(a time such as "at 6pm", "tomorrow morning" or "in 2 hours")', question)
    reminder = Remind(content=earlier.content, when=due[2], due=due[0], rule=due[1], link=earlier.link)
    return Plan([("remember", remember_args(reminder, runtime.clock.now()))], request=question.request)


def _what(runtime: Runtime, text: str, question: OpenQuestion) -> Plan | None:
    """The answer to "What should I remind you about on ...?": the task, for the time asked before."""
    earlier = read_action(runtime, question.request)
    if not isinstance(earlier, Remind) or earlier.content or not isinstance(read_action(runtime, text), Chat):
        return None  # a request or a question of its own: read as such
    task, link = task_and_link(text)
    if not task:
        return None
    reminder = Remind(content=task, when=earlier.when, due=earlier.due, rule=earlier.rule, link=link)
    return Plan([("remember", remember_args(reminder, runtime.clock.now()))], request=question.request)


def _event(runtime: Runtime, text: str, question: OpenQuestion) -> Plan | None:
    """The answer to "When is the budget report due?": the event's date, and so the reminder's."""
    request = question.request
    earlier = read_action(runtime, request)
    if not isinstance(earlier, RemindRelative) or earlier.offset is None:
        return None
    choice = read_choice(text)
    listed = list(question.ids)
    if choice is not None and listed:
        # "the second", "#6": the date one of the memories listed gives.
        picked = chosen(choice, listed)
        if picked is None or len(picked) != 1:
            return replace(said("Say which one (its number), or the date."), request=request)
        for at, told, memory_id in event_dates(runtime, earlier.event):
            if memory_id == picked[0]:
                return replace(relative_due(runtime, earlier, request, at, earlier.event, told), request=request)
        return None
    due = _time_answer(runtime, text)
    if due is None or due[1] is not None:
        return None
    return replace(relative_due(runtime, earlier, request, due[0], earlier.event), request=request)


def _time_answer(runtime: Runtime, text: str) -> tuple[datetime, Any, str] | None:
    answer = re.sub(r"^\W*(remind me\s+|it'?s\s+|it is\s+|that'?s\s+)?", "", text.strip(), flags=re.I)
    clock = runtime.clock
    task, _, when, found = split_task_and_time(f"x {answer}", clock.now(), clock.zone)
    # Only a time is an answer: "remind me to call the vet at 10" is a reminder of its own.
    return (found[0], found[1], when) if found is not None and task == "x" else None
