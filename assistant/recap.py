"""How a conversation is listed in a recap, one way for every front end (the recall_recent tool, the
CLI's `recap`, the app's ctrl+r, the offline mode's "what did we talk about yesterday"): a line with
its time and title, then its summary; a secret in either is shown by where it lives."""
from __future__ import annotations

from memory.episodes import Episode
from memory.sensitive import redact
from memory.text import flat
from memory.time.clock import Clock


def episode_lines(clock: Clock, episode: Episode, title: str | None = None, summary: bool = True,
                  width: int | None = None) -> list[str]:
    """["- <when> <title>", "  <summary>"]: `title` replaces the stored one (a conversation in progress)."""
    where = f"[secret in conversation #{episode.id}]"
    lines = ["- " + episode.line(clock, redact(title if title is not None else episode.title or "Untitled", where))]
    if summary and episode.summary:
        lines.append(f"  {flat(redact(episode.summary, where), width)}")
    return lines
