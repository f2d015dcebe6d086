"""No secret in the app's own words, and none at an exit (issue 42 items 5 and 6, SPEC F14):

- the classifier's verdict (memory/sensitive/meaning.py) is taken when a memory's embedding is computed,
  and asked at an exit for a text not embedded yet: a value the rules miss leaves by its id;
- a stored answer holds "[secret 1 of memory #12]" where the live answer showed the value, and the
  value comes back on the person's own screen when asked (reveal);
- the Markdown export, `export --ics`, MCP and conversation titles hold no secret value, of any length;
  the JSON Lines export stays the lossless backup;
- a memory's earlier texts follow its mask on the Memories screen (issue 46 item 11);
- a restatement of a secret value is a secret.
Through the real store, the real bundled embedder, the real CLI in a subprocess and the SDK's MCP client.
"""
from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from assistant.outbound.gate import Gate
from assistant.services import MemoryService
from memory import episodes, memories, reminders, secrets
from memory.search.embeddings import LocalEmbedder, sync_embeddings
from memory.sensitive import is_sensitive, withhold_fragments
from memory.store import Store
from tests.conftest import make_runtime
from tests.mcp_helpers import ASSISTANT, call, server, server_env, session

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Said without a word the rules read as a secret; the classifier reads them as one (scores 0.86 and 0.90).
UNRULED = "for the bike shed it's 7294 these days"
ALSO_UNRULED = "alarm 4471 now"
NEAR_MISS = "the gate closes at 2200"


class OtherEmbedder:
    """Another model's vectors: the classifier's weights mean nothing to them."""

    name = "some-other-model"

    def dimension(self) -> int:
        return 384

    def embed(self, texts: list[str]) -> NDArray[Any]:
        vectors: NDArray[Any] = np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)
        return vectors


def test_a_memory_the_rules_miss_is_marked_sensitive_when_its_embedding_is_computed(
        store: Store, embedder: LocalEmbedder) -> None:
    flagged = memories.remember(store, UNRULED, embedder=None)
    ordinary = memories.remember(store, NEAR_MISS, embedder=None)
    assert not flagged.sensitive  # written without an embedder: no verdict by meaning before the embedding
    sync_embeddings(store, embedder)
    assert memories.get_memory(store, flagged.id).sensitive
    assert not memories.get_memory(store, ordinary.id).sensitive


def test_a_memory_the_rules_miss_is_marked_sensitive_as_it_is_written(store: Store, embedder: LocalEmbedder) -> None:
    """An attacker's "boat shed: kiwiBird55kiwi" went out whole in a chat turn before its vector was stored:
    written with an embedder, the classifier's verdict is taken at once."""
    assert memories.remember(store, UNRULED, embedder=embedder).sensitive
    assert not memories.remember(store, NEAR_MISS, embedder=embedder).sensitive


def test_another_models_vectors_give_no_verdict(store: Store) -> None:
    memory = memories.remember(store, UNRULED, embedder=OtherEmbedder())
    sync_embeddings(store, OtherEmbedder())
    assert not memories.get_memory(store, memory.id).sensitive  # the rules alone decide


def test_a_memory_not_embedded_yet_already_leaves_by_its_id(store: Store, embedder: LocalEmbedder) -> None:
    memory = memories.remember(store, UNRULED, embedder=None)
    gate = Gate(store, "what about the bike shed?", embedder=embedder)
    assert gate.memory(memory) == f"[secret in memory #{memory.id}]"
    assert gate.memory(memories.remember(store, NEAR_MISS)) == NEAR_MISS


def test_a_message_the_classifier_flags_has_its_value_numbered_and_restored_for_a_tool(
        store: Store, embedder: LocalEmbedder) -> None:
    gate = Gate(store, ALSO_UNRULED, embedder=embedder)
    sent = gate.user_message(ALSO_UNRULED)
    assert "4471" not in sent and "[secret 1 of your message]" in sent
    assert gate.restore(sent) == ALSO_UNRULED
    assert gate.user_message(NEAR_MISS) == NEAR_MISS


def test_a_whole_token_of_a_secret_value_goes_whatever_its_length() -> None:
    assert withhold_fragments("it ends in 71, not 715", ["71"]) == "it ends in [secret withheld], not 715"
    assert withhold_fragments("From memory: 7719 (older: 5582)", ["7719", "5582"]) == \
        "From memory: [secret withheld] (older: [secret withheld])"


