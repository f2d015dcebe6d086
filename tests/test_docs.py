"""The README stays a front page, and the documentation's links and file names lead somewhere (issue 30).

Every relative link of README.md and docs/*.md must name a file that exists and, with `#anchor`, a
heading of that file as GitHub spells its anchor: moving a section without its links fails here. A
repository path named in the text (`memory/search/context.py`) must exist too, so a module moved
without its documentation is caught. .ci/run runs the second line of the README's Quick start block,
so that block keeps its shape.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 250  # a front page: the rest lives in docs/

# Paths the documentation names on purpose although they are gone: history, told as history.
HISTORICAL_PATHS = {"memory/search.py"}  # docs/retrieval.md: the module the fusion was first timed against

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")
HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
HTML_ANCHOR = re.compile(r"""<a\s+(?:name|id)\s*=\s*["']([^"']+)["']""")
REPO_PATH = re.compile(r"(?<![\w./~-])(?:assistant|memory|ui|tests|benchmarks|docs|\.ci)/[\w.-]+(?:/[\w.-]+)*")


def documents() -> list[Path]:
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def split_code(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(prose lines, code lines) with their numbers: fenced blocks and indented blocks are code."""
    prose, code = [], []
    fence = ""
    previous_blank = True
    in_indented = False
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence:
            code.append((number, line))
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
            code.append((number, line))
        elif line.startswith(("    ", "\t")) and line.strip() and (previous_blank or in_indented):
            in_indented = True
            code.append((number, line))
        else:
            in_indented = in_indented and not line.strip()
            prose.append((number, line))
        previous_blank = not line.strip()
    return prose, code


def links(path: Path) -> list[tuple[int, str]]:
    """Every link target outside code: inline links and images, reference definitions, HTML href/src."""
    found: list[tuple[int, str]] = []
    for number, line in split_code(path.read_text(encoding="utf-8"))[0]:
        line = CODE_SPAN.sub("", line)
        for pattern in (INLINE_LINK, REFERENCE_DEFINITION, HTML_LINK):
            found.extend((number, match.group(1)) for match in pattern.finditer(line))
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, punctuation dropped, spaces to dashes."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link counts by its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", text)  # emphasis markers, not snake_case
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file: its headings (a repeated one gets -1, -2, ...) and <a id=...>."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in split_code(path.read_text(encoding="utf-8"))[0]:
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(HTML_ANCHOR.findall(line))
    return found


def broken_links(path: Path, root: Path) -> list[str]:
    """What is wrong with the relative links of one file, one line per broken link."""
    problems = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:: not ours to check
            continue
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}:{number}: {target}"
        if not destination.is_relative_to(root.resolve()):
            problems.append(f"{where} leaves the repository")
        elif not destination.exists():
            problems.append(f"{where}: no such file")
        elif anchor and (destination.suffix != ".md" or anchor not in anchors(destination)):
            problems.append(f"{where}: no heading with that anchor in {destination.relative_to(root)}")
    return problems


def missing_paths(path: Path, root: Path) -> list[str]:
    """Repository paths named anywhere in the file (prose, code spans, code blocks) that do not exist."""
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in REPO_PATH.finditer(line):
            named = match.group(0).rstrip(".")
            if named not in HISTORICAL_PATHS and not (root / named).exists():
                problems.append(f"{path.relative_to(root)}:{number}: {named} does not exist")
    return problems


def quick_start_block(text: str) -> list[str]:
    """The lines of the first fenced block under "## Quick start", read as .ci/run reads them."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Quick start"))
    fences = [i for i in range(start, len(lines)) if lines[i].startswith("```")]
    assert len(fences) >= 2, "no code block under ## Quick start"
    return lines[fences[0] + 1:fences[1]]


def test_the_readme_is_a_front_page() -> None:
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count < MAX_README_LINES, f"README.md has {count} lines: move detail into docs/"


def test_the_quick_start_block_launches_then_tests() -> None:
    launch, test_command, *rest = quick_start_block(README.read_text(encoding="utf-8")) + ["", ""]
    assert not any(rest), "the Quick start block holds exactly two lines (.ci/run runs the second)"
    assert "pip install" in launch and launch.endswith("&& .venv/bin/assistant"), launch
    assert '".[test]"' in test_command and test_command.endswith("&& .venv/bin/python -m pytest"), \
        "the second line installs the test extra and runs the whole suite"


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(path: Path) -> None:
    assert broken_links(path, ROOT) == []


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_repository_path_named_exists(path: Path) -> None:
    assert missing_paths(path, ROOT) == []


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    """By following links from the README (a page a docs page links is found through it)."""
    pages = set((ROOT / "docs").glob("*.md"))
    reached, todo = set(), [README.resolve()]
    while todo:
        page = todo.pop()
        for _, target in links(page):
            found = (page.parent / target.partition("#")[0]).resolve()
            if found.suffix == ".md" and found.is_file() and found not in reached:
                reached.add(found)
                todo.append(found)
    assert {p.name for p in pages if p.resolve() not in reached} == set()


def test_the_checks_find_what_is_broken(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "store.py").write_text("")
    (tmp_path / "docs" / "b.md").write_text("# Page B\n\n## When: `WHEN`\n\n## Notes\n\n## Notes\n")
    (tmp_path / "a.md").write_text(
        "See [B](docs/b.md), [when](docs/b.md#when-when), [the second notes](docs/b.md#notes-1),\n"
        "[gone](docs/c.md), [no such part](docs/b.md#nowhere) and [self](#top) and\n"
        "[out](../elsewhere.md), ![a picture](docs/missing.svg), [web](https://example.org/x.md).\n"
        "In code, `[not a link](nowhere.md)` is left alone, as is:\n\n"
        "```\n[nor this](nowhere.md)\n```\n\n"
        "# Top\n\nThe store is memory/store.py, the search `memory/search/hybrid.py`.\n")
    problems = broken_links(tmp_path / "a.md", tmp_path)
    assert [p.split(": ", 1)[1].split(" ", 1)[0].rstrip(":") for p in problems] == \
        ["docs/c.md", "docs/b.md#nowhere", "../elsewhere.md", "docs/missing.svg"]
    assert missing_paths(tmp_path / "a.md", tmp_path) == [
        "a.md:2: docs/c.md does not exist", "a.md:3: docs/missing.svg does not exist",
        "a.md:12: memory/search/hybrid.py does not exist"]
    with pytest.raises(AssertionError):
        quick_start_block("# x\n\n## Quick start\n\nno block\n")
    assert quick_start_block("## Quick start\n\n```\none\ntwo\n```\n") == ["one", "two"]


# Benchmarks that rewrite a table of docs/ between two markers: (script, the page, the markers' name).
GENERATED_TABLES = [("bench_scale.py", "speed.md", "bench_scale"), ("bench_hour.py", "speed.md", "bench_hour"),
                    ("real_model.py", "real-model.md", "real-model"), ("bench_mcp.py", "mcp.md", "bench_mcp")]


@pytest.mark.parametrize(("script", "page", "name"), GENERATED_TABLES)
def test_each_generated_table_sits_where_its_benchmark_writes_it(script: str, page: str, name: str) -> None:
    assert f'ROOT / "docs" / "{page}"' in (ROOT / "benchmarks" / script).read_text(encoding="utf-8")
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    assert text.count(start) == 1 and text.count(end) == 1 and text.index(start) < text.index(end)
