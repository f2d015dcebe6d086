"""Plain data the front ends show: reminders, recaps, conversations, messages (no SQL, no widgets)."""
from __future__ import annotations

from dataclasses import dataclass, field

from memory.memories import Memory
from memory.reminders import later_line

PRIVATE_MARK = "[Private]"  # how a private memory is labelled wherever its text is shown or quoted


def private_marked(text: str, private: bool) -> str:
    """A memory's text as shown: "[Private] ..." when it is private (the one wording of the mark)."""
    return f"{PRIVATE_MARK} {text}" if private else text


@dataclass
class ReminderView:
    """An open reminder as the front ends show it, in fields (built in one place,
    AssistantService._view): nothing here is a label to take apart."""

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


@dataclass
class ReminderChange:
    """A done or snooze, with what is needed to undo it."""

    before: Memory
    after: Memory
    when: str = ""  # the due instant after the change, local time ("Mon Nov 23 08:00")