def test_a_short_value_is_never_found_across_a_line_break_or_a_bracket() -> None:
    # A tester's: the garage code's "ends in 71" ate "7)\n- #1" of a stored list (a date and the next line's number)
    listed = "- #4 [forgotten] (fact, Mon Dec 7)\n- #1 the door code downstairs"
    assert withhold_fragments(listed, ["71"]) == listed
    assert withhold_fragments("PIN 44 71, ok", ["4471"]) == "PIN [secret withheld], ok"


def test_the_apps_own_placeholders_and_dates_are_never_taken_for_a_value() -> None:
    # An attacker's: "secret" and "code" taken for values ate the placeholders ("[[secret withheld] memory #37]")
    text = "Remembered #37: [secret in memory #37], said [Mon Dec 7]; the code is 4471"
    assert withhold_fragments(text, ["secret", "Dec", "4471"]) == \
        "Remembered #37: [secret in memory #37], said [Mon Dec 7]; the code is [secret withheld]"


def test_a_restatement_of_a_secret_value_is_a_secret(store: Store) -> None:
    assert memories.remember(store, "the gate code is 7719").sensitive
    restated = memories.remember(store, "since Monday it's 7719 at the back")
    assert restated.sensitive
    # Another value is no restatement ("since Monday it's 7720 at the back" would be a change of the code,
    # which inherits the mark: memory/replacing.py).
    assert not memories.remember(store, "the 7720 bus stops at the back").sensitive


def test_a_new_value_of_a_secret_memorys_subject_inherits_its_mark(store: Store) -> None:
    older = memories.remember(store, "the bike shed is 7294", sensitive=True)  # marked by its writer
    assert not is_sensitive("the bike shed is 8812 now")  # the rules alone would not mark it
    newer = memories.remember(store, "the bike shed is 8812 now")
    assert store.one("SELECT superseded_by FROM memory_meta WHERE memory_id = ?", (older.id,))[0] == newer.id
    assert newer.sensitive


# An attack on this build sent these to the model in clear, through `assistant remember` and chat.
ATTACK = [("we now get in the house with 5812", "5812"), ("I use 7731 for my debit card", "7731"),
          ("passphrase purple monkey dishwasher", "purple monkey dishwasher"), ("wifi: HomeNet / Bl4ckC@t", "Bl4ckC@t")]


@pytest.mark.parametrize(("said", "value"), ATTACK)
def test_the_attacks_values_leave_the_gate_as_placeholders_and_are_stored_as_secrets(
        store: Store, said: str, value: str) -> None:
    gate = Gate(store, said)
    sent = gate.user_message(said)
    assert value not in sent and "[secret 1 of your message]" in sent
    assert gate.restore(sent) == said
    assert memories.remember(store, said, embedder=None).sensitive


def test_a_new_value_for_a_secret_said_without_naming_it_is_masked_and_inherits_the_mark(
        store: Store, embedder: LocalEmbedder) -> None:
    """The attack's "since Monday it's 7720 at the back": no word of it names a secret, but the store holds "the
    back door code is 4411", whose subject it names by the qualifier alone (memory.subjects.anchored). The gate
    masks the new value in the message (memory.replacing.renews_a_secret); written, it replaces the code and
    inherits its mark."""
    older = memories.remember(store, "the back door code is 4411", embedder=embedder)
    said = "since Monday it's 7720 at the back"
    for message in (said, f"remember that {said}"):
        sent = Gate(store, message, embedder=embedder).user_message(message)
        assert "7720" not in sent and "[secret 1 of your message]" in sent
    for other in ("the 7720 bus stops at the back", "I'll be back at 1730"):  # about something else: as it is
        assert Gate(store, other, embedder=embedder).user_message(other) == other
    newer = memories.remember(store, said, embedder=embedder)
    assert newer.sensitive
    assert store.one("SELECT superseded_by FROM memory_meta WHERE memory_id = ?", (older.id,))[0] == newer.id


def test_a_value_at_the_back_replaces_no_secret_of_another_subject(store: Store, embedder: LocalEmbedder) -> None:
    """The front door's code is another subject: nothing is replaced, and nothing says 7720 is a secret."""
    older = memories.remember(store, "the front door code is 2291", embedder=embedder)
    said = "since Monday it's 7720 at the back"
    assert Gate(store, said, embedder=embedder).user_message(said) == said
    assert not memories.remember(store, said, embedder=embedder).sensitive
    assert store.one("SELECT superseded_by FROM memory_meta WHERE memory_id = ?", (older.id,))[0] is None


