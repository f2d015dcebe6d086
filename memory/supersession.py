"""Facts restated with a new value, linked when written (SPEC F6 supersession, F7 offline answers).

"the door code for the building is 5829", later "the building door code changed to 7731": the newer
memory gives the same subject a new value, so it supersedes the older one. Without a model this is
read from the sentence: a subject, a value, and a word that says the value changed ("changed to",
"moved to", "is now", "new ... is", "actually"). The link is the record the consolidation judge
writes (a `supersedes` edge and memory_meta.superseded_by), so the judge may confirm it or add links
later. Conservative on purpose: without a change word the subjects must be the same (two meaningful
words at least) and the values alike in form ("at 3" never replaces "in room 4"), and when two older
facts could be meant, neither is linked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memory.edges import mark_superseded
from memory.store import Store
from memory.words import STOPWORDS, stems

_NOT_SUBJECT = STOPWORDS | frozenset("new now actually current currently today anymore longer".split())
_LEAD = re.compile(r"^\W*(?:(?:actually|correction|update|fyi|now|from now on|as of (?:today|now))\b[\s,:;-]*)+",
                   re.I)
_MARKED = [
    # "the building door code changed to 7731", "Sara has moved to Lisbon", "X was changed from W to V"
    re.compile(r"^(?P<subject>.+?)\s+(?:(?:has|have|was|were|is|are|got)\s+)?(?:been\s+)?"
               r"(?:changed|changes|switched|moved|moves|updated)\s+(?:from\s+.+?\s+)?to\s+(?P<value>.+)$",
               re.I | re.S),
    # "the door code is now 7731"
    re.compile(r"^(?P<subject>.+?)\s+(?:is|are)\s+now\s+(?P<value>.+)$", re.I | re.S),
    # "the door code now is 7731"
    re.compile(r"^(?P<subject>.+?)\s+now\s+(?:is|are)\s+(?P<value>.+)$", re.I | re.S),
    # "the new door code is 7731", "my new dentist is Dr Ruiz"
    re.compile(r"^(?:(?:the|my|our|your)\s+)?new\s+(?P<subject>.+?)\s+(?:is|are)\s+(?P<value>.+)$", re.I | re.S),
]
_PLAIN = re.compile(r"^(?P<subject>.+?)\s+(?:is|are|=)\s+(?P<value>.+)$", re.I | re.S)
_TRAILING = re.compile(r"[\s,]+(now|instead|from now on|these days|anymore)\W*$", re.I)
_PREPOSITIONS = frozenset("at in on from by for with to near under inside behind".split())
REASON = "restated with a new value when written"
WEIGHT = 0.9  # below the judge's "high" (1.0): a reading of the words, not a judgment


@dataclass(frozen=True)
class Statement:
    subject: frozenset[str]  # stems of the subject's meaningful words
    value: str  # the value as written ("7731", "Lisbon")
    marked: bool  # a word says the value changed

    @property
    def shape(self) -> str:
        """The preposition opening the value ("at 3", "in room 4"), else "": only alike values replace each other."""
        first = self.value.split()[0].lower() if self.value.split() else ""
        return first if first in _PREPOSITIONS else ""

    def same_value(self, other: Statement) -> bool:
        return _plain_value(self.value) == _plain_value(other.value)


def _plain_value(value: str) -> str:
    return " ".join(re.findall(r"\w+", value.lower()))


def read_statement(text: str) -> Statement | None:
    """Subject and value of a fact written as "X is V", "X changed to V", "the new X is V"; None for
    anything else (a question, a task, a sentence with no copula)."""
    text = " ".join(text.split()).strip()
    if not text or text.endswith("?") or len(text) > 300:
        return None
    body = _LEAD.sub("", text)
    marked = body != text
    trimmed = _TRAILING.sub("", body)
    marked = marked or trimmed != body
    body = trimmed.rstrip(" .!;")
    for pattern in _MARKED:
        match = pattern.match(body)
        if match:
            return _statement(match, True)
    match = _PLAIN.match(body)
    return _statement(match, marked) if match else None


def _statement(match: re.Match[str], marked: bool) -> Statement | None:
    subject = frozenset(stems(match.group("subject"), _NOT_SUBJECT))
    value = match.group("value").strip(" ,.;:")
    if not subject or not value or len(subject) > 6:
        return None
    return Statement(subject, value, marked)


def restates(newer: Statement, older: Statement) -> bool:
    """`newer` gives `older`'s subject a new value."""
    if newer.same_value(older):
        return False
    if newer.subject == older.subject:
        if newer.marked:
            return True
        return len(newer.subject) >= 2 and newer.shape == older.shape
    if not newer.marked:
        return False
    small, big = sorted((newer.subject, older.subject), key=len)
    return len(small) >= 2 and small <= big


