"""Changes by meaning (issue 42, SPEC F14): a new statement about the subject of a current memory replaces it
whatever the wording, never one about a look-alike subject, and inherits its marks (secret, private,
pinned); reminders change only when asked. Real store, real bundled embedder."""
from __future__ import annotations

from pathlib import Path

import pytest

from memory import memories
from memory.search.embeddings import Embedder, LocalEmbedder
from memory.sensitive import is_sensitive
from memory.store import Store
from tests.known_texts import KnownTexts

DATA = Path(__file__).parent / "data"


def links(store: Store) -> dict[int, int]:
    return {r[0]: r[1] for r in store.query("SELECT memory_id, superseded_by FROM memory_meta "
                                            "WHERE superseded_by IS NOT NULL")}


def links_after(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> tuple[int, int, dict[int, int]]:
    """The older statement, then the newer, remembered: their ids and what replaced what."""
    a = memories.remember(store, older, embedder=embedder)
    b = memories.remember(store, newer, embedder=embedder)
    return a.id, b.id, links(store)


def test_a_new_door_code_said_in_new_words_replaces_the_stored_one(store: Store, embedder: LocalEmbedder) -> None:
    """Issue 42: "remember that my new door code from today is 3306" left the old code first."""
    old = memories.remember(store, "the building door code is 5829", embedder=embedder)
    new = memories.remember(store, "my new door code from today is 3306", embedder=embedder)
    assert links(store) == {old.id: new.id}
    [edge] = store.query("SELECT source_id, target_id, edge_type FROM edges")
    assert tuple(edge) == (new.id, old.id, "supersedes")


def test_the_replacement_inherits_secret_private_and_pinned(store: Store, embedder: LocalEmbedder) -> None:
    """Issue 42: the new code was not marked secret (the old one was), so 7719 showed in clear."""
    old = memories.remember(store, "the blue tin is 5829", embedder=embedder, sensitive=True)  # marked by its writer
    memories.set_private(store, old.id, True)
    memories.set_pinned(store, old.id, True)
    assert old.sensitive and not is_sensitive("the blue tin changed, it's now 7719")  # no word the detector knows
    new = memories.remember(store, "the blue tin changed, it's now 7719", embedder=embedder)
    assert links(store) == {old.id: new.id}
    assert (new.sensitive, new.private, new.pinned) == (True, True, True)


def test_the_value_a_secret_replaces_is_a_secret_too(store: Store, embedder: LocalEmbedder) -> None:
    """An attacker's: "the boiler thing is 3316" (no word the detector knows) was replaced by a secret and went
    out in every prompt after, the old value of a secret."""
    old = memories.remember(store, "the boiler thing is 3316", embedder=embedder)
    assert not old.sensitive
    new = memories.remember(store, "the boiler thing changed, it's 2894 now", embedder=embedder, sensitive=True)
    assert links(store) == {old.id: new.id}
    assert memories.get_memory(store, old.id).sensitive


def test_an_answer_stored_before_its_memory_became_secret_holds_the_placeholder(store: Store) -> None:
    # A tester's: "Okay, I'll remember that the boiler code is 3316 (#1)." kept 3316 once a secret replaced it
    from memory import episodes
    from memory.secrets import mark_secret

    old = memories.remember(store, "the boiler thing is 3316")
    episode = episodes.open_episode(store)
    answer = episodes.add_message(store, episode.id, "assistant", "Okay, I'll remember that the boiler thing is 3316.")
    other = episodes.add_message(store, episode.id, "assistant", "Room 3316 is on the third floor.")
    assert "3316" in store.one("SELECT content FROM messages WHERE id = ?", (answer.id,))[0]
    mark_secret(store, [old.id])
    assert store.one("SELECT content FROM messages WHERE id = ?", (answer.id,))[0] == \
        f"Okay, I'll remember that the boiler thing is [secret 1 of memory #{old.id}]."
    assert "3316" not in store.one("SELECT content FROM messages WHERE id = ?", (other.id,))[0]  # a value whole


def test_a_memory_found_secret_later_marks_what_it_replaced(store: Store, embedder: LocalEmbedder) -> None:
    older = memories.remember(store, "the boiler thing is 3316", embedder=embedder)
    newer = memories.remember(store, "the boiler thing changed, it's 2894 now", embedder=embedder)
    assert links(store) == {older.id: newer.id} and not newer.sensitive
    from memory.secrets import mark_secret

    mark_secret(store, [newer.id])  # as the classifier's verdict does when the vector is stored
    assert memories.get_memory(store, older.id).sensitive


def test_a_memory_that_is_not_replaced_keeps_its_own_marks(store: Store, embedder: LocalEmbedder) -> None:
    old = memories.remember(store, "the front door code is 2291", embedder=embedder)
    memories.set_private(store, old.id, True)
    new = memories.remember(store, "the back door code is 7713", embedder=embedder)
    assert links(store) == {}
    assert not new.private and not new.pinned


@pytest.mark.parametrize("older, newer", [
    # a tester's: the downstairs code named by the word the older says after its head
    ("the door code downstairs is 4719", "the downstairs code changed, it's 8830 now"),
    ("my dentist is Dr Kim", "from now on my dentist is Dr Patel"),
    ("meine Handynummer ist 0151 2345678", "ich habe eine neue Handynummer: 0176 9876543"),
    ("my manager is Priya", "Priya left, my manager is Tom now"),
    ("my phone number is 07700 900123", "you can reach me on 07700 900888 from now on"),
    ("I drive a blue Skoda Octavia", "sold the Skoda, I've got a Kia Niro now"),
    ("my hairdresser is Jo at Cutting Room", "Jo retired, Mia at Fringe Benefits does my hair now"),
    ("my email is sam.lee@oldmail.com", "please use sam@lee.dev for me from now on, I'm done with oldmail"),
    ("the storage unit code is 6018", "the code from before changed, it's 8812 now"),
    ("we bank with Barclays", "we switched banks, we're with Monzo now"),
    ("el código de la puerta es 4512", "desde hoy el código de la puerta es 8830"),
    # blind round 15's kinds, in our words: practice and training, "X provider" of X
    ("Mia's swimming practice is on Mondays", "Mia's training got moved to Wednesday mornings"),
    ("our broadband is with Sky", "we switched internet provider to Hyperoptic"),
    # a journey whose place changes, said as a change
    ("our holiday is in Crete this year", "our holiday is in Rhodes now, Crete was full"),
    # an address for e-mails is the e-mail, not where I live (blind round 17)
    ("My email is theo.marsh@fastmail.com", "new address for emails: tmarsh@proton.me"),
    # since when is no part of what it is (a newcomer's: "new GP since the move" was read as a move)
    ("my GP is Dr Okafor at the Elm Street surgery", "new GP since the move: Dr Reyes at Harbour Medical Centre"),
    # "I'm a X at Y" says where I work (this session's first use)
    ("I'm a structural engineer at Arup", "I'm now working for Mott MacDonald"),
    # a newcomer's: "surgery" in where I work was taken for a doctor's, and the verb "work" for a qualifier
    ("I'm a practice nurse at the Elm Street surgery", "I work as a ward sister at the Royal Infirmary these days"),
])
def test_a_change_in_new_words_replaces(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    ("my sister's birthday is March 3", "my brother's birthday is June 9"),
    ("the front door code is 2291", "the back door code is 7713"),
    ("my manager is Priya", "my old manager was Tom"),
    ("my debit card PIN is 9021", "my credit card PIN is 1144"),
    ("the front door code is 2291", "we should change the front door code soon"),
    ("Mum is allergic to peanuts", "Mum is also allergic to shellfish"),
    ("my GP is Dr Okafor", "Dr Okafor is on leave, a locum Dr Shah is covering this month"),
    ("my dentist is Dr Kim", "my wife's dentist is Dr Patel"),
    ("the door code is 2291", "just so you know, the door code is still 2291, nothing changed"),
    ("my phone number is 07700 900123", "Tom's number is 07700 900555"),
    ("my work badge number is 55871", "I've got a new number, 07700 900888"),
    ("the season starts in March", "the new season starts in April"),
    ("o meu chefe é o João", "o chefe da Marta é o Rui"),
    # a secret of another thing (an attacker's: the card's PIN was replaced, the door code given as its answer)
    ("PIN for the blue visa card: 8052", "my new door code is 5521, not 5512"),
    ("the wifi password is Heron-42", "new router password: Kestrel-77"),
    # ... said in words the reading finds no statement in (a newcomer's and an attacker's)
    ("the alarm code got reset to 9902", "the downstairs code changed, it's 8830 now"),
    ("the garage code ends in 71", "Our door code is 8812, not 8821 as I said before"),
    ("our broadband is with BT", "we changed energy provider to Octopus"),  # a provider of something else
    # another journey (a newcomer's: the ferry to Amsterdam replaced the flight to Porto)
    ("we're flying to Porto in March on FR8362 from Manchester",
     "we're taking the ferry to Amsterdam from Hull on New Year's Eve, cabin 8142"),
    ("my flight to Lisbon is TP1333 on Friday", "my flight to Rome is AZ203 on the 20th"),
    ("we live at 12 Elm Road", "new address for the emails from school: office@elm-school.org"),
    # what one is at a place without working there is no job
    ("I'm a member at PureGym", "I'm a nurse at St Mary's"),
    ("I'm a volunteer at Oxfam", "I'm a barista at Costa"),
    ("I'm a structural engineer at Arup", "my sister is a midwife at St Mary's"),
    ("my home phone is 0161 496 0000", "my work phone is 0161 496 0999"),
])
def test_a_look_alike_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    assert links_after(store, embedder, older, newer)[2] == {}


