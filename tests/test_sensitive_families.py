"""The families of phrasings blind round 5 (issue 42) found the rules missing, each tested with phrasings
of my own (not the round's): a value is found whole, and a near miss of the same family is left alone.
The words these rules read by are in memory/sensitive/vocabulary/*.toml, not in the code."""
from __future__ import annotations

import pytest

from memory.search.embeddings import LocalEmbedder
from memory.sensitive import find_secrets, is_sensitive, vocabulary


def hidden(text: str) -> list[str]:
    return [span.value(text) for span in find_secrets(text)]


@pytest.mark.parametrize(("text", "value"), [
    # keys of a keypad said around the digits, digits spaced or hyphenated, a keypad sign
    ("to switch the alarm off, press star 4 0 7 2 hash", "4 0 7 2"),
    ("the back gate opens on #5531*", "#5531*"),
    ("the bike shed padlock is 2-8-1", "2-8-1"),
    ("side door keypad: 9 3 3 0 then enter", "9 3 3 0"),
    ("shed lock: 7-7-2-1 then OK", "7-7-2-1"),
    ("the storage locker by the lifts, 3 9 9 1", "3 9 9 1"),
    # verbs of opening in other languages
    ("la porte du garage s'ouvre avec 6620", "6620"),
    ("pour ouvrir le portail il faut taper 4 1 1 9", "4 1 1 9"),
    ("la caja fuerte del hotel abre con 8812", "8812"),
    ("der Spind im Keller geht mit 5-2-7 auf", "5-2-7"),
    ("il lucchetto della bici si apre col 3 3 8", "3 3 8"),
    ("het fietsslot opent met 9-0-4", "9-0-4"),
    ("o cadeado do ginásio abre com 6-1-6", "6-1-6"),
    # a lock set to a combination
    ("set the gym locker to 4-4-0 before you leave", "4-4-0"),
    # misspelt or shortened words for a password
    ("pword for the printer is Orchid!77", "Orchid!77"),
    # a key named after a network
    ("cottage wifi: network Kestrel-5G, key is amber-fox-1187", "amber-fox-1187"),
    ("our network is called BT-HUB-22 and its key is now Zq8rTt2mW5", "Zq8rTt2mW5"),
    ("wifi at the studio is STUDIO-4G and the password is on the fridge magnet: KX7QT2WB", "KX7QT2WB"),
    # a value corrected or changed in the same sentence: the current one is a secret too
    ("my old door code was 5511 but now it's 9034", "9034"),
    ("the alarm code isn't 0000 as I said, it's 7305", "7305"),
    ("gate PIN changed from 2219 to 6047 last week", "6047"),
    ("ancien mot de passe Soleil2020, le nouveau c'est Lune2025!", "Lune2025!"),
    ("el PIN del móvil ya no es 3311, ahora es 9042", "9042"),
    ("die alte Geheimzahl war 2204, jetzt ist es 6619", "6619"),
    # a value given after a short clause and a sign
    ("Dad's debit card PIN, if he asks again: 8 8 1 4", "8 8 1 4"),
    ("the locker at the pool, the code I use: 2468", "2468"),
    ("the cabin wifi passphrase is on the back of the router: owl-lantern-58", "owl-lantern-58"),
    # the answer to a security question
    ("name of my first school, for the security questions: Ashgrove", "Ashgrove"),
    ("security question 'favourite film' -> Amelie", "Amelie"),
    ("mother's maiden name for the card questions = Kowalczyk", "Kowalczyk"),
    ("question secrète (ville de naissance) : Valence", "Valence"),
    ("pregunta de seguridad, mi primer coche: Seat", "Seat"),
    ("Sicherheitsfrage Geburtsort: Bremen", "Bremen"),
    # a code of a thing, with a word before its name, and a letter before spaced digits
    ("code for my aunt's storage unit is 5 0 2 2", "5 0 2 2"),
    ("Code d'accès résidence Marie : A 4 4 0 2", "A 4 4 0 2"),
    # number words in other languages
    ("le code de la porte c'est quatre-vingt-trois douze", "quatre-vingt-trois douze"),
    ("le code de l'immeuble c'est trois deux un neuf", "trois deux un neuf"),
    # values alone on their lines under a title of codes
    ("dropbox recovery codes\n5521 0098\n7714 3302", "7714 3302"),
    # the turns of a dial
    ("the gun safe in the cellar: 22 right, 9 left, 31 right", "22 right, 9 left, 31 right"),
    # a word for a password misspelt by one letter
    ("pssword for the tablet: Heron#2291", "Heron#2291"),
    ("the wifi passowrd is bramble-cat-12", "bramble-cat-12"),
    # national ids said with what they are for, and a Brazilian CPF
    ("DNI para el hotel: 73293425S", "73293425S"),
    ("o meu CPF: 905.491.905-11", "905.491.905-11"),
    # a passphrase of words, some of them short
    ("the backup passphrase is walk in the park 77", "walk in the park 77"),
    # digits keyed after a verb of opening, digits before the thing they open, an alarm reset
    ("disarm with 5 5 0 1 before the beeping stops", "5 5 0 1"),
    ("it's six two two nine for the side gate", "six two two nine"),
    ("the burglar alarm got reset to 7481 yesterday", "7481"),
    # an account, who uses it, then a user and a password
    ("Spotify for the whole family: fam@example.org / Tempo!Beat5", "Tempo!Beat5"),
])
def test_a_value_of_each_family_is_found_whole(text: str, value: str) -> None:
    assert is_sensitive(text)
    spans = find_secrets(text)
    start = text.index(value)
    assert any(s.start <= start and start + len(value) <= s.end for s in spans), (text, hidden(text))


@pytest.mark.parametrize("text", [
    "the gate opens at 7am and closes at 10pm",
    "the garage is 6 metres wide",
    "the safe in the office weighs 120 kg",
    "set the oven to 180 for 20 minutes",
    "the alarm is set to 0630 tomorrow",
    "our network is called BT-HUB-22 and the key to the shed is under the mat",
    "the key is in the drawer by the door",
    "password reset emails come from no-reply@example.com",
    "my old phone number was 555 0101 but now it's 555 0199",
    "the security question asks for the name of your first pet",
    "I should change my security questions soon",
    "the code of conduct is 12 pages long",
    "the zip code for the new office is 94107",
    "the course code is 40212, room 3",
    "la porte du garage s'ouvre à 8 h",
    "the building opens on 3 June",
    "the recovery codes are in the blue folder",
    "turn 2 left at the lights, then 3 right",
    "the alarm got reset to 0715 for the early flight",
    "it's 3 stops for the gate at the airport",
    "my passport expires in 2031",
])
def test_near_misses_of_those_families_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


