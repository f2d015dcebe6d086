"""SPEC F2 recap detection on a labelled set; reports precision and recall."""
from __future__ import annotations

from datetime import UTC, datetime

from assistant.reading import read
from assistant.reading.intent import is_recap_query, temporal_recency
from memory.time.clock import Clock

CLOCK = Clock(UTC, datetime(2026, 11, 22, 12, 0, tzinfo=UTC))


def is_boosted(text: str) -> bool:
    return read(text, CLOCK).boosted

RECAP = [
    "what did we talk about", "What did we talk about yesterday?", "catch me up", "Can you catch me up?",
    "recap", "recap please", "give me a recap", "quick recap?", "what have we discussed",
    "What have we discussed this week?", "where were we?", "where did we leave off", "bring me up to speed",
    "summarize our recent conversations", "sum up our last chat", "remind me what we talked about",
    "what were we talking about earlier?", "what did I tell you this morning?", "recap of our conversations today",
    "can you recap what we covered", "What did we discuss earlier today?", "fill me in on what we said",
    "what did we decide last time?", "go over our previous discussions", "what have we been chatting about lately",
    "Did I tell you about my trip yesterday?", "what did you and I talk about last night",
    "Recap, please!", "could you give me a quick recap", "what was our last conversation about",
    "what did we cover so far", "Remind me what we decided yesterday",
]
NOT_RECAP = [
    "hello", "what happened in 1066?", "What happened at the Battle of Hastings?",
    "what happened to the Roman Empire", "Can you write a recap of the football match?",
    "I need a recap of the quarterly earnings report for my team", "the recap episode of the show was boring",
    "remind me to recap the meeting notes tomorrow at 9", "remind me to call mom tomorrow at 6pm",
    "set a reminder to talk about the budget on friday", "what's the weather like", "how do I bake sourdough",
    "what is the capital of France", "tell me a joke", "what happened after the French revolution",
    "explain what happened in the 2008 financial crisis", "remember that I like tea",
    "what's coming up?", "what's due this week", "done with 3", "forget 12", "how long ago did rome fall",
    "what did Einstein discover", "what did the fox say", "write me a poem about autumn",
    "summarize this article for me", "translate 'good morning' into Spanish", "what time is it",
    "remind me to discuss the contract with Bob next week", "what happened in the news today",
    "can you help me plan a trip to Lisbon", "What is a recap in sports journalism?",
]


def _scores() -> tuple[int, int, int]:
    tp = sum(is_boosted(t) for t in RECAP)
    fp = sum(is_boosted(t) for t in NOT_RECAP)
    fn = len(RECAP) - tp
    return tp, fp, fn


def test_precision_and_recall() -> None:
    tp, fp, fn = _scores()
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    print(f"\nrecap boost: precision {precision:.2f}, recall {recall:.2f} on {len(RECAP) + len(NOT_RECAP)} phrasings")
    wrong = [t for t in RECAP if not is_boosted(t)] + [t for t in NOT_RECAP if is_boosted(t)]
    assert precision == 1.0 and recall >= 0.95, wrong


def test_what_i_told_you_about_someone_is_no_recap() -> None:
    # A newcomer's "what did I tell you about Tom?" got a recap of the chat, with nothing about Tom.
    assert not is_recap_query("what did I tell you about Tom?") and is_recap_query("what did I tell you?")


def test_signals() -> None:
    assert is_recap_query("catch me up") and temporal_recency("catch me up") >= 0.9
    assert temporal_recency("hello") == 0.0
    assert 0 <= temporal_recency("what did I tell you yesterday about the budget") <= 1
    assert temporal_recency("what did I tell you yesterday about the budget") > 0.5
    assert not is_recap_query("what happened yesterday in the stock market")


def test_a_paste_is_read_for_a_request_about_our_conversations_only_at_its_start() -> None:
    """An attacker's 1 MB paste took minutes in the app offline: the patterns with ".*" between words read it all.
    A request about our conversations is a sentence or two; words far into a paste ask nothing."""
    filler = "the weather was fine and we walked to the park. " * 20
    assert temporal_recency("what did I tell you yesterday?") > 0
    assert temporal_recency(filler + "what did I tell you yesterday?") == 0.0
    assert not is_recap_query(filler + "recap our last conversation")