@pytest.mark.parametrize("older, newer", [
    # a verb of change of an amount, a time or an ending
    ("I take 20mg of omeprazole a day", "the doctor lowered my omeprazole to 10mg"),
    ("our anniversary dinner is at Rosa's", "cancelled Rosa's, we booked Dishoom instead"),
    # "going to" a place or a name is no plan; "the same" of another thing; "till" an hour is no while
    ("my gym is PureGym", "switched gyms, going to The Gym Group now"),
    ("book club meets on Thursdays at 8", "book club is on Wednesdays now, same time"),
    ("the crèche closes at 6", "the crèche is open till 7 now"),
    # an hour said after a word of time in another language; a change from a day on
    ("il corso di yoga è alle 18", "dal martedì il corso di yoga è alle 19"),
    # a thing named at a sentence's start is no one's name; a thing's owner need not be said again
    ("Insurance is with Aviva", "we switched the insurance over to Direct Line"),
    ("Zwemmen is op vrijdag", "we zwemmen vanaf nu op zaterdag"),
    ("the boiler's service is due in March", "the service is actually due in April"),
    # the old value dismissed in a clause of its own; "X's <-ing> thing" is X's thing
    ("my favourite café is Lantana", "my favourite café is Flat Cap now, Lantana is history"),
    ("Sam's running club meets on Tuesdays", "Sam's running club moved to Thursdays"),
    # moved to a person, or to a new one of a thing, is no new home
    ("my dentist is Dr Kim", "Dr Kim retired, I've been moved to Dr Osei"),
    ("my barber is Tony", "I've moved to a new barber, Kemal on the high street"),
    # the old value named as gone however short; an e-mail address says its subject
    ("my ring size is 7", "turns out I'm an 8, not a 7"),
    ("my email is jo@old.net", "write to jo.smith@new.io from now on"),
    ("my desk is in room 4", "I've been moved to room 12"),
])
def test_a_change_said_in_other_ways_replaces(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    """The kinds of change round 7 missed (docs/offline.md), in phrasings of their own."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    ("Sara lives in Porto", "Sara lived in Lisbon before she moved"),  # the change is after what it says
    ("my gym is PureGym", "I'm going to switch gyms next month"),  # "going to" a verb: a plan
    ("the door code is 2291", "the door code is the same as before, 2291"),
    ("my GP is Dr Okafor", "Dr Patel is covering until 3 March"),  # "until" a date: a while
    ("the car's MOT is due in May", "the van's MOT is due in June"),  # another thing's
    ("I drive a Golf", "my brother Tom drives a Polo now"),
])
def test_a_look_alike_said_in_those_ways_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str,
                                                          newer: str) -> None:
    assert links_after(store, embedder, older, newer)[2] == {}


def test_reminders_change_only_when_asked(store: Store, embedder: LocalEmbedder) -> None:
    """A reminder is never replaced by a statement, and never replaces one."""
    memories.remember(store, "call the dentist Dr Kim", due_at="2026-11-27T09:00:00+00:00", embedder=embedder)
    memories.remember(store, "from now on my dentist is Dr Patel", embedder=embedder)
    memories.remember(store, "my gym is PureGym", embedder=embedder)
    memories.remember(store, "from now on I go to a new gym, Anytime Fitness", due_at="2026-11-28T09:00:00+00:00",
                      embedder=embedder)
    assert links(store) == {}


def test_without_an_embedder_the_rules_alone_decide(store: Store) -> None:
    a = memories.remember(store, "my manager is Priya", embedder=None)
    memories.remember(store, "I report to Daniel since the reorg", embedder=None)
    assert links(store) == {}  # said in other words: only meaning finds it
    c = memories.remember(store, "the building door code is 5829", embedder=None)
    d = memories.remember(store, "the building door code changed to 7731", embedder=None)
    assert links(store) == {c.id: d.id}
    assert a.id not in links(store)


def test_when_two_memories_could_be_meant_neither_is_replaced(store: Store, embedder: LocalEmbedder) -> None:
    memories.remember(store, "my work email is sam@acme.com", embedder=embedder)
    memories.remember(store, "my personal email is sam@lee.dev", embedder=embedder)
    memories.remember(store, "please use sam@proton.me for my email from now on", embedder=embedder)
    assert links(store) == {}  # which of the two? Neither is guessed


def pairs(name: str) -> list[tuple[bool, str, str, str]]:
    rows = [line.split("\t") for line in (DATA / name).read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    return [(label == "1", language, older, newer) for label, language, older, newer in rows]


def measure(store: Store, embedder: Embedder, name: str) -> tuple[float, float, list[tuple[bool, str, str]]]:
    """(changes replaced, look-alikes untouched, the pairs read wrongly), each pair in a fresh store."""
    replaced = untouched = changes = lookalikes = 0
    wrong = []
    for want, _, older, newer in pairs(name):
        with store.transaction():
            store.execute("DELETE FROM knowledge")
        a = memories.remember(store, older, kind="fact", embedder=embedder)
        b = memories.remember(store, newer, kind="fact", embedder=embedder)
        got = links(store).get(a.id) == b.id
        changes, lookalikes = changes + want, lookalikes + (not want)
        replaced, untouched = replaced + (want and got), untouched + (not want and not got)
        if got != want:
            wrong.append((want, older, newer))
    return replaced / changes, untouched / lookalikes, wrong


def learned(known_texts: KnownTexts, name: str) -> KnownTexts:
    """The bundled embedder with the vectors of the set `name` made ahead (tests/known_texts.py)."""
    known_texts.learn_statements(text for _, _, older, newer in pairs(name) for text in (older, newer))
    return known_texts


@pytest.mark.slow  # it embeds every labelled set ahead (15 s): the whole suite's, not the quick loop's
def test_the_vectors_made_ahead_are_the_embedders_own(embedder: LocalEmbedder, known_texts: KnownTexts) -> None:
    """What the labelled sets read is what the embedder says of each text asked alone or in a pair, as
    memory.replacing asks: to the last bit, whatever batch the text was made ahead in."""
    from memory import subjects

    for name in ("supersession_meaning.tsv", "supersession_blind.tsv", "supersession.tsv"):
        statements = [text for _, _, older, newer in pairs(name) for text in (older, newer)]
        known = learned(known_texts, name)
        for statement in statements[::len(statements) // 5]:
            said = subjects.read(statement)
            assert (known.embed([said.text, said.masked]) == embedder.embed([said.text, said.masked])).all()
            assert (known.embed([said.masked]) == embedder.embed([said.masked])).all()


@pytest.mark.slow  # nine labelled sets written pair by pair (40 s): the figures are the whole suite's to hold
@pytest.mark.parametrize("name, changes, lookalikes", [
    ("supersession_meaning.tsv", 0.92, 1.0),  # the calibration set: 0.861 / 1.000 when written, 0.944 / 1.000 now
    ("supersession_blind.tsv", 0.92, 0.98),  # the blind round: first sight 0.055 / 1.000; 0.904 / 1.000, 0.932 with the
    # learned reading (memory.change_score: fitted on every round, so these are in-sample; held out in docs/offline.md)
    ("supersession_blind7.tsv", 0.88, 0.98),  # round 7: cold 0.534 / 0.984; 0.845 / 1.000 after its misses were read,
    # 0.897 / 1.000 with the learned reading
    ("supersession_blind8.tsv", 0.70, 0.98),  # round 8: cold 0.477 / 1.000; 0.554 / 0.986 before its misreadings'
    # kinds were fixed, 0.631 / 1.000 after, 0.677 / 1.000 after round 10's, 0.723 / 1.000 with the learned reading
    ("supersession_blind9.tsv", 0.64, 0.98),  # round 9: cold 0.429 / 1.000; 0.446 / 1.000 after round 8's kinds
    # were fixed, 0.464 / 1.000 after round 10's; its misses never read; 0.661 / 0.984 with the learned reading
    ("supersession_blind10.tsv", 0.72, 0.98),  # round 10: cold 0.431 / 0.985; 0.569 / 1.000 after its own kinds
    # of misreading were fixed (read, so no longer first sight), 0.586 / 1.000 after round 12's; 0.724 / 1.000 learned
    ("supersession_blind11.tsv", 0.55, 0.98),  # round 11: cold 0.444 / 1.000 at the session's start, 0.476 / 1.000
    # after round 10's kinds, 0.508 / 1.000 after round 12's (first sight of each: never read); 0.571 / 1.000 with the
    # learned reading, fitted on it too (0.556 / 1.000 held out)
    ("supersession_blind12.tsv", 0.59, 0.98),  # round 12: cold 0.324 / 0.958 after round 10's kinds (three
    # look-alikes taken); 0.446 / 1.000 after its own kinds of misreading were fixed (read, so not first sight);
    # 0.608 / 1.000 with the learned reading (0.595 / 1.000 held out)
    ("supersession_blind13.tsv", 0.56, 0.98),  # round 13: cold 0.420 / 1.000 at 1c55a48, 0.565 / 0.986 at 00bc603
    # (never read until round 14 was written; the learned reading is not fitted on it: a refit with it held the other
    # rounds' held-out figures where they were and raised the bar from 0.34 to 0.54)
    ("supersession_blind15.tsv", 0.52, 0.98),  # round 15: cold 0.491 / 0.981 at 6b0e31d (the session of 2026-12-07's
    # start); 0.528 / 0.981 after its kinds were read and fixed (practice and training, "internet provider")
    ("supersession_blind16.tsv", 0.56, 0.98),  # round 16: cold 0.569 / 1.000 at 6e720ae (the session of 2026-12-07's
    # second start); its misses read after that, none fixed (each a change said in words of its own: "started eating
    # fish again so I guess I'm pescatarian", "Darren stepped down, the under-10s are coached by Mrs Achebe now")
    ("supersession_blind17.tsv", 0.43, 0.98),  # round 17: cold 0.448 / 1.000 at 876d184 (the session of 2026-12-07's
    # third start); its misses read after that, none fixed (each a change in words of its own: "upgraded to an iPhone
    # 15 last week" of "My phone is a Pixel 6", "new address for emails: ..." of "My email is ..."); 0.431 once "I
    # work as a pharmacist at Boots" was read as where I work (a newcomer's "where do I work?"): "I quit pharmacy, I'm
    # a data analyst at the hospital trust now", which meaning had taken for its change, is no statement the rules read;
    # 0.448 again once "new address for emails: ..." was read as the e-mail (read, so not first sight)
    ("supersession_blind18.tsv", 0.45, 0.98),  # round 18: cold 0.471 / 1.000 at 788756f (the session of 2026-12-07's
    # fourth start); its misses read after that, none fixed (each a change in words of its own: "after the reorg I
    # report to Hannah Cole" of "My manager is Fergus Doyle", "gone fully vegan since January" of "I'm vegetarian")
    ("supersession.tsv", 0.99, 0.99),  # the rules' own set: 1.000 / 1.000; 1.000 / 0.992 with the learned reading
    # ("we now have a new gate" of "the gate code is 1234")
])
def test_the_labelled_sets(store: Store, known_texts: KnownTexts, name: str, changes: float, lookalikes: float) -> None:
    replaced, untouched, wrong = measure(store, learned(known_texts, name), name)
    assert replaced >= changes and untouched >= lookalikes, (replaced, untouched, wrong)


@pytest.mark.slow
def test_among_other_memories_a_change_replaces_its_own_and_nothing_else(store: Store,
                                                                         known_texts: KnownTexts) -> None:
    """The calibration set again, each pair written among 80 memories on other subjects; and each newer
    statement written alone among them (its older memory never stored): it must replace none of them."""
    background = [line for line in (DATA / "supersession_background.txt").read_text(encoding="utf-8").splitlines()
                  if line and not line.startswith("#")]
    embedder = learned(known_texts, "supersession_meaning.tsv")
    embedder.learn_statements(background)
    for text in background:
        memories.remember(store, text, kind="fact", embedder=embedder)
    last = store.number("SELECT max(id) FROM knowledge")
    replaced = changes = wrongly = 0
    for want, _, older, newer in pairs("supersession_meaning.tsv"):
        for with_older in (True, False):
            with store.transaction():
                store.execute("DELETE FROM knowledge WHERE id > ?", (last,))
            a = memories.remember(store, older, kind="fact", embedder=embedder) if with_older else None
            b = memories.remember(store, newer, kind="fact", embedder=embedder)
            gone = {m for m, n in links(store).items() if n == b.id}
            wrongly += bool(gone - {a.id if a else -1})
            if want and a is not None:
                changes += 1
                replaced += gone == {a.id}
    assert replaced / changes >= 0.92, replaced / changes  # 0.944 now
    assert wrongly <= 3, wrongly  # of 458 statements written: 1 ("a new locker" for the pool's), as when written


@pytest.mark.parametrize("older, newer", [
    # a verb form or a body opening a sentence is no one acting: the owner is still me
    ("the library closes at 5pm", "Council changed the opening hours, the library closes at 6pm now"),
    ("my rent is £950 a month", "Landlord raised the rent, it's £1,000 a month from January"),
    ("our broadband is with BT", "Cancelled the BT broadband, we're with Hyperoptic now"),
    ("my home insurance is with Aviva", "Renewed the home insurance with Aviva's rival LV instead"),
    ("Mi compañía de móvil es Vodafone.", "Abandoné Vodafone, desde mayo estoy con Digi."),
    ("O meu banco é o Millennium.", "Fechei a conta no Millennium, agora estou no Revolut."),
    ("José vive en Sevilla.", "José se mudó a Málaga."),  # a name that ends as a verb does is still a name
    # "today" and "this morning" say when a change happened, not that it holds for a while or of another one
    ("my car is a Ford Focus", "Bought a new car today: a Kia Niro."),
    ("I work as a nurse at St Mary's", "Started my new job at the Royal Free today."),
    ("my resting heart rate is 72 bpm", "Checked my resting heart rate this morning: 64 bpm."),
])
def test_a_change_read_rightly_replaces(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    """The kinds of misreading round 8 showed (docs/offline.md), in phrasings of their own."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    ("I swim on Tuesday mornings", "This Tuesday swimming's cancelled, the pool is closed."),
    ("the café opens at 8", "Just for today the café opens at 10."),
    ("my phone number is 07700 900123", "Sara changed her number, it's 07700 900555 now"),
    ("my phone number is 07700 900123", "Priya has a new number: 07700 900777"),
    ("I weigh 82 kg", "Weighed the suitcase this morning: 23 kg."),
    ("my usual train is the 7:42", "Caught the 8:15 train this morning."),  # that day's: no change, no reading
    ("the book group meets on the first Monday", "the book group met last Monday"),
    ("my morning train is the 7:42", "my evening train is the 18:10 now"),
    ("Mi número es 612 345 678.", "José tiene un número nuevo: 699 111 222."),
])
def test_a_look_alike_read_rightly_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str,
                                                     newer: str) -> None:
    assert links_after(store, embedder, older, newer)[2] == {}


