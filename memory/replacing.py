"""Which current memory a new statement replaces, when it is written (SPEC F6 supersession, F14 changes
by meaning), and what the replacement inherits.

A statement (a fact, a preference, a person; never a reminder, which changes only when asked) about the
subject of a current memory, with a new value, replaces it whatever the wording: "my new door code from
today is 3306" replaces "the building door code is 5829" as "the door code changed to 3306" does.

Two readings decide, the rules first:
1. memory.supersession reads a change as people say it, subject by head noun and owner (conservative,
   measured on tests/data/supersession.tsv);
2. by meaning: the statement with its values masked (memory.subjects) is embedded by the bundled MiniLM
   and compared with the current memories near it (found by their words, their stored vectors, and the
   newest not embedded yet), their values masked too. A memory replaces only when the statement says a
   change (a word such as "now", "new", "changed", "from now on", "switched"), is said as what holds now
   (not a plan, the past, an addition, a while, the same value again), gives a value the memory does not
   have, is at least THRESHOLD alike in meaning, is clearly the nearest of those that qualify (MARGIN),
   and the words are not sure it is about something else (memory.subjects.conflict: another owner,
   another qualifier, another head): "my brother's birthday" never replaces "my sister's", "the back door
   code" never the front door's, "my old manager was Tom" nothing.
3. where the hand readings of 2. doubt (a value of another kind, a conflict of heads, not read as what holds
   now, no value, no word of change they know), memory.change_score weighs those readings and the cosines
   (a logistic regression fitted leave-one-round-out on the labelled pairs): a memory its words are not sure
   is another subject replaces from the model's bar on, under the same MARGIN rule.
Both readings are held to the same words: the rules' choice is dropped too when the words are sure it is
another subject, or the statement is no change of what holds now. Without an embedder (embedding_model =
"none", or a model the threshold was not calibrated for) the rules alone decide.

The replacement inherits the marks of what it replaces: secret (sensitive), private, pinned. A wrong
replacement hides a true fact, worse than a missed one: THRESHOLD and MARGIN were chosen on labelled
changes and look-alikes (tests/data/supersession_meaning.tsv; figures in docs/memory.md).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock
from typing import TYPE_CHECKING

from memory import change_score, secrets, subjects, supersession, vectors
from memory.docs import DOC_SLOTS, DOC_TYPES
from memory.errors import EmbedderUnavailable
from memory.fts import content_match
from memory.search.hybrid import STOPWORDS
from memory.store import Store

if TYPE_CHECKING:
    import numpy as np

    from memory.search.embeddings import Embedder

CALIBRATED_FOR = "minilm-l6-v2-int8"  # the model THRESHOLD was measured with; another one: rules only
# The cosine (of the two masked statements) a statement needs to replace a memory, by what its words say:
NAMED = 0.1  # the readings are sure of one subject, or it names the memory's value as what it replaces
ANCHORED = 0.3  # it names the memory's subject by a word of its own (or another name for it)
THRESHOLD = 0.5  # neither
MARGIN = 0.05  # the nearest qualifying memory must be this much nearer than the next one, else neither
BY_WORDS, BY_VECTOR, NOT_EMBEDDED = 20, 10, 16  # candidates of each source
REASON = "a new value for the same subject, read by meaning when written"
_CURRENT = ("k.due_at IS NULL AND k.kind NOT IN ('reminder', 'mood') AND k.done_at IS NULL "
            "AND m.superseded_by IS NULL")


@dataclass(frozen=True)
class Replaced:
    """The memory a statement replaces, with the marks the statement inherits from it."""

    id: int
    private: bool
    sensitive: bool
    pinned: bool
    how: str  # "rules" or "meaning"
    cosine: float | None = None


class _Vectors:
    """Masked statements' vectors, kept while the process lives (a memory compared at each write is
    embedded once); bounded."""

    SIZE = 4096

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = Lock()

    def of(self, embedder: Embedder, texts: list[str]) -> list[np.ndarray]:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if (embedder.name, t) not in self._kept))
        if missing:
            made = embedder.embed(missing)
            with self._lock:
                for text, vector in zip(missing, made, strict=True):
                    self._kept[(embedder.name, text)] = vector
                while len(self._kept) > self.SIZE:
                    self._kept.popitem(last=False)
        with self._lock:
            found = []
            for text in texts:
                self._kept.move_to_end((embedder.name, text))
                found.append(self._kept[(embedder.name, text)])
            return found


_VECTORS = _Vectors()


def _marks(store: Store, memory_id: int, how: str, cosine: float | None = None) -> Replaced:
    row = store.one("SELECT private, sensitive, pinned FROM knowledge WHERE id = ?", (memory_id,))
    return Replaced(memory_id, bool(row[0]), bool(row[1]), bool(row[2]), how, cosine)


def replaced_memory(store: Store, content: str, embedder: Embedder | None) -> Replaced | None:
    """The current memory the statement `content` replaces (not yet written), or None."""
    newer = subjects.read(content)
    learned = embedder is not None and embedder.name == change_score.MODEL and change_score.usable()
    if not newer.current and not learned or change_score.SURE_MARKS & newer.marks:
        return None
    by_rules = supersession.restated_memory(store, content) if newer.current else None
    if by_rules is not None:
        row = store.one("SELECT content FROM knowledge WHERE id = ?", (by_rules,))
        older = subjects.read(row[0])
        negation = newer.statement is not None and bool(newer.statement.negated)  # "I no longer live in Braga"
        if older.current and (negation or subjects.new_value(newer, older) and subjects.values_alike(newer, older)) \
                and subjects.conflict(newer, older) is None:
            return _marks(store, by_rules, "rules")
    if not (newer.values and newer.current or learned) or embedder is None or embedder.name != CALIBRATED_FOR:
        return None
    anything = f"SELECT 1 FROM knowledge k JOIN memory_meta m ON m.memory_id = k.id WHERE {_CURRENT} LIMIT 1"
    if store.one(anything) is None:
        return None  # nothing it could replace: the embedder is not even loaded (a first `remember` stays light)
    try:
        return _by_meaning(store, newer, embedder)
    except EmbedderUnavailable:
        return None  # search says so, once; the rules have decided


def renews_a_secret(store: Store, text: str, embedder: Embedder | None) -> bool:
    """Whether `text`, in which the detector finds no secret, gives the subject of a secret memory a new value
    ("since Monday it's 7720 at the back" after "the back door code is 4411"): the memory it would replace if
    written is sensitive, so the value that replaces a secret is one (the gate masks it in the message that
    says it, before any memory is written). Asked only when the store holds a secret and the text something
    shaped like a value."""
    from memory.sensitive import is_sensitive, meaning

    if not text.strip() or is_sensitive(text) or next(meaning.candidates(text), None) is None \
            or not secrets.values(store):
        return False
    replaced = replaced_memory(store, text, embedder)
    return replaced is not None and replaced.sensitive


def _candidates(store: Store, newer: subjects.Said, vector: np.ndarray) -> list[tuple[int, str]]:
    """Current memories the statement may be about: by its words (and their other names), by its
    stored vector, and the newest ones without a vector yet."""
    words = {w for w in newer.words if w not in STOPWORDS and len(w) > 1 and "'" not in w}
    groups = subjects.vocabulary().synonyms
    wanted = {groups[w] for w in words if w in groups}
    words |= {w for w, group in groups.items() if group in wanted and " " not in w}
    found: dict[int, str] = {}
    match = content_match(sorted(words))
    if match is not None:
        for row in store.query(
                "SELECT k.id, k.content FROM search_index s JOIN knowledge k ON k.id = s.rowid / 4 "
                f"JOIN memory_meta m ON m.memory_id = k.id WHERE search_index MATCH ? AND s.rowid % 4 = 1 AND "
                f"{_CURRENT} ORDER BY bm25(search_index) LIMIT ?", (match, BY_WORDS)):
            found[row[0]] = row[1]
    near = [doc // DOC_SLOTS for doc, _ in vectors.knn(store, vector, BY_VECTOR, DOC_TYPES["memory"])]
    waiting = [r[0] // DOC_SLOTS for r in store.query(
        "SELECT doc_id FROM pending_embeddings WHERE doc_id % ? = ? ORDER BY doc_id DESC LIMIT ?",
        (DOC_SLOTS, DOC_TYPES["memory"], NOT_EMBEDDED))]
    more = [i for i in dict.fromkeys(near + waiting) if i not in found]
    if more:
        for row in store.query(f"SELECT k.id, k.content FROM knowledge k JOIN memory_meta m ON m.memory_id = k.id "
                               f"WHERE k.id IN ({','.join('?' * len(more))}) AND {_CURRENT}", tuple(more)):
            found[row[0]] = row[1]
    return list(found.items())


def _by_meaning(store: Store, newer: subjects.Said, embedder: Embedder) -> Replaced | None:
    import numpy as np

    own, masked = embedder.embed([newer.text, newer.masked])
    candidates = _candidates(store, newer, own)
    if not candidates:
        return None
    olders = [subjects.read(content) for _, content in candidates]
    masked_olders = np.stack(_VECTORS.of(embedder, [o.masked for o in olders]))
    cosines = masked_olders @ masked
    near: list[tuple[float, bool, int, subjects.Said]] = []  # (cosine, enough, id, reading): what it may be about
    doubted: list[tuple[int, subjects.Said, float, np.ndarray]] = []  # what the hand readings doubt
    for (memory_id, _), older, cosine, vector in zip(candidates, olders, cosines, masked_olders, strict=True):
        floor = _floor(newer, older, olders) if newer.current and newer.values else None
        if floor is not None and cosine >= floor:
            near.append((float(cosine), True, memory_id, older))
            continue
        if floor is not None and cosine >= min(floor, THRESHOLD) - MARGIN:
            near.append((float(cosine), False, memory_id, older))
        if change_score.usable() and embedder.name == change_score.MODEL and \
                not change_score.sure_veto(newer, older):
            doubted.append((memory_id, older, float(cosine), vector))
    if doubted:
        # Where the hand readings doubt, the learned reading weighs what they read (memory.change_score).
        plain = _VECTORS.of(embedder, [o.text for _, o, _, _ in doubted])
        for (memory_id, older, cosine, vector), as_written in zip(doubted, plain, strict=True):
            said = (cosine, float(as_written @ own), float(vector @ own), float(as_written @ masked))
            score = change_score.score(newer, older, said)
            if score is not None and score >= change_score.bar():
                near = [n for n in near if n[2] != memory_id]
                near.append((cosine, True, memory_id, older))
    near.sort(key=lambda n: n[0], reverse=True)
    enough = [n for n in near if n[1]]
    if not enough:
        return None
    best = enough[0]
    for other in near:
        if other is not best and (other[0] > best[0] - MARGIN or other[1] and subjects.same_head(other[3], best[3])):
            # Two memories could be meant ("the wifi password changed" with an office and a guest one): neither
            # is guessed, however much nearer one of them is.
            return None
    return _marks(store, best[2], "meaning", round(best[0], 3))


def _floor(newer: subjects.Said, older: subjects.Said, olders: list[subjects.Said]) -> float | None:
    """The cosine `newer` needs to replace `older`, by what the words say of the two; None: never."""
    if not older.current or not subjects.one_value(older, newer) or not subjects.one_value(newer, older) or \
            not subjects.new_value(newer, older) or \
            not subjects.values_alike(newer, older) or subjects.conflict(newer, older):
        return None
    if subjects.another_kind(newer, older):
        # "the code from before changed" is the storage unit code when that is the only code.
        same_head = [o for o in olders if subjects.same_head(o, older)]
        if not subjects.says_the(newer, older) or len(same_head) > 1:
            return None
    same = subjects.same_subject(newer, older)
    if not newer.changed:
        # Said without a word of change ("Leo's football is Wednesdays at 6 this season"): only of a subject
        # the readings are sure is the same, that holds one value at a time.
        alike = newer.statement is not None and older.statement is not None and \
            supersession.value_kind(newer.statement.value) == supersession.value_kind(older.statement.value)
        return ANCHORED if same and alike and subjects.same_words(newer, older) and not subjects.many_values(newer) \
            else None
    if not {"strong", "weak"} & newer.marks and subjects.head_unsaid(newer, older):
        return None  # a change said only by when it happened is of the head it says ("Weighed the suitcase today")
    if same or subjects.names_old_value(newer, older) or subjects.same_form(newer, older):
        return NAMED
    if subjects.anchored(newer, older):
        return ANCHORED
    return None if subjects.head_unsaid(newer, older) else THRESHOLD


def link(store: Store, newer_id: int, replaced: Replaced) -> None:
    """Record that `newer_id` replaces the memory `replaced` names (inside the writer's transaction)."""
    supersession.link(store, newer_id, replaced.id, supersession.REASON if replaced.how == "rules" else REASON)