# An attack on this build (issue 42) sent these to a model unmasked through `assistant remember` and chat: a
# value said without a word the detector knew. Each family with the attacker's phrasing and phrasings of our
# own; the words are in the data files (premises, cards), the shapes where their rule lives.
@pytest.mark.parametrize(("text", "value"), [
    # getting into a home or a building with digits (vocabulary: premises)
    ("we now get in the house with 5812", "5812"),
    ("you get into the flat with 0 4 4 9", "0 4 4 9"),
    ("to get into the building you punch in 3371", "3371"),
    ("para entrar en la casa marca 6230", "6230"),
    # digits said to be what one uses for a card: its PIN (vocabulary: cards)
    ("I use 7731 for my debit card", "7731"),
    ("we use 4 4 0 2 for the credit card", "4 4 0 2"),
    ("it's 0815 for the bank card.", "0815"),
    # a passphrase of words right after its keyword, to the end of its clause (keywords.py, where a value
    # right after its keyword is read)
    ("passphrase purple monkey dishwasher", "purple monkey dishwasher"),
    ("vault passphrase lemon otter quietly sings", "lemon otter quietly sings"),
    ("new passphrase cobalt walrus tango, don't lose it", "cobalt walrus tango"),
    # a user and a password after an account whose password holds an @ (not an e-mail address: no domain)
    ("wifi: HomeNet / Bl4ckC@t", "Bl4ckC@t"),
    ("netflix: joe / Movie@n1ght", "Movie@n1ght"),
])
def test_a_value_of_this_builds_attack_is_found_whole(text: str, value: str) -> None:
    assert is_sensitive(text)
    spans = find_secrets(text)
    start = text.index(value)
    assert any(s.start <= start and start + len(value) <= s.end for s in spans), (text, hidden(text))


@pytest.mark.parametrize("text", [
    "we get into the house with 2 kids and a dog",
    "you get in the flat with the key under the mat",
    "we moved into the house in 2019",
    "I used 1500 points on my credit card",
    "the credit card has a 2000 limit",
    "I use my debit card for 1 or 2 things",
    "passphrase strength matters",
    "the passphrase strength meter turned red",
    "the passphrase prompt keeps popping up on my laptop",
    "a passphrase is easier to remember than a password",
    "use a passphrase instead of a password",
    "support: help@acme.com / weekdays",
])
def test_near_misses_of_this_builds_attack_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


@pytest.mark.parametrize("text", [
    # an MCP result lists memories and messages, one a line: a keyword ending its line is no label of the
    # next line, which starts with a dash
    "- memory #3 (note, Nov 22 14:00, hot): ask the landlord for the door code\n- message #1 (Nov 22 14:00, "
    "hot): hello",
    "- #4 note: change the wifi password\n- #3 note: ask the landlord",
    # a question that ends in a keyword and its question mark: what follows is no value unless it looks like one
    "what is the door code? I forgot it again",
    "what's my wifi password? Tom asked",
    "what is the door code? (asked yesterday)",
    "  > the user asked what the door code is? (asked yesterday)",
    # what was asked, quoted: no answer to a security question
    "The user asked: what's my wifi password? And what is the door code?",
    "question: what's my wifi password",
])
def test_question_text_and_result_lines_are_no_values(text: str) -> None:
    """A tester's find: MCP results masked words of questions ("what's my wifi password? [secret]") and of the
    line after a keyword ("- [secret in recall result] (note, ...)"), though they held no value."""
    assert find_secrets(text) == [], hidden(text)


@pytest.mark.parametrize(("text", "value"), [
    ("what's the door code? 4471", "4471"),
    ("my password? Qx7-hunter22", "Qx7-hunter22"),
    ("what's the wifi password? it's swordfish", "swordfish"),
    ("the router admin password? it's Zebra-Crossing-7", "Zebra-Crossing-7"),
    ("PIN - 4471", "4471"),
])
def test_a_value_after_a_question_mark_or_a_dash_is_still_found(text: str, value: str) -> None:
    assert value in hidden(text)


def test_the_words_are_read_from_the_data_files_beside_the_code() -> None:
    assert (vocabulary.FOLDER / "en.toml").is_file()
    assert "password" in vocabulary.words("triggers")
    assert "contraseñas?" in vocabulary.entries("strong")
    assert "quarante" in vocabulary.words("number_words")


def test_a_long_token_after_a_keyword_is_read_in_one_pass() -> None:
    """find_secrets("the code is " + 24,000 letters) took 10 s of CPU (a pattern that needed a digit later
    tried every start of the token again); benchmarks/bench_sensitive.py times it, this says it ends and
    finds nothing."""
    assert find_secrets("the code is " + "a" * 24_000) == []
    assert hidden("the password is " + "a" * 30_000 + " and the PIN is 4471")[-1] == "4471"


def test_a_long_paste_is_read_around_what_may_be_a_secret_and_misses_none_of_these() -> None:
    """A text over windows.LONG characters is read in windows around the words and shapes a secret hangs
    on (memory/sensitive/windows.py): each of these secrets, put in the middle of a megabyte of prose,
    is found as it is found alone (benchmarks/bench_sensitive.py times it)."""
    from memory.sensitive import windows

    prose = "We walked along the river and talked about the weather, 3 kids and 12 apples.\n" * 6_500
    for secret, value in (("the wifi password is hunter2-Blue", "hunter2-Blue"),
                          ("card 4111 1111 1111 1111", "4111 1111 1111 1111"),
                          ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx01", "sk-proj-abcdefghijklmnopqrstuvwx01"),
                          ("the pаssword is Qx7-hunter22", "Qx7-hunter22"),  # a Cyrillic а
                          ("P4SS: Shout!Caps8", "Shout!Caps8"),
                          ("the bike shed padlock is 2-8-1", "2-8-1"),
                          ("| site | password |\n|---|---|\n| bank | T4ble!Pw |", "T4ble!Pw")):
        text = prose + "\n" + secret + "\n\n" + prose
        assert len(text) > windows.LONG
        found = [s.value(text) for s in find_secrets(text)]
        assert value in found, (secret, found)
    assert find_secrets(prose * 2) == []


@pytest.mark.parametrize("name", ["secrets_blind5.jsonl", "secrets_blind6.jsonl", "secrets_families6.jsonl",
                                  "secrets_blind8.jsonl", "secrets_blind10.jsonl", "secrets_blind11.jsonl",
                                  "secrets_blind12.jsonl", "secrets_blind13.jsonl"])