@pytest.mark.parametrize("older, newer", [
    # a word of change it did not know: of a time moved, a dose, an amount
    ("My yoga is Tuesday evenings.", "Yoga's been shifted to Thursday evenings."),
    ("I take 20mg of citalopram.", "The GP put me up to 30mg of citalopram."),
    ("I'm on 2 puffs of the inhaler a day.", "The nurse put me down to 1 puff a day."),
    ("The gym costs £30 a month.", "Gym membership went up to £35."),
    # a day is no one's ("can only do Fridays": "do" is no "of" there); French "on" is "we"
    ("Sam's guitar lesson is Tuesdays at 5.", "The tutor can only do Fridays now, so Sam's lesson is Friday at 5."),
    ("Nous habitons à Nantes.", "On a déménagé à Rennes."),
    # "Can't ..." opens no question
    ("My favourite podcast is Serial.", "Can't stop listening to Hardcore History, it's my favourite podcast now."),
    # a value introduced by its name is no naming of the subject
    ("My hairdresser is Carla at Snip.", "Carla moved away, my new hairdresser is a guy called Marco Ruiz."),
    # a noun in -ing before "is" is the subject, not what its owner is doing; "back" moves a date, it is no subject
    ("Ana's christening is at St Mark's on 3 May.", "Ana's christening got moved to 10 May."),
    ("The school trip is on 12 March.", "They've pushed the school trip back to 19 March."),
    # a new period of the year says when the change came ("new school year"), no other one of a thing (a school's)
    ("Ben's maths teacher is Mrs Rowe.", "New school year, Ben's got Mr Hale for maths."),
    ("Ava's class teacher is Miss Kaur.", "It's a new school year and Ava's got Mr Berry."),
])
def test_a_change_of_round_10s_kinds_replaces(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    """The kinds of misreading round 10 showed (docs/offline.md), in phrasings of their own."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    ("the gardener comes on Mondays", "The gardener is coming Tuesday instead, just this once."),
    ("Der Kurs ist am Montag.", "Ausnahmsweise ist der Kurs am Dienstag."),
    ("Sam's guitar lesson is Tuesdays at 5.", "Ben's guitar lesson is Fridays at 5 now."),
    ("our cat is called Miso", "We adopted a kitten called Tofu."),
    ("Ana's christening is at St Mark's on 3 May.", "Leo's christening got moved to 10 May."),
    ("My favourite podcast is Serial.", "Can't stand The Daily, it's my sister's favourite podcast now."),
    ("The school trip is on 12 March.", "They've pushed the parents' evening back to 19 March."),
    ("Ava's class teacher is Miss Kaur.", "New school year, Ava's school is Hilltop Primary."),
    ("the school year starts on 3 September", "the new school year starts on 4 September"),
])
def test_a_look_alike_of_round_10s_kinds_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str,
                                                         newer: str) -> None:
    assert links_after(store, embedder, older, newer)[2] == {}


@pytest.mark.parametrize("older, newer", [
    # a number right after a noun names which one of a thing ("flat 2", "unit 4"): another number, another one
    ("The tenant in unit 4 is Ms Lowe.", "the tenant in unit 6 is Mr Barr"),
    ("The room 3 radiator is a Stelrad.", "the radiator in room 5 is a Myson"),
    ("Le locataire de l'appartement 2 est M. Durand.", "le locataire de l'appartement 5 est Mme Roux."),
    # one time of a habit, said by when it happened, is that time's, not the habit's new value
    ("I run 5 km every morning.", "this morning I only ran 2 km"),
    ("I sleep 8 hours a night.", "last night I got 5 hours"),
    ("I have lunch at 12:30.", "Sam has lunch at one these days"),  # a time in words, of someone else
    ("Mum is allergic to nuts.", "Mum is allergic to shellfish too"),  # "too" at the end: as well
    ("Our dog is called Biscuit.", "Biscuit is getting old, so we got a puppy called Pip now"),  # a pet is named
    ("My tennis partner is Joe.", "my partner is called Sam now"),  # named, but no tennis partner
    ("Mijn buurman heet Joost.", "mijn zus heet nu Karim"),
    ("The choir leader is Fiona.", "Fiona handed the church keys over to Raj"),
    ("The smoke alarm was tested in May.", "the alarm's set for half six now"),  # an hour is no date
    ("my manager is Priya", "my old manager is now at Google"),  # "old" of the subject itself
])
def test_a_look_alike_of_round_12s_kinds_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str,
                                                         newer: str) -> None:
    """The kinds of wrong replacement round 12 showed (docs/offline.md), in phrasings of their own."""
    assert links_after(store, embedder, older, newer)[2] == {}


@pytest.mark.parametrize("older, newer", [
    ("The tenant in unit 4 is Ms Lowe.", "Ms Lowe moved out, the tenant in unit 4 is Mr Barr now"),
    ("I sleep 8 hours a night.", "I only sleep 6 hours a night now"),
    # "old" said of the value a change sets aside, in a clause of its own, is no other one of the subject
    ("My work mobile is 07700 900456.", "new work mobile: 07700 900999, the old handset is broken"),
    ("My personal email is kim@mailbox.test.", "new personal email is kim.ross@post.test, the old account is shut"),
])
def test_the_same_one_or_the_habit_itself_still_changes(store: Store, embedder: LocalEmbedder, older: str,
                                                        newer: str) -> None:
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    # a time of day said in words is a time, as "5:30" is ("half five", "at one", "quarter past", "dieci e mezza")
    ("I feed the hens at 6am.", "feeding the hens has moved to half seven now the mornings are dark"),
    ("Dinner is at 19:00.", "we have dinner at eight these days"),
    ("Ceno alle 20.", "adesso ceno verso le nove e mezza"),
    # the name of a person who is someone to me is who they are, not a name given to a thing
    ("Mijn buurman heet Joost.", "Joost is verhuisd, mijn nieuwe buurman is Karim"),
    ("Il mio coinquilino si chiama Marco.", "Marco è andato via, il mio nuovo coinquilino ora è Luca"),
    # words of a change for good, with no other word of change
    ("I'm on the early shift, 6 till 2.", "they put me on the late shift permanently, 2 till 10"),
    ("La mia band preferita sono i Måneskin.", "ormai ascolto i Verdena, i Måneskin non li sento più"),
    # "too" before a word says how much, not "as well"
    ("The school run starts at 8:10.", "the school run starts at 7:50 now, 8:10 was too late"),
])
def test_a_change_of_round_12s_kinds_replaces(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    """The kinds of misreading round 12 showed (docs/offline.md), in phrasings of their own."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    # a head and the word before it that together name another thing ("the wifi key" is the wifi password)
    ("the wifi password is Larkspur#88", "we changed the wifi key to Bramble-Cove-51 after the neighbours got in"),
    ("our network key is Heron-Lake-77", "reset the router, the network password is Corvid-Tea-12 now"),
])
def test_a_head_named_with_the_word_before_it_is_that_thing(store: Store, embedder: LocalEmbedder, older: str,
                                                            newer: str) -> None:
    """Seen in tmux: the wifi key changed in new words left the old password current, which then answered."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    ("the spare key is with Mrs Ellis", "we changed the wifi key to Bramble-Cove-51"),
    ("the front door key is under the mat", "the new wifi key is Bramble-Cove-51"),
])
def test_a_key_of_a_door_is_no_wifi_key(store: Store, embedder: LocalEmbedder, older: str, newer: str) -> None:
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {}


@pytest.mark.parametrize("older, newer", [
    # an amount changed with a word of how much, not of change ("cut back to", "down to")
    ("I smoke about ten cigarettes a day", "Cut right back to two cigarettes a day"),
    ("I drink two glasses of milk a day", "Down to half a glass of milk a day"),
    # a taste turned round, with no value the words can hold
    ("I can't stand mushrooms", "funnily enough I love mushrooms now"),
    # a habit said with another verb, the old way named as gone
    ("I take the tram to the office", "I walk to the office these days, no more tram"),
    ("I get the bus to the gym", "I drive to the gym now, gave up on the bus"),
    # the old value corrected in a clause of its own
    ("I'm allergic to cats", "turns out it's dogs I'm allergic to, not cats"),
    # the old one gone in one clause, the new one in the next
    ("My dentist is Dr Reyes", "Dr Reyes has retired, so I'm seeing Dr Okoro now"),
    ("Our window cleaner is Steve", "Steve packed it in, a lad called Joe does the windows now"),
])
def test_a_change_the_hand_readings_doubt_replaces(store: Store, embedder: LocalEmbedder, older: str,
                                                   newer: str) -> None:
    """Where the hand readings doubt (a value of another kind, no value, no word of change they know), the learned
    reading weighs them (memory.change_score): changes in phrasings of their own, none from a round."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {a: b}


