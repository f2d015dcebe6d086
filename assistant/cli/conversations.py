"""Commands about conversations and what was said: recap, recall, prompt, chat, briefing."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from assistant.cli.output import emit, json_text, note
from assistant.runtime import Runtime
from memory import episodes, supersession
from memory.errors import InvalidInput
from memory.text import flat, visible

if TYPE_CHECKING:
    from memory.search import Hit


def cmd_recap(runtime: Runtime, args: argparse.Namespace) -> int:
    """Closed conversations (list_recent), newest first, the one in progress leading with its opening lines.

    `--json` stays the documented list of closed episodes (list_recent's contract); the text adds
    the conversation in progress, marked current.
    """
    from assistant.recap import recent_conversations

    items = episodes.list_recent(runtime.store, limit=args.limit, outcome=args.outcome, hours=args.hours)
    emit(args, [e.to_json() for e in items], lambda: recent_conversations(
        runtime, args.hours, args.limit, outcome=args.outcome, newest_first=True, min_messages=1))
    return 0


def cmd_recall(runtime: Runtime, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    if args.reason:  # opt-in: `recall --json` without it is always the list of hits
        from assistant.providers.local import local_model
        from assistant.recall.reasoned import reasoned_recall

        model = local_model(runtime)  # titles' and consolidation's model: a quick probe first
        # Without it the answer is composed locally from the best statement.
        answer = reasoned_recall(runtime, query, mode=args.mode, limit=args.limit,
                                 model=model if model.reachable() else None)
        emit(args, answer.to_json(), answer.to_text)
        return 0
    hits = runtime.searcher.search(query, limit=args.limit, mode=args.mode, touch=True)  # you asked for them
    hits = supersession.with_replacements(runtime.store, hits)
    # A memory a newer one replaced comes right after it, said to be replaced (never read as current).
    gone = supersession.superseded_by(runtime.store, [h.id for h in hits if h.type == "memory"])
    at = {h.id: n for n, h in enumerate(hits) if h.type == "memory"}
    order = supersession.replaced_after(list(range(len(hits))), {
        n: at[gone[h.id]] for n, h in enumerate(hits) if h.type == "memory" and gone.get(h.id) in at})
    hits = [hits[n] for n in order]

    def data(hit: Hit) -> dict[str, Any]:
        found = hit.to_json()
        if hit.type == "memory":
            found["replaced_by"] = gone.get(hit.id)
        return found

    def state(hit: Hit) -> str:
        return f"replaced by #{gone[hit.id]}" if hit.type == "memory" and hit.id in gone else hit.tier

    emit(args, [data(h) for h in hits], lambda: "\n".join(
        f"{h.type} #{h.id} [{state(h)}] {runtime.clock.short(h.created_at)}: {flat(h.content, 200)}" for h in hits)
        or "Nothing found.")
    return 0


def cmd_prompt(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.prompt.build import preview_prompt

    prompt = preview_prompt(runtime, args.query)
    emit(args, prompt.to_json(), prompt.text)
    return 0


def cmd_chat(runtime: Runtime, args: argparse.Namespace) -> int:
    import asyncio

    from assistant.errors import ProviderError
    from assistant.services.model import ModelService
    from assistant.turn.events import Done, Failed, Notice, TextDelta, to_json

    if not args.message.strip():
        raise InvalidInput("the message is empty")
    incognito = getattr(args, "incognito", False)
    if incognito and args.new:
        raise InvalidInput("--incognito writes nothing, so it cannot start a new conversation: leave out --new")
    model = ModelService(runtime)
    model.connect(strict=True)  # a ProviderError is mapped to exit 1 at the edge
    agent = model.agent
    assert agent is not None
    if incognito:
        # One turn that reads memory and writes nothing: the conversation in progress is left as it is
        # (the app's incognito closes it first; here nothing, not even that, is written).
        agent.incognito = []
    elif args.new:
        agent.close_episode()  # the conversation in progress ends here; this message opens the next one
    as_json = getattr(args, "json", False)
    events = []
    open_line = False  # the answer's last line has no newline yet: a notice would be glued to it

    async def run() -> None:
        nonlocal open_line
        async for event in agent.turn(args.message):
            events.append(event)
            if as_json:
                continue
            if isinstance(event, TextDelta):
                sys.stdout.write(visible(event.text))
                sys.stdout.flush()
                open_line = not event.text.endswith("\n")
            elif isinstance(event, Notice):
                if open_line:
                    print(flush=True)
                    open_line = False
                note(f"[{event.text}]")

    asyncio.run(run())
    if as_json:
        print(json_text([to_json(e) for e in events]))
    elif open_line:
        print(flush=True)
    if incognito and not as_json:
        note("[incognito: nothing of this turn was kept]")
    # The same status with or without --json: 1 when the model failed, even if the offline mode
    # acted on the message in its place.
    failed = next((e for e in events if isinstance(e, Failed)), None)
    if failed:
        raise ProviderError(failed.kind, failed.text)
    done = next((e for e in events if isinstance(e, Done)), None)
    # The answer (stdout) opened with why the model did not answer; the process says its status in one
    # line on stderr, as every command that fails does (a script reads that, not the answer).
    if done is not None and done.failure:
        raise ProviderError(done.failure, "the chat model did not answer; the offline mode answered instead, "
                                          "and your message is saved")
    return 0


def cmd_briefing(runtime: Runtime, args: argparse.Namespace) -> int:
    """Today's briefing (reads only: it marks nothing as shown or posted)."""
    from assistant.briefing import build_briefing

    briefing = build_briefing(runtime.store, runtime.clock)
    emit(args, briefing.to_json(), briefing.text)
    return 0
