"""Whether a statement answers a question, judged by meaning (SPEC F14), without a model.

The hybrid search finds the candidates (memories, and what the person said in conversations, imported
ones included); each is then weighed by a score calibrated on the labelled rounds of questions asked in
other words than their memory (tests/data/questions_*.jsonl, fitted by benchmarks/fit_meaning.py): a
logistic model over what the bundled embedder and the words tell of the pair, its weights and thresholds
kept as data beside this module (meaning.json). At run time it is a dot product.

- `answers` (the score the fit chose for at most 2 % wrong answers in each round): the statement is the answer.
- `closest` (a lower score): not an answer, but near enough to be offered on its own line, after
  "I don't have that", as the closest there is.

What the score reads of a pair (`features`): the cosine of the question and the statement (the embedder's
meaning, MiniLM: English), how far that cosine stands above the other candidates', the share of the
question's words the statement holds, whether the statement defines the subject the question asks about
(the reading's rule), whether it is a memory (kept on purpose) or something said in passing, and how well
each word of the question is met by the statement (`coverage`: the same word, or by meaning, the cosine of
the word with the whole statement, "boss" with "my line manager is Oliver Grant"), the least met word and
the average: a statement about the same person that does not give what is asked ("Lily's mum" of "Nora's
best friend is Lily") leaves the asked word unmet. Three more read the words (`Asked`, `fits`): a word of the
question met only by another name for it (memory/subjects.toml's synonyms and concepts: "who's my GP?" of
"my doctor is Dr Okafor", where MiniLM puts the two no nearer than "who is my dentist?"); the head of the
subject asked about ("the dentist's phone number") met by no word or other name in the statement; and a
kind of value asked (a time, an amount, a number, a name: vocabulary/*.toml) of which the statement gives
none ("when is the choir's next concert?" of "I sing alto in the Redland choir").
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from memory.subjects import fold, other_names
from memory.time import names
from memory.time.references import asks_when, mentions_time
from memory.vocabulary import table
from memory.words import is_ordinary, stem

CALIBRATION = Path(__file__).with_name("meaning.json")
VOCABULARY = Path(__file__).with_name("vocabulary")
LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl")
FEATURES = ("cosine", "lead", "overlap", "defining", "memory", "least_met", "met", "other_name", "head_unmet",
            "kind_unmet")


@dataclass(frozen=True)
class Calibration:
    weights: tuple[float, ...]  # one per feature, in the order of FEATURES
    bias: float
    answers: float  # the score from which a statement is the answer
    closest: float  # the score from which a statement is offered as the closest there is

    def answering(self, score: float, sure: bool, kind_given: bool = True, of_the_time: bool = True) -> bool:
        """Whether a statement so scored is the answer: from `answers` when it gives a value of the kind asked
        (`kind_given`: "who is my accountant?" is not answered by the reminder "call the accountant"), or from
        `closest` when the reading is sure of it (`sure`); never when it says what no longer holds of a question
        asked in the present (`of_the_time`: `over`)."""
        return of_the_time and ((score >= self.answers and kind_given) or (sure and score >= self.closest))

    def score(self, values: Sequence[float]) -> float:
        """The probability, as fitted, that a statement with these feature values answers the question."""
        z = self.bias + sum(w * v for w, v in zip(self.weights, values, strict=True))
        return 1.0 / (1.0 + math.exp(-z))


@cache
def calibration() -> Calibration:
    """The fitted model, read once (meaning.json, written by benchmarks/fit_meaning.py)."""
    data = json.loads(CALIBRATION.read_text(encoding="utf-8"))
    weights = data["weights"]
    return Calibration(tuple(float(weights[name]) for name in FEATURES), float(data["bias"]),
                       float(data["answers"]), float(data["closest"]))


def sure(values: Sequence[float]) -> bool:
    """Whether the reading is sure a statement is what was asked (`values` in the order of FEATURES): it
    defines the subject asked (by its name or another name for it, the same owner, every qualifier asked),
    the head of that subject is met, and a value of the kind asked is given."""
    return bool(values[FEATURES.index("defining")]) and values[FEATURES.index("head_unmet")] == 0.0 and \
        values[FEATURES.index("kind_unmet")] == 0.0


def over(question: str, statement: str) -> bool:
    """Whether `statement` says what no longer holds ("I used to live in Leeds", "my old dentist was ...") and
    `question` asks of the present (no word of the past in it: "where do I live?"): then it is no answer,
    at most the closest (vocabulary/*.toml: says_over, asks_past)."""
    said, asked = _tenses()
    return bool(said and said.search(fold(statement)) and not (asked and asked.search(fold(question))))


def kind_given(values: Sequence[float]) -> bool:
    """Whether a statement gives a value of the kind asked, if a kind is asked (`values` in the order of
    FEATURES)."""
    return values[FEATURES.index("kind_unmet")] == 0.0


def features(cosine: float, best_other: float, overlap: float, defining: bool, memory: bool,
             met: Sequence[float], fit: Sequence[float] = (0.0, 0.0, 0.0)) -> tuple[float, ...]:
    """A statement's values, in the order of FEATURES: `best_other` is the highest cosine of the other
    candidates, or the floor an ordinary memory sets (OrdinaryMemories), whichever is higher; `met`, how well
    each word of the question is met (coverage); `fit`, what the words tell (`fits`)."""
    least, mean = (min(met), sum(met) / len(met)) if met else (0.0, 0.0)
    return (cosine, cosine - best_other, overlap, float(defining), float(memory), least, mean, *fit)


# -- what the words tell of a pair ----------------------------------------------------------------------

@dataclass(frozen=True)
class Asked:
    """What a question asks, as its words tell, read once for all its candidates."""
    kinds: frozenset[str]  # the kinds of value it asks for: when, amount, number, name
    words: tuple[tuple[frozenset[str], frozenset[str]], ...]  # each word's stems and other names
    head: tuple[frozenset[str], frozenset[str]] | None  # the stems and other names of the subject asked about
    names: frozenset[str] = frozenset()  # the other names the whole question says ("eat out": a restaurant)
    named: frozenset[str] = frozenset()  # the names it says itself, folded ("tomas" of "who is Tomás marrying?")


def _phrases(words: list[str]) -> re.Pattern[str] | None:
    alternatives = sorted({re.escape(fold(w)) for w in words}, key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(alternatives)})(?!\w)") if alternatives else None


@cache
def _vocabulary() -> dict[str, re.Pattern[str] | None]:
    """vocabulary/*.toml, compiled once: the words of each kind of question, and the words that say when."""
    out = {kind: _phrases(table(VOCABULARY, f"asks_{kind}", LANGUAGES)) for kind in ("when", "hour", "amount",
                                                                                     "number", "name")}
    out["says_hour"] = _phrases(table(VOCABULARY, "says_hour"))
    calendar = [*names.MONTHS, *names.WEEKDAYS, *names.MONTH_SPELLINGS, *names.WEEKDAY_SPELLINGS,
                *names.MONTH_SHORT, *names.WEEKDAY_SHORT]
    out["says_when"] = _phrases(table(VOCABULARY, "says_when") + calendar + [f"{w}s" for w in names.WEEKDAYS])
    return out


@cache
def _tenses() -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """vocabulary/*.toml, compiled once: the words that say what no longer holds, and those of a question
    asked of the past."""
    return _phrases(table(VOCABULARY, "says_over", LANGUAGES)), _phrases(table(VOCABULARY, "asks_past", LANGUAGES))


_HOUR = re.compile(r"\b\d{1,2}(?:[:.h]\d\d|\s?(?:am|pm|a\.m\.|p\.m\.|o'clock|h|uhr))(?!\w)", re.I)  # "at 5:30", "7pm"
_CLOCK = re.compile(r"\b\d{1,2}(?:[:.]\d\d|\s?(?:am|pm|o'clock|h))(?!\w)|\b(?:19|20)\d\d\b|\b\d{1,2}(?:st|nd|rd|th)\b|"
                    r"\b\d{1,2}[/-]\d{1,2}\b", re.I)
_MONEY = re.compile(r"[£$€¥]|\b\d+(?:[.,]\d+)?\s?(?:pounds?|euros?|dollars?|quid|p|k|pence|cents?)\b|"
                    r"\b(?!(?:19|20)\d\d\b)\d+(?:[.,]\d+)?\b", re.I)
_CAPITALISED = re.compile(r"(?<![\w'])[A-ZÀ-Ý][\w'’-]*")


@cache
def name_words() -> frozenset[str]:
    """The words for a name (vocabulary/*.toml `name_of`, folded): "the landlord's name" is asked of the landlord."""
    return frozenset(fold(w) for w in table(VOCABULARY, "name_of", LANGUAGES))


def kinds_asked(question: str) -> frozenset[str]:
    """The kinds of value a question asks for: "when", "hour" (what time of the day), "amount", "number", "name"
    (none for most)."""
    folded = fold(question)
    found = {kind for kind, pattern in _vocabulary().items() if not kind.startswith("says_") and pattern is not None
             and pattern.search(folded)}
    if asks_when(question):
        found.add("when")
    return frozenset(found)


def kinds_given(text: str, asked_of: frozenset[str] = frozenset()) -> frozenset[str]:
    """The kinds of value a statement gives: a time or a day, an amount, a number, a name (a capitalised
    word other than "I", other than an ordinary word opening the sentence, and other than the names the
    question itself says, `asked_of`, folded: "who is Tomás marrying?" is not answered by "Tomás")."""
    found = set()
    pattern = _vocabulary()["says_when"]
    if _CLOCK.search(text) or mentions_time(text) or (pattern is not None and pattern.search(fold(text))):
        found.add("when")
    hour = _vocabulary()["says_hour"]
    if _HOUR.search(text) or (hour is not None and hour.search(fold(text))):
        found.add("hour")
    if any(c.isdigit() for c in text):
        found.add("number")
    if _MONEY.search(text):
        found.add("amount")
    for match in _CAPITALISED.finditer(text):
        word = match.group(0)
        opening = not text[:match.start()].strip(" \"'“‘([-*•")
        if word != "I" and not (opening and is_ordinary(word.lower())) and not (pattern and pattern.fullmatch(
                fold(word))) and fold(word).removesuffix("'s") not in asked_of:  # "Tuesdays", "May": a time
            found.add("name")
            break
    return frozenset(found)


def asked(words: Sequence[tuple[str, frozenset[str]]], question: str, head: str | None) -> Asked:
    """What `question` asks: its words (as evidence's reading gives them: each with its stems) and the head
    of the subject the reading found it asks about (its focus), if any."""
    met = tuple((stems, other_names(word)) for word, stems in words)
    subject = (frozenset({stem(head), head}), other_names(head)) if head else None
    named = frozenset(fold(m.group(0)).removesuffix("'s") for m in _CAPITALISED.finditer(question)
                      if m.start() > 0 and m.group(0) != "I")
    return Asked(kinds_asked(question), met, subject, other_names(question), named)


def fits(question: Asked, text: str, stems: frozenset[str]) -> tuple[float, float, float]:
    """(other_name, head_unmet, kind_unmet) of a statement (`stems`: of its words): a word of the question, or
    a way of saying a thing in several ("where should we eat out?" of "our favourite restaurant is Casa Lola"),
    met by another name for it only; the subject asked about met by no word or name of the statement; a kind
    of value asked of which it gives none."""
    said = other_names(text)
    other = any(not (st & stems) and named & said for st, named in question.words) or bool(
        question.names & said and not any(st & stems for st, _ in question.words))
    head = question.head
    unmet = head is not None and not (head[0] & stems or head[1] & said)
    kind = bool(question.kinds - kinds_given(text, question.named)) if question.kinds else False
    return float(other), float(unmet), float(kind)


ORDINARY = Path(__file__).with_name("ordinary_memories.txt")


# How far above the nearest ordinary memory (OrdinaryMemories) a candidate's `lead` is measured from: chosen
# by the rounds held out one at a time (benchmarks/fit_meaning.py), right answers at the same <= 2 % wrong: 0 ->
# 0.249, 0.05 -> 0.273, 0.10 -> 0.281, 0.15 -> 0.296, 0.20 -> 0.298 (wrong 1.3 %), 0.30 -> 0.286.
ABOVE_ORDINARY = 0.15


class OrdinaryMemories:
    """The floor of `lead`: how near what a person's memory ordinarily holds comes to a question (the nearest
    of ordinary_memories.txt's lines by the question's embedding), and ABOVE_ORDINARY. A candidate stands above
    the others found, and above this: a new store of one or two memories has no others, and its only memory is
    not the answer for being alone; in any store, a question that everything found is only loosely near is
    told so. The lines are embedded once per embedder."""

    def __init__(self) -> None:
        self._rows: dict[str, Any] = {}

    def floor(self, embedder: Any, query: Any) -> float:
        """The highest cosine of the unit vector `query` with the lines, and ABOVE_ORDINARY; 0 without an
        embedder."""
        import numpy as np

        if embedder is None:
            return 0.0
        name = getattr(embedder, "name", "")
        if name not in self._rows:
            lines = [line.strip() for line in ORDINARY.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#")]
            rows = np.asarray(embedder.embed(lines), dtype=np.float32)
            self._rows[name] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return float(np.max(self._rows[name] @ query)) + ABOVE_ORDINARY


ORDINARY_MEMORIES = OrdinaryMemories()


class WordVectors:
    """Single words embedded by the embedder, kept (a bounded number): the same words come back question
    after question, so a turn embeds only the few it has not met."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._vectors: dict[tuple[str, str], Any] = {}

    def of(self, embedder: Any, words: Sequence[str]) -> Any:
        """A matrix, one unit row per word."""
        import numpy as np

        name = getattr(embedder, "name", "")
        new = list(dict.fromkeys(w for w in words if (name, w) not in self._vectors))
        if new:
            if len(self._vectors) + len(new) > self.LIMIT:
                self._vectors.clear()
            for word, row in zip(new, embedder.embed(new), strict=True):
                self._vectors[(name, word)] = row / (np.linalg.norm(row) or 1.0)
        return np.array([self._vectors[(name, w)] for w in words])


WORDS = WordVectors()


def coverage(embedder: Any, asked: Sequence[tuple[str, frozenset[str]]],
             statements: Sequence[Sequence[tuple[str, frozenset[str]]]], vectors: Any) -> list[list[float]]:
    """For each statement, how well each asked word is met: 1 when the statement says it (a word of the
    same stem), else the cosine of the word's embedding with the statement's (`vectors`, one unit row per
    statement): what the statement is about, by meaning. Words come as (word, its stems); only the
    question's words are embedded (and kept for the next questions)."""
    if not asked:
        return [[] for _ in statements]
    rows = WORDS.of(embedder, [w for w, _ in asked]) if embedder is not None else None
    out = []
    for index, said in enumerate(statements):
        known = {s for _, st in said for s in st}
        sims = rows @ vectors[index] if rows is not None and len(vectors) else None
        out.append([1.0 if stems & known else (float(sims[i]) if sims is not None else 0.0)
                    for i, (_, stems) in enumerate(asked)])
    return out


# Where a message that asks something may also state something: between sentences, and at a comma or a
# dash before a question or a request ("we're staying at Casa do Mar in September, any ideas what to see?").
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*[,;:]\s+(?=(?:any|anything|can|could|would|will|what|how|why|where|when|"
                       r"which|who|should|shall|do|does|is|are|please|pls|help|tell|give|suggest|recommend|"
                       r"thoughts|ideas|advice|so)\b)|\s+[-–—]\s+", re.I)


def clauses(text: str) -> list[str]:
    """A message cut where a question or a request may begin (a few thousand characters at most)."""
    parts = [p.strip(" ,;:-–—") for p in _SENTENCE.split(text[:4000])]
    return [p for p in parts if p]
