"""The one table of what the app can do: key bindings, footer, command palette and f1 help all
come from here, so they cannot disagree (Posting's `Binding(id=, tooltip=)` plus a Provider).

Each row names where its key works (`scope`): "app" keys are App bindings (anywhere), "main" keys
bindings of the main screen, "reminders" keys bindings of the reminder panel, and the rows with
other scopes are handled by their widget and are listed here so that help shows them. Keys are
rebindable by `id` under `[keymap]` in the config.
"""
from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class UiAction:
    id: str  # binding id, the name to rebind it by
    key: str  # default key(s), Textual spelling
    action: str  # Textual action ("recap", "app.reminder_done"); empty for keys a widget handles itself
    label: str  # short: footer and palette title
    description: str  # one sentence: palette help and f1
    scope: str = "app"  # app (anywhere) | main (the main screen) | reminders | composer | chat | conversations
    #                     | reader | memories | memory | why | dialogs
    footer: int = 0  # 0 never, 1 always (narrow too), 2 only when wide
    palette: bool = True
    priority: bool = False


HELP_ID = "help"  # the key that lists every other (the footer keeps room for it)
ACTIONS: tuple[UiAction, ...] = (
    # Anywhere on the main screen.
    UiAction("quit", "ctrl+q", "quit", "Quit",
             "Save this conversation (it gets a title) and leave", footer=1, priority=True),
    UiAction("recap", "ctrl+r", "recap", "Recap",
             "What happened in the last 48 hours: conversations (this one too), reminders, new memories",
             footer=1),
    UiAction("new-conversation", "ctrl+n", "new_conversation", "New chat",
             "Save this conversation and start a fresh one", footer=2, scope="main"),
    UiAction("conversations", "ctrl+o", "conversations", "Conversations",
             "Browse and search past conversations; open one to read it or continue it", footer=1),
    UiAction("focus-reminders", "ctrl+l", "focus_reminders", "Reminders",
             "Move to the reminder list (d done, s snooze, enter details, escape back)", footer=1, scope="main"),
    UiAction("toggle-sidebar", "ctrl+b", "toggle_sidebar", "Sidebar",
             "Show or hide the reminder sidebar; on narrow screens, expand the one-line reminder bar",
             footer=1, scope="main"),
    UiAction("copy-answer", "ctrl+t", "copy_last_answer", "Copy answer",
             "Copy the last answer to the clipboard (OSC 52; most terminals, over ssh too)", footer=2, scope="main"),
    # Not a priority key: the message box sees ctrl+z first and keeps it while it holds text of its own.
    UiAction("undo", "ctrl+z", "undo", "Undo",
             "Undo the last change to a reminder or a memory (done, snooze, edit, pin, private, forget, a new "
             "one), wherever it was made: the list, a dialog, the chat, Memories or the command line",
             scope="main"),
    UiAction("memories", "f2", "memories", "Memories",
             "See everything it remembers, newest first: filter, search, open one to read where it came from, "
             "edit it, mark it private, pin it or forget it (ctrl+z undoes each)", footer=1),
    UiAction("why", "f3", "why_this_answer", "Why this answer",
             "What went into the answer on screen: the prompt's sections and tokens, the memories and "
             "conversations in it, what was held back and why, the tool calls"),
    UiAction("incognito", "f4", "incognito", "Incognito conversation",
             "A conversation that reads memory but keeps nothing (no message, memory, reminder or history); "
             "ctrl+n or quitting ends it"),
    UiAction("briefing", "f5", "briefing", "Briefing",
             "Today's briefing: today's reminders, what is overdue, yesterday's conversations, memories that "
             "changed (shown by itself at the first launch of a day)"),
    UiAction("consolidate", "ctrl+g", "consolidate", "Consolidate",
             "Consolidate memories now with the local model, in the background"),
    UiAction(HELP_ID, "f1", "help", "Help", "List every key", footer=1),
    UiAction("focus-composer", "escape", "focus_composer", "Back to typing",
             "Stop an answer being written (your message stays), close a dialog, or return the keyboard to the "
             "message box from anywhere", palette=False, scope="main"),
    UiAction("chat-page-up", "pageup", "chat_scroll('page_up')", "Scroll up",
             "Scroll the chat up a page (also while typing); the mouse wheel scrolls too", palette=False, scope="main"),
    UiAction("chat-page-down", "pagedown", "chat_scroll('page_down')", "Scroll down",
             "Scroll the chat down a page; at the bottom it follows new messages again", palette=False, scope="main"),
    UiAction("chat-top", "ctrl+home", "chat_scroll('home')", "Top of chat", "Jump to the first message of the chat",
             palette=False, scope="main"),
    UiAction("chat-bottom", "ctrl+end", "chat_scroll('end')", "Newest message",
             "Jump to the newest message and follow new ones again", scope="main"),
    UiAction("change-theme", "", "change_theme", "Theme", "Pick a colour theme (kept for the next launch)"),
    UiAction("command-palette", "ctrl+p", "", "Commands", "Open the command palette: every action, searchable",
             palette=False),
    # The message box.
    UiAction("send", "enter", "", "Send", "Send the message", scope="composer", palette=False),
    UiAction("newline", "ctrl+j,shift+enter", "", "New line",
             "Start a new line in the message (shift+enter where the terminal reports it); pastes keep theirs",
             scope="composer", palette=False),
    UiAction("history", "up,down", "", "History",
             "Walk through what you sent before (the last 500, kept between launches)", scope="composer",
             palette=False),
    UiAction("chat-ends", "home,end", "", "Top / newest",
             "On an empty message box: jump to the top of the chat / the newest message", scope="composer",
             palette=False),
    UiAction("next-area", "tab,shift+tab", "", "Next area",
             "Move between the message box, the chat and the reminder list", scope="composer", palette=False),
    # The chat, when it has the focus (tab from the message box).
    UiAction("chat-scroll", "up,down,home,end", "", "Scroll", "Scroll the chat line by line, or to either end",
             scope="chat", palette=False),
    # The reminder list (ctrl+l).
    UiAction("reminder-done", "d", "reminder_done", "Done",
             "Mark the highlighted reminder done (ctrl+z undoes it); typed on, the letter goes to the message box",
             scope="reminders", footer=1, palette=False),
    UiAction("reminder-snooze", "s", "reminder_snooze", "Snooze",
             "Give the highlighted reminder a new time (\"tomorrow 9am\", \"in 2 hours\")", scope="reminders",
             footer=1, palette=False),
    UiAction("reminder-back", "escape", "screen.focus_composer", "Back", "Back to the message box",
             scope="reminders", footer=1, palette=False),
    UiAction("reminder-open", "enter", "", "Details",
             "Show the highlighted reminder: d done, s snooze, e edit its text and time, f forget",
             scope="reminders", palette=False),
    UiAction("reminder-move", "up,down", "", "Move", "Move through the reminders; typing a sentence takes it, "
             "whole, to the message box", scope="reminders", palette=False),
    # The Conversations screen.
    UiAction("conversation-filter", "", "", "Filter", "Type to search past conversations by what was said",
             scope="conversations", palette=False),
    UiAction("conversation-read", "enter", "", "Read", "Open the highlighted conversation to read it",
             scope="conversations", palette=False),
    UiAction("conversation-move", "up,down", "", "Move", "Move through the list while typing the filter",
             scope="conversations", palette=False),
    UiAction("conversation-continue", "ctrl+o", "continue_conversation", "Continue",
             "Continue the highlighted conversation as the current one", scope="conversations", footer=1,
             palette=False),
    UiAction("conversation-close", "escape", "close", "Close", "Back to the chat", scope="conversations",
             footer=1, palette=False),
    # Reading one conversation.
    UiAction("reader-continue", "c,ctrl+o", "continue_conversation", "Continue",
             "Continue this conversation as the current one", scope="reader", footer=1, palette=False),
    UiAction("reader-reveal", "r", "reveal", "Reveal", "Show or hide the secrets its answers quoted (stored as "
             "[secret 1 of memory #12]; here only)", scope="reader", footer=1, palette=False),
    UiAction("reader-close", "escape", "close", "Back", "Back to the list of conversations", scope="reader",
             footer=1, palette=False),
    # The Memories screen.
    UiAction("memories-search", "", "", "Search", "Type to search memories (the hybrid search recall uses); the "
             "words each one matched are marked", scope="memories", palette=False),
    UiAction("memories-open", "enter", "", "Open", "Open the highlighted memory", scope="memories", palette=False),
    UiAction("memories-move", "up,down,pageup,pagedown", "", "Move",
             "Move through the list while typing the search; more memories load as you go", scope="memories",
             palette=False),
    UiAction("memories-filters", "tab", "", "Filters",
             "Tab to the filters (kind, tier, private, secret, pinned, source): left/right choose one, up/down "
             "change it", scope="memories", palette=False),
    UiAction("memories-undo", "ctrl+z", "undo", "Undo", "Undo the last change to a memory, made anywhere",
             scope="memories", footer=1, palette=False),
    UiAction("memories-close", "escape", "close", "Close", "Back to the chat", scope="memories", footer=1,
             palette=False),
    # One memory.
    UiAction("memory-edit", "e", "edit", "Edit", "Edit its text (enter saves, escape cancels); its earlier text "
             "is kept", scope="memory", footer=1, palette=False),
    UiAction("memory-private", "p", "toggle_private", "Private",
             "Mark it private (sent to a model only when a message asks about it) or not", scope="memory", footer=1,
             palette=False),
    UiAction("memory-pin", "t", "toggle_pin", "Pin", "Pin it (never archived, never outranked by its echoes) or "
             "unpin it", scope="memory", footer=1, palette=False),
    UiAction("memory-forget", "f", "forget", "Forget", "Forget it and its quotations, once you say yes (y, or f "
             "again; any other key keeps it); ctrl+z brings it back",
             scope="memory", footer=1, palette=False),
    UiAction("memory-reveal", "r", "reveal", "Reveal", "Show or hide a secret it holds (here only)",
             scope="memory", footer=1, palette=False),
    UiAction("memory-conversation", "enter", "conversation", "Conversation",
             "Read the conversation it was said in", scope="memory", footer=2, palette=False),
    UiAction("memory-undo", "ctrl+z", "undo", "Undo", "Undo the last change to a memory", scope="memory",
             footer=2, palette=False),
    UiAction("memory-close", "escape", "close", "Back", "Back to the list", scope="memory", footer=1,
             palette=False),
    # Why this answer.
    UiAction("why-open", "enter", "", "Open", "Open the highlighted line: a section's text, a memory, a "
             "conversation, a tool call's result", scope="why", palette=False),
    UiAction("why-close", "escape", "close", "Close", "Back to the chat", scope="why", footer=1, palette=False),
    # Every dialog.
    UiAction("dialog-close", "escape", "", "Close", "Close the dialog; a second escape returns to the message box",
             scope="dialogs", palette=False),
    UiAction("dialog-scroll", "pageup,pagedown", "", "Scroll", "Scroll a long dialog (recap, help)",
             scope="dialogs", palette=False),
    UiAction("dialog-yes", "y", "", "Yes", "Answer a question (forget this memory?) yes; n, escape or any other "
             "key keeps things as they were", scope="dialogs", palette=False),
)

