"""A learned reading of whether a new statement changes a current memory, for the pairs the words are not
sure of (SPEC F6, F14; memory.replacing asks it where its own floors say no).

The hand readings of memory.subjects veto a replacement at the first doubt: a value of another kind, a
conflict of heads, a statement not read as what holds now. Those doubts stop look-alikes, and also about a
third of the changes people write ("My GP is Dr Hughes" -> "Dr Hughes retired so I'm with Dr Amin"). Here
each of those readings is one feature among others (the cosines of the two statements masked and as
written, the word of change, the same head, the old value named...), weighed by a logistic regression
fitted by benchmarks/fit_changes.py (scikit-learn) on the labelled pairs of tests/data/supersession*.tsv,
leave-one-round-out, and kept in change_score.json beside this file: a weight per feature, a bias and the
bar a pair's score must reach, chosen so that each round held out keeps its look-alikes untouched >= 0.98.
At run time a score is one dot product.

Only the doubts are weighed. What the words are sure of still vetoes (`sure_veto`): another owner ("my
brother's birthday" is not my sister's), another one of a group of alternatives ("the back door code" is not
the front door's) or another one than the current one ("my old manager", "my ex"), a thing numbered
otherwise ("flat 1", "flat 2"), a plan, a question, a request, "still" the same, the same value again, an
older memory that is no longer current itself.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from memory import subjects, supersession

WEIGHTS = Path(__file__).with_name("change_score.json")
MODEL = "minilm-l6-v2-int8"  # the embedder the cosines were measured with

# The kinds of conflict memory.subjects.conflict names (the words before its " (...)"), each a feature.
CONFLICTS = ("a name and something else", "a name and one of another kind", "a new one of it, not a new value",
             "two different things said", "someone else", "about someone else",
             "the older one is about someone else", "another one", "one time of a habit", "another kind of it",
             "a part of it", "what it is a part of", "another thing")
NEWER_MARKS = ("strong", "weak", "dated", "only new", "past", "addition", "temporary", "same")
OLDER_MARKS = ("past", "addition", "temporary", "dated")
SURE_MARKS = frozenset({"plan", "question", "request", "unchanged"})
FEATURES = ("masked cosine", "cosine", "newer as written, older masked", "newer masked, older as written",
            "current", "values", "a new value", "values alike", "one value (newer)", "one value (older)",
            "said as a change", "same subject", "same head", "names the old value", "same form", "anchored",
            "head unsaid", "another kind", "says the", "same words", "many values", "negated", "one kind of value",
            "older values", "newer read", "older read", "no conflict", "old value first", "of the old value only",
            "value extends", "many values (older)",
            *(f"conflict: {c}" for c in CONFLICTS), *(f"mark: {m}" for m in NEWER_MARKS),
            *(f"older mark: {m}" for m in OLDER_MARKS))


@dataclass(frozen=True)
class Model:
    weights: Any  # numpy float64 vector, one weight per FEATURES (the features' scaling folded in)
    bias: float
    bar: float  # the score from which a pair is a change
    model: str


@cache
def _fitted() -> dict[str, Any] | None:
    """change_score.json, read once; None when it is not there or was fitted on other features."""
    if not WEIGHTS.exists():
        return None
    data: dict[str, Any] = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return data if list(data["features"]) == list(FEATURES) else None  # other features: not to be trusted


def usable() -> bool:
    """Whether there is a fitted model (read without numpy: a first `remember` stays light)."""
    return _fitted() is not None


@cache
def model() -> Model | None:
    """The fitted weights, read once; None when there are none (the hand readings alone decide)."""
    import numpy as np

    data = _fitted()
    if data is None:
        return None
    return Model(np.asarray(data["weights"], dtype=np.float64), float(data["bias"]), float(data["bar"]),
                 str(data["model"]))


def bar() -> float:
    """The score from which a pair is a change (never, without a model)."""
    fitted = model()
    return float("inf") if fitted is None else fitted.bar


def sure_veto(newer: subjects.Said, older: subjects.Said) -> bool:
    """Whether the words are sure `newer` changes nothing of `older` (see the module docstring)."""
    if not older.current or SURE_MARKS & newer.marks or "addition" in newer.marks and "strong" not in newer.marks:
        return True  # ("Mum is also allergic to shellfish", "I now like coffee too": an addition)
    if newer.values and not subjects.new_value(newer, older) and not subjects.names_old_value(newer, older):
        return True  # the same value again (not one named as gone: "sold the Volvo", "no more Harringtons")
    if subjects.says_who(older):
        return True  # "Bob is now a doctor", "Priya Sharma is my new colleague" of "Bob is my brother", "Priya is my
        # colleague": who someone is to me is not what a later word on them changes
    if subjects.name_still_said(newer, older):
        return True  # "Biscuit is getting old, so we got a puppy called Pip" of "our dog is called Biscuit"
    if subjects.of_old_value_only(newer, older):
        return True  # "Mr Silva is now retired" of "my landlord is Mr Silva": said of the old value, no new one
    return subjects.sure_other(newer, older)


def features(newer: subjects.Said, older: subjects.Said, cosines: tuple[float, float, float, float]) -> list[float]:
    """The pair's features, in the order of FEATURES. `cosines`: the masked statements', the statements' as
    written, the newer as written with the older masked, the newer masked with the older as written."""
    why = subjects.conflict(newer, older)
    kind = why.split(" (")[0] if why else None
    same_kind = newer.statement is not None and older.statement is not None and \
        supersession.value_kind(newer.statement.value) == supersession.value_kind(older.statement.value)
    x = list(cosines)
    x += [float(b) for b in (
        newer.current, bool(newer.values), bool(newer.values) and subjects.new_value(newer, older),
        subjects.values_alike(newer, older), subjects.one_value(newer, older), subjects.one_value(older, newer),
        newer.changed, subjects.same_subject(newer, older), subjects.same_head(newer, older),
        subjects.names_old_value(newer, older), subjects.same_form(newer, older), subjects.anchored(newer, older),
        subjects.head_unsaid(newer, older), subjects.another_kind(newer, older), subjects.says_the(newer, older),
        subjects.same_words(newer, older), subjects.many_values(newer),
        newer.statement is not None and bool(newer.statement.negated), same_kind, bool(older.values),
        newer.statement is not None, older.statement is not None, kind is None,
        subjects.old_value_first(newer, older),
        subjects.of_old_value_only(newer, older), subjects.value_extends(newer, older), subjects.many_values(older))]
    x += [float(kind == c) for c in CONFLICTS]
    x += [float(m in newer.marks) for m in NEWER_MARKS] + [float(m in older.marks) for m in OLDER_MARKS]
    return x


def score(newer: subjects.Said, older: subjects.Said, cosines: tuple[float, float, float, float]) -> float | None:
    """The pair's score (a change from the model's bar on), or None when the words are sure it is none or
    there is no model."""
    fitted = model()
    if fitted is None or sure_veto(newer, older):
        return None
    return float(fitted.weights @ features(newer, older, cosines)) + fitted.bias
