"""Ranking in conversations (memory.search.context), each rule on a real store with the real bundled
embedder: echoes of a memory, the turns that say when, a named day, the people's names, whole
contents; and an import that leaves search complete."""
from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant.cli import data
from memory import episodes
from memory.memories import remember
from memory.search import Fusion, Searcher
from memory.search.embeddings import LocalEmbedder, pending_count, sync_embeddings
from memory.transfer.jsonl_import import import_records
from memory.vectors import count as vector_count
from tests.conftest import make_runtime, write_jsonl

if TYPE_CHECKING:
    from assistant.runtime import Runtime
    from memory.store import Store


def _chat(store: Store, sessions: list[tuple[str, list[str]]]) -> dict[str, int]:
    """Import sessions (start instant, "Speaker: text" turns ten seconds apart) as a user's import
    writes them; returns each text's message id."""
    records = []
    for number, (start, turns) in enumerate(sessions):
        begin = datetime.fromisoformat(start)
        records.append({"type": "episode", "id": f"s{number}", "outcome": "success", "started_at": start,
                        "ended_at": (begin + timedelta(seconds=10 * len(turns))).isoformat()})
        for index, turn in enumerate(turns):
            records.append({"type": "message", "episode_id": f"s{number}", "content": turn,
                            "role": "user" if turn.startswith("Caroline") else "assistant",
                            "created_at": (begin + timedelta(seconds=10 * index)).isoformat()})
    import_records(store, [json.dumps(r) for r in records])
    return {r[1]: r[0] for r in store.query("SELECT id, content FROM messages")}


FILLER = ["Caroline: Hey Mel! How have you been lately?", "Melanie: Hey Caroline! Busy with the kids as always",
          "Caroline: Haha I bet. Anything fun this week?", "Melanie: Not much, we mostly stayed home and relaxed",
          "Caroline: That sounds nice honestly, I needed a quiet week too", "Melanie: Totally, Caroline! Talk soon"]


def _ranked(store: Store, embedder: LocalEmbedder, query: str, fusion: Fusion | None = None,
            limit: int = 10) -> list[int]:
    sync_embeddings(store, embedder)
    return [h.id for h in Searcher(store, embedder, fusion=fusion).search(query, limit=limit, touch=False)
            if h.type == "message"]


# -- echoes ---------------------------------------------------------------------------------------

BIRTHDAY = "Sara's birthday is on March 3"


def _with_echoes(store: Store) -> tuple[int, int, list[int]]:
    memory = remember(store, BIRTHDAY, kind="fact")
    episode = episodes.open_episode(store)
    question = episodes.add_message(store, episode.id, "user", "when is Sara's birthday?")
    echoes = [episodes.add_message(store, episode.id, "assistant", text).id for text in (
        f"From memory (you told me Sun Nov 22): {BIRTHDAY}.",
        "Also (you told me Sun Nov 22): [Private] Sara's birthday is on March 3 [Tue Mar 3], and I noted it.",
        f"From memory (you told me Sun Nov 22): {BIRTHDAY}.\nAlso (you said Sun Nov 22): when is Sara's birthday?")]
    return memory.id, question.id, echoes


@pytest.mark.slow
def test_an_echo_of_a_memory_never_outranks_it(store: Store, embedder: LocalEmbedder) -> None:
    memory, _, echoes = _with_echoes(store)
    sync_embeddings(store, embedder)
    searcher = Searcher(store, embedder)
    for query in ("When is Sara's birthday?", "Sara birthday", "birthday March 3"):
        hits = searcher.search(query, limit=10, touch=False)
        order = [(h.type, h.id) for h in hits]
        assert ("memory", memory) in order, query
        assert all(order.index(("memory", memory)) < order.index(("message", e)) for e in echoes
                   if ("message", e) in order), (query, order)
        assert hits == sorted(hits, key=lambda h: -h.score)  # the scores say the same order
        # Asked for one hit only, it is never a reply that repeats the memory.
        top = searcher.search(query, limit=1, touch=False)[0]
        assert top.type == "memory" or top.id not in echoes