SCOPE_TITLES = {
    "app": "Anywhere",
    "composer": "In the message box",
    "chat": "In the chat",
    "reminders": "In the reminder list",
    "conversations": "In Conversations",
    "reader": "Reading a conversation",
    "memories": "In Memories",
    "memory": "One memory",
    "why": "Why this answer",
    "dialogs": "In dialogs",
}


def bindings(scope: str) -> list[BindingType]:
    """The Textual bindings of one scope (rows with an action and a key)."""
    out: list[BindingType] = []
    for a in ACTIONS:
        if a.scope != scope or not a.action or not a.key:
            continue
        out.append(Binding(a.key, a.action, a.label, show=a.footer > 0, priority=a.priority, id=a.id,
                           tooltip=a.description))
    return out


def narrow_ids() -> frozenset[str]:
    """Binding ids the footer keeps on a narrow terminal."""
    return frozenset(a.id for a in ACTIONS if a.footer == 1)


def footer_rank(action_id: str | None) -> tuple[int, int]:
    """Footer order: essential keys (footer=1) before the rest, then table order."""
    for index, a in enumerate(ACTIONS):
        if a.id == action_id:
            return (a.footer if a.footer else 3, index)
    return (3, len(ACTIONS))


def palette_actions() -> list[UiAction]:
    return [a for a in ACTIONS if a.palette and a.action]


def help_rows(keymap: dict[str, str] | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """(section title, [(keys, description)]) for f1, with the user's keymap applied."""
    keymap = keymap or {}
    sections: dict[str, list[tuple[str, str]]] = {scope: [] for scope in SCOPE_TITLES}
    for a in ACTIONS:
        key = keymap.get(a.id, a.key)
        scope = "app" if a.scope == "main" else a.scope  # both are "Anywhere" to the person
        # No key of its own: reached from the palette (ctrl+p), or by typing (the Conversations filter).
        typed = a.id in ("conversation-filter", "memories-search")
        shown = key.replace(",", " / ") if key else ("(type)" if typed else "(ctrl+p)")
        sections[scope].append((shown, a.description))
    return [(SCOPE_TITLES[scope], rows) for scope, rows in sections.items() if rows]


def key_for(action_id: str, keymap: dict[str, str] | None = None) -> str:
    """The key currently bound to an action id (for hints written in prose)."""
    row = next(a for a in ACTIONS if a.id == action_id)
    key = (keymap or {}).get(action_id, row.key)
    return key.split(",")[0]
