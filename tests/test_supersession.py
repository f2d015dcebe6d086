"""Write-time supersession without a model (issue 23, SPEC F6/F7): a fact restated with a new value
links the older one, with the records the consolidation judge writes; conservative on purpose."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memory import memories, supersession
from memory.supersession import USER, Statement, Subject, is_change, read_statement, restates
from tests.conftest import present

if TYPE_CHECKING:
    from memory.search.embeddings import Embedder
    from memory.store import Store
    from tests.conftest import Cli
    from tests.known_texts import KnownTexts


def links(store: Store) -> dict[int, int]:
    return {r[0]: r[1] for r in store.query("SELECT memory_id, superseded_by FROM memory_meta "
                                            "WHERE superseded_by IS NOT NULL")}


def test_a_changed_value_supersedes_the_older_fact_with_the_judges_records(store: Store) -> None:
    old = memories.remember(store, "the door code for the building is 5829")
    memories.remember(store, "the gym locker code is 1111")
    new = memories.remember(store, "the building door code changed to 7731")
    assert links(store) == {old.id: new.id}
    [edge] = store.query("SELECT source_id, target_id, edge_type, weight, reason, run_id FROM edges")
    assert tuple(edge) == (new.id, old.id, "supersedes", supersession.WEIGHT, supersession.REASON, None)
    assert supersession.current(store, old.id) == new.id
    assert [r["id"] for r in supersession.replaced(store, new.id)] == [old.id]
    assert supersession.value_of("the door code for the building is 5829") == "5829"


@pytest.mark.parametrize("older, newer", [
    ("the door code is 5829", "the door code is now 7731"),
    ("the door code is 5829", "actually, the door code is 7731"),
    ("my dentist is Dr Kim", "my new dentist is Dr Ruiz"),
    ("Sara moved to Porto", "Sara moved to Lisbon"),
    ("the wifi password is apple", "the wifi password is banana"),  # the same two-word subject, no marker
    ("the dentist appointment is on Monday at 3", "the dentist appointment moved to Friday"),
    ("my favourite colour is blue", "my favourite colour is green now"),
])
def test_restated_facts_are_linked(store: Store, older: str, newer: str) -> None:
    a = memories.remember(store, older)
    b = memories.remember(store, newer)
    assert links(store) == {a.id: b.id}


@pytest.mark.parametrize("older, newer", [
    ("Bob is my brother", "Bob is a doctor"),  # one-word subject and no change word: both can be true
    ("the team meeting is at 3", "the team meeting is in room 4"),  # values of different kinds
    ("the door code is 5829", "the door code is 5829"),  # the same value said again
    ("the door code is 5829", "what is the door code?"),  # a question restates nothing
    ("the door code is 5829", "the gate code is 1234"),  # another subject
    ("I like tea", "I like coffee"),  # no subject to speak of
])
def test_near_restatements_are_not_linked(store: Store, older: str, newer: str) -> None:
    memories.remember(store, older)
    memories.remember(store, newer)
    assert links(store) == {}


def test_two_older_facts_that_could_be_meant_are_left_alone_unless_one_is_the_very_subject(store: Store) -> None:
    office = memories.remember(store, "the wifi password for the office is apple")
    memories.remember(store, "the wifi password for the guest network is pear")
    memories.remember(store, "the wifi password changed to banana")
    assert links(store) == {}  # which one changed? Neither is guessed
    kiwi = memories.remember(store, "the office wifi password changed to kiwi")
    assert links(store) == {office.id: kiwi.id}


def test_reminders_and_moods_are_never_superseded_at_write_time(store: Store) -> None:
    memories.remember(store, "call the dentist", due_at="2026-11-27T09:00:00+00:00")
    memories.remember(store, "the dentist call is now at 10", kind="note")
    memories.remember(store, "my mood is calm", kind="mood")
    memories.remember(store, "my mood is now anxious", kind="mood")
    assert links(store) == {}


def test_a_chain_of_values_and_forgetting_the_newest(store: Store) -> None:
    first = memories.remember(store, "the door code is 1111")
    second = memories.remember(store, "the door code changed to 2222")
    third = memories.remember(store, "the door code changed to 3333")
    assert links(store) == {first.id: second.id, second.id: third.id}
    assert supersession.current(store, first.id) == third.id
    memories.forget(store, third.id)
    assert links(store) == {first.id: second.id} and supersession.current(store, first.id) == second.id


def statement(text: str) -> Statement:
    """The statement read from `text` (the test expects one)."""
    return present(read_statement(text))


def test_statement_reading() -> None:
    door = statement("the building door code changed to 7731")
    assert door.subject.head == "code" and door.subject.modifiers == frozenset({"build", "door"}) and door.marked
    assert not statement("the door code is 7731").marked
    assert read_statement("remind me to call mom") is None
    new, old = statement("the door code changed to 7731"), statement("the door code for the gym is 1")
    assert restates(new, old)  # {door} is part of {door, gym}, with a change word
    assert not restates(statement("the door code is 7731"), old)  # without one, the subject must be the same
    # The subject is its head noun and its owner, in each language's order.
    assert statement("the cat's vet is Dr. Lee").subject == Subject("cat", "vet")
    assert statement("o código do portão é 1234").subject == Subject(None, "codigo", frozenset({"portao"}))
    assert read_statement("moved to Porto last month") == Statement(Subject(USER, "residence"), "Porto", True)
    assert statement("I no longer live in Braga").negated == "Braga"
    assert statement("the offsite moved from Dec 3 to Dec 12").was == "Dec 3"


@pytest.mark.parametrize("text", ["heads up, the gate code changed to 5521", "the door code changed, it's now 7730",
                                  "we switched the cat to a new vet, Dr. Ames", "moved to Porto last month",
                                  "the standup is now at 9:30", "my work number is now 0161 496 0999",
                                  "the offsite got pushed to the 12th", "I no longer work at Acme",
                                  "dinner is at 8 instead of 7", "el código de la puerta cambió a 7731",
                                  "der Türcode ist jetzt 7731", "o jantar passou para as 8"])
def test_changes_as_people_say_them_are_changes(text: str) -> None:
    assert is_change(text)


@pytest.mark.parametrize("text", ["the new season starts in April", "now I remember", "now I remember where the keys "
                                  "are", "the car wouldn't start this morning", "I moved the couch to the bedroom",
                                  "what's the gate code now?", "I'm moving to Berlin next year",
                                  "the gate code is 1234", "remind me to change the code to 5521 tomorrow",
                                  "I changed my mind", "ahora me acuerdo"])
def test_other_sentences_are_not_changes(text: str) -> None:
    assert not is_change(text) or not restates(statement(text), statement("I live in Braga"))
    if text in ("the new season starts in April", "now I remember", "I changed my mind", "ahora me acuerdo",
                "the car wouldn't start this morning", "what's the gate code now?"):
        assert not is_change(text)


def labelled_pairs() -> list[tuple[bool, str, str, str]]:
    """tests/data/supersession.tsv: (supersedes, language, older, newer)."""
    path = Path(__file__).parent / "data" / "supersession.tsv"
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    return [(label == "1", language, older, newer) for label, language, older, newer in rows]


def measure(store: Store, embedder: Embedder) -> dict[str, Any]:
    """Each pair written through the real store (remember, then remember the newer): precision and recall
    of the links made, and the pairs read wrongly."""
    tp = fp = fn = 0
    wrong = []
    for want, language, older, newer in labelled_pairs():
        with store.transaction():
            store.execute("DELETE FROM knowledge")
        a = memories.remember(store, older, kind="fact", embedder=embedder)
        b = memories.remember(store, newer, kind="fact", embedder=embedder)
        got = links(store).get(a.id) == b.id
        tp, fp, fn = tp + (got and want), fp + (got and not want), fn + (want and not got)
        if got != want:
            wrong.append((want, language, older, newer))
    return {"pairs": len(labelled_pairs()), "supersede": tp + fn, "precision": tp / (tp + fp), "recall": tp / (tp + fn),
            "wrong": wrong}


@pytest.mark.slow  # a labelled set of 150 pairs written pair by pair (10 s of CPU): the whole suite's to hold
def test_the_labelled_set_is_read_with_high_precision_and_recall(store: Store, known_texts: KnownTexts) -> None:
    """Written as `remember` writes by default, with the bundled model: its vectors of the set made ahead
    (tests/known_texts.py)."""
    pairs = labelled_pairs()
    assert len(pairs) >= 150 and {language for _, language, _, _ in pairs} >= {"en", "es", "pt", "fr", "de", "it"}
    assert sum(not want for want, *_ in pairs) >= 60  # near misses that must not supersede
    known_texts.learn_statements(text for _, _, older, newer in pairs for text in (older, newer))
    figures = measure(store, known_texts)
    assert figures["precision"] >= 0.95 and figures["recall"] >= 0.9, figures["wrong"]


@pytest.mark.slow
def test_a_superseded_fact_is_archived_by_consolidation_not_left_cold(cli: Cli) -> None:
    """Issue 20: x 0.2 alone left a fresh superseded fact cold (0.76 x 0.2 = 0.15), so a deep search
    still offered the old door code as if true. Consolidation (here without a model: scores and tiers
    only) archives it; only an exhaustive search finds it."""
    import json

    cli("remember", "the door code for the building is 5829", "--kind", "fact", now="2026-11-22T10:00:00+00:00")
    cli("remember", "the building door code changed to 7731", "--kind", "fact", now="2026-11-22T11:00:00+00:00")
    run = json.loads(cli("consolidate", "--json")[1])
    assert [(t["memory_id"], t["to_tier"], t["reason"]) for t in run["tier_transitions"]] == [(1, "archived",
                                                                                              "superseded")]
    tiers = json.loads(cli("tiers", "--json")[1])
    assert tiers["archived"] == 1 and tiers["cold"] == 0, tiers
    deep = {hit["id"]: hit["tier"] for hit in json.loads(cli("recall", "door code", "--mode", "deep", "--json")[1])}
    every = {hit["id"]: hit["tier"] for hit in json.loads(cli("recall", "door code", "--mode", "exhaustive",
                                                               "--json")[1])}
    assert deep == {2: "hot"} and every == {2: "hot", 1: "archived"}


@pytest.mark.parametrize("phrase, owner", [
    ("Rosemary's husband's name", "rosemary husband"),  # hers, not mine (blind round 17: my husband's was given)
    ("my sister's husband's job", "sister husband"),
    ("my sister's number", "sister"),
])
def test_possessives_in_a_row_are_one_owner(phrase: str, owner: str) -> None:
    from memory.supersession import subject_of

    subject = subject_of(phrase)
    assert subject is not None and subject.owner == owner