def test_an_echo_of_a_memory_stays_below_it_without_vectors_too(store: Store) -> None:
    memory, _, echoes = _with_echoes(store)
    order = [(h.type, h.id) for h in Searcher(store, None).search("Sara's birthday", limit=10, touch=False)]
    assert all(order.index(("memory", memory)) < order.index(("message", e)) for e in echoes), order


def test_recall_command_puts_the_memory_before_its_echo(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        embedder: LocalEmbedder) -> None:
    from assistant.cli import conversations

    runtime = make_runtime(tmp_path)
    runtime.__dict__["embedder"] = embedder
    memory, _, echoes = _with_echoes(runtime.store)
    args = argparse.Namespace(query=["When", "is", "Sara's", "birthday?"], mode="standard", limit=3, reason=False,
                              json=True)
    assert conversations.cmd_recall(runtime, args) == 0
    hits = [(h["type"], h["id"]) for h in json.loads(capsys.readouterr().out)]
    assert ("memory", memory) in hits
    assert not {("message", e) for e in echoes} & set(hits[:hits.index(("memory", memory))])
    runtime.close()


GARAGE = "the garage code is 4417"


def _with_secret_echoes(store: Store) -> tuple[int, list[int]]:
    """A secret memory and the app's answers that quoted it, stored as every turn stores them (add_answer):
    the value as "[secret 1 of memory #N]"."""
    memory = remember(store, GARAGE)
    assert memory.sensitive
    episode = episodes.open_episode(store)
    episodes.add_message(store, episode.id, "user", "what is the garage code?")
    echoes = [episodes.add_answer(store, episode.id, text) for text in (
        f"Okay, I'll remember that {GARAGE} (#{memory.id}).", f"From memory (you told me Sun Nov 22): {GARAGE}")]
    assert all("4417" not in e.content and f"of memory #{memory.id}]" in e.content for e in echoes)
    return memory.id, [e.id for e in echoes]


@pytest.mark.slow
def test_an_echo_that_quoted_a_secret_stays_below_the_memory(store: Store, embedder: LocalEmbedder) -> None:
    """SPEC F5: the app's own answers that quote a memory never rank above it, a secret one too, whose
    answers are stored with a placeholder where its value was (they outranked it: "garage code" listed
    both answers first)."""
    memory, echoes = _with_secret_echoes(store)
    sync_embeddings(store, embedder)
    for query in ("garage code", "what is the garage code?", "garage"):
        hits = Searcher(store, embedder).search(query, limit=10, touch=False)
        order = [(h.type, h.id) for h in hits]
        assert ("memory", memory) in order, query
        assert all(order.index(("memory", memory)) < order.index(("message", e)) for e in echoes
                   if ("message", e) in order), (query, order)
        assert hits == sorted(hits, key=lambda h: -h.score)


def test_a_reply_that_only_shares_words_is_not_an_echo(store: Store, embedder: LocalEmbedder) -> None:
    """Only a word-for-word quotation of a hit counts: an answer in its own words ranks on its merits."""
    ids = _chat(store, [("2023-05-08T13:00:00+00:00", [
        "Caroline: I adopted a grumpy old tabby called Pepper from the rescue near the library",
        "Melanie: Pepper the grumpy old tabby from the rescue! adopted at last, congrats",
    ])])
    sync_embeddings(store, embedder)
    hits = Searcher(store, embedder).search("Melanie congrats Pepper adopted", limit=5, touch=False)
    assert hits[0].id == ids["Melanie: Pepper the grumpy old tabby from the rescue! adopted at last, congrats"]


# -- the people's names ---------------------------------------------------------------------------

