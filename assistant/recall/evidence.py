"""Answers from memory without a model (SPEC F7 offline mode, F5 reasoned recall without a model).

A question is answered from the statements that best match it: memories first, then what the user
said, never a question (least of all the question being asked) and never small talk. Of what the user
said, only statements count: a message that asked something of the assistant ("forget the sister's
birthday", "tell me a joke", "remind me ...") is no evidence of a fact, as the reading of that message
found when its turn ran. Each piece of
evidence carries its date, and relative words in it carry the date they meant ("Sara moved to
Lisbon last month [October 2026]").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from assistant.reading import read
from assistant.reading.questions import Focus
from assistant.recall import meaning
from assistant.runtime import Runtime
from memory import episodes, memories, supersession, turn_records
from memory.search import STOPWORDS, Hit
from memory.subjects import alternatives, another_one, canonical_person, canonical_word, fold, place_named
from memory.supersession import CONCEPTS, USER, Subject, read_statement
from memory.time.references import with_dates
from memory.words import normalised, stems

# Words that say how a question is asked, not what it is about.
_QUESTION_WORDS = frozenset("""what whats when where who whom whose which why how is are was were do does did can
could should would will have has had tell remind know remember again please any idea forgot forget told say said
ever much many long ago date day time year month week now currently these days still exactly actually hey hi
hello""".split()) | STOPWORDS
_QUESTION = re.compile(r"\?\s*$|^\W*(what|what's|whats|when|where|who|whom|whose|which|why|how|is|are|was|were|do|"
                       r"does|did|can|could|should|would|will|have|has|had)\b", re.I)
_SMALL_TALK = re.compile(r"^\W*(hi|hello|hey|thanks|thank you|ok|okay|cool|great|nice|wow|haha|lol|yes|no|yeah|"
                         r"sure|bye)\b[\w\s!.,']{0,25}$", re.I)
TYPE_RANK = {"memory": 0, "summary": 1, "message": 2, "episode": 3}
NOTHING = "I don't have anything in memory about that."  # the one answer when nothing in memory answers
MIN_RELEVANCE = 0.5  # share of the question's content words a statement must contain


# Words for one kind of thing, asked about in one and said in another ("when do I meet Karolina?" /
# "prepare notes for the 1:1 with Karolina"): each group counts as its first word.
_CONCEPTS = [frozenset({"meet", "1on1", "appointment", "sync", "standup"}),
             # spellings of one word
             frozenset({"licence", "license"}), frozenset({"colour", "color"}), frozenset({"favourite", "favorite"}),
             frozenset({"neighbour", "neighbor"}), frozenset({"centre", "center"}), frozenset({"theatre", "theater"}),
             frozenset({"mum", "mom", "mother"}), frozenset({"surname", "lastname"}),
             frozenset({"plate", "registration", "numberplate"}), frozenset({"flight", "fly", "flying"}),
             frozenset({"trip", "travel", "journey"}),
             # the things a fact is said of with a verb ("I drive a Corolla", "I live in Porto", "I work at Acme")
             frozenset({"car", "drive", "vehicle"}), frozenset({"live", "address", "move", "reside"}),
             frozenset({"work", "job", "employer", "company"})]


def _norm(word: str) -> str:
    """A stem with a final "e" off, so that "service" and "serviced", "live" and "living" meet."""
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


_CONCEPT_OF = {_norm(word): sorted(group)[0] for group in _CONCEPTS for word in group}


def content_words(text: str) -> set[str]:
    """Lower-cased stems of the words that carry meaning ("birthdays" and "birthday" meet)."""
    return stems(text, _QUESTION_WORDS)


def topic_words(text: str) -> set[str]:
    """What a text is about, for matching an answer to a question: content_words with the spellings of
    one thing made one ("1:1", "one-on-one") and words for one kind of thing counted as one."""
    return {_CONCEPT_OF.get(_norm(w), _norm(w)) for w in stems(normalised(text), _QUESTION_WORDS)}


def search_words(text: str) -> list[str]:
    """Words to look a question up by in the keyword index: its own, and those its topic words stand
    for ("one-on-one" is looked up as "1", "meet" as "meeting" too)."""
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in _QUESTION_WORDS and len(w) > 1]
    for concept in topic_words(text):
        for group in _CONCEPTS:
            if concept in {_CONCEPT_OF[_norm(w)] for w in group}:
                words += ["1", "meeting", "appointment"] if "1on1" in group else sorted(group)
    if "1on1" in normalised(text).lower():
        words.append("1")
    return list(dict.fromkeys(words))


def _flat(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def is_question(text: str) -> bool:
    return bool(_QUESTION.search(text.strip()))


@dataclass
class Evidence:
    type: str  # memory | message | summary | episode
    id: int
    content: str  # as written
    created_at: str
    relevance: float  # share of the question's content words found in it
    role: str | None = None  # for messages: user | assistant
    time_refs: list[dict[str, str]] = field(default_factory=list)
    private: bool = False
    due_at: str | None = None  # a memory that is a reminder: its due instant
    superseded_by: int | None = None  # a memory restated since with a new value: the newer one's id
    defining: bool = False  # a statement of what the question asks about ("I drive a 2014 Corolla")
    # Weighed by meaning (assistant.recall.meaning): the calibrated score that it answers the question;
    # None when it was not weighed (no embedder: the words decided).
    score: float | None = None
    part: bool = False  # only part of its message: the statement in a message that also asks something
    # The reading is sure it is what was asked: a statement that defines the question's subject (by its name or
    # another name for it, the same owner, every qualifier asked), giving a value of the kind asked.
    sure: bool = False
    kind_given: bool = True  # it gives a value of the kind asked, if one is (a name for "who ...?")
    of_the_time: bool = True  # not what no longer holds, asked of the present (meaning.over)
    # Sure, and read as saying the very thing asked, however far MiniLM puts it: a statement of the concept asked
    # (where someone lives or works, what they drive) of the same owner ("I work as a structural engineer at Hollis
    # & Brandt" for "what do I do for a living?": cosine 0.27, blind round 18), or the name of the role of mine
    # asked beside it ("my husband Tom works as ..." for "what's my husband called?": a newcomer's)
    read_as_asked: bool = False

    @property
    def answers(self) -> bool:
        """Whether it is the answer, not only near it: weighed above the calibrated score, or near enough to
        be offered as the closest and sure by the reading ("who's my GP?" of "my doctor is Dr Okafor", which
        MiniLM puts no nearer than "who is my dentist?"), or, unweighed, kept by the words."""
        return self.score is None or self.read_as_asked and self.of_the_time or meaning.calibration().answering(
            self.score, self.sure, self.kind_given, self.of_the_time)

    @property
    def is_statement(self) -> bool:
        """Something the user told (a memory that is not a reminder), as opposed to a task or a message."""
        return self.type == "memory" and self.due_at is None

    def source(self) -> dict[str, Any]:
        return {"type": self.type, "id": self.id, "content": self.content, "created_at": self.created_at}

    def dated(self, this_year: int | None = None) -> str:
        """The text with each relative word followed by the date it meant."""
        return with_dates(self.content, self.time_refs, this_year)


def question_vector(runtime: Runtime, question: str) -> Any:
    """The question's embedding (for the search and for weighing its evidence by meaning); None without an
    embedder."""
    return runtime.searcher.embed_query(question)


def search_evidence(runtime: Runtime, question: str, limit: int = 10, mode: str = "standard",
                    vector: Any = None) -> list[Hit]:
    """The one hybrid search evidence for `question` is found in (find_evidence ranks its hits);
    `vector`: the question's embedding, when the caller has it."""
    # Words the question stands for but does not contain ("one-on-one" is written "1:1") are looked up too.
    asked = set(re.findall(r"\w+", question.lower()))
    extra = [w for w in search_words(question) if w not in asked]
    return runtime.searcher.search(" ".join([question, *extra]), limit=max(limit * 3, 30), mode=mode,
                                   types=("memory", "message", "summary"), touch=False, vector=vector)


