"""What the offline mode says, in one place: what it understands, how to connect a model, the openings
of its questions, and how a task is said back ("stretch my legs": "stretch your legs")."""
from __future__ import annotations

import re
from datetime import timedelta

from assistant.runtime import Runtime

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
THIS_ONE = "Did you mean this one?"  # one reminder found by some of the words said, not all
DID_YOU_MEAN = "Did you mean"
CONFIRM_FORGET = "Forget #"  # the question before forgetting a memory named by words: "Forget #4 "..."?"
ASK_EVENT = "When is"
ASK_WHEN = "When should I remind you"
INCOGNITO_KEPT = "This is an incognito conversation: nothing of it is kept."
UNDO_HINT = " (say \"undo\" to put it back)"
# The task is stored as said ("stretch my legs"); a confirmation speaks to the user ("your legs").
_PRONOUNS = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "i've": "you've", "i'll": "you'll",
             "myself": "yourself", "mine": "yours", "am": "are"}


def connect(runtime: Runtime, text: str) -> str:
    """`text` with the local model a person would pull named."""
    return text.replace("{model}", runtime.settings.ollama.model)


def to_you(task: str) -> str:
    """ "stretch my legs" as said back: "stretch your legs"."""
    return re.sub(r"\b(i'm|i've|i'll|myself|mine|my|me|i)\b",
                  lambda m: _PRONOUNS[m.group(0).lower()], task, flags=re.I)


def offset_words(offset: timedelta | None) -> str:
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