def test_names_found_in_most_texts_are_not_embedded(store: Store, embedder: LocalEmbedder) -> None:
    _chat(store, [("2023-05-08T13:00:00+00:00", FILLER * 10 + ["Caroline: I painted a lake sunrise last year"])])
    searcher = Searcher(store, embedder)
    # Caroline and Melanie say most of the turns; "sunrise" is in one.
    assert searcher.vector_text("When did Caroline paint a sunrise?") == "When did paint a sunrise?"
    assert searcher.vector_text("What did Melanie's kids do?") == "What did kids do?"
    assert searcher.vector_text("Caroline and Melanie") == "Caroline and Melanie"  # nothing else left: as it is
    assert Searcher(store, embedder, fusion=Fusion(everywhere=0)).vector_text("When did Caroline paint?") == \
        "When did Caroline paint?"


def test_the_person_the_question_names_comes_first(store: Store, embedder: LocalEmbedder) -> None:
    ids = _chat(store, [("2023-05-08T13:00:00+00:00", FILLER + [
        "Melanie: I started pottery classes on Tuesdays, my first bowl came out lopsided",
        "Caroline: I started pottery classes on Tuesdays, my first bowl came out lopsided too"])])
    melanie = ids["Melanie: I started pottery classes on Tuesdays, my first bowl came out lopsided"]
    caroline = ids["Caroline: I started pottery classes on Tuesdays, my first bowl came out lopsided too"]
    assert _ranked(store, embedder, "What did Melanie make in pottery class?")[0] == melanie
    assert _ranked(store, embedder, "What did Caroline make in pottery class?")[0] == caroline


# -- when -----------------------------------------------------------------------------------------

def test_a_when_question_finds_the_turn_that_says_when(store: Store, embedder: LocalEmbedder) -> None:
    ids = _chat(store, [("2023-05-08T13:00:00+00:00", FILLER + [
        "Caroline: The support group is such a warm place, everyone there is so kind",
        "Caroline: I went to the support group yesterday and shared my story",
        "Melanie: The support group sounds wonderful, how often does it meet?"])])
    said_when = ids["Caroline: I went to the support group yesterday and shared my story"]
    query = "When did Caroline go to the support group?"
    assert _ranked(store, embedder, query)[0] == said_when
    # The turn that says when two turns before the one about the event is lifted by it.
    ids = _chat(store, [("2023-07-03T13:00:00+00:00", [
        "Caroline: Hey Mel! Something not so great happened yesterday...", "Melanie: Oh no, are you okay?",
        "Caroline: A car ran a red light and hit us, but everyone is okay", *FILLER])])
    accident = ids["Caroline: Hey Mel! Something not so great happened yesterday..."]
    without = _ranked(store, embedder, "When did Caroline get in a car accident?", Fusion(when_around=0), 40)
    ranked = _ranked(store, embedder, "When did Caroline get in a car accident?")
    assert accident in ranked[:3] and (accident not in without or without.index(accident) > ranked.index(accident))


@pytest.mark.slow
def test_a_named_day_brings_that_days_conversation_first(store: Store, embedder: LocalEmbedder) -> None:
    days = {f"2023-{month:02d}-13T18:00:00+00:00": [
        f"Caroline: This month I finished painting number {month}, a landscape with a lot of blue",
        f"Melanie: Wow, painting number {month} looks great!", *FILLER] for month in range(3, 12)}
    ids = _chat(store, list(days.items()))
    october = ids["Caroline: This month I finished painting number 10, a landscape with a lot of blue"]
    said_then = {october, ids["Melanie: Wow, painting number 10 looks great!"]}
    for query in ("What painting did Caroline finish on October 13, 2023?", "What did Caroline paint in October?",
                  "Which painting did Caroline show on 13 Oct 2023?"):
        assert set(_ranked(store, embedder, query)[:2]) == said_then, query
    assert _ranked(store, embedder, "What did Caroline paint?", limit=30).index(october) > 0  # no date: no lift