def defines(focus: Focus | None, text: str) -> bool:
    """Whether `text` states what the question asks about: a fact about that subject ("I drive a 2014
    Corolla" for "what car do I drive?", "my gym is PureGym" for "which gym am I in?"), or about that
    person ("Priya Sharma is my new colleague" for "what's Priya's last name?"); not a passing mention
    ("the car wouldn't start this morning")."""
    return relation(focus, text) == "defines"


def relation(focus: Focus | None, text: str) -> str:
    """ "defines" (see defines), "conflicts" (a fact about another thing of the same kind: "the gate code
    is 5521" for "what's the alarm code?", "my work number is ..." for "what's the pharmacy's number?",
    "the cat's vet" for "who's the dog's vet?"), or "" (neither: a passing mention, or no focus)."""
    if focus is None:
        return ""
    if focus.place is not None and focus.place.lower() not in text.lower() and place_named(text) is not None:
        return "conflicts"  # "what flight am I on to Lisbon?" of "we're flying to Porto in March" (a newcomer's)
    wanted = _named(focus.subject) if focus.subject is not None else None
    if wanted is not None and wanted.owner == USER and wanted.head and not wanted.modifiers and \
            _role_named(wanted.head, text):
        return "defines"  # "what's my brother's name?" of "my brother Sam is a plumber in Hull" (a newcomer's)
    statement = read_statement(_SAID_TO_KEEP.sub("", text))
    pieces = _PIECES.split(text) if statement is None else []
    if len(pieces) > 1:  # "I switched GPs, my doctor is now Dr Amadi": a piece of it may define the subject
        return "defines" if any(relation(focus, piece) == "defines" for piece in pieces) else ""
    if statement is None:
        # "Priya joined in May", for "who is Priya?" (not for "what's Tom's phone number?")
        named = focus.entity is not None and focus.subject is None and \
            re.match(rf"^\W*{re.escape(focus.entity)}\w*\b", text, re.I)
        return "defines" if named else ""
    said = _named(statement.subject)
    wanted = _named(focus.subject) if focus.subject is not None else None
    if wanted is not None and wanted.head is not None and said.head is not None and \
            canonical_word(said.head) == canonical_word(wanted.head):  # the same, or another name: GP and doctor
        if said.owner and wanted.owner and not _one_owner(wanted.owner, said.owner, text):
            return "conflicts"  # mine and my brother's; the cat's and the dog's
        marks, asked = _marks(said), _marks(wanted)
        if said.owner and wanted.owner and said.owner != wanted.owner:  # one owner under two names: no mark
            marks -= _marks(Subject(said.owner, None))
            asked -= _marks(Subject(wanted.owner, None))
        if marks and asked and not marks & asked:
            return "conflicts"  # the gate code and the alarm code
        said_kind, asked_kind = _marks(Subject(None, said.head, said.modifiers)), \
            _marks(Subject(None, wanted.head, wanted.modifiers))
        if said_kind and asked_kind and not said_kind & asked_kind:
            return "conflicts"  # Maya's piano teacher and Maya's class teacher (blind round 18): one owner, two kinds
        if any(alternatives(a, m) for a in asked - marks for m in marks - asked):
            return "conflicts"  # the back door code and the front door code
        if any(another_one(mark) for mark in asked - marks):
            return "conflicts"  # "my previous manager" of "my manager is Priya": the current one
        if asked - marks:
            return ""  # "the summer tyres" of "the tyres are in the loft": maybe, not sure
        if marks - asked and said.head != wanted.head:
            return "conflicts"  # "what's my PIN?" of "the gate code is ...": a code of its own, not the one asked
        return "defines"
    kinds = [_numbered_heads().get(canonical_word(h)) if h else None for h in (said.head, wanted.head)] \
        if wanted is not None else [None]
    if None not in kinds and (kinds[0] != kinds[1] or kinds[0] == "number"):
        # "what's my card number?" of "my bank card PIN is 2580": another of the card's numbers ("the wifi code"
        # and "the wifi password" may be one key)
        return "conflicts"
    entity = focus.entity
    if entity and said.person and said.head == entity:
        return "defines"  # "Priya Sharma is my new colleague": about Priya herself, whatever is asked of her
    if entity and wanted is None and said.owner == entity:
        return "defines"  # "tell me about Tom": "Tom's birthday is on March 3"
    return ""