@pytest.mark.parametrize("older, newer", [
    # said the same ways, of someone else: another owner, someone of mine doing it
    ("I smoke about ten cigarettes a day", "My brother cut right back to two cigarettes a day"),
    ("I drink two glasses of milk a day", "Mum is down to half a glass of milk a day"),
    ("My piano lessons are on Tuesdays", "My daughter's piano has switched to Fridays"),
    # a plan, a question, another one than the current one, an addition
    ("I take the tram to the office", "we should walk to the office, no more tram"),
    ("I can't stand mushrooms", "should I try mushrooms again?"),
    ("We bank with Barclays", "moved my old savings account over to Starling"),
    ("Our window cleaner is Steve", "Steve is also our gardener now"),
    # something said of the old value alone, and of who someone is to me
    ("My dentist is Dr Reyes", "Dr Reyes is now at the new practice on King Street"),
    ("Bob is my neighbour", "Bob is a pilot now"),
])
def test_a_look_alike_said_those_ways_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str,
                                                       newer: str) -> None:
    """The sure vetoes hold whatever the learned reading scores."""
    a, b, replaced = links_after(store, embedder, older, newer)
    assert replaced == {}


def test_the_learned_reading_is_of_the_features_it_was_fitted_on() -> None:
    """change_score.json was fitted on the features the code computes now, with the embedder the app uses; a bar
    chosen held out (finite: the model does replace)."""
    from memory import change_score

    fitted = change_score.model()
    assert fitted is not None and fitted.model == change_score.MODEL == "minilm-l6-v2-int8"
    assert len(fitted.weights) == len(change_score.FEATURES) and fitted.bar < float("inf")


