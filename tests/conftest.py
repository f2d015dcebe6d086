"""Shared fixtures: a frozen clock, a fresh store per test (a copy of one migrated once per worker), the
real bundled embedder (once per worker), runtimes and the offline agent, the stand-in servers."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

from memory.store import Store
from memory.time.clock import Clock
from memory.time.instants import UTC
from memory.time.zones import zone_from_name

if TYPE_CHECKING:
    from assistant.runtime import Runtime
    from assistant.turn.agent import Agent
    from assistant.turn.events import Event
    from memory.search.embeddings import LocalEmbedder
    from tests.known_texts import KnownTexts
    from tests.standins import StandIn

T = TypeVar("T")
T0 = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)  # a Sunday
T0_TEXT = T0.isoformat()

# No test writes into the repository tree: hypothesis keeps its examples and caches in the temp dir.
HYPOTHESIS_HOME = os.path.join(tempfile.gettempdir(), "assistant-hypothesis")
set_hypothesis_home_dir(HYPOTHESIS_HOME)
hypothesis_settings.register_profile("assistant", database=DirectoryBasedExampleDatabase(
    os.path.join(HYPOTHESIS_HOME, "examples")), deadline=None)
hypothesis_settings.load_profile("assistant")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's config, data, keys or a real Ollama."""
    home = tmp_path_factory.mktemp("home")
    for var in list(os.environ):
        if var.startswith(("ASSISTANT_", "ANTHROPIC_", "OLLAMA_", "OPENAI_", "OPENROUTER_")):
            monkeypatch.delenv(var, raising=False)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "UTC")
    # No test reaches the developer's desktop: a session bus that is not there (the desktop tests
    # start a private one, tests/desktop_bus.py).
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={home / 'no-session-bus'}")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    # The terminal the tests pretend to have, whatever the developer's shell says (NO_COLOR=1 turns
    # Textual monochrome and TERM=dumb turns colour off in Rich: both change every snapshot).
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.setenv("LANG", "C.UTF-8")