@cache
def _numbered_heads() -> dict[str, str]:
    """Heads that name one of a thing's numbers or its key: a number and a key are two things ("number" and "PIN"),
    and so are two numbers ("the account number" and "the card number" are read by their heads alike)."""
    return {**{canonical_word(w): "number" for w in ("number", "id", "account", "login")},
            **{canonical_word(w): "key" for w in ("code", "password")}}


def _named(subject: Subject) -> Subject:
    """A role's name is the role: "the landlord's name" (asked or said) is about the landlord, as "our landlord
    is Mr Brennan" is; "Priya's last name" and "the wifi name" stay what they are."""
    if subject.head is None or subject.modifiers or subject.person or \
            subject.owner in (None, USER) or fold(subject.head) not in meaning.name_words():
        return subject
    return Subject(USER, subject.owner)


_MY_ROLE_NAMED = re.compile(r"(?<![\w'’])(?:[Mm]y|[Oo]ur)\s+([a-z][\w-]*)\s+(?:is\s+(?:called\s+)?)?[A-Z][\w'’-]+")


def _role_named(role: str, text: str) -> bool:
    """Whether `text` names who holds a role of mine beside it: "my brother Sam ...", "our neighbour is called
    Irena"."""
    if not re.fullmatch(r"[a-z][\w-]*", role):
        return False  # "Rosemary's husband" is no role of mine
    wanted = canonical_person(role)
    return any(canonical_person(m.group(1)) == wanted for m in _MY_ROLE_NAMED.finditer(text))