def test_a_stored_answer_holds_placeholders_and_reveal_puts_the_values_back(store: Store) -> None:
    older = memories.remember(store, "the gate code is 5582")
    newer = memories.remember(store, "the gate code is 7719")
    said = episodes.add_message(store, episodes.open_episode(store).id, "user", "my bike lock is 3-9-2, keep it")
    live = "From memory: the gate code is 7719 (older: 5582); your bike lock is 3-9-2."
    stored = episodes.add_answer(store, said.episode_id, live)
    assert stored.content == (f"From memory: the gate code is [secret 1 of memory #{newer.id}] "
                              f"(older: [secret 1 of memory #{older.id}]); your bike lock is "
                              f"[secret 1 of message #{said.id}].")
    assert secrets.reveal(store, stored.content) == live
    memories.forget(store, newer.id)  # forgotten: its placeholder stays a placeholder
    assert f"[secret 1 of memory #{newer.id}]" in secrets.reveal(store, stored.content)


def test_titles_and_summaries_hold_no_secret_value(store: Store) -> None:
    memories.remember(store, "the gate code is 7719")
    episode = episodes.open_episode(store)
    closed = episodes.close_episode(store, episode.id, "Gate 7719", "We said the gate code, 7719.", "success")
    assert "7719" not in (closed.title or "") and "7719" not in (closed.summary or "")


def test_earlier_texts_follow_the_memorys_mask_on_its_screen(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path)
    try:
        memory = memories.remember(runtime.store, "the gate changed, it's 7719 now")
        reminders.update_memory(runtime.store, memory.id, content="the gate code is 7719")
        detail = MemoryService(runtime).detail(memory.id)
        assert detail.sensitive and "7719" not in detail.text
        assert [e.content for e in detail.history] == ["the gate changed, it's 7719 now"]
        assert "7719" not in detail.history[0].text
    finally:
        runtime.close()


# -- through the real CLI and the SDK's MCP client ---------------------------------------------------------

def run_cli(db: str, *args: str, embedder: str = "none") -> subprocess.CompletedProcess[str]:
    env = server_env(ASSISTANT_DB=db, ASSISTANT_PROVIDER="offline", ASSISTANT_EMBEDDING_MODEL=embedder)
    return subprocess.run([str(ASSISTANT), *args], env={**env, "ASSISTANT_CONFIG": str(Path(db).with_suffix(".toml"))},
                          capture_output=True, text=True, timeout=120, check=False)