@pytest.mark.parametrize("older, newer", [
    ("Tom sees Dr Patel", "Tom saw Dr Jones instead of Dr Patel today"),
    ("my hairdresser is Sam at Cutz", "went to Lou instead of Sam today, she was off"),
    ("I swim at the Leisure Centre pool", "swam at the lido today instead of the Leisure Centre"),
])
def test_what_was_done_instead_on_one_day_replaces_nothing(store: Store, embedder: LocalEmbedder, older: str,
                                                            newer: str) -> None:
    """An attacker's finding (issue 42): "instead of" said of one day's event is that day's exception, not a
    change ("today" dates a change only when a change is said: "switched to Dr Jones today")."""
    assert links_after(store, embedder, older, newer)[2] == {}


def test_a_change_said_with_instead_of_and_today_still_replaces(store: Store, embedder: LocalEmbedder) -> None:
    a, b, replaced = links_after(store, embedder, "Tom sees Dr Patel",
                                 "Tom switched to Dr Jones instead of Dr Patel today")
    assert replaced == {a: b}


@pytest.mark.parametrize("text", ["sk_live_abc_123", "deploy_key.v2", 'api "token_x"'])
def test_a_statement_whose_words_are_all_identifiers_is_stored(store: Store, embedder: LocalEmbedder,
                                                               text: str) -> None:
    """Blind round 15: a statement whose only words hold "_" or "." gave the keyword lookup `content:()`, an
    FTS5 syntax error, and `remember` failed."""
    memories.remember(store, "my staging server is called hermes", embedder=embedder)
    stored = memories.remember(store, text, embedder=embedder)
    assert memories.get_memory(store, stored.id).content == text