def _one_owner(asked: str, said: str, text: str) -> bool:
    """Whether the owner asked about is the statement's: the same, another name for them ("mother" and "mum"),
    or named beside them ("my sister's birthday" of "my sister Priya's birthday is ...")."""
    if asked == said or canonical_person(asked) == canonical_person(said):
        return True
    if said == USER:
        return False  # "I work as a ward sister at ..." is mine, whatever word it says (a newcomer's)
    return asked != USER and canonical_person(asked) in {canonical_person(w) for w in re.findall(r"[\w'’]+", text)}


def _marks(subject: Subject) -> set[str]:
    """What tells a subject from others of its kind: its modifiers and an owner other than the user ("the
    vet for the cat" and "the cat's vet" are one)."""
    marks = set(subject.modifiers) | ({subject.owner} if subject.owner not in (None, USER) else set())
    # "licence" and "license" are one, and so are other names for one thing ("electric" and "electricity")
    return {canonical_word(_CONCEPT_OF.get(_norm(mark), _norm(mark))) for mark in marks}


_PIECES = re.compile(r"\s*[,;]\s+|\s+[-–—]\s+")  # the clauses of a statement said in one breath
_SAID_TO_KEEP = re.compile(r"^\W*(?:remember|note|fyi|for the record)(?:\s+(?:that|this))?[\s:,-]+", re.I)


