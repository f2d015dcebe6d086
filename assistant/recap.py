"""How conversations are listed in a recap, one way for every front end (the recall_recent tool, the
CLI's `recap`, the offline mode's "what did we talk about yesterday", the app's ctrl+r): a line with
its time and title, then its summary; the conversation in progress marked as such, with its opening
lines. Shown as stored on your own screen (a title made without a model holds no secret: it is masked
when made); what goes to a model passes the turn's gate."""
from __future__ import annotations

from assistant.outbound.gate import LOCAL_GATE, Gate
from assistant.runtime import Runtime
from memory import episodes
from memory.episodes import Episode, InProgress
from memory.text import flat
from memory.time.clock import Clock

OPENING_WIDTH = 160  # characters of a message's opening line in a list


def episode_lines(clock: Clock, episode: Episode, title: str | None = None, summary: bool | str = True,
                  width: int | None = None) -> list[str]:
    """["- <when> <title>", "  <summary>"]: `title` replaces the stored one (a conversation in progress,
    a title as the gate lets it out), and so does a text `summary`; False leaves it out."""
    lines = ["- " + episode.line(clock, title if title is not None else episode.title or "Untitled")]
    said = episode.summary if summary is True else summary or ""
    if said:
        lines.append(f"  {flat(said, width)}")
    return lines


def current_title(current: InProgress) -> str:
    size = f"{current.messages} message{'s' if current.messages != 1 else ''}"
    return f"(current conversation, {size}) {current.title}"


def current_lines(clock: Clock, current: InProgress, gate: Gate = LOCAL_GATE) -> list[str]:
    """The conversation in progress: its line, then its opening messages."""
    return episode_lines(clock, current.episode, current_title(current), summary=False) + [
        f"  > {flat(gate.message(m.id, m.content), OPENING_WIDTH)}" for m in current.opening]


def recent_conversations(runtime: Runtime, hours: float = 48, limit: int = 10, gate: Gate = LOCAL_GATE,
                         outcome: str | None = None, newest_first: bool = False, min_messages: int = 2) -> str:
    """Recent closed conversations (list_recent) with local times and summaries, and the one in progress.

    In time order, the one in progress last (the recall_recent tool: "what did we talk about"), or
    newest first, the one in progress leading (the CLI, like list_recent). The conversation in progress
    is listed once it holds `min_messages` (the tool: more than the message that asked).
    """
    items = episodes.list_recent(runtime.store, limit=limit, outcome=outcome, hours=hours)
    current = episodes.in_progress(runtime.store, min_messages=min_messages) \
        if outcome in (None, "success") else None
    if not items and current is None:
        return f"No episodes found in the last {hours:g} hours."
    clock = runtime.clock
    closed: list[str] = []
    for e in (items if newest_first else reversed(items)):
        if e.id in gate.private_episodes:  # for a model: as the gate lets it out
            closed += episode_lines(clock, e, gate.episode(e.id, e.title or "Untitled"),
                                    gate.episode(e.id, e.summary or "") or False)
        else:
            closed += episode_lines(clock, e)
    ongoing = current_lines(clock, current, gate) if current is not None else []
    return "\n".join(ongoing + closed if newest_first else closed + ongoing)
