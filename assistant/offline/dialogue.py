"""The answers to the offline mode's own questions: when? ("When should I remind you to ...?"), when is
the event?, which one? (a list of what a request could mean), did you mean "..."?, forget #N? The answer
carries out the request that asked; "no", "never mind" takes it back."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from assistant.conversation import AssistantMessage, Item, UserMessage
from assistant.offline.acts import act
from assistant.offline.phrases import ASK_EVENT, ASK_WHEN, CONFIRM_FORGET, DID_YOU_MEAN, WHICH_ONE, to_you
from assistant.offline.plan import Call, Plan, Situation, read_action, remember_args, said, text_of
from assistant.offline.relative import event_dates, relative_due
from assistant.reading.actions import Change, Chat, Forget, NearMiss, Remind, RemindNoTime, RemindRelative
from assistant.reading.questions import chosen, read_choice
from assistant.reading.understand import naming, split_task_and_time
from assistant.recall.evidence import topic_words
from assistant.runtime import Runtime
from memory import memories

_YES = re.compile(r"^\W*(y|yes|yeah|yep|yup|sure|ok|okay|please|do it|go ahead|correct|right|that's right)\W*$", re.I)
# An answer to one of our questions that takes it back.
_CANCEL = re.compile(r"(?i)(never\s?mind|nevermind|cancel|forget it|no(pe)?|nothing|skip( it)?|stop|"
                     r"don'?t bother|not now|leave it)\W*")
# Requests that list the reminders they could mean and wait for a choice.
_CHOOSING = (Change, Forget, NearMiss)


def answer_to_question(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """What `text` (the last item of `conversation`) does as the answer to our last question, or None
    when it is no such answer: a message of its own."""
    if _CANCEL.fullmatch(text.strip()) and _asked(conversation):
        return said("OK, nothing was changed.")
    for pending in (_pending_reminder, _pending_event, _pending_choice, _pending_suggestion, _pending_forget):
        plan = pending(runtime, text, conversation, situation)
        if plan is not None:
            return plan
    return None


def _asked(conversation: list[Item]) -> bool:
    """Whether the last reply was a question of ours (when? which one? did you mean?) awaiting an answer."""
    if len(conversation) < 2 or not isinstance(conversation[-2], AssistantMessage):
        return False
    asked = conversation[-2].text
    return ASK_WHEN in asked or asked.startswith((WHICH_ONE, DID_YOU_MEAN, ASK_EVENT, CONFIRM_FORGET))


def _question_and_request(conversation: list[Item], opening: str) -> tuple[str, str] | None:
    """(our question, the user's request before it) when our last reply was a question of this kind."""
    if len(conversation) < 3:
        return None
    asked, request = conversation[-2], conversation[-3]
    if not isinstance(asked, AssistantMessage) or not isinstance(request, UserMessage) or opening not in asked.text:
        return None
    return asked.text, request.text


def _pending_choice(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """The answer to "Which one did you mean?": a number (an id offered, else a place in the list:
    "2" of "#14, #13" is #13), "the second", "both", "neither", or words naming one of those listed,
    carries out the request that asked, on each one chosen."""
    found = _question_and_request(conversation, WHICH_ONE)
    if found is None or not found[0].startswith(WHICH_ONE):
        return None
    asked, request = found
    # When we asked again ("#3 is not one of these"), the request is the one before the first asking.
    at = len(conversation) - 3
    while not isinstance(read_action(runtime, request), _CHOOSING) and at >= 2 and \
            isinstance(conversation[at - 1], AssistantMessage) and \
            text_of(conversation[at - 1]).startswith(WHICH_ONE) and isinstance(conversation[at - 2], UserMessage):
        at -= 2
        request = text_of(conversation[at])
    listed = [int(n) for n in re.findall(r"^- #(\d+)", asked, re.M)]
    choice = read_choice(text)
    if choice is not None:
        targets = chosen(choice, listed)
        if targets is None:
            offered = "\n".join(line for line in asked.splitlines() if line.startswith("- #"))
            why = (f"#{choice.numbers[0]} is not one of these" if choice.numbers else
                   f"There are {len(listed)} of them" if choice.two else "That is not one of these")
            return said(f"{WHICH_ONE} {why}; say one of their numbers or \"the first\" (nothing was "
                        f"changed):\n{offered}")
        if not targets:
            return said("OK, nothing was changed.")
    else:
        _, words = naming(text)
        wanted = topic_words(words) if words and words != "that" else set()
        targets = [m.id for m in memories.memories_by_id(runtime.store, listed)
                   if wanted and wanted <= topic_words(m.content)]
        if len(targets) != 1:
            return None  # not a choice: read it as a message of its own
    action = read_action(runtime, request)
    if not isinstance(action, Change | Forget):
        return None  # no request of a change to carry out: never guess one
    calls: list[Call] = []
    told: list[str] = []
    for target in targets:
        plan = act(runtime, replace(action, target=target, content=""), request, conversation, situation)
        calls += plan.calls
        if plan.said:
            told.append(plan.said)
    return Plan(calls, "\n".join(told) if not calls else "", [action] * len(calls), request)


def _pending_forget(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """ "yes" to "Forget #4 "..."?" forgets that memory, and only it."""
    if len(conversation) < 2 or not isinstance(conversation[-2], AssistantMessage) or not _YES.match(text):
        return None
    match = re.match(rf"{re.escape(CONFIRM_FORGET)}(\d+) ", conversation[-2].text)
    if match is None:
        return None
    return Plan([("forget", {"id": int(match.group(1))})])


def _pending_suggestion(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """ "yes" to "Did you mean "remind me to ..."?" carries out what was meant."""
    found = _question_and_request(conversation, DID_YOU_MEAN)
    if found is None or not _YES.match(text):
        return None
    match = re.match(rf'{DID_YOU_MEAN} "(.+?)"\?', found[0])
    if match is None:
        return None
    meant = match.group(1)
    action = read_action(runtime, meant)
    if isinstance(action, NearMiss | Chat):
        return None
    return replace(act(runtime, action, meant, conversation, situation), request=meant)


def _pending_reminder(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """The answer to "When should I remind you ...?": the time for the task asked about before."""
    # The request that asked, before our question (and before any answer we could not read as a time).
    at = len(conversation) - 2
    request, earlier = None, None
    while at >= 1 and isinstance(conversation[at], AssistantMessage) and \
            ASK_WHEN in text_of(conversation[at]) and isinstance(conversation[at - 1], UserMessage):
        read = read_action(runtime, text_of(conversation[at - 1]))
        if isinstance(read, RemindNoTime | RemindRelative) and read.content:
            request, earlier = text_of(conversation[at - 1]), read
            break
        at -= 2
    if request is None or earlier is None:
        return None
    due = _time_answer(runtime, text)
    if due is None:
        if not isinstance(read_action(runtime, text), Chat | NearMiss):
            return None  # not a time but a request of its own: read it as such
        # Not read as a time ("after work"): say so and ask again; the task is not lost.
        task = f"{earlier.link} {to_you(earlier.content)}"
        return said(f'I could not read "{" ".join(text.split())[:60]}" as a time. {ASK_WHEN} {task}? '
                    '(a time such as "at 6pm", "tomorrow morning" or "in 2 hours")')
    reminder = Remind(content=earlier.content, when=due[2], due=due[0], rule=due[1], link=earlier.link)
    return Plan([("remember", remember_args(reminder, runtime.clock.now()))], request=request)


def _pending_event(runtime: Runtime, text: str, conversation: list[Item], situation: Situation) -> Plan | None:
    """The answer to "When is the budget report due?": the event's date, and so the reminder's."""
    found = _question_and_request(conversation, ASK_EVENT)
    if found is None or not found[0].startswith(ASK_EVENT):
        return None
    earlier = read_action(runtime, found[1])
    if not isinstance(earlier, RemindRelative) or earlier.offset is None:
        return None
    request = found[1]
    choice = read_choice(text)
    listed = [int(n) for n in re.findall(r"^- #(\d+)", found[0], re.M)]
    if choice is not None and listed:
        # "the second", "#6": the date one of the memories listed gives.
        picked = chosen(choice, listed)
        if picked is None or len(picked) != 1:
            return replace(said("Say which one (its number), or the date."), request=request)
        for at, told, memory_id in event_dates(runtime, earlier.event):
            if memory_id == picked[0]:
                return replace(relative_due(runtime, earlier, at, earlier.event, told), request=request)
        return None
    due = _time_answer(runtime, text)
    if due is None or due[1] is not None:
        return None
    return replace(relative_due(runtime, earlier, due[0], earlier.event), request=request)


def _time_answer(runtime: Runtime, text: str) -> tuple[datetime, Any, str] | None:
    answer = re.sub(r"^\W*(remind me\s+|it'?s\s+|it is\s+|that'?s\s+)?", "", text.strip(), flags=re.I)
    clock = runtime.clock
    _, _, when, found = split_task_and_time(f"x {answer}", clock.now(), clock.zone)
    return (found[0], found[1], when) if found is not None else None