def find_evidence(runtime: Runtime, question: str, limit: int = 10, mode: str = "standard",
                  exclude_message_ids: tuple[int, ...] = (), strict: bool = True,
                  hits: list[Hit] | None = None, focus: Focus | None = None, vector: Any = None,
                  near: bool = False) -> list[Evidence]:
    """Statements that answer `question`, best first, from `hits` (search_evidence's, searched here when
    not given: a caller that ranks them twice searches once).

    strict (an answer shown as is): with the question's embedding (`vector`), the statements weighed by
    meaning above the calibrated score (assistant.recall.meaning), memories before what was said in
    conversation, and, `near`, those only near enough to be offered as the closest too (each carries its
    score: Evidence.answers tells them apart). Without one (no embedder), only statements holding most of
    the question's words (or a memory that defines the question's `focus`, whatever it shares), by
    relevance, memories before messages. A statement about another thing of the kind asked about is never
    kept. Not strict (evidence for reasoning): every statement the search ranked, in its order, since in
    conversation the answer often shares no word with the question and is found through the turn
    before it.
    """
    wanted = topic_words(question)
    if not wanted:
        return []
    if hits is None:
        hits = search_evidence(runtime, question, limit, mode, vector=vector)
    weighing = strict and vector is not None
    messages = episodes.messages_by_id(runtime.store, [h.id for h in hits if h.type == "message"])
    said = [m for m in messages.values() if m.role == "user" and m.id not in exclude_message_ids]
    stated = said_as_statements(runtime, said)
    # A message that asks something may state something too ("we're staying at Casa do Mar in September,
    # any ideas what to see?"): weighed by meaning, that statement counts, as its own text.
    parts = statements_within(runtime, [m for m in said if m.id not in stated]) if weighing else {}
    by_id = {m.id: m for m in memories.memories_by_id(runtime.store, [h.id for h in hits if h.type == "memory"])}
    found: list[tuple[tuple[float, ...], Evidence]] = []  # (sort key, evidence)
    kept: list[str] = []
    told: set[int] = set()  # the messages the kept memories were made from
    # Memories first, so a memory is kept over the message that asked for it (the rank stays).
    ordered = sorted(enumerate(hits), key=lambda item: item[1].type != "memory")
    for rank, hit in ordered:
        role, refs, private, due, content, part = None, [], False, None, hit.content, False
        if hit.type == "message":
            message = messages.get(hit.id)
            if message is None or hit.id in exclude_message_ids:
                continue
            if hit.id in told:
                continue  # the memory made from it speaks for it, as it reads now (an edit corrected it)
            role, refs = message.role, message.time_refs
            if role == "user" and hit.id not in stated:
                if hit.id not in parts:
                    continue  # a command, a question or a request to the assistant: no evidence of a fact
                content, part = parts[hit.id], True
            if role == "assistant" and strict:  # shown as an answer, its own words would repeat a memory
                continue
        elif hit.type == "memory" and hit.id in by_id:
            memory = by_id[hit.id]
            refs, private, due = memory.time_refs, memory.private, memory.due_at
        if is_question(content) or _SMALL_TALK.match(content):
            continue  # a question never answers itself
        relevance = len(wanted & topic_words(content)) / len(wanted)
        related = relation(focus, content) if not due and (hit.type == "memory" or role == "user") else ""
        defining = related == "defines"
        if related == "conflicts" and strict:
            continue  # another thing of the kind asked about
        if strict and not weighing and relevance < MIN_RELEVANCE and not defining:
            continue  # too little of the question in it
        flat = _flat(content)
        if any(flat in seen or seen in flat for seen in kept):
            continue  # "remember that X" said and X remembered: one piece of evidence, not two
        kept.append(flat)
        if hit.type == "memory" and hit.id in by_id:
            told.update(by_id[hit.id].message_ids)
        evidence = Evidence(hit.type, hit.id, content, hit.created_at, round(relevance, 3), role, refs, private,
                            due, defining=defining, part=part)
        # The assistant's own words rank below what the user said and remembered, whatever the search
        # made of them: they only ever repeat it.
        own = role == "assistant"
        found.append(((own, -relevance, TYPE_RANK[hit.type], rank) if strict else (own, rank), evidence))
    found.sort(key=lambda item: item[0])
    if not weighing:
        return newest_first(runtime, [evidence for _, evidence in found])[:limit]
    weighed = weigh(runtime, question, vector, [evidence for _, evidence in found], focus)
    floor = meaning.calibration().closest if near else meaning.calibration().answers
    return newest_first(runtime, [e for e in weighed if e.score is not None and (e.score >= floor or e.read_as_asked)]
                        )[:limit]


WEIGHED = 12  # candidates weighed by meaning: the search's best (each costs a cosine, a part an embedding)


def weigh(runtime: Runtime, question: str, vector: Any, found: list[Evidence], focus: Focus | None = None
          ) -> list[Evidence]:
    """The candidates scored by meaning (assistant.recall.meaning), best first: a memory that answers
    before a statement said in conversation that answers (SPEC F14), then by score."""
    found = found[:WEIGHED]
    calibration = meaning.calibration()
    head = focus.subject.head if focus is not None and focus.subject is not None else None
    role = _named(focus.subject) if focus is not None and focus.subject is not None else None
    role_asked = role.head if role is not None and role.owner == USER and not role.modifiers else None
    for evidence, values in zip(found, feature_values(runtime, question, vector, found, focus), strict=True):
        evidence.score = round(calibration.score(values), 4)
        evidence.sure = meaning.sure(values)  # a memory, or a statement the user made
        evidence.kind_given = meaning.kind_given(values)
        evidence.of_the_time = not meaning.over(question, evidence.content)
        evidence.read_as_asked = evidence.sure and (
            head in CONCEPTS and _said_of(head, evidence.content)
            or role_asked is not None and _role_named(role_asked, evidence.content))
    # of those that answer, what the reading is sure of first: "what does Tom do?" of "my husband Tom works as an
    # electrician", not of the reminder "it's Tom's football night", however near MiniLM puts that one
    return sorted(found, key=lambda e: (not e.answers, not e.sure, e.type != "memory", -(e.score or 0.0)))


