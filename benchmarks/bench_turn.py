"""Per-turn overhead of the agent loop, model time excluded (not a test).

    python benchmarks/bench_turn.py --n 10000
A scripted in-process model answers instantly (one tool round: remember, then text), so what is
timed is storing the message, intent, prompt rebuild (query embedding included), tool execution,
storing the answer and the episode bookkeeping.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time

from corpus import build

from assistant.conversation import ToolResults, ToolUse, last_user_text
from assistant.providers.base import Capabilities, Delta
from assistant.services.model import responder_for
from assistant.turn.agent import Agent


class InstantModel:
    name, model, url, max_tokens = "instant", "instant", "", 2048
    capabilities = Capabilities(context_window=None, learned=True)

    def learn(self) -> Capabilities:
        return self.capabilities

    async def stream(self, system, conversation, tools):
        if isinstance(conversation[-1], ToolResults):
            yield Delta("Done.")
        else:
            yield ToolUse("t1", "remember", {"content": last_user_text(conversation)[:60]})


async def turns(agent: Agent, queries: list[str]) -> list[float]:
    times = []
    for q in queries:
        started = time.perf_counter()
        async for _ in agent.turn(q):
            pass
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    args = ap.parse_args()
    rt, queries, _ = build(args.n)
    rt.searcher.embed_query("warm up")  # the UI loads the embedder in the background at start
    times = sorted(asyncio.run(turns(Agent(rt, responder_for(rt, InstantModel())), queries[:40])))
    print(json.dumps({"memories": args.n, "turn_overhead_median_ms": round(times[len(times) // 2] * 1000, 1),
                      "turn_overhead_p95_ms": round(times[int(len(times) * 0.95) - 1] * 1000, 1)}))


if __name__ == "__main__":
    main()