def test_the_blind_rounds_and_their_families_meet_the_targets_now(name: str) -> None:
    """Rounds 5 and 6 (tests/data/secrets_blind5.jsonl, secrets_blind6.jsonl) as they stand after the fixes
    their first sight led to (round 5: 0.690 text recall, 0.675 span recall; round 6: 0.868 and 0.837 with
    the classifier, the rules alone 0.815), our own phrasings of round 6's miss families, and round 8 after its
    kinds were fixed (cold: 0.953 and 0.931 with the classifier, the rules alone 0.912), by the rules alone: a
    guard against going back, no longer a cold figure (docs/secrets.md). Round 10 after its kinds were fixed too
    (cold: 0.949 and 0.898 with the classifier), round 12 after its kinds (cold: 0.932 and 0.916 with the
    classifier), round 11 after its kinds (cold: 0.960 and 0.964 with the classifier) and round 13 after its kinds
    (cold: 0.986 and 0.956 with the classifier; after: 0.993 and 0.994 by the rules alone); round 9, after its
    kinds, held 0.984 of its texts but 0.966 of its values whole by the rules alone, and is not here."""
    import json
    from pathlib import Path

    rows = [r for r in (json.loads(line) for line in (Path(__file__).parent / "data" / name)
                        .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#"))
            if "text" in r]
    secrets = [r for r in rows if r["secret"]]
    near = [r for r in rows if not r["secret"]]
    assert sum(is_sensitive(r["text"]) for r in secrets) / len(secrets) >= 0.97
    assert sum(is_sensitive(r["text"]) for r in near) / len(near) <= 0.05
    values = [(r["text"], v) for r in secrets for v in r["values"]]
    hidden_whole = sum(any(s.start <= r.find(v) and r.find(v) + len(v) <= s.end for s in find_secrets(r))
                       for r, v in values)
    assert hidden_whole / len(values) >= 0.97


def test_a_described_cvv_and_a_security_answer_are_found_in_the_middle_of_a_long_paste() -> None:
    """Both are read only around their words in a long text (the question word, the word of the back):
    found there as alone, and digits running on past the stretch read are no CVV."""
    prose = "We walked along the river and talked about the weather, 3 kids and 12 apples.\n" * 2_000
    for secret, value in (("the three digits on the back are 044", "044"),
                          ("les 3 chiffres à l'arrière de ma carte sont 552", "552"),
                          ("If they ask which street I grew up on, I put Maple Crescent", "Maple Crescent"),
                          ("Bei der Sicherheitsfrage nach dem Lieblingslehrer habe ich Frau Keller angegeben",
                           "Frau Keller")):
        assert hidden(secret) == [value]
        assert value in hidden(prose + secret + "\n" + prose), secret
    assert hidden("the three digits on the back are" + " " * 108 + "0441234567") == []
    assert hidden("the three digits on the back are 044 and the security numbers are 123") == ["044", "123"]


def test_a_question_word_of_the_vocabulary_that_spans_words_is_looked_for_over_the_text() -> None:
    """A one-word entry is looked for only as a word the text holds; an entry that may span words (none
    today) cannot be, and is read over the whole text."""
    from memory.sensitive import keywords

    one_word = keywords._ONE_WORD_ENTRY
    for entry in ("questions?", "[^\\W\\d_]*frage[n]?", "chied(?:e|ono)", "domand[ae]"):
        assert one_word.fullmatch(entry), entry
    for entry in ("security\\s+question", "what was", "pregunta de seguridad", "sicherheits-frage", "q\\W"):
        assert not one_word.fullmatch(entry), entry
    assert set(keywords._question_phrases()) == {e for e in vocabulary.entries("question_words")
                                                 if not one_word.fullmatch(e)}


# Blind round 8's kinds of miss (issue 42), each in phrasings of our own, not the round's; the words are the data
# files' (answer_keywords, answer_copulas, negations, no_longer, affirmations, combination_words, code_titles, placed).
@pytest.mark.parametrize(("text", "value"), [
    # a security question abbreviated, and its answer after "=", "was" or a verb of naming, in seven languages
    ("mum's maiden name (for the card security Q) was Kowalski", "Kowalski"),
    ("Sec Q for the pension portal: first car = Fiat Panda", "Fiat Panda"),
    ("domanda di sicurezza: il mio primo gatto si chiamava Micio", "Micio"),
    ("Sicherheitsfrage: mein erster Hund hieß Bello", "Bello"),
    ("question secrète : mon premier chien s'appelait Rex", "Rex"),
    ("pregunta de seguridad: mi primera mascota se llamaba Toby", "Toby"),
    ("the answer to 'first street I lived on' is Elm Road, not where I live now", "Elm Road"),
    # a value after an arrow or a sign, following what is said of it after a keyword
    ("bank password: the old one with 2025 instead of 2024 -> Harbour2025#", "Harbour2025#"),
    ("the network key is printed under the modem: X9QF2KD7WM", "X9QF2KD7WM"),
    ("alarm PIN ⇒ 7302", "7302"),
    ("back gate → 5150", "5150"),
    # a network said to be a value shaped as a password with a sign in it
    ("the guest wifi's Pelican#2024 these days", "Pelican#2024"),
    ("la red de casa es ahora Tortuga!88", "Tortuga!88"),
    # a keypad code with # and *, after a keyword and the name of what it opens
    ("Garagencode Seitentür 7#1#4#4", "7#1#4#4"),
    ("digicode résidence 4B702", "4B702"),
    ("side gate: 3#8#8#1", "3#8#8#1"),
    ("to get in, press 6 * 0 * 2 * 7 on the door keypad", "6 * 0 * 2 * 7"),
    # digits after what they open, and words after them
    ("pin for the debit card 5093 dont lose it", "5093"),
    # a value denied, then the one that holds, in every language
    ("the garage code isn't 1111 any more, it's 8530", "8530"),
    ("la clave del wifi ya no es Perro2020, es Gato2024!", "Gato2024!"),
    ("Tresor: nicht 4455, sondern 9120", "9120"),
    ("il codice del cancello non è 1234, è 7781", "7781"),
    ("le code de l'alarme n'est plus 2580, c'est 6613", "6613"),
    ("de code van de kluis is niet 3030 maar 8142", "8142"),
    ("o código do portão não é 0000, é 4927", "4927"),
    ("it's not 7070 for the shed padlock but 7007", "7007"),
    # a compound or misspelt keyword
    ("BitLocker-Schlüssel: 482911-310277-665104", "482911-310277-665104"),
    ("het wifiwachtwoord is Molen!88", "Molen!88"),
    ("Routerpasswort: Zebra#41", "Zebra#41"),
    ("pinnumber for the savings card 6048", "6048"),
    ("motdepasse de la box : Grenat!52", "Grenat!52"),
    # codes of letters and digits listed under a title
    ("Backupcodes Google:\n- 4k9d-2mxq\n- 7tz1-88hp", "4k9d-2mxq"),
    ("codici di recupero:\n- a7k2-99qz\n- m3x8-14rt", "a7k2-99qz"),
    # a dial's turns before their numbers
    ("the gym locker combination: right 8, left 27, right 3", "right 8, left 27, right 3"),
    ("Tresor im Büro: links 14, rechts 3, links 22", "links 14, rechts 3, links 22"),
    ("bike lock: turn right to 9, left to 31, right to 4", "right to 9, left to 31, right to 4"),
    # the question asked with its question mark, then its answer named
    ("domanda segreta del conto: nome della nonna? risposta: Ada", "Ada"),
    ("Sicherheitsfrage: Lieblingsessen? Antwort: Spätzle", "Spätzle"),
])
def test_a_value_of_round_eights_kinds_is_found_whole(text: str, value: str) -> None:
    assert is_sensitive(text)
    spans = find_secrets(text)
    start = text.index(value)
    assert any(s.start <= start and start + len(value) <= s.end for s in spans), (text, hidden(text))


@pytest.mark.parametrize("text", [
    "parking: level 3, bay 117",
    "the security questions were about my first dog",
    "security Qs are a weak way to recover an account",
    "my phone number isn't 555 0101 any more, it's 555 0199",
    "the zip code isn't 94107, it's 94103",
    "the door number isn't 221, it's 223",
    "the alarm isn't loud anymore, it's 2024 after all",
    "der Flug ist nicht LH1234, sondern LH1236",
    "the order is not 100234, it's 100243",
    "the price is not 1500, it's 1200 euros",
    "it's not 1500 for the flight but 1700",
    "the alarm clock is not 0630 but 0645",
    "Tor: nicht B12, sondern B14",
    "el pedido no es 4471, es 4417",
    "turn 2 left at the lights, then 3 right",
    "the combination of left 2 and right 3 lanes",
    "at the garage turn left to 32nd street, then right",
    "the security question asks what my first pet was? no idea",
    "error codes:\n- E404\n- E500",
    "the pin for the 2024 tax return",
    "pin code expires 2027",
    "passphrase entropy calculator tool",
    "password: see the note -> it's on the fridge",
    "het wachtwoordbeleid is streng",
    "the wifi is HomeNet5G on the second floor",
    "the network name is BT#Hub5",
    "le nom du réseau est Box#55",
    "London → Paris at 10:40",
    "la red es lenta, 5 Mbps",
    "der Passwortmanager ist gut",
])
def test_near_misses_of_round_eights_kinds_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


@pytest.mark.parametrize(("text", "values"), [
    ("the garage code is 6021, that's six oh two one", ["6021", "six oh two one"]),
    ("PIN 8834 for the new card. Again: 8 8 3 4", ["8834", "8 8 3 4"]),
    ("le code du portail est 4172, quatre un sept deux", ["4172", "quatre un sept deux"]),
])
def test_a_secret_said_again_in_other_spacing_or_in_words_is_the_same_secret(text: str, values: list[str]) -> None:
    """SPEC F14: a restatement of a secret value is a secret (blind round 9, measured cold, sent "four four
    one seven" after "the lockbox code is 4417")."""
    assert hidden(text) == values


def test_the_same_digits_as_a_secret_are_not_a_secret_when_they_are_other_digits() -> None:
    assert hidden("the door code is 6021 and the flat is number 602, floor 1") == ["6021"]


# Blind round 9's kinds of miss (issue 42), each in phrasings of our own, not the round's; the words are the data
# files' (seed_names, ...).
@pytest.mark.parametrize(("text", "value"), [
    # a wallet's phrase after its name, 12 or 24 plain words, whatever list they are from
    ("my ledger recovery phrase: pencil cobalt meadow ample drift lantern quartz velvet hollow ember saddle mint",
     "pencil cobalt meadow ample drift lantern quartz velvet hollow ember saddle mint"),
    ("mnemonic is river stone apple ample cloud fern maple otter pine quill robin sage and keep it offline",
     "river stone apple ample cloud fern maple otter pine quill robin sage"),
    ("Seed-Phrase: Apfel Birne Kirsche Traube Zitrone Mango Melone Pfirsich Pflaume Rosine Nuss Feige",
     "Apfel Birne Kirsche Traube Zitrone Mango Melone Pfirsich Pflaume Rosine Nuss Feige"),
    ("la frase semilla es perro gato casa mesa silla ventana puerta techo suelo pared libro lapiz",
     "perro gato casa mesa silla ventana puerta techo suelo pared libro lapiz"),
    # a quoted value after a network and a copula
    ("the cabin wifi is 'pinecone' btw", "pinecone"),
    ("office guest network is “visitor2026” this week", "visitor2026"),
    ("le wifi invités est « tournesol »", "tournesol"),
    # a question of the kind banks ask, labelled, then its answer labelled, with no word for security
    ("Q: what street did you grow up on\nA: Larch Avenue", "Larch Avenue"),
    ("Q: mother's maiden name? A: Pryce", "Pryce"),
    ("Pregunta: ¿nombre de tu primera mascota?\nRespuesta: Lola", "Lola"),
    # a named id whose name was not among the words the named ids are read after, or with its abbreviation after it
    ("Self assessment UTR 1955839661 - due 31 Jan", "1955839661"),
    ("my unique taxpayer reference (UTR): 5038277146", "5038277146"),
    ("PPS number (PPSN) 1234567T", "1234567T"),
    # a lock set to its digits, the verb first
    ("we reset the bike lock to 4412 yesterday", "4412"),
    ("set the padlock on the shed to 0917", "0917"),
    ("j'ai réglé le coffre sur 7391", "7391"),
    # the next values of a list of the same kind, and a number that logs in beside a password
    ("card PINs: 4417 for the Visa, 8830 for the Amex", "8830"),
    ("the PIN for the joint account is 2291, and 7731 for mine", "7731"),
    ("Google recovery codes 55102983 / 44720916 / 93018274", "93018274"),
    ("Google recovery codes 55102983 / 44720916 / 93018274", "44720916"),
    ("pension portal: member number 7710293, password Heron!77", "7710293"),
    ("Kundennummer 4471023, PIN 5521", "4471023"),
])
def test_a_value_of_round_nines_kinds_is_found_whole(text: str, value: str) -> None:
    assert is_sensitive(text)
    spans = find_secrets(text)
    start = text.index(value)
    assert any(s.start <= start and start + len(value) <= s.end for s in spans), (text, hidden(text))


@pytest.mark.parametrize("text", [
    "the seed phrase is written on a card in the safe at home in the box under my bed next to the old photos",
    "a recovery phrase is usually twelve or twenty four words long and you should never type it into a website",
    "mnemonic devices help kids remember the order of the planets in the solar system every single year",
    "the wifi is 'broken' again",
    "the hotel wifi is \"free\" they said",
    "the wifi is \"really slow today\"",
    "our network is called 'treehouse'",
    "the wifi is 'HomeNet' on the second floor",
    "Q: when is the meeting?\nA: Tuesday",
    "Q: when is the meeting? A: Tuesday at ten",
    "Q: which street is the new office on?\nA: Baker Street",
    "Q: who was the first teacher at the new school?\nA: Mrs Hale",
    "Q: what was the name of your first pet?\nA: no idea, I never had one",
    "the UTR field on the form is blank",
    "unique taxpayer reference (UTR) is 10 digits long",
    "HMRC helpline (UK) 0300 200 3310",
    "set the oven to 180",
    "set the alarm clock to 6:30",
    "set the alarm clock to 0630",
    "set the thermostat to 2150",
    "set the lock screen timeout to 300 seconds",
    "I set the safe mode to 1080p",
    "customer number 88120436 for the gas bill",
    "the kids' locker numbers are 114 and 115",
    "rooms 214 and 215 are ours",
    "call 555 0101 or 555 0102 after six",
    "order numbers 100234, 100243 and 100250 shipped",
    "the tickets were 45, 60 and 75 euros",
])
def test_near_misses_of_round_nines_kinds_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


@pytest.mark.parametrize(("text", "values"), [
    ("the door code is 4471, 2 flights up", ["4471"]),
    ("the gate code is 4471, 1990 was the year we moved", ["4471"]),
    ("PIN 4471, 5000 steps a day keeps me fit", ["4471"]),
    ("the alarm code is 2580, room 214 is mine", ["2580"]),
])
def test_digits_beside_a_secret_are_no_secret_unless_they_are_the_next_of_its_list(text: str,
                                                                                   values: list[str]) -> None:
    assert hidden(text) == values




@pytest.mark.parametrize(("text", "asked"), [
    ("the kids' locker numbers are 114 and 115", False),
    ("door number 221, second floor", False),
    ("locker number 114, combination in the app", True),
    # blind round 18: what is public of a key (its fingerprint, its id, the public key) is no cue
    ("My PGP key fingerprint is 7A3F 91C2 0B6D E448 25F1  9C07 D3A8 61E2 4B90 5F17", False),
    ("my ssh public key ends in 9C07D3A8", False),
])
def test_a_thing_named_by_its_number_is_no_cue_for_the_classifier(text: str, asked: bool) -> None:
    """Blind round 9: the classifier flagged "the kids' locker numbers are 114 and 115"; a locker's number
    says which locker, and the classifier is not asked unless another word a secret hangs on is there."""
    from memory.sensitive import needs_opinion

    assert needs_opinion(text) is asked


# Blind round 10's kinds (issue 42), each with phrasings of our own and near misses said the same ways; the words
# are the data files' (affirmations, former, id_endings, ended_ids, locks, places).
@pytest.mark.parametrize(("text", "values"), [
    # a few words said of a code between it and its copula, digits after
    ("the gate code since the landlord came is 7720", ["7720"]),
    ("the PIN the bank posted me was 3 3 0 9, write it down", ["3 3 0 9"]),
    # a lock placed twice, then set by a verb with a pronoun
    ("the locker in the changing room at the pool - I set it to 2291", ["2291"]),
    ("het hangslot van de schuur bij oma: 5-5-0", ["5-5-0"]),
    ("Nummernschloss vom Spind: 8-1-4", ["8-1-4"]),
    ("het codeslot van de garage: 3-3-1-9", ["3-3-1-9"]),
    # the last digits of a card or an id, said as such
    ("the last four digits of my social security number are 6620", ["6620"]),
    ("the Amex we cancelled ended in 8042, the new Visa 4552", ["8042"]),
    ("ma carte bleue se termine par 3317", ["3317"]),
    ("la tarjeta vieja terminaba en 9021", ["9021"]),
    # a value denied then given, the new one said with "now"
    ("the garage keypad isn't 4410 anymore, it's now 7316", ["4410", "7316"]),
    ("Alarmanlage: nicht mehr 2468, ist jetzt 9753", ["2468", "9753"]),
    # the value it replaced, said beside the new one
    ("shed padlock: 4-4-1-9 (the old one, 2-2-0-8, is void)", ["4-4-1-9", "2-2-0-8"]),
    ("el código del garaje es 5510, el anterior era 3302", ["5510", "3302"]),
    # an id after its name in its own groups, the name joined by "c'est"
    ("son numéro de sécurité sociale c'est 2 93 11 44 021 587 12", ["2 93 11 44 021 587 12"]),
    # a value spelt a character at a time, then said whole
    ("locker pin is 8 eight 1 one, I mean 8811", ["8 eight 1 one", "8811"]),
    ("le code du portail est 4 7 2 B, donc 472B", ["4 7 2 B", "472B"]),
    ("memorable word is Larkspur, yes Larkspur", ["Larkspur", "Larkspur"]),
    # a thing that opens said to be four digits or more
    ("the key safe is 3391 and the garage is 7702, see you Friday", ["3391", "7702"]),
    ("la cassaforte è 6402", ["6402"]),
    # a password's label on the line after a network's name ending in a word that makes a pass a ticket
    ("SSID: Cabin-Guest\nPass: moss-harbour-42", ["moss-harbour-42"]),
    # a two-factor backup said without "codes"
    ("github 2fa backup: 8j2k-44pq, 0zz1-93mw, 7tt4-51ab", ["8j2k-44pq", "0zz1-93mw", "7tt4-51ab"]),
    # the other logins of a list whose first value is found
    ("my logins:\n* bank: Osprey#4471\n* council tax site: Moor!Fen22\n* gym app: 6029",
     ["Osprey#4471", "Moor!Fen22", "6029"]),
])
def test_a_value_of_round_tens_kinds_is_found_whole(text: str, values: list[str]) -> None:
    assert is_sensitive(text)
    assert hidden(text) == values


@pytest.mark.parametrize("text", [
    "the gate code review we held last spring was 2 hours long",
    "the combination lock I ordered was 14.99 on sale",
    "the door code change happened in 2024",
    "my flight number ends in 2045",
    "the bus route ends in 4410 at the depot",
    "the card game ended in 2019 after six rounds",
    "the last four digits of my card are printed on the receipt",
    "the bus is no longer 5, it's now 12",
    "the door isn't 221 anymore, it's now 223",
    "the old one was better than the new one, 1998 was a good year",
    "numéro de sécurité sociale : à demander à la mairie",
    "shopping list:\n- milk: 2\n- eggs: 12\n- rice: 1 kg",
    "spelling it out: B as in bravo, A as in alpha",
    "the garage is 2206 Main Street",
    "the flat is 2204 square feet",
    "the alarm is 1998 vintage",
    "guest pass 2291 for the conference",
    "mfa backup is enabled on 2 accounts",
])
def test_near_misses_of_round_tens_kinds_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


def test_a_list_of_names_and_values_beside_a_secret_keeps_its_ordinary_values() -> None:
    """The other lines of a list beside a password are secrets only when their values look like one: a count,
    a year or a word is left."""
    text = "notes:\n- bank: Osprey#4471\n- dentist: Tuesday\n- kids: 2\n- moved in: 2019\n- gym app: 6029"
    assert hidden(text) == ["Osprey#4471", "6029"]


@pytest.mark.parametrize("text, values", [
    ("Shopping list:\n- milk: 2\n- bread: 1 loaf\n- password for wifi: Falcon#2291\n- order: 48211734",
     ["Falcon#2291"]),
    ("Budget:\n- rent: 1200\n- car: 340\n- phone: 25\n- netflix password: Heron!Mist4", ["Heron!Mist4"]),
    ("Schedule\n- Mon: 0900\n- Tue: 1030\n- wifi: guest1234!", ["guest1234!"]),
    ("Packing list\n- tickets: 2\n- flight: 0715\n- wifi password: Heron!Mist4", ["Heron!Mist4"]),
])
def test_digits_in_a_list_beside_one_password_are_no_login_unless_their_name_is_one(text: str,
                                                                                    values: list[str]) -> None:
    """A rent, a time, an order number in a list that holds one password: four digits are a login's only
    when their line names something logged in to ("gym app", "pharmacy app"), or the list holds other
    passwords (a list of logins)."""
    assert hidden(text) == values


@pytest.mark.parametrize("text", [
    "My alarm is 0630.",
    "The alarm is 0545, the kids get up at 7.",
    "the garage is 0800 and the gym is 0900",
])
def test_a_thing_that_opens_said_to_be_a_time_of_day_is_no_code(text: str) -> None:
    """A 24-hour time is written with its leading zero: an alarm or a garage "is 0630" at that time. A lock
    has no time: "the padlock is 0630" stays its combination."""
    assert not is_sensitive(text), hidden(text)


def test_a_lock_said_to_be_digits_like_a_time_is_its_combination() -> None:
    assert hidden("the padlock on the shed is 0630.") == ["0630"]


@pytest.mark.parametrize("text", [
    "The tracking number on my account ends in 4471.",
    "Which visa do I need? The application number ends in 3321.",
    "the order number ending in 5520 was charged to my credit card",
])
def test_the_end_of_another_number_beside_a_card_or_an_account_is_no_secret(text: str) -> None:
    """A tracking, an application or an order number said with its last digits is not the card or the id the
    sentence names too: the digits end the number named with them."""
    assert not is_sensitive(text), hidden(text)


@pytest.mark.parametrize("text, values", [
    ("my card number ends in 4471, the tracking number is 12", ["4471"]),
    ("the last 4 of my account number are 7381", ["7381"]),
])
def test_the_end_of_a_card_or_an_account_number_is_its_secret(text: str, values: list[str]) -> None:
    assert hidden(text) == values


def test_the_end_of_a_card_number_named_after_its_number_word_is_its_secret() -> None:
    assert hidden("el número de la tarjeta termina en 4471") == ["4471"]


def test_every_login_of_a_long_paste_said_again_in_other_spacing_is_masked() -> None:
    """Each value of a paste of many logins, said again spaced out, is the same secret (one pass over the text
    for them all: benchmarks/bench_sensitive.py measures the paste of a thousand)."""
    lines = [f"password: Heron!Mist{i}x, again H-e-r-o-n-!-M-i-s-t-{i}-x" for i in range(300)]
    spans = find_secrets("\n".join(lines))
    assert len(spans) == 600


# Blind round 12's kinds (issue 42), each with phrasings of our own and near misses said the same ways; the words
# are the data files' (former, value_sources, code_qualifiers, code_objects, cards, of, prepositions, then,
# answer_labels) and numbers.py's tables of ids.
@pytest.mark.parametrize(("text", "values"), [
    # an identity document's number in groups of digits, or one the tables did not name
    ("her passport no. is 4471 20936, expires next May", ["4471 20936"]),
    ("Ausweisnummer T22000129 für die Anmeldung", ["T22000129"]),
    ("TFN 865 414 088 for the payroll form", ["865 414 088"]),
    # whose id it is, between its name and its value
    ("codice fiscale di mio padre BNCGVN60A01F205X", ["BNCGVN60A01F205X"]),
    ("numéro de sécu de mon fils : 1 12 04 69 001 117 55", ["1 12 04 69 001 117 55"]),
    # a bank account said in short
    ("pay the deposit to acc. no 20419377, Barclays", ["20419377"]),
    # a security question asked, then its answer's label without a sign
    ("security question name of my first teacher answer Mrs Cole", ["Mrs Cole"]),
    ("question secrète ville de naissance de ma mère réponse Tulle", ["Tulle"]),
    # a code of the yard it opens
    ("the code for the yard behind the shop is 2580, ask facilities if it fails", ["2580"]),
    # a place said at length after the code, digits after, then how they are keyed
    ("keypad code at the bin store beside the car park 71 93 then press the green tick", ["71 93"]),
    # whose place it is said with "chez"
    ("digicode chez Mamie c'est le 4B217", ["4B217"]),
    # a few words of whose network, then a key in a key's shape
    ("WIFI KEY GRANNY ANNEX 7HQ2-PL39-WW8C", ["7HQ2-PL39-WW8C"]),
    # the wrong value a correction sets beside the right one
    ("my mistake, the padlock is 3-8-1 not 3-1-8", ["3-8-1", "3-1-8"]),
    ("Korrektur: der Code vom Tresor ist 7302, nicht 7203", ["7302", "7203"]),
    # a bare code beside a card named in the sentence
    ("la carte finit par 7731 et son code c'est 0492", ["7731", "0492"]),
    # what the digits are taken from, said before them
    ("the pin is my old mobile number's last four 5530", ["5530"]),
    # the same code as another thing's, said with "as", the digits after a comma
    ("same pin as the gym card, 5117", ["5117"]),
    # a memorable date or place asked by a bank
    ("my memorable place for the bank is Whitby", ["Whitby"]),
    # a wallet's phrase given after a first try corrected on the same line, and a name for it in the singular
    ("seed phrase: oak fern moss ... sorry, in full: "
     "maple ladder quiz orbit shell vivid canoe ramp jewel fossil elbow husky",
     ["oak fern moss", "maple ladder quiz orbit shell vivid canoe ramp jewel fossil elbow husky"]),
    ("frase semilla: kiwi tango bravo delta fanta lima oscar papa romeo sierra ultra zulu",
     ["kiwi tango bravo delta fanta lima oscar papa romeo sierra ultra zulu"]),
])
def test_a_value_of_round_twelves_kinds_is_found_whole(text: str, values: list[str]) -> None:
    assert is_sensitive(text)
    assert hidden(text) == values


@pytest.mark.parametrize("text", [
    "my passport is in the drawer with 2 old ones",
    "passport renewal costs 75 pounds",
    "codice fiscale di mia madre: lo trovi sulla tessera",
    "the account of my trip is 12 pages long",
    "the security question asks for an answer in capitals",
    "the plant room is 25 square metres",
    "the room code of conduct was updated in 2023",
    "the room code for the exam is 3011",
    "room code B204 on the timetable",
    "the office code was updated in 2023",
    "the bin store beside the car park is open 7 to 9 then closed",
    "chez Mamie c'est le 14 juillet qu'on fait la fête",
    "WIFI IS DOWN IN THE GRANNY ANNEX AGAIN",
    "the bus is the 38 not the 83",
    "la carte du restaurant a changé, le code vestimentaire c'est chic",
    "my mobile number changed in 2022",
    "same pin as the gym card, I think",
    "the memorable date of the trip was the wedding",
    "seed phrase: kept offline, see notes: we walked to the river and then had lunch at the pub by the old bridge",
])
def test_near_misses_of_round_twelves_kinds_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


@pytest.mark.parametrize(("text", "asked"), [
    ("GUID 3c5e7a90-1b2d-4f6a-9c8e-7d6b5a4f3e21 showed up in the login logs", False),
    ("commit 8e2f41c9ab fixed the login page", False),
    ("the NAS login uses 8e2f41c9ab these days", True),
])
def test_a_value_named_as_an_identifier_is_no_cue_for_the_classifier(text: str, asked: bool) -> None:
    """Retrained with round 12, the classifier flagged "UUID ... in the logs" of rounds 1-4: a value named as a
    UUID, a commit or a hash says what it is, and the classifier is not asked about it (data files'
    identifiers)."""
    from memory.sensitive import needs_opinion

    assert needs_opinion(text) is asked


# Blind round 11's kinds (issue 42), each with phrasings of our own and near misses said the same ways; the words
# are the data files' (places, locks, code_objects, prepositions, digits_of, network_words, answer_topics,
# answer_contexts) and numbers.py's tables of ids.
@pytest.mark.parametrize(("text", "values"), [
    # a thing that opens, placed, its digits after a sign, then the sentence goes on after a full stop or a dash
    ("the key box by the holiday cottage: 5521. the owner changes it monthly", ["5521"]),
    ("Padlock on the allotment shed: 3 8 1 — Jim has the spare key", ["3 8 1"]),
    ("Schlüsselkasten am Ferienhaus: 4 4 1 9. Die Putzfrau kennt ihn auch", ["4 4 1 9"]),
    # a user and a password after what they log into, said with a word or two ("admin page", "web console")
    ("Printer admin page: admin / Pr1nt#er77. it resets if you unplug it", ["Pr1nt#er77"]),
    ("the NAS web console: root / Tb9!kLm2x - set up last week", ["Tb9!kLm2x"]),
    ("the router's admin page is admin / Xk7#pQ2m", ["Xk7#pQ2m"]),
    ("the lockbox by the bins: 4417 (the cleaner knows)", ["4417"]),
    # a network where it is, then said to be a quoted value
    ("the wifi at my sister's new place is 'marmalade-sky' fyi", ["marmalade-sky"]),
    ('the wlan in the holiday flat in Porto is "sardinhas2024"', ["sardinhas2024"]),
    ("das WLAN in der Ferienwohnung ist 'sonnenblume77'", ["sonnenblume77"]),
    ("the wifi at the B&B: 'heather-moor-11'", ["heather-moor-11"]),
    ("la wifi del hotel en Madrid es 'paella-valencia'", ["paella-valencia"]),
    # a building's way in said to be digits keyed
    ("the main entry is 4 4 0 2 then the key symbol", ["4 4 0 2"]),
    ("side entry: 7-7-3-1, the front one is broken", ["7-7-3-1"]),
    # a key box, placed, in other languages
    ("de code van het sleutelkastje op de camping is 2 2 4 7", ["2 2 4 7"]),
    ("el código de la caja de llaves del apartamento es 6 1 1 4", ["6 1 1 4"]),
    ("la combinazione della cassetta delle chiavi al mare è 3 0 9 2", ["3 0 9 2"]),
    # some digits of a thing that opens, said one by one
    ("the last three digits of the safe are 5, 0 and 2", ["5, 0 and 2"]),
    ("the first two numbers of the padlock are 3 and 7, the last one I forgot", ["3 and 7"]),
    ("die ersten zwei Ziffern vom Tresor sind 6 und 1", ["6 und 1"]),
    ("los dos primeros números del candado son 8 y 5", ["8 y 5"]),
    ("the last two of the padlock are 7 and 3", ["7 and 3"]),
    ("the first two numbers of the combination are 4 and 9", ["4 and 9"]),
    ("the first three digits of the code on the gym locker are 4, 4 and 0", ["4, 4 and 0"]),
    # a security question written as the question, its answer given after it, where it is asked said
    ("Name of your first pet? -> I wrote 'Biscuit' on the bank form", ["Biscuit"]),
    ("What street did you grow up on? I said Elm Road for the insurance login", ["Elm Road"]),
    ("What's your favourite film? I typed Alien into the recovery page", ["Alien"]),
    ("Mother's maiden name? -> Kowalski, for the bank", ["Kowalski"]),
    ("What was your first car? Fiat Panda — that's for the insurance website", ["Fiat Panda"]),
    ("Where were you born? Paris (for the banking app)", ["Paris"]),
    ("¿En qué ciudad naciste? -> puse 'Sevilla' en la web del banco", ["Sevilla"]),
    ("Wo bist du geboren? -> Ich habe 'Kassel' bei der Bank angegeben", ["Kassel"]),
    ("Come si chiamava il tuo primo cane? -> ho messo 'Fido' per la banca", ["Fido"]),
    ("Hoe heette je eerste huisdier? -> ik vul 'Snuf' in bij de bank", ["Snuf"]),
    # an aside in brackets between an id's name and its value
    ("my TFN (the one from when I lived in Sydney) is 392 118 406", ["392 118 406"]),
    ("numéro de sécu (celui de la carte vitale) : 2 85 11 69 123 045 77", ["2 85 11 69 123 045 77"]),
    ("my TFN, for the old super account, is 483 172 965", ["483 172 965"]),
    ("tax file number - the Australian one - is 865 414 089", ["865 414 089"]),
])
def test_a_value_of_round_elevens_kinds_is_found_whole(text: str, values: list[str]) -> None:
    assert is_sensitive(text)
    assert hidden(text) == values


@pytest.mark.parametrize("text", [
    "the garage at the rental flat: 3 cars. we share it with the neighbours",
    "Padlock on the allotment shed: rusty — Jim will replace it",
    "Printer admin page: admin / user roles. it resets if you unplug it",
    "the admin page: 24 / 7 support. call them",
    "the wifi at the hotel was 'terrible' all week",
    "the wifi at my sister's new place is 'amazing' apparently",
    "the main entry is 4 metres wide then the ramp",
    "the entry fee is 1 2 0 0 yen",
    "diary entry: 1973",
    "de code van het sleutelkastje op de camping is veranderd in 2023",
    "the first two digits of the postcode are 9 and 4",
    "the first two digits of the year are 1 and 9",
    "the last two of the gate were 1 and 2 in the photo",
    "the first two of the doors are 1 and 2 metres wide",
    "What city were you born in? I said Cork, and the barman laughed",
    "Name of your first pet? -> a quiz question from the pub on Friday",
    "What city were you born in? the bank asked and I forgot",
    "Which street is the new bank on? -> Baker Street",
    "What was your first car? A Fiat, like everyone's in the bank's car park",
    "What's your favourite film? The bank asked that, can you believe it",
    "What street did you grow up on? Elm Road. The weather was awful there",
    "the wifi in the library is 'eduroam' as usual",
    "the network at uni: 'eduroam'",
    "my TFN (the one from when I lived in Sydney) is in the blue folder",
    "my SSN, which I never share, is in the drawer",
    "the router's admin page is admin / settings",
    "the combination of flour and Bob's yeast is 2 to 1",
    "my passwords are 60% reused according to the audit",
    "my PINs are 100% memorised now",
])
def test_near_misses_of_round_elevens_kinds_are_left_alone(text: str) -> None:
    assert not is_sensitive(text), hidden(text)


# Blind round 13's kinds (issue 42), each in other words than the round's.
@pytest.mark.parametrize(("text", "values"), [
    # another code after one found in its line, set apart, whatever is said between them
    ("gym app PIN 448201, the debit card PIN is not the same (5190)", ["448201", "5190"]),
    ("the side gate code went from 7730 to 3377 (it was 7730 until May)", ["7730", "3377", "7730"]),
    ("PIN is two eight two eight? no, that's the old one. two eight eight two",
     ["two eight two eight", "two eight eight two"]),
    # joined by a word that gives another code (an attacker's): a correction, an alternative, a backup
    ("alarm code 9114, no wait 9141", ["9114", "9141"]),
    ("the alarm code is 9114 (or 9141 if that fails)", ["9114", "9141"]),
    ("gate code 9114, spare 3307", ["9114", "3307"]),
    ("Alarmcode 9114, nein warte 9141", ["9114", "9141"]),
    # a joining word counts after a sign only, and a number with a day is a time (the second attacker's)
    ("alarm code 4821, a total of 1500", ["4821"]),
    ("PIN 4821, o 1530 é a hora", ["4821"]),
    ("alarm code 4821, or 1530 tomorrow", ["4821"]),
    ("PIN 4821. Also 1250 was the price", ["4821"]),
    # and not a number before it, nor a count, a time or a place said by its number
    ("my locker is 118, its code 6620", ["6620"]),
    ("door code 4417, flat 305, meet at 1530, 5000 steps", ["4417"]),
])
def test_other_codes_after_a_code_in_its_line_are_secrets(text: str, values: list[str]) -> None:
    assert hidden(text) == values


def test_a_card_number_followed_by_its_expiry_is_a_card_with_no_card_word() -> None:
    assert hidden("4929181318151121 11/29 402") == ["4929181318151121", "11/29", "402"]
    assert not is_sensitive("order 4929181318151121 shipped 11/29")  # no expiry right after it: an order's number


@pytest.mark.parametrize("text", ["Order 4519961983914549 03/12 delivered", "IMEI 356938035643809 01/25",
                                  "Tracking 4519961983914549 12/06 out for delivery",
                                  "4519961983914549 03/12/2026 delivered",
                                  "Delivery 4519961983914549 12/06 100 parcels",
                                  "4519961983914549 03/12 120 boxes", "490154203237518 01/25 128 GB",
                                  "4519961983914549 03/12 2024"])
def test_a_number_with_a_date_that_is_not_laid_out_as_a_card_is_no_card(text: str) -> None:
    # An attacker's: an order's, a parcel's or a phone's number (every IMEI passes Luhn) followed by a date.
    assert not is_sensitive(text)


@pytest.mark.parametrize("text", ["5187065247069005 läuft ab 03/30 Prüfziffer 737",
                                  "Tarjeta 5187065247069005 caduca 03/30 CVV 737",
                                  "card 5187065247069005 (03/30) cvv 737"])
def test_a_cards_expiry_said_in_other_words_and_languages_is_masked_with_it(text: str) -> None:
    # An attacker's: the expiry after "läuft ab", "caduca" or in brackets went to the model in clear.
    assert hidden(text) == ["5187065247069005", "03/30", "737"]


@pytest.mark.parametrize(("text", "values"), [("1. 5358712044198635 03/30 737", ["5358712044198635", "03/30", "737"]),
                                              ("a) 5358712044198635 03/30 737", ["5358712044198635", "03/30", "737"]),
                                              ("4111111111111111 12/27", ["4111111111111111", "12/27"])])
def test_a_card_laid_out_in_a_list_or_without_its_cvv_is_a_card(text: str, values: list[str]) -> None:
    assert hidden(text) == values




@pytest.mark.parametrize(("text", "value"), [
    ("my seed phrase starts: orbit canvas lemon", "orbit canvas lemon"),
    ("phrase de récupération, les quatre premiers : abaisser abandon abdiquer abeille",
     "abaisser abandon abdiquer abeille"),
    ("frase semilla, las primeras cuatro: ábaco abdomen abeja abierto", "ábaco abdomen abeja abierto"),
    ("wallet words are in the safe, but the last three are: ribbon tiger glance", "ribbon tiger glance"),
])
def test_some_words_of_a_wallet_phrase_after_its_name_are_a_part_of_it(text: str, value: str) -> None:
    assert hidden(text) == [value]


@pytest.mark.parametrize("text", ["my seed phrase is in the safe at home",
                                  "recovery phrase: written on paper, top drawer",
                                  # an attacker's: every word of it on the English list, but no part of a phrase
                                  "Seed phrase tips: never share online, always verify address",
                                  "Podcast about seed phrase security: great episode, very useful"])
def test_a_wallet_phrase_named_with_no_words_of_it_is_no_secret(text: str) -> None:
    assert not is_sensitive(text)


def test_the_answer_given_to_a_security_question_is_taken_over_what_the_question_asks() -> None:
    assert hidden("security question at the building society is mother's maiden name and I put Okafor") == ["Okafor"]


@pytest.mark.parametrize(("text", "value"), [
    ("the code for the bike cage is 4K9P", "4K9P"),  # a short code of letters and digits, for a store room
    ("wifi password 'Heronsgate'", "Heronsgate"),  # the value quoted right after its keyword
    ("memorable info 'Marmalade'", "Marmalade"),
    ("dörrkoden är 7741", "7741"),  # a door's code in one Swedish word
    ("the key cupboard opens with 2718", "2718"),
    ("the alarm panel at the surgery is 5120 then the hash key", "5120"),  # the key pressed after it
    ("the house alarm is 2580 then press off", "2580"),
    ("p1n f0r th3 s4f3 1s 5150", "5150"),  # an attacker's: the words between keyword and value in leetspeak too
    ("the s@fe c0mb0 is 47-12-88", "47-12-88"), ("c0d3 f0r th3 g4t3: 4412", "4412"),  # a re-check's
    ("tax gateway id 554433221100, password Orchid!Bay7", "554433221100"),  # the number that signs in
    ("bank login:\nclient number 55102938\npasscode 881204", "55102938"),  # ... in the lines of its login
])
def test_round_fifteens_kinds_are_found(text: str, value: str) -> None:
    """Blind round 15's kinds of miss, in our own words (tests/data/secrets_blind15.jsonl is the round), and an
    attacker's of the same session."""
    assert any(value in s.value(text) for s in find_secrets(text))


@pytest.mark.parametrize("text", [
    "the cupboard under the stairs is 2 metres wide", "the alarm is 0630 then the snooze button",
    "customer number 40918273\n\nthe shop closes at 6 and the passcode is 662019",
])
def test_beside_round_fifteens_kinds_nothing_else_is_taken(text: str) -> None:
    assert not any(s.value(text) in ("2", "0630", "40918273") for s in find_secrets(text))


@pytest.mark.parametrize("name", [
    "secrets_blind15.jsonl",  # texts found 0.976, near misses flagged 0.017 after its kinds were fixed (first sight
    # 0.943 / 0.017 at 6b0e31d)
    "secrets_blind16.jsonl",  # 0.974 / 0.034 after its kinds were fixed (first sight 0.923 / 0.034 at 6e720ae)
    "secrets_blind17.jsonl",  # 1.000 / 0.034 after its kinds were fixed (first sight 0.941 / 0.034 at 876d184)
    "secrets_blind18.jsonl",  # 1.000 / 0.000 after its kinds were fixed (first sight 0.976 / 0.033 at 788756f)
])
def test_the_latest_rounds_with_the_classifier(embedder: LocalEmbedder, name: str) -> None:
    """A blind round as a memory is judged (the rules, then the classifier's opinion where it counts)."""
    import json
    from pathlib import Path

    from memory.sensitive import meaning, needs_opinion

    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / name)
            .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
    vectors = embedder.embed([r["text"] for r in rows])
    judged = [is_sensitive(r["text"]) or needs_opinion(r["text"]) and meaning.flags(v)
              for r, v in zip(rows, vectors, strict=True)]
    secrets = [j for r, j in zip(rows, judged, strict=True) if r["secret"]]
    near = [j for r, j in zip(rows, judged, strict=True) if not r["secret"]]
    assert sum(secrets) / len(secrets) >= 0.97
    assert sum(near) / len(near) <= 0.05