def feature_values(runtime: Runtime, question: str, vector: Any, found: list[Evidence], focus: Focus | None = None
                   ) -> list[tuple[float, ...]]:
    """What the calibrated score reads of each candidate (meaning.FEATURES), in order; `focus`: what the
    reading found the question asks about."""
    import numpy as np

    matrix = _vectors(runtime, found)
    query = np.asarray(vector, dtype=np.float32).ravel()
    query = query / (np.linalg.norm(query) or 1.0)
    cosines = [float(c) for c in matrix @ query] if len(found) else []
    embedder = runtime.searcher.embedder if runtime.searcher.semantic else None
    words = words_of(question)[:8]
    said = [words_of(e.content) for e in found]
    met = meaning.coverage(embedder, words, said, matrix)
    subject = _named(focus.subject) if focus is not None and focus.subject is not None else None
    head = subject.head if subject is not None else None
    asked = meaning.asked(words, question, head)
    ordinary = meaning.ORDINARY_MEMORIES.floor(embedder, query)
    fact = _facts(runtime, found)
    out = []
    for index, evidence in enumerate(found):
        # the others found: not this fact's other values (a memory and the one that replaced it are one fact)
        others = [ordinary, *(c for i, c in enumerate(cosines)
                              if i != index and (fact[i] is None or fact[i] != fact[index]))]
        stems = frozenset(s for _, st in said[index] for s in st)
        fit = meaning.fits(asked, evidence.content, stems)
        if evidence.defining and head in CONCEPTS and _said_of(head, evidence.content):
            # a subject said by how it is said ("I'm an engineer at Arup" is where I work): the reading that
            # found the statement of it met its head, whatever the words
            fit = (fit[0], 0.0, fit[2])
        out.append(meaning.features(cosines[index], max(others), evidence.relevance, evidence.defining,
                                    evidence.type == "memory", met[index], fit))
    return out


@lru_cache(maxsize=1024)
def _said_of(concept: str, text: str) -> bool:
    """Whether the reading finds `text` a statement of `concept` (where someone lives or works, what they
    drive), not only about the person asked of ("Callum is getting married" is no job of Callum's). Cached: a
    candidate's features and its verdict ask it both."""
    statement = read_statement(_SAID_TO_KEEP.sub("", text))
    return statement is not None and statement.subject.head == concept


def _facts(runtime: Runtime, found: list[Evidence]) -> list[int | None]:
    """For each candidate, the newest memory of its chain of restatements (None for what is not a memory):
    "my sister Anjali lives in Leeds" and "Anjali moved to Manchester", which replaced it, are one fact."""
    ids = [e.id for e in found if e.type == "memory"]
    links = supersession.superseded_by(runtime.store, ids)
    heads = {i: supersession.current(runtime.store, i) if i in links else i for i in ids}
    return [heads[e.id] if e.type == "memory" else None for e in found]


def words_of(text: str) -> list[tuple[str, frozenset[str]]]:
    """The words of a text that carry meaning, each with its stems (a few dozen at most)."""
    out: dict[str, frozenset[str]] = {}
    for word in re.findall(r"[^\W_][\w'’-]*", normalised(text[:500]).lower()):
        if word in ("i'm", "i’m"):
            word = "am"  # "I'm allergic to penicillin" says the "am" of "what am I allergic to?" (of me, no one else)
        word = re.sub(r"['’]s$", "", word)
        if len(word) > 1 and word not in _QUESTION_WORDS and word not in out:
            out[word] = frozenset(stems(word, _QUESTION_WORDS))
    return [(w, st) for w, st in list(out.items())[:40] if st]


