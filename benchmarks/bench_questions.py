"""Questions in other words, answered offline (SPEC F14): right, wrong and said-nothing (not a test).

    python benchmarks/bench_questions.py [SET.jsonl ...] [--out FILE.json]

With --memories N, N statements about other people and things are stored first (embedded like the rest):
the CPU figures of an offline turn on a store of that size (SPEC F14: under 300 ms at the median on 2,000).

A set is JSON Lines as tests/data/questions_blind.jsonl (its header says where it came from): memories,
conversation lines, then questions, each with the id of the line that answers it (or null) and words the
answer must hold. As a new user would meet it: the memories are said in the chat with no model, the
conversation lines are imported as an earlier conversation, then each question is asked in an incognito
conversation through the services a front end uses (`Services(runtime).model.turn`).

Judged on the answer's first line: right when it holds the expected words; said nothing when it starts
"I don't have" (a closest hit may follow on a later line); otherwise a wrong memory presented as the
answer. A question with no answer in memory is right only when the first line says nothing. CPU time per
question (process time: the query's embedding included) is given as median and p95.

This is the first-sight harness of the blind round (/work/blind/measure/first_sight.py), moved here and
adapted to the services split; what it measures is unchanged.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
NOW = "2026-12-06T10:00:00+00:00"
NOTHING_OPENINGS = ("i don't have", "i do not have", "nothing in memory", "i have nothing")


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def says_nothing(answer: str) -> bool:
    first = answer.strip().splitlines()[0].lower() if answer.strip() else ""
    return first.startswith(NOTHING_OPENINGS) or not first


def import_lines(conversation: list[str]) -> list[dict[str, Any]]:
    """The conversation lines as one earlier conversation, a month before, each answered 'Noted.'."""
    lines: list[dict[str, Any]] = [{"type": "episode", "id": 1, "title": "chat", "outcome": "success",
                                    "started_at": "2026-11-01T09:00:00+00:00", "ended_at": "2026-11-01T10:00:00+00:00"}]
    for n, text in enumerate(conversation):
        lines.append({"type": "message", "episode_id": 1, "role": "user", "content": text,
                      "created_at": f"2026-11-01T09:{n:02d}:00+00:00"})
        lines.append({"type": "message", "episode_id": 1, "role": "assistant", "content": "Noted.",
                      "created_at": f"2026-11-01T09:{n:02d}:30+00:00"})
    return lines


NAMES = ("Amir", "Bea", "Carlos", "Dana", "Elif", "Femi", "Greta", "Hugo", "Ines", "Jonas", "Kemi", "Lars", "Mina",
         "Noor", "Omar", "Pia", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wale", "Xena", "Yusuf", "Zoe")
THINGS = ("favourite tea", "old bike", "new laptop", "piano", "tennis club", "book group", "garden shed", "vet",
          "dentist", "allotment", "language class", "running club", "choir", "office", "car", "flat", "gym", "cat",
          "dog", "phone", "holiday", "wedding", "birthday party", "barbecue", "camping stove", "sewing machine")
VALUES = ("on Tuesdays", "in the blue box", "at the community centre", "with Mr Lowe", "since March", "by the river",
          "in Leeds", "a red one", "every other week", "on the third floor", "at half past six", "near the station")


def filler(n: int, seed: int = 7) -> list[str]:
    """n statements about other people and things (a store of a few thousand memories)."""
    import random

    rng = random.Random(seed)
    return [f"{rng.choice(NAMES)}'s {rng.choice(THINGS)} is {rng.choice(VALUES)} ({i})" for i in range(n)]


def prepare(path: Path, extra: int = 0) -> tuple[Any, list[dict[str, Any]]]:
    """A fresh store as a new user would have it after saying the set's memories with no model and
    importing its conversation lines, with `extra` more memories about other people and things:
    (the services, in an incognito conversation; the questions)."""
    tmp = Path(tempfile.mkdtemp())
    env = {**os.environ, "ASSISTANT_DB": str(tmp / "m.db"), "ASSISTANT_NOW": NOW, "ASSISTANT_TIMEZONE": "UTC",
           "ASSISTANT_PROVIDER": "offline", "ASSISTANT_CONFIG": str(tmp / "c.toml"), "HOME": str(tmp)}
    (tmp / "c.toml").write_text("")
    data = rows(path)
    said = [r["text"] for r in data if r["type"] == "memory"]
    conversation = [r["text"] for r in data if r["type"] == "conversation"]
    (tmp / "conv.jsonl").write_text("\n".join(json.dumps(line) for line in import_lines(conversation)) + "\n")
    out = subprocess.run([str(Path(sys.executable).parent / "assistant"), "import", str(tmp / "conv.jsonl")], env=env,
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    os.environ.update({k: v for k, v in env.items() if k.startswith("ASSISTANT_") or k == "HOME"})
    from assistant.runtime import Runtime
    from assistant.services import Services
    from assistant.settings import load_settings

    services = Services(Runtime(load_settings()))
    services.model.connect()

    async def setup() -> None:
        from memory import memories

        for text in filler(extra):
            memories.remember(services.runtime.store, text)
        for text in said:
            await say(services, text)
        services.conversations.new_conversation()
        while services.embeddings.embed_backlog(512):
            pass
        services.incognito.start()

    asyncio.run(setup())
    return services, [r for r in data if r["type"] == "question"]


async def say(services: Any, text: str) -> str:
    answer = ""
    async for event in services.model.turn(text):
        if getattr(event, "type", "") == "done":
            answer = getattr(event, "text", "")
    return answer


def ask_all(path: Path, extra: int = 0) -> list[tuple[dict[str, Any], str, float]]:
    """Every question of the set asked as above: (question, answer, CPU seconds)."""
    services, questions = prepare(path, extra)

    async def run() -> list[tuple[dict[str, Any], str, float]]:
        results = []
        for q in questions:
            started = time.process_time()
            answer = await say(services, q["q"])
            results.append((q, answer, time.process_time() - started))
        return results

    return asyncio.run(run())


def judge(results: list[tuple[dict[str, Any], str, float]]) -> dict[str, Any]:
    right = wrong = said_nothing = nothing_right = nothing_wrong = closest_right = 0
    misses, wrongs, false_answers = [], [], []
    for q, answer, _ in results:
        if q["answer"] is None:
            if says_nothing(answer):
                nothing_right += 1
            else:
                nothing_wrong += 1
                false_answers.append((q["q"], answer[:160]))
            continue
        first = "" if says_nothing(answer) else answer.strip().splitlines()[0]
        if q["expect"] and q["expect"].lower() in first.lower():
            right += 1
        elif says_nothing(answer):
            said_nothing += 1
            closest_right += bool(q["expect"]) and q["expect"].lower() in answer.lower()
            misses.append((q["q"], q["expect"], answer[:160]))
        else:
            wrong += 1
            wrongs.append((q["q"], q["expect"], answer[:160]))
    answerable = right + wrong + said_nothing
    unanswerable = nothing_right + nothing_wrong
    cpu = sorted(c for _, _, c in results)
    return {"answerable": answerable, "right": round(right / answerable, 3),
            "right_only_as_closest": round(closest_right / answerable, 3),
            "wrong_memory_as_answer": round(wrong / answerable, 3), "said_nothing": round(said_nothing / answerable, 3),
            "no_answer_questions": unanswerable,
            "no_answer_said_nothing": round(nothing_right / unanswerable, 3) if unanswerable else None,
            "no_answer_but_answered": round(nothing_wrong / unanswerable, 3) if unanswerable else None,
            "wrong_rate_overall": round((wrong + nothing_wrong) / len(results), 3),
            "cpu_ms_median": round(cpu[len(cpu) // 2] * 1000, 1),
            "cpu_ms_p95": round(cpu[int(len(cpu) * 0.95)] * 1000, 1),
            "misses": misses, "wrongs": wrongs, "false_answers": false_answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", type=Path, default=[ROOT / "tests" / "data" / "questions_blind.jsonl"])
    parser.add_argument("--out", type=Path, help="write the figures and every mistake here (JSON)")
    parser.add_argument("--memories", type=int, default=0,
                        help="that many more memories about other people and things first (e.g. 2000)")
    args = parser.parse_args()
    report = {}
    for path in args.sets:
        figures = judge(ask_all(path, args.memories))
        report[path.name] = figures
        print(path.name, json.dumps({k: v for k, v in figures.items() if not isinstance(v, list)}))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
