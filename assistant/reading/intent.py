"""What a turn is about, read from the user's text before the prompt is built (SPEC F2).

`is_recap_query` spots explicit requests to recap our conversations; `temporal_recency` scores in
[0, 1] how much a question is about the recent past of our own exchanges. Either one boosts the
turn (more episodes, with summaries, in time order). Questions that merely contain "what happened"
or "recap" in another sense, and requests to set a reminder, do not.
"""
from __future__ import annotations

import re

_FLAGS = re.I
_RECAP_PATTERNS = [
    r"\bwhat (did|have|had) (we|you and i|i) (talk(ed)?|chat(ted)?|discuss(ed)?|cover(ed)?|go over|went over)\b",
    r"\bwhat (were|are) we (talking|chatting) about\b",
    r"\bwhat have we (discussed|talked about|covered|been (talking|chatting) about)\b",
    r"\bcatch me up\b",
    r"\bbring me up to (speed|date)\b",
    r"\bfill me in\b(?! on (the|a|an) (history|news|story|plot|rules))",
    r"\bwhere (were we|did we leave off|we left off)\b",
    r"\b(summari[sz]e|sum up|go over) (our|the|my) (recent |last |previous )?"
    r"(conversations?|chats?|discussions?|sessions?)\b",
    r"\bremind me (what|of what) (we|i) (talked|discussed|said|covered|decided)\b",
    # not "what did I tell you about Tom?": a question about Tom (a newcomer's got a recap of the chat)
    r"\bwhat did i (tell|ask) you\b(?!\s+(about|of|regarding|concerning|on)\b)",
    r"\bour (last|previous|recent|earlier) (conversations?|chats?|discussions?|sessions?)\b",
]
_RECAP_WORD = re.compile(r"\brecap\b", _FLAGS)
# "recap" is a request to us when it stands alone or is about our own exchanges.
_RECAP_REQUEST = re.compile(
    r"^\W*(please\W+)?((can|could|would) you\W+)?((give|get) me\W+)?(a\W+)?(quick\W+|short\W+|brief\W+)?"
    r"recap(\W+(please|pls|me|us))?\W*$"
    r"|\brecap\b\W+(of\W+)?(our|we|us|what we|the (conversation|chat|discussion)s?|today|yesterday|"
    r"this (week|morning|afternoon|evening)|the last (few )?(days|hours|week))", _FLAGS)
_REMINDER_REQUEST = re.compile(r"^\W*(please\W+)?(remind me (to|about|at|on|in|tomorrow|tonight|next)|"
                               r"set (a|an) (reminder|alarm)|add (a )?reminder|create (a )?reminder)", _FLAGS)

_CONVERSATION = re.compile(
    r"\b(we|us|our)\b.*\b(talk(ed)?|discuss(ed)?|chat(ted)?|said|decided|agreed|covered|conversations?|spoke)\b"
    r"|\b(i|you)\b.*\b(told|tell|mentioned|said|asked|promised)\b.*\b(you|me)\b"
    r"|\b(last|previous|earlier) (conversation|chat|session|time we)\b", _FLAGS)
_RECENT_TIME = re.compile(
    r"\b(earlier|yesterday|today|tonight|this (morning|afternoon|evening|week)|last (night|time|week|session)|"
    r"recently|lately|the other day|just now|a (few|couple of) (hours|days) ago|so far|before)\b", _FLAGS)
_PAST_QUESTION = re.compile(r"^\W*(what|did|have|had|was|were|when|where|which|who)\b.*\b(did|was|were|have|had|"
                            r"said|told|talked|discussed|decided|mentioned)\b", _FLAGS)


# A request about our conversations is a sentence or two: a paste is read no further (the patterns with ".*"
# between words took 3 s on 120 kB and minutes on 1 MB: an attacker's paste).
_ASKED_WITHIN = 600


def is_recap_query(text: str) -> bool:
    """An explicit request to recap our conversations."""
    text = text[:_ASKED_WITHIN]
    if not text or _REMINDER_REQUEST.search(text) and not re.search(r"remind me (what|of what)", text, _FLAGS):
        return False
    if any(re.search(p, text, _FLAGS) for p in _RECAP_PATTERNS):
        return True
    return bool(_RECAP_WORD.search(text) and _RECAP_REQUEST.search(text))


def temporal_recency(text: str) -> float:
    """How much `text` asks about the recent past of our own exchanges, in [0, 1]."""
    text = text[:_ASKED_WITHIN]
    if not text or _REMINDER_REQUEST.search(text):
        return 0.0
    score = 0.0
    if _CONVERSATION.search(text):
        score += 0.45
    if _RECENT_TIME.search(text):
        score += 0.35
    if _PAST_QUESTION.search(text):
        score += 0.2
    if is_recap_query(text):
        score = max(score, 0.9)
    return min(1.0, round(score, 2))