def _vectors(runtime: Runtime, found: list[Evidence]) -> Any:
    """The candidates' unit vectors, one row each: the stored one, or (a part of a message, a text not
    embedded yet) its text embedded now, in one batch; a zero row when there is no embedder."""
    import numpy as np

    from memory import vectors
    from memory.docs import doc_id

    whole = [doc_id(e.type, e.id) for e in found if not e.part]
    stored: dict[int, Any] = {}
    if whole:
        ids, matrix = vectors.stored(runtime.store, whole)
        if matrix is not None:
            stored = {int(d): row for d, row in zip(ids, matrix, strict=True)}
    rows: list[Any] = [None if e.part else stored.get(doc_id(e.type, e.id)) for e in found]
    missing = [i for i, row in enumerate(rows) if row is None]
    embedder = runtime.searcher.embedder
    if missing and embedder is not None:
        for i, row in zip(missing, embedder.embed([found[i].content for i in missing]), strict=True):
            rows[i] = row
    dimension = next((len(r) for r in rows if r is not None), 1)
    out = np.array([r if r is not None else np.zeros(dimension) for r in rows], dtype=np.float32).reshape(
        len(found), dimension)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


def statements_within(runtime: Runtime, said: list[episodes.Message]) -> dict[int, str]:
    """The statement inside each message that also asks or requests something, by message id: its clauses
    that the reading finds state something ("we're staying at Casa do Mar in September" of "..., any
    ideas what to see?"); messages with none are left out."""
    out: dict[int, str] = {}
    for message in said:
        pieces = meaning.clauses(message.content)
        if len(pieces) < 2:
            continue
        statements = [p for p in pieces if not is_question(p) and read(p, runtime.clock).statement]
        if statements:
            out[message.id] = ". ".join(statements)
    return out


def said_as_statements(runtime: Runtime, said: list[episodes.Message]) -> set[int]:
    """The ids of the user's messages that state something, as the reading of each found when its turn ran
    (recorded with the answer); one with no turn of ours (imported, or older than the records) is read now,
    by the same reading."""
    recorded = turn_records.readings_of(runtime.store, [m.id for m in said])
    statements = set()
    for message in said:
        found = recorded.get(message.id)
        verdict = found.statement if found is not None else None
        if verdict is None:
            verdict = read(message.content, runtime.clock).statement
        if verdict:
            statements.add(message.id)
    return statements


def newest_first(runtime: Runtime, found: list[Evidence]) -> list[Evidence]:
    """Each fact restated since with a new value gives its place to the newest statement of it, and
    follows it as older (SPEC F7: the newest comes first, the older one only as older)."""
    store = runtime.store
    links = supersession.superseded_by(store, [e.id for e in found if e.type == "memory"])
    if not links:
        return found
    heads = {e.id: supersession.current(store, e.id) for e in found if e.type == "memory" and e.id in links}
    fetched = {m.id: m for m in memories.memories_by_id(store, sorted(set(heads.values())))}
    present = {e.id for e in found if e.type == "memory"}
    out: list[Evidence] = []
    placed: set[int] = set()
    for evidence in found:
        if evidence.type == "memory" and evidence.id in placed:
            continue
        head = heads.get(evidence.id) if evidence.type == "memory" else None
        if head is None or head not in fetched:
            out.append(evidence)
            if evidence.type == "memory":
                placed.add(evidence.id)
            continue
        if head not in placed:
            newer = next((e for e in found if e.type == "memory" and e.id == head), None) if head in present else None
            if newer is None:
                m = fetched[head]
                newer = Evidence("memory", m.id, m.content, m.created_at, evidence.relevance, None, m.time_refs,
                                 m.private, m.due_at, score=evidence.score)
            else:
                newer.relevance = max(newer.relevance, evidence.relevance)
                if evidence.score is not None:  # the newest value of what answers
                    newer.score = max(newer.score or 0.0, evidence.score)
            newer.defining = newer.defining or evidence.defining  # the newest value of what was asked
            out.append(newer)
            placed.add(head)
        evidence.superseded_by = links[evidence.id]
        out.append(evidence)
        placed.add(evidence.id)
    return out


def told_when(runtime: Runtime, evidence: Evidence) -> str:
    """"you told me Sun Nov 22" / "you said Sun Nov 22" / "from my notes of Sun Nov 22"."""
    day = runtime.clock.day(evidence.created_at)
    if evidence.type == "memory":
        return f"you told me {day}"
    if evidence.type == "summary":
        return f"from my notes of {day}"
    return f"I said {day}" if evidence.role == "assistant" else f"you said {day}"