def texts_under(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
async def test_no_secret_value_in_a_stored_answer_the_exports_or_mcp(tmp_path: Path) -> None:
    """Issue 42 item 5: "From memory: ... 7719 (older: 5582)" was kept as the answer's text, so both codes
    went to the Markdown export and to another AI tool through MCP's recall."""
    db = str(tmp_path / "m.db")
    Path(db).with_suffix(".toml").write_text("")
    assert run_cli(db, "remember", "the gate code is 5582").returncode == 0
    assert run_cli(db, "remember", "the gate code is 7719").returncode == 0
    assert run_cli(db, "remember", "ring the locksmith about the gate, the code is 7719",
                   "--due", "2026-11-23T09:00:00Z").returncode == 0
    chat = run_cli(db, "chat", "what's the gate code?")
    assert chat.returncode == 0 and "7719" in chat.stdout  # the live answer shows the value to the person
    with sqlite3.connect(db) as conn:
        stored = [r[0] for r in conn.execute("SELECT content FROM messages WHERE role = 'assistant'")]
    assert stored and not any("7719" in s or "5582" in s for s in stored)
    assert any("[secret 1 of memory #" in s for s in stored)

    assert run_cli(db, "export", str(tmp_path / "md"), "--markdown").returncode == 0
    exported = texts_under(tmp_path / "md")
    assert "[secret" in exported and "7719" not in exported and "5582" not in exported
    ics = run_cli(db, "export", "--ics", "-")
    assert ics.returncode == 0 and "BEGIN:VEVENT" in ics.stdout and "7719" not in ics.stdout
    backup = run_cli(db, "export", str(tmp_path / "all.jsonl"))
    assert backup.returncode == 0 and "7719" in (tmp_path / "all.jsonl").read_text()  # the lossless backup

    async with session(server(db)) as s:
        said = [await call(s, "recall", query=query, mode="exhaustive", limit=30)
                for query in ("what's the gate code?", "gate", "From memory")]
        said.append(await call(s, "recall_recent", hours=72))
    assert not any("7719" in t or "5582" in t for t in said), said


QUESTIONS = ("what is the door code? I forgot it again", "what's my wifi password? Tom asked",
             "The user asked: what's my wifi password? And what is the door code?",
             "ask the landlord for the door code", "change the wifi password")


async def test_mcp_masks_the_values_never_the_words_of_a_question(tmp_path: Path) -> None:
    """A tester's find: MCP results masked the words of questions they quoted ("what's my wifi password?
    [secret in message #2]") and the line after one ending in a keyword ("- [secret in recall result] (note,
    ...)"), and the summary was stored so ("The user asked: [secret] password?"); only values go."""
    runtime = make_runtime(tmp_path)
    try:
        store = runtime.store
        for text in ("the door code for the Lisbon flat is 4471", "the wifi password is swordfish-42", *QUESTIONS[3:]):
            memories.remember(store, text)
        episode = episodes.open_episode(store)
        for text in QUESTIONS[:2]:
            episodes.add_message(store, episode.id, "user", text)
        episodes.close_episode(store, episode.id, "Door code and wifi", QUESTIONS[2], "success")
    finally:
        runtime.close()
    async with session(server(str(tmp_path / "m.db"))) as s:
        said = [await call(s, "recall", query=query, mode="exhaustive", limit=30)
                for query in ("what is the door code?", "what's my wifi password?")]
        said.append(await call(s, "recap", period="48h"))
    everything = "\n".join(said)
    assert "4471" not in everything and "swordfish" not in everything
    assert "[secret in memory #1]" in everything and "[secret in memory #2]" in everything
    for text in QUESTIONS:
        assert text in everything, (text, everything)
    assert "result]" not in everything and "[secret]" not in everything and "[secret in message" not in everything


@pytest.mark.slow
def test_a_value_only_the_classifier_sees_stays_out_of_the_markdown_export(tmp_path: Path) -> None:
    """Judged at the exit, before the background embedding did: the export embeds what it must."""
    db = str(tmp_path / "m.db")
    Path(db).with_suffix(".toml").write_text("")
    assert run_cli(db, "remember", UNRULED, embedder="bundled").returncode == 0
    assert run_cli(db, "export", str(tmp_path / "md"), "--markdown", embedder="bundled").returncode == 0
    exported = texts_under(tmp_path / "md")
    assert "bike shed" in exported and "7294" not in exported



def test_an_answer_quoting_a_secret_said_elsewhere_is_stored_without_it(store: Store) -> None:
    """A tester's find: an offline answer quoted 'the front door code is 7392', said as a plain statement in an
    earlier conversation (no memory, no message of this one), and the JSON Lines export kept 7392 in it."""
    from memory.secrets import masked_answer

    stored = masked_answer(store, None, "From memory (you said Sun Dec 6): the front door code is 7392")
    assert "7392" not in stored and stored.endswith("the front door code is [secret]")
    assert masked_answer(store, None, "Your flight is BA2490 at 10:40.") == "Your flight is BA2490 at 10:40."


def test_an_answer_repeating_a_value_said_in_an_earlier_conversation_is_stored_without_it(store: Store) -> None:
    """An attacker's: "also 2207 for the porch" (no keyword) after "the porch key safe is 2207 then push down" in
    the conversation before; a model's answer echoing it was stored with 2207, and MCP listed it."""
    from memory import episodes
    from memory.secrets import masked_answer

    earlier = episodes.open_episode(store)
    said = episodes.add_message(store, earlier.id, "user", "the porch key safe is 2207 then push down")
    episodes.close_episode(store, earlier.id, "Porch", "", "success")
    now = episodes.open_episode(store)
    stored = masked_answer(store, now.id, "You said: also 2207 for the porch")
    assert stored == f"You said: also [secret 1 of message #{said.id}] for the porch"


def test_a_value_said_the_conversation_before_leaves_no_exit_in_a_later_message(store: Store) -> None:
    """A re-check's: "also 2207 for the porch" (no keyword) after "the porch key safe is 2207 then push down" the
    conversation before went whole into the Markdown export's message lines and MCP's recap."""
    from assistant.outbound.gate import Gate
    from memory import episodes
    from memory.transfer.exits import Exit

    earlier = episodes.open_episode(store)
    episodes.add_message(store, earlier.id, "user", "the porch key safe is 2207 then push down")
    episodes.close_episode(store, earlier.id, "Porch", "", "success")
    now = episodes.open_episode(store)
    said = episodes.add_message(store, now.id, "user", "also 2207 for the porch")
    assert Exit(store).message(said.id, said.content) == "also [secret] for the porch"  # exports, CalDAV
    assert "2207" not in Gate(store, "recap").fragments(said.content)  # MCP's answers, any request's last step


def test_a_correction_said_in_the_next_message_leaves_no_exit(store: Store) -> None:
    """An attacker's: "no wait, 3-1-5" after "the locker combo is 3-1-4" was masked for the model in its own turn,
    but whole in the Markdown export, MCP's recall_recent and a recall_recent tool result; "sorry, not 6612, it is
    6613" went out with the old value masked and the new one in clear."""
    from assistant.outbound.gate import Gate
    from memory import episodes
    from memory.transfer.exits import Exit

    now = episodes.open_episode(store)
    episodes.add_message(store, now.id, "user", "the locker combo is 3-1-4")
    again = episodes.add_message(store, now.id, "user", "no wait, 3-1-5")
    episodes.add_message(store, now.id, "user", "the code for the garage keypad is 6612, remember it")
    fixed = episodes.add_message(store, now.id, "user", "sorry, not 6612, it is 6613")
    exit_ = Exit(store)
    assert exit_.message(again.id, again.content) == "no wait, [secret]"  # exports, CalDAV
    assert exit_.message(fixed.id, fixed.content) == "sorry, not [secret], it is [secret]"
    listing = "> the locker combo is [secret in message #1]\n  > no wait, 3-1-5\n  > meet at 1530 by the gate"
    sent = Gate(store, "recap").text(listing, "recall_recent result")  # MCP's answers, a tool result to a model
    assert "3-1-5" not in sent and "meet at 1530 by the gate" in sent


def test_a_title_ending_in_a_keyword_takes_no_tag_for_its_value() -> None:
    """An attacker's: a conversation titled "Locker combo" ended the memory context, and the detector took the
    "</memory_context>" below it for the code: the prompt's own tags went out as "[secret withheld]"."""
    from memory.sensitive import find_secrets

    assert find_secrets("## Recent Conversations\n- [Dec 07 09:49] Locker combo\n</memory_context>") == []
    assert [s.value("wifi password\nHeron-42\n") for s in find_secrets("wifi password\nHeron-42\n")] == ["Heron-42"]


def test_a_conversations_title_and_summary_hold_no_value_the_classifier_or_another_message_gives(
        tmp_path: Path) -> None:
    """A re-check found "for the garden shed it's 6183 these days" (the classifier's, masked in its own turn) as the
    conversation's title and summary, sent in every later prompt and listed by MCP; and "is 7351 still right?"
    after "my bank PIN is 7351" as a title."""
    from assistant.responders.offline import OfflineResponder
    from assistant.turn.agent import Agent

    rt = make_runtime(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled")
    try:
        agent = Agent(rt, OfflineResponder(rt))
        for said in (UNRULED, "my bank PIN is 7351", "is 7351 still right?", "7294 or 7351, I never know"):
            episode = episodes.active_episode(rt.store) or episodes.open_episode(rt.store)
            episodes.add_message(rt.store, episode.id, "user", said)
            episodes.add_message(rt.store, episode.id, "assistant", "Noted.")
        closed = agent.close_episode()
        assert closed is not None
        kept = f"{closed.title} {closed.summary}"
        assert "7294" not in kept and "7351" not in kept and "bike shed" in kept, kept
    finally:
        rt.close()


@pytest.mark.parametrize("said, restated", [
    ("doch 5512", True), ("make it 5512", True), ("I meant 5512!", True), ("they reset it to 5512", True),
    ("no it's 5512 lol", True), ("nein, doch 5512", True), ("no wait, 5512", True), ("no wait 5–5–1–2", True),
    ("meet at 1530", False), ("room 5512 is free", False), ("I have 5512 steps today", False),
    ("- [Dec 07 10:15] Safe code", False),  # a listing's header after the code: no correction of it
])
def test_a_correction_in_other_words_is_a_secret_and_a_listing_is_not(said: str, restated: bool) -> None:
    """A re-check's: "doch 5512", "make it 5512", "I meant 5512!" after "the safe code is 5521" went whole to every
    exit, and "[Dec 07 10:15]" in a recall_recent listing after a 4-digit code was masked."""
    from memory.secrets import restates

    assert restates(said, [], ["5521", "0715"]) is restated
