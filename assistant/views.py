"""Plain data the front ends show: reminders, recaps, conversations, messages (no SQL, no widgets)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from memory.memories import Memory
from memory.reminders import later_line
from memory.text import flat
from memory.turn_records import TurnRecord

PRIVATE_MARK = "[Private]"  # how a private memory is labelled wherever its text is shown or quoted


def private_marked(text: str, private: bool) -> str:
    """A memory's text as shown: "[Private] ..." when it is private (the one wording of the mark)."""
    return f"{PRIVATE_MARK} {text}" if private else text


@dataclass
class ReminderView:
    """An open reminder as the front ends show it, in fields (built in one place,
    assistant.services.reminders.reminder_view): nothing here is a label to take apart."""

    id: int
    content: str
    status: str  # due | overdue
    when: str  # the due instant in local time, "Mon Nov 23 09:00"
    relative: str  # "in 2 h", "overdue 1 d", "now"
    due_at: str  # the due instant as stored (UTC): the key of this occurrence
    rule: str | None = None  # a repeating reminder's rule, "every Tue"; None for a one-off
    due_now: bool = False  # within half a minute of its due instant: due now, not yet "overdue"


@dataclass
class ReminderDetail:
    """One reminder in full, for the details dialog."""

    reminder: ReminderView
    kind: str
    importance: int
    created: str  # local time
    mentioned: str | None = None  # when the assistant last mentioned it, local time


@dataclass
class StatusView:
    """What the status bar shows, in fields: the bar words it."""

    provider: str  # "anthropic · claude-…", "offline · …", or "connecting…" before a model is chosen
    memories: int
    last_consolidation: str | None = None  # local time of the last completed run
    frozen_at: str | None = None  # local time of a frozen clock (--now, ASSISTANT_NOW); None when it runs
    backup: str | None = None  # a warning: a change has waited more than ten minutes for the replica (F16)


@dataclass
class ReminderPage:
    """The most urgent open reminders (what a sidebar shows), how many are open in the window, and
    those beyond it: how many and when the next one is due (SPEC F1: "and 3 later: next on Dec 7")."""

    items: list[ReminderView]
    total: int
    overdue: int = 0
    later: int = 0  # open reminders due after the window
    next_later: str = ""  # the local day the first of them is due ("Mon Dec 7"); "" when there is none
    next_later_at: str | None = None  # its due instant (UTC)

    @property
    def more(self) -> int:
        return max(0, self.total - len(self.items))

    @property
    def later_text(self) -> str:
        """ "and 3 later: next on Mon Dec 7", or "" when nothing lies beyond the window."""
        return later_line(self.later, self.next_later)


@dataclass
class DueNotice:
    """Reminders that fell due since the last announcement: the latest few (latest first) and how many."""

    items: list[ReminderView]
    total: int
    at_launch: bool


@dataclass
class EpisodeView:
    id: int
    title: str
    summary: str
    when: str


@dataclass
class CurrentView:
    """The conversation in progress, as recaps show it."""

    id: int
    title: str
    when: str
    messages: int
    opening: list[str]


@dataclass
class RecapData:
    episodes: list[EpisodeView]
    overdue: list[ReminderView]
    upcoming: list[ReminderView]
    new_memories: list[str]
    hours: int = 48
    current: CurrentView | None = None
    earlier: list[EpisodeView] = field(default_factory=list)  # before the window, when it holds few


@dataclass
class ConversationView:
    """One row of the Conversations screen."""

    id: int
    title: str
    when: str  # "Sun Nov 22 13:05"
    messages: int
    current: bool
    summary: str = ""


@dataclass
class MessageView:
    role: str  # user | assistant
    content: str
    when: str
    plain: bool = False  # an answer of the offline mode: literal text, shown as it was written (not Markdown)
    # An answer that quoted a secret is stored with "[secret 1 of memory #12]" where the value was: its text
    # with the values back, shown only when revealed (None: it quotes none, or they are gone).
    revealed: str | None = None