def link_restated(store: Store, memory_id: int, content: str) -> int | None:
    """Link the memory just written as superseding the one fact it restates with a new value; returns
    the older memory's id, or None. Called inside the writer's transaction."""
    newer = read_statement(content)
    if newer is None:
        return None
    words = [w for w in re.findall(r"\w+", content.lower()) if stems(w, _NOT_SUBJECT) & newer.subject]
    if not words:
        return None
    match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
    rows = store.query(
        "SELECT k.id, k.content FROM search_index s JOIN knowledge k ON k.id = s.rowid / 4 "
        "JOIN memory_meta m ON m.memory_id = k.id WHERE search_index MATCH ? AND s.rowid % 4 = 1 AND k.id != ? "
        "AND k.due_at IS NULL AND k.kind NOT IN ('reminder', 'mood') AND m.superseded_by IS NULL "
        "ORDER BY k.id DESC LIMIT 200", (f"content:({match})", memory_id))
    found = []
    for row in rows:
        older = read_statement(row["content"])
        if older is not None and restates(newer, older):
            found.append((row["id"], older))
    exact = [(i, s) for i, s in found if s.subject == newer.subject]
    if len({s.subject for _, s in found}) > 1:
        found = exact  # two different facts could be meant: only the one with the very same subject
    if not found:
        return None
    older_id = found[0][0]  # the newest of them; older ones with that subject were linked before
    mark_superseded(store, memory_id, older_id, WEIGHT, REASON)
    return older_id


def superseded_by(store: Store, memory_ids: list[int]) -> dict[int, int]:
    """{memory id: the id of the memory that superseded it} for those of `memory_ids` that are superseded."""
    if not memory_ids:
        return {}
    rows = store.query(f"SELECT memory_id, superseded_by FROM memory_meta WHERE superseded_by IS NOT NULL "
                       f"AND memory_id IN ({','.join('?' * len(memory_ids))})", tuple(memory_ids))
    return {r[0]: r[1] for r in rows}


def current(store: Store, memory_id: int) -> int:
    """The newest memory in the chain of restatements that starts at `memory_id`."""
    seen = {memory_id}
    while True:
        row = store.one("SELECT superseded_by FROM memory_meta WHERE memory_id = ?", (memory_id,))
        if row is None or row[0] is None or row[0] in seen or len(seen) > 50:
            return memory_id
        memory_id = row[0]
        seen.add(memory_id)


def replaced(store: Store, memory_id: int) -> list[dict[str, Any]]:
    """The memories `memory_id` superseded (id, content, created_at), newest first."""
    rows = store.query("SELECT k.id, k.content, k.created_at, k.private FROM memory_meta m JOIN knowledge k "
                       "ON k.id = m.memory_id WHERE m.superseded_by = ? ORDER BY k.created_at DESC, k.id DESC",
                       (memory_id,))
    return [dict(zip(("id", "content", "created_at", "private"), r, strict=True)) for r in rows]


def value_of(text: str) -> str | None:
    """The value a fact gives its subject ("5829" of "the door code is 5829"), when it reads as one."""
    statement = read_statement(text)
    return statement.value if statement else None