# The tests that drive the Textual app take 1-5 s each (about two minutes in all): they live in the
# files named test_ui*.py, and the quick loop, `pytest -m "not slow"`, leaves those files out, by this
# one rule rather than a mark on each test. `pytest tests/test_ui_keys.py` runs a UI file whole.
def drives_the_app(path: Path) -> bool:
    return path.name.startswith("test_ui")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Two workers a core (`-n logical`, the default in pyproject.toml): a good part of the suite waits on
    what its tests start (the app in tmux, servers, subprocesses), and a third worker keeps the core busy
    meanwhile (docs/development.md: 5 min 38 s with two workers on 2 cores, 4 min 37 s with four).
    PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set (xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return 2 * len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if drives_the_app(item.path):
            item.add_marker(pytest.mark.slow)


# Nor does a quick test start a Python interpreter (`assistant`, `python -c`) or a server (tmux, a D-Bus
# bus, litestream): each costs a second or more. Such a test is marked `slow`; one that is not fails,
# saying so. Small programs (a stand-in notify-send, uname) are not refused, nor what a module- or
# session-scoped fixture starts once for many tests (test_notify.py's bus). sys.addaudithook sees every
# process started, from the test's threads and the SDK's stdio client too.
STARTS_SLOW = ("assistant", "tmux", "dbus-daemon", "litestream")
WRAPPERS = ("env", "setpriv", "nice", "timeout", "sh", "bash")
_quick_test: list[str] = []  # the node id of the quick test running now, if one is


def slow_program(argv: Sequence[object]) -> str | None:
    """The program of `argv` the quick loop has no room for (looking through env, setpriv, sh -c...), or None."""
    words = [str(w) for w in argv]
    while words:
        name = os.path.basename(words[0])
        if name in STARTS_SLOW or name.startswith("python"):
            return name
        if name not in WRAPPERS:
            return None
        rest = words[1:]
        if name in ("sh", "bash") and rest[:1] == ["-c"]:
            rest = rest[1].split() if len(rest) > 1 else []
        words = [w for w in rest if not w.startswith("-") and "=" not in w]
    return None


def _refuse_slow_processes(event: str, args: tuple[Any, ...]) -> None:
    if event == "subprocess.Popen" and _quick_test:
        program = slow_program(list(args[1]) if not isinstance(args[1], str | bytes) else [args[1]])
        if program is not None:
            raise AssertionError(f"{_quick_test[0]} starts {program}: mark it @pytest.mark.slow (the quick loop, "
                                 "`pytest -m 'not slow'`, starts no interpreter and no server)")


sys.addaudithook(_refuse_slow_processes)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    if item.get_closest_marker("slow") is None:
        _quick_test[:] = [item.nodeid]
    try:
        return (yield)
    finally:
        _quick_test.clear()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Any:
    if fixturedef.scope == "function":
        return (yield)
    held = _quick_test[:]
    _quick_test.clear()
    try:
        return (yield)
    finally:
        _quick_test[:] = held


@pytest.fixture(autouse=True)
def _the_quick_loop_drives_no_app(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test elsewhere that starts the app fails, saying where it belongs: the quick loop stays quick."""
    if drives_the_app(request.path):
        return
    from textual.app import App

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError(f"{request.node.nodeid} drives the Textual app: move it to a tests/test_ui*.py "
                             "file (the slow ones, left out of `pytest -m 'not slow'`)")

    for name in ("run", "run_async", "run_test"):
        monkeypatch.setattr(App, name, refuse)


def pytest_configure(config: pytest.Config) -> None:
    """Snapshot failure reports go to the temp dir, never into the repository tree."""
    import tempfile

    if config.getoption("--snapshot-report", default=None) == "snapshot_report.html":
        config.option.snapshot_report = str(Path(tempfile.gettempdir()) / "assistant-snapshot-report.html")


@pytest.fixture
def clock() -> Clock:
    return Clock(UTC, T0)


# A fresh store is a copy of one migrated at the session's start (once per xdist worker): migrating from
# scratch takes 40-60 ms, a copy 3 ms, and the copy is the same file (the migrations read no clock). The
# schema tests (test_schema.py) migrate from scratch. `store`, `make_runtime` and `fresh_store_file` copy it;
# a test that opens Store(path) on a new path of its own still migrates.
STORE_TEMPLATE: list[Path] = []


@pytest.fixture(scope="session", autouse=True)
def _store_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("template") / "empty.db"
    Store(path, Clock(UTC, T0)).close()  # closing the last connection checkpoints the WAL into the file
    STORE_TEMPLATE[:] = [path]
    yield path
    STORE_TEMPLATE.clear()


def fresh_store_file(path: Path) -> Path:
    """`path`, when there is no file there yet, becomes a freshly migrated empty store (0600, as the store
    makes it): the session's template, copied. Outside a test session it is left for the first open."""
    if STORE_TEMPLATE and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        shutil.copyfile(STORE_TEMPLATE[0], path)
        os.chmod(path, 0o600)
    return path


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[Store]:
    s = Store(fresh_store_file(tmp_path / "memory.db"), clock)
    yield s
    s.close()


def present(value: T | None) -> T:
    """`value`, which the test expects to be there: None fails the test here (and narrows the type)."""
    assert value is not None
    return value


def last_text(events: list[Event]) -> str:
    """The text a turn ends with: its Done's (or its Failed's)."""
    from assistant.turn.events import Done, Failed

    assert isinstance(events[-1], Done | Failed)
    return events[-1].text


def offline_note(events: list[Event]) -> str:
    """Why the model did not answer, as a turn answered offline says it: once, on the first line of the
    answer (no notice says it again)."""
    from assistant.turn.events import Done, Notice

    done = events[-1]
    assert isinstance(done, Done) and done.failure, done
    assert done.text.startswith("(I couldn't reach the chat model:"), done.text
    assert not [e for e in events if isinstance(e, Notice) and "chat model" in e.text]
    return done.text.split("\n", 1)[0]


def make_clock(when: datetime | str, zone: str = "UTC") -> Clock:
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return Clock(zone_from_name(zone), when)


# One bundled model per worker, loaded at its first text, and the vectors it made kept for the session
# (tests/known_texts.py): the `embedder` and `known_texts` fixtures, and what `memories.remember` embeds by
# default. A model call costs about 0.1 s of CPU however short the text (the int8 weights are dequantized at
# each call), and the tests write the same statements again and again (a seed each parametrized test writes
# first): each text is embedded once a worker, to the same vector to the last bit.
_SESSION_VECTORS: list[KnownTexts] = []
_SESSION_VECTORS_LOCK = threading.Lock()


def session_vectors() -> KnownTexts:
    """The worker's bundled model with the vectors it has made (created at the first call, from any thread)."""
    with _SESSION_VECTORS_LOCK:
        if not _SESSION_VECTORS:
            from memory.search.embeddings import LocalEmbedder
            from tests.known_texts import KnownTexts

            _SESSION_VECTORS.append(KnownTexts(LocalEmbedder(cache_dir=Path(tempfile.gettempdir()))))
        return _SESSION_VECTORS[0]


@pytest.fixture(autouse=True)
def _bundled_model_vectors_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """`memories.remember`'s default embedder, the bundled model (memory.search.embeddings.bundled_embedder,
    one per process), is the session's: the same model, its vectors of a text made once a worker."""
    import memory.search.embeddings

    monkeypatch.setattr(memory.search.embeddings, "bundled_embedder", session_vectors)


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The bundled model, loaded (the worker's one: session_vectors)."""
    e = session_vectors().embedder
    e.load()
    return e


@pytest.fixture(scope="session")
def known_texts() -> KnownTexts:
    """The bundled model with the vectors of the texts a test learns ahead (a labelled set's) and of every
    text embedded through it, kept for the session: tests/known_texts.py."""
    return session_vectors()


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def anthropic_standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    from tests.standins import AnthropicHandler, StandIn

    server = StandIn(AnthropicHandler)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-standin")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    yield server
    server.close()


@pytest.fixture
def ollama_standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    from tests.standins import OllamaHandler, StandIn

    server = StandIn(OllamaHandler)
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    yield server
    server.close()


@pytest.fixture
def openai_standin() -> Iterator[StandIn]:
    """A stand-in OpenAI-compatible server; point a provider or the settings at `server.base` (its url + "/v1")."""
    from tests.standins import OpenAIHandler, StandIn

    server = StandIn(OpenAIHandler)
    yield server
    server.close()


def make_runtime(tmp_path: Path, **env: str) -> Runtime:
    """A Runtime over a fresh database with a frozen clock, built like the CLI builds it (tmp_path/m.db, a
    copy of the migrated template when it is not there yet, unless ASSISTANT_DB names another)."""
    from assistant.runtime import Runtime
    from assistant.settings import load_settings

    if "ASSISTANT_DB" not in env:
        fresh_store_file(tmp_path / "m.db")
    base = {"ASSISTANT_DB": str(tmp_path / "m.db"), "ASSISTANT_NOW": T0.isoformat(), "ASSISTANT_TIMEZONE": "UTC",
            "ASSISTANT_EMBEDDING_MODEL": "none", **{k: v for k, v in os.environ.items()
                                                    if k.startswith(("OLLAMA", "ANTHROPIC", "OPENAI"))}}
    return Runtime(load_settings(env={**base, **env}))


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    """A Runtime over a fresh store of this test (make_runtime), closed after it."""
    rt = make_runtime(tmp_path)
    yield rt
    rt.close()


@pytest.fixture
def rt(runtime: Runtime) -> Runtime:
    """`runtime`, by the short name several files use."""
    return runtime


@pytest.fixture
def agent(runtime: Runtime) -> Agent:
    """The agent with the offline responder (no model) over `runtime`."""
    from assistant.responders.offline import OfflineResponder
    from assistant.turn.agent import Agent

    return Agent(runtime, OfflineResponder(runtime))


@pytest.fixture
def keywords_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No embedding model (search by keywords): `pytestmark = pytest.mark.usefixtures("keywords_only")`."""
    monkeypatch.setenv("ASSISTANT_EMBEDDING_MODEL", "none")


class Cli:
    """The real CLI in process on a store of a test: cli(*args) -> (exit code, stdout, stderr). `now` freezes
    another instant, `db` names another path; cli.db is the store's path."""

    def __init__(self, db: str, capsys: pytest.CaptureFixture[str]) -> None:
        self.db = db
        self._capsys = capsys

    def __call__(self, *args: str, now: str = T0_TEXT, db: str | None = None) -> tuple[int, str, str]:
        from assistant.cli.program import main

        code = main([*args, "--db", self.db if db is None else db, "--now", now])
        out, err = self._capsys.readouterr()
        return code, out, err


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The real CLI in process on a store of this test (tmp_path/m.db): run(*args) -> (exit code, stdout,
    stderr). `now` freezes another instant, `db` names another path; run.db is the store's path."""
    return Cli(str(tmp_path / "m.db"), capsys)