@dataclass
class ReminderChange:
    """A done or snooze, with what is needed to undo it."""

    before: Memory
    after: Memory
    when: str = ""  # the due instant after the change, local time ("Mon Nov 23 08:00")


HIDDEN = "••••"  # what a secret looks like on screen until it is revealed (the Memories screen only)


def secrets_hidden(text: str) -> str:
    """Any text with each secret the one detector finds in it shown as HIDDEN (what a Why record quotes
    of a turn: its tool calls and results, what the reading took from the message)."""
    from memory.sensitive import redact

    return redact(text, HIDDEN)


def masked(text: str, sensitive: bool, values: Iterable[str] = ()) -> str:
    """A memory's text as shown while its secret is hidden: each secret the one detector finds becomes
    HIDDEN (in a text the classifier flagged, what looks like a value); a memory marked sensitive whose
    secret it cannot point to is hidden whole. `values`: the secret values of the memory this text is an
    earlier text of, hidden too wherever they are ("it's now 7719" before the edit that made it secret)."""
    from memory.sensitive import redact, withhold_fragments

    if not sensitive:
        return withhold_fragments(text, values, HIDDEN) if values else text
    shown = redact(text, HIDDEN)
    if shown == text:
        shown = redact(text, HIDDEN, flagged=True)
    if values:
        shown = withhold_fragments(shown, values, HIDDEN)
    return shown if shown != text else f"{HIDDEN} (hidden: it holds a secret)"


def listed_text(memory: Memory, width: int | None = 200) -> str:
    """A memory's text as every list shows it but the Memories screen (the briefing, the recap, the Why
    view): one line, a secret masked, a private memory marked."""
    return private_marked(flat(masked(memory.content, memory.sensitive), width), memory.private)


@dataclass
class MemoryRow:
    """One memory in the Memories list (its text masked when it holds a secret, marked when private)."""

    id: int
    kind: str
    tier: str
    when: str  # created, local time
    text: str  # as shown: masked, one line
    private: bool
    sensitive: bool
    pinned: bool
    source: str  # typed | imported | mcp:<client>
    matched: list[tuple[int, int]] = field(default_factory=list)  # a search's words, as spans of `text`
    by_meaning: bool = False  # a search hit that shares no word with the query (the vectors found it)
    replaced_by: int | None = None  # the memory that replaced this one (a newer value for its subject)
    done: bool = False  # a reminder marked done (one that repeats is open again for its next time)


@dataclass
class MemoryPage:
    items: list[MemoryRow]
    after: tuple[str, int] | None  # where the next page starts; None: this is the last one


@dataclass
class LinkedView:
    id: int
    text: str  # as shown (masked, private marked)
    when: str
    reason: str | None = None


@dataclass
class EarlierView:
    text: str  # as shown (masked when it held a secret)
    content: str  # as it was (shown only when revealed)
    sensitive: bool
    replaced: str  # local time


@dataclass
class MemoryDetail:
    """One memory in full, for its screen."""

    id: int
    kind: str
    content: str  # the whole text, as stored: shown only when revealed or edited
    text: str  # as shown until then (masked)
    importance: int
    private: bool
    sensitive: bool
    pinned: bool
    source: str
    created: str  # local
    updated: str  # local
    due: str | None  # a reminder's due time, local
    tier: str
    retention: float | None
    factors: dict[str, float]
    activation_count: int
    last_accessed: str | None
    said_in: int | None  # the conversation (episode id) it was said in
    said_in_title: str | None
    said_at: str | None  # local
    supersedes: list[LinkedView]
    superseded_by: list[LinkedView]
    summaries: list[LinkedView]
    history: list[EarlierView]  # earlier texts, newest first


@dataclass
class WhyView:
    """What went into one answer, as recorded when its turn ran, with the memories and conversations it
    names read as they are now (a memory forgotten since says so)."""

    message_id: int
    record: TurnRecord
    memories: list[LinkedView]  # text "" and when "" for one forgotten since
    conversations: list[ConversationView]
