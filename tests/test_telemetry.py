"""Nothing phones home (SPEC section 5): third-party telemetry is off before the embedder's first use.

onnxruntime (under fastembed) writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid and an
onnxruntime.db of queued telemetry events when it is imported (issue 21 item 10). Each test runs the
real embedder in a fresh interpreter, because onnxruntime decides when it is first imported and this
test process has usually imported it already.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # fresh interpreters that load the model


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ORT_"))}
    # The default cache (~/.cache) is where onnxruntime writes; TMPDIR is watched as well.
    (home / "tmp").mkdir(parents=True)
    env.update(HOME=str(home), TMPDIR=str(home / "tmp"), ORT_DISABLE_TELEMETRY="0")  # "0": telemetry on
    return env


# No socket open once the model has embedded (Linux lists a process's open files in /proc).
SOCKETS_OPEN = """
import os
def sockets_open():
    found = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            target = os.readlink(f'/proc/self/fd/{fd}')
        except OSError:
            continue
        if target.startswith('socket:'):
            found.append(target)
    return found
"""


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink())


def test_the_embedder_writes_nothing_outside_its_own_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from memory.search.embeddings import LocalEmbedder\n"
            "e = LocalEmbedder(cache_dir=Path(sys.argv[1]))\n"
            "assert e.embed(['the wifi password is on the fridge']).shape == (1, 384)\n"
            "import onnxruntime\n"
            "assert onnxruntime.InferenceSession is onnxruntime.capi.onnxruntime_inference_collection"
            ".InferenceSession, 'the load left onnxruntime patched'\n"
            + SOCKETS_OPEN + "assert sockets_open() == [], sockets_open()\n")
    out = subprocess.run([sys.executable, "-c", code, str(home / "ours")], env=_env(home), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    files = _files(home)
    assert all(f.startswith("ours/") for f in files), files  # the bundled model needs no files at all now
    assert not (home / ".cache" / "Microsoft").exists()


def test_the_cli_writes_only_into_the_apps_own_folders(tmp_path: Path) -> None:
    """A whole command that embeds (remember, then recall) on a fresh home: only assistant's own folders."""
    home = tmp_path / "home"
    env = _env(home)
    env.update(ASSISTANT_NOW="2026-11-22T14:00:00+00:00", ASSISTANT_TIMEZONE="UTC", OLLAMA_HOST="http://127.0.0.1:9")
    exe = Path(sys.executable).with_name("assistant")
    for args in (["remember", "the wifi password is on the fridge"], ["recall", "wifi"]):
        out = subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
    files = _files(home)
    ours = (".local/share/assistant/", ".local/state/assistant/", ".cache/assistant/")
    import sqlite3

    with sqlite3.connect(home / ".local/share/assistant/memory.db") as db:  # the embedder did run
        assert db.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()[0].startswith("minilm")
    assert all(f.startswith(ours) for f in files), files