def test_named_periods_and_time_mentions() -> None:
    from memory.time.references import NamedPeriod, mentions_time, named_periods

    assert named_periods("What did she show on October 13, 2023?") == [NamedPeriod(2023, 10, 13)]
    assert named_periods("the 2nd of March and in June 2022, or in 2021") == [
        NamedPeriod(None, 3, 2), NamedPeriod(2022, 6), NamedPeriod(2021)]
    assert named_periods("May I ask what you did?") == [] and named_periods("I may go in May") == [NamedPeriod(None, 5)]
    assert NamedPeriod(None, 2, 30).start_and_end(2023) == (datetime(2023, 2, 28), datetime(2023, 3, 1))
    assert NamedPeriod(2024, 12).start_and_end(2000) == (datetime(2024, 12, 1), datetime(2025, 1, 1))
    for said in ("I went there yesterday", "last Fri was fun", "I've had them for 3 years", "two weekends ago",
                 "back in 2019", "in June"):
        assert mentions_time(said), said
    for said in ("May I ask?", "I sat in the sun", "we wed by the sea", "what a lovely painting"):
        assert not mentions_time(said), said


# -- whole texts ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_hit_holds_the_whole_stored_text(store: Store, embedder: LocalEmbedder) -> None:
    """The model reads the first 2,000 characters of a text; a hit is the whole of it all the same."""
    from memory.search.embeddings import MAX_CHARS

    long_text = "Caroline: The harbour festival was wonderful. " + "We walked along the quay and talked. " * 120 + \
        "At the very end the lanterns went up over the water."
    assert len(long_text) > 2 * MAX_CHARS
    ids = _chat(store, [("2023-05-08T13:00:00+00:00", [*FILLER, long_text])])
    sync_embeddings(store, embedder)
    for query in ("harbour festival", "When was the harbour festival in May 2023?", "lanterns over the water"):
        hits = Searcher(store, embedder).search(query, limit=5, touch=False)
        found = [h for h in hits if h.id == ids[long_text]]
        assert found and found[0].content == long_text, query


# -- import ---------------------------------------------------------------------------------------

def _import(tmp_path: Path, name: str, embedder: LocalEmbedder, index: bool) -> Runtime:
    runtime = make_runtime(tmp_path / name, ASSISTANT_EMBEDDING_MODEL="bundled")
    runtime.__dict__["embedder"] = embedder
    turns = [*FILLER, "Caroline: I adopted a grumpy old tabby called Pepper from the rescue",
             "Melanie: Pepper! What a name. How is she settling in?", "Caroline: She already rules the flat", *FILLER]
    source = write_jsonl(tmp_path / f"{name}.jsonl", [
        {"type": "episode", "id": "e1", "started_at": "2023-05-08T13:00:00Z", "ended_at": "2023-05-08T14:00:00Z"},
        *({"type": "message", "episode_id": "e1", "role": "user" if t.startswith("Caroline") else "assistant",
           "content": t, "created_at": f"2023-05-08T13:{i:02d}:00Z"} for i, t in enumerate(turns))])
    assert data.cmd_import(runtime, argparse.Namespace(file=str(source), index=index, json=True)) == 0
    return runtime


@pytest.mark.slow
def test_an_import_leaves_search_complete(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          embedder: LocalEmbedder) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "indexed").mkdir()
    plain, indexed = _import(tmp_path, "plain", embedder, False), _import(tmp_path, "indexed", embedder, True)
    assert "waiting for their embeddings" not in capsys.readouterr().err
    assert pending_count(plain.store) == 0 and vector_count(plain.store) == plain.store.one(
        "SELECT count(*) FROM messages")[0]
    # A recall right after a plain import ranks as one after `import --index` (or a day later).
    for query in ("What pet did Caroline adopt?", "cat from the rescue", "How is the tabby settling in?"):
        first = [(h.id, h.score) for h in plain.searcher.search(query, limit=10, touch=False)]
        assert first == [(h.id, h.score) for h in indexed.searcher.search(query, limit=10, touch=False)]
    assert plain.searcher.pending == 0
    plain.close()
    indexed.close()
