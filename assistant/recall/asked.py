"""What the person asked or said about something, when that is the question (SPEC F7: the offline mode
answers with the user's own earlier words only when asked what the person said or asked).

"What did I ask about sourdough last spring?" is answered with the person's own messages about sourdough,
those of the period named first ("last spring", "in March", "in 2023"), each with its day and the
conversation it was in: imported history (a ChatGPT or Claude export) is found the same way as what was
typed here.
"""
from __future__ import annotations

import re

from assistant.recall.evidence import search_words, topic_words
from assistant.runtime import Runtime
from memory import episodes
from memory.time.instants import to_utc_iso
from memory.time.references import named_periods

_ASKS_WHAT_I_SAID = re.compile(r"^\W*(?:what|which\s+\w+)\s+(?:did|have|had)\s+i\s+(?:ever\s+)?(?:ask|asked|say|said|"
                               r"tell|told|write|wrote|type|typed)\b", re.I)
_PERIOD_WORDS = frozenset("last this past previous spring summer autumn fall winter in during ask asked say said "
                          "tell told write wrote type typed about".split())


def asks_what_i_said(question: str) -> bool:
    return bool(_ASKS_WHAT_I_SAID.match(question))


def what_i_said(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...] = ()) -> str | None:
    """The answer, or None when nothing the person said matches (the caller says so its own way)."""
    wanted = topic_words(question) - _PERIOD_WORDS
    if not wanted:
        return None
    clock = runtime.clock
    today = clock.local(clock.now()).date()
    ranges = []
    for period in named_periods(question, today):
        for year in [period.year] if period.year else range(today.year - 5, today.year + 1):
            start, end = (moment.replace(tzinfo=clock.zone) for moment in period.start_and_end(year))
            ranges.append((to_utc_iso(start), to_utc_iso(end)))
    # Looked up by what it is about: the period is applied here, so that a year of history in it does
    # not crowd out the one turn that says the words.
    words = [w for w in search_words(question) if w not in _PERIOD_WORDS]
    hits = runtime.searcher.search(" ".join(words) or question, limit=60, types=("message",), touch=False)
    said = episodes.messages_by_id(runtime.store, [h.id for h in hits])
    found = []
    for rank, hit in enumerate(hits):
        message = said.get(hit.id)
        if message is None or message.role != "user" or hit.id in exclude_message_ids or \
                asks_what_i_said(message.content):  # an earlier "what did I ask ...?" is not what was asked
            continue
        relevance = len(wanted & topic_words(message.content)) / len(wanted)
        if relevance < 0.5:
            continue
        inside = any(lo <= message.created_at < hi for lo, hi in ranges)
        found.append((not inside if ranges else False, -relevance, rank, message))
    if not found:
        return None
    found.sort(key=lambda item: item[:3])
    lines = []
    for index, (outside, _, _, message) in enumerate(found[:3]):
        if index and ranges and outside and not found[0][0]:
            break  # what was said in the period named is the answer; other times only when none was
        title = ""
        if message.episode_id is not None:
            episode = episodes.get_episode(runtime.store, message.episode_id)
            title = f', in "{" ".join((episode.title or "Untitled").split())}"'
        when = clock.local(message.created_at)
        day = f"{when:%a %b} {when.day}" + (f" {when.year}" if when.year != today.year else "")
        lead = "You asked" if message.content.rstrip().endswith("?") else "You said"
        text = " ".join(message.content.split())
        lines.append(f"{lead if not index else 'Also'} ({day}{title}): {text}")
    return "\n".join(lines)