def test_a_match_expression_quotes_every_word_and_is_none_without_one() -> None:
    from memory.fts import content_match

    assert content_match([]) is None
    assert content_match(["a", "", "a"]) == 'content:("a")'
    assert content_match(['say "hi"', "b"], every=True) == 'content:("say ""hi""" AND "b")'


def test_the_model_is_loaded_before_the_write_lock_is_taken(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attacker's: of fifteen `assistant remember` at once, two to four failed "database is locked": each loaded
    the model inside its write transaction (0.2 s and more), and the last ones waited past the busy timeout."""
    import tempfile

    from memory.search.embeddings import BUNDLED

    fresh = LocalEmbedder(BUNDLED, cache_dir=Path(tempfile.gettempdir()))  # not loaded yet: its first text loads it
    depths: list[int] = []
    load = fresh.load

    def spied_load() -> object:
        depths.append(store._depth)  # how deep in a transaction the store is when the model loads
        return load()

    monkeypatch.setattr(fresh, "load", spied_load)
    old = memories.remember(store, "I'm a structural engineer at Arup", embedder=None)  # something it may replace
    new = memories.remember(store, "I'm now working for Mott MacDonald", embedder=fresh)  # by meaning
    assert depths and depths[0] == 0
    assert links(store) == {old.id: new.id}
