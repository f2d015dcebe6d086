"""Structured text read as records, and credentials anywhere in a sentence that names a secret.

A table (Markdown, pipes without the outer bars, CSV, TSV, HTML `<td>` cells), a block of `key: value`
lines and a list under a title are split into cells, each with its column's header or its key, the
first cell of its row (what the row is about) and the title above. A cell is judged as a sentence
would be:
- by its header or key, as by a keyword: the cell under "password" in the row "bank" reads as "bank
  password: T4ble!Pw"; the cell after "bank" in a row without a header as "bank: T4ble!Pw" (a label:
  labels.py); the cell after "password" as "password: Html!Cell3" (keywords.py);
- by its title: under "codes:" or "PINs", a value of three digits or more is a code or a PIN ("* bike:
  4721"); under "passwords:", any single value; under "logins:" or "credentials:", a value with
  letters and digits;
- by its shape: a value shaped like a credential (values.py) in a record that holds a word for a
  secret anywhere, in its header, its keys, its title or its cells ("SSID: HomeNet" / "Key: W1fi!Key55").
And a sentence is a record without cells: a credential-shaped value anywhere in a sentence that holds a
word for a secret is one ("my old password was X and the new one is New!Pw37", "the router uses
Router!Pw38 as its password", "I typed Typed!Pw39 into the password field").

Spans are a cell's value exactly: never a delimiter, never the spaces around it.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memory.sensitive import keywords, labels, vocabulary
from memory.sensitive.values import credential_shaped, holds_an_email, strip_value


@dataclass(frozen=True, slots=True)
class Cell:
    start: int
    end: int
    key: str = ""     # its column's header, or the key before it on its line
    label: str = ""   # the first cell of its row, when the cell is not that one
    row_key: str = ""  # the header of the first column, when the cell is not in it ("door" over "front")
    before: str = ""  # the cell just before it, when that is not the first
    inline: bool = False  # its key stands right before it in the text, which the other detectors read


@dataclass(frozen=True, slots=True)
class Record:
    cells: tuple[Cell, ...]
    context: str  # the title, the header and the row: where a word for a secret may stand
    title: str = ""


_Finding = tuple[int, int, str]
# Keys, headers and titles that name a secret alone in a record, though not in a sentence ("Key: X"), columns
# of user names, keys of what names a thing ("SSID: Villa-5G" beside "Password: ..."), titles over a list of
# secrets by the kind of secret each item is, and codes that open nothing ("zip codes", "error codes"):
# the data files' (vocabulary/*.toml).
_SECRET_KEYS = vocabulary.LazyWords("secret_keys")
_USER_KEYS = vocabulary.LazyWords("user_keys")
_NAME_KEYS = vocabulary.LazyWords("user_keys", "name_keys")
_TITLE_KINDS = ("password", "login", "pin", "code", "combination")
_TITLE = vocabulary.lazy_pattern(lambda: r"(?<![^\W_])(?:" + "|".join(
    f"(?P<{kind}>{vocabulary.alternation(f'{kind}_titles', True)})" for kind in _TITLE_KINDS) + r")(?![^\W_])", re.I)
_ORDINARY_CODES = vocabulary.lazy_pattern(
    lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('ordinary_codes', True)})[\s-]+$", re.I)
_DIGITS_VALUE = re.compile(r"\d(?:[ \-./]?\d){2,}#?")
_CODE_GROUPS = re.compile(r"(?=\S*[^\W\d_])[^\W_]{3,10}(?:-[^\W_]{3,10}){1,4}")
_LABELLED_DIGITS = re.compile(r"(?:[^\W\d_][\w'’&.-]*[ \t]+){1,3}(?P<digits>\d(?:[ \-./]?\d){2,}#?)")
_SEPARATOR_CELL = re.compile(r"[ \t]*:?-{2,}:?[ \t]*")
_CSV_FIELD = re.compile(r'"(?:[^"\n]|"")*"|[^,\n]*')
_HTML_ROW = re.compile(r"<tr\b[^>]*>(?P<row>.*?)(?=</tr\s*>|<tr\b|</table\b|\Z)", re.S | re.I)
_HTML_CELL = re.compile(r"<(?P<tag>t[dh])\b[^>]*>(?P<inner>.*?)(?=</t[dh]\s*>|<t[dh]\b|</tr\b|\Z)", re.S | re.I)
_HTML_TEXT = re.compile(r"[^<>]*[^<>\s][^<>]*")
_KEY_VALUE = re.compile(r"[ \t]*(?:[-*•·+]|\d{1,2}[.)])?[ \t]*(?P<key>[^\W\d_][^:=\n|\t]{0,38}?)[ \t]*"
                        r"(?:[:=]|[ \t][-–—])[ \t]*(?P<value>\S[^\n]*?)[ \t]*$")
_BARE = re.compile(r"[ \t]*(?P<value>[^\s:=|]*\d[^\s:=|]*(?:[ \t]\d+)*)[ \t]*")
_ITEM = re.compile(r"[ \t]*(?:[-*•·+]|\d{1,2}[.)])[ \t]+(?P<value>\S[^\n]*?)[ \t]*$")
_HEADING = re.compile(r"[ \t]*(?:#{1,6}[ \t]+)?(?:\*\*|__)?(?P<title>[^\n:]{1,60}?)(?:\*\*|__)?[ \t]*:?[ \t]*$")
_SENTENCE_END = re.compile(r"\n|[.!?;](?=\s)")
_TOKEN = re.compile(r"[^\s<>|;,]+")  # markup, table bars and clause signs are no part of a value
# Where _TOKEN breaks: the characters \s matches, and the signs; the ASCII ones first.
_ASCII_BREAKS = " \t\n\r\f\v<>|;,\x1c\x1d\x1e\x1f"
_BREAKS = _ASCII_BREAKS + ("\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                           "\u2028\u2029\u202f\u205f\u3000")
_DIGIT = re.compile(r"\d")


def find(text: str, words: frozenset[str]) -> Iterator[_Finding]:
    """(start, end, kind) of each secret found by reading `text` (a view) as records and sentences."""
    if "|" in text or "\t" in text:
        for record in _delimited(text, "|" if "|" in text else "\t"):
            yield from _judged(text, record)
        if "|" in text and "\t" in text:
            for record in _delimited(text, "\t"):
                yield from _judged(text, record)
    if "," in text and ("\n" in text or text.count(",") >= 2 and ", " not in text):
        for record in _csv(text):
            yield from _judged(text, record)
    if "<t" in text or "<T" in text:
        for record in _html(text):
            yield from _judged(text, record)
    if "\n" in text and (":" in text or "=" in text or "-" in text or "*" in text or "•" in text
                          or _TITLE.search(text)):
        for record in _blocks(text):
            yield from _judged(text, record)
    yield from _sentences(text, words)


# -- reading records ---------------------------------------------------------------------------

def _lines(text: str) -> list[tuple[int, int]]:
    lines = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        lines.append((start, end))
        start = end + 1
    return lines


def _cells_of(text: str, start: int, end: int, delimiter: str) -> list[tuple[int, int]]:
    """The cells of one line of a table: stripped of spaces, the outer bars of a Markdown row dropped."""
    cells: list[tuple[int, int]] = []
    position = start
    while position <= end:
        stop = text.find(delimiter, position, end)
        stop = end if stop < 0 else stop
        cells.append(_stripped(text, position, stop))
        position = stop + 1
    if delimiter == "|":
        if cells and cells[0][0] == cells[0][1]:
            cells = cells[1:]
        if cells and cells[-1][0] == cells[-1][1]:
            cells = cells[:-1]
    return cells


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _header_like(text: str, cells: list[tuple[int, int]]) -> bool:
    """A row of column names: short words, no digits, no value's shape."""
    return all(e - s <= 40 and not any(c.isdigit() for c in text[s:e]) and len(text[s:e].split()) <= 4
               for s, e in cells) and any(e > s for s, e in cells)


def _table(text: str, rows: list[list[tuple[int, int]]], header: list[tuple[int, int]] | None,
           title: str) -> Iterator[Record]:
    names = [text[s:e] for s, e in header] if header else []
    head = " ".join(names)
    for row in rows:
        values = [text[s:e] for s, e in row]
        cells = []
        for j, (s, e) in enumerate(row):
            if e <= s:
                continue
            cells.append(Cell(s, e, key=names[j] if j < len(names) else "", label=values[0] if j > 0 else "",
                              row_key=names[0] if j > 0 and names else "", before=values[j - 1] if j > 1 else ""))
        yield Record(tuple(cells), " ".join([title, head, *values]), title)


def _title_above(text: str, line_start: int) -> str:
    """The line just above `line_start`, when it reads as a title ("codes:", "## Passwords")."""
    if line_start == 0:
        return ""
    above_start = text.rfind("\n", 0, line_start - 1) + 1
    line = text[above_start:line_start - 1]
    heading = _HEADING.fullmatch(line)
    if heading and len(heading.group("title").split()) <= 6:
        return heading.group("title")
    return ""


def _delimited(text: str, delimiter: str) -> Iterator[Record]:
    """Tables whose cells are split by `delimiter` (| or a tab), one run of lines at a time."""
    run: list[tuple[int, int]] = []
    for start, end in [*_lines(text), (len(text) + 1, len(text) + 1)]:
        if start <= len(text) and delimiter in text[start:end]:
            run.append((start, end))
            continue
        if run:
            yield from _delimited_run(text, run, delimiter)
            run = []


def _delimited_run(text: str, run: list[tuple[int, int]], delimiter: str) -> Iterator[Record]:
    rows = [_cells_of(text, s, e, delimiter) for s, e in run]
    title = _title_above(text, run[0][0])
    header: list[tuple[int, int]] | None = None
    body: list[list[tuple[int, int]]] = []
    for i, row in enumerate(rows):
        if row and all(_SEPARATOR_CELL.fullmatch(text, s, e) for s, e in row):
            if i > 0 and not header:
                header = rows[i - 1]
                if body and body[-1] is header:
                    body.pop()
            continue
        body.append(row)
    if header is None and len(body) >= 2 and len({len(r) for r in body}) == 1 and _header_like(text, body[0]):
        header = body.pop(0)
    yield from _table(text, body, header, title)


def _csv(text: str) -> Iterator[Record]:
    """Comma-separated rows: two lines or more with the same number of fields, or one line of three
    fields or more written without spaces after its commas."""
    lines = _lines(text)
    split = []
    for start, end in lines:
        fields = _fields(text, start, end)
        split.append(fields if len(fields) >= 2 and all(e - s <= 60 for s, e in fields) else None)
    i = 0
    while i < len(lines):
        if split[i] is None:
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and split[j + 1] is not None and len(split[j + 1] or ()) == len(split[i] or ()):
            j += 1
        rows = [r for r in split[i:j + 1] if r is not None]
        single = j == i and len(rows[0]) >= 3 and ", " not in text[lines[i][0]:lines[i][1]]
        if j > i or single:
            header = rows.pop(0) if len(rows) >= 2 and _header_like(text, rows[0]) else None
            yield from _table(text, rows, header, _title_above(text, lines[i][0]))
        i = j + 1


def _fields(text: str, start: int, end: int) -> list[tuple[int, int]]:
    fields = []
    position = start
    while position <= end:
        match = _CSV_FIELD.match(text, position, end)
        field_end = match.end() if match else position
        s, e = _stripped(text, position, field_end)
        if e - s >= 2 and text[s] == '"' and text[e - 1] == '"':
            s, e = s + 1, e - 1
        fields.append((s, e))
        if field_end >= end or text[field_end] != ",":
            break
        position = field_end + 1
    return fields


def _html(text: str) -> Iterator[Record]:
    """HTML table rows; without <tr>, each line's cells are a row. A row of <th> cells is the header."""
    rows = [(m.start("row"), m.end("row")) for m in _HTML_ROW.finditer(text)]
    if not rows:
        rows = [(s, e) for s, e in _lines(text) if "<t" in text[s:e].lower()]
    header: list[tuple[int, int]] | None = None
    body: list[list[tuple[int, int]]] = []
    for start, end in rows:
        cells, heads = [], 0
        for cell in _HTML_CELL.finditer(text, start, end):
            inner = _HTML_TEXT.search(text, cell.start("inner"), cell.end("inner"))
            cells.append(_stripped(text, *inner.span()) if inner else (cell.start("inner"), cell.start("inner")))
            heads += cell.group("tag").lower() == "th"
        if cells and heads == len(cells) and header is None:
            header = cells
        elif cells:
            body.append(cells)
    yield from _table(text, body, header, "")


def _blocks(text: str) -> Iterator[Record]:
    """Runs of `key: value` lines and list items, with the title above them."""
    block: list[tuple[str, int, int]] = []  # (key, value start, value end)
    title = ""
    for start, end in [*_lines(text), (len(text) + 1, len(text) + 1)]:
        line = _KEY_VALUE.fullmatch(text, start, end) if start <= len(text) else None
        item = _ITEM.fullmatch(text, start, end) if start <= len(text) and not line else None
        if not line and not item and start <= len(text) and (bare := _BARE.fullmatch(text, start, end)):
            # A value alone on its line under a title of secrets: "google backup codes" / "8421 7730".
            if block and title and _TITLE.search(title) or not block and _TITLE.search(_title_above(text, start)):
                item = bare
        if line or item:
            if not block:
                title = _title_above(text, start)
            if line:
                block.append((line.group("key"), line.start("value"), line.end("value")))
            elif item:
                block.append(("", item.start("value"), item.end("value")))
            continue
        if block and (len(block) >= 2 or title):
            context = " ".join([title, *(f"{k} {text[s:e]}" for k, s, e in block)])
            yield Record(tuple(Cell(s, e, key=k, label=title, inline=True) for k, s, e in block), context, title)
        block = []


# -- judging a record --------------------------------------------------------------------------

def _judged(text: str, record: Record) -> Iterator[_Finding]:
    title = _TITLE.search(record.title) if record.title else None
    if title and _ORDINARY_CODES.search(record.title, 0, title.start()):
        title = None
    secret_named: bool | None = None  # whether the record names a secret: asked only when a value's shape needs it
    for cell in record.cells:
        value = text[cell.start:cell.end]
        found = False
        for prefix in _prefixes(cell):
            for start, end, kind in _read_as(prefix, value):
                found = True
                yield cell.start + start, cell.start + end, kind
        if found:
            continue
        listed = _listed(value, title) if title else None
        if title and listed:
            kind = next(k for k, v in title.groupdict().items() if v)
            kind = "credential" if kind in ("password", "login") else kind
            yield cell.start + listed[0], cell.start + listed[1], kind
            continue
        if _words(cell.key) and all(w in _NAME_KEYS for w in _words(cell.key)):
            continue
        for token in _TOKEN.finditer(value):
            s, e = strip_value(token.group(0))
            if not credential_shaped(token.group(0)[s:e]):
                continue
            if secret_named is None:
                secret_named = title is not None or keywords.names_a_secret(record.context) or any(
                    w in _SECRET_KEYS for c in record.cells for w in _words(c.key)) or any(
                    w in _SECRET_KEYS for w in _words(record.title))
            if secret_named:
                yield cell.start + token.start() + s, cell.start + token.start() + e, "credential"


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_][\w-]*", text.lower())


def _prefixes(cell: Cell) -> list[str]:
    """What a cell reads after, as a sentence would: "bank password", "password", "bank"."""
    prefixes: list[str] = []
    if cell.inline:  # the key is read where it stands; the title over it is read here ("Alarm" / "Code: 2719")
        return [f"{cell.label} {cell.key}"] if cell.label and cell.key else prefixes
    if cell.key:
        if _words(cell.key) and all(w in _USER_KEYS for w in _words(cell.key)):
            return prefixes  # a user name's column: "login", "username", "e-mail"
        prefixes.append(" ".join(p for p in (cell.label, cell.row_key, cell.key) if p))
    else:
        prefixes += [p for p in (cell.label, cell.before) if p]
    return prefixes


def _read_as(prefix: str, value: str) -> Iterator[_Finding]:
    """The findings inside `value` when it is read as "prefix: value"."""
    if not prefix or "\n" in prefix:
        return
    line = f"{prefix}: {value}"
    offset = len(prefix) + 2
    words = frozenset(re.findall(r"[^\W\d_]+", line.lower()))
    for detector in (keywords.find, labels.find):
        for start, end, kind in detector(line, words):
            if start >= offset and end <= len(line):
                yield start - offset, end - offset, kind


def _listed(value: str, title: re.Match[str]) -> tuple[int, int] | None:
    """The secret in a list item under a title of secrets: digits under codes and PINs ("4721"; "visa
    4471" under PINs or door codes, not under bare "codes": "CPT 99213"), a single value under
    passwords, letters with digits under logins."""
    if ":" in value or "=" in value:
        return None  # a key of its own: judged by it
    if title.group("pin") or title.group("code") or title.group("combination"):
        if _DIGITS_VALUE.fullmatch(value) and not labels.NOT_A_CODE.fullmatch(value):
            return 0, len(value)
        if _CODE_GROUPS.fullmatch(value) and sum(c.isdigit() for c in value) >= 2:
            return 0, len(value)  # backup codes of letters and digits in groups: "73kq-92mz", "8hwc-6ja2"
        labelled = _LABELLED_DIGITS.fullmatch(value)
        if labelled and (title.group("pin") or " " in title.group(0) or title.group("combination")):
            return labelled.span("digits")
        return None
    if len(value.split()) != 1 or holds_an_email(value) or "://" in value:
        return None
    if title.group("password") and len(value) >= 4 or labels.password_shaped(value, True):
        return 0, len(value)
    return None


def _sentences(text: str, words: frozenset[str]) -> Iterator[_Finding]:
    """Credential-shaped values in a sentence that holds a word for a secret. The values are rare, the
    words are not (a 1 MB paste may hold 50,000 "password"s): each value looks for its word."""
    if not keywords.triggered(text, words):
        return
    for token in _digit_tokens(text):
        s, e = strip_value(token.group(0))
        if e - s < 6 or not credential_shaped(token.group(0)[s:e]):
            continue
        start = _sentence_start(text, token.start())
        if start > 1 and text[start - 1] == "?" or start > 2 and text[start - 2:start] == "? ":
            start = _sentence_start(text, start - 2)  # "password? hmm, maybe X": the question names it
        after = _SENTENCE_END.search(text, token.end(), token.end() + 200)
        end = after.start() if after else min(len(text), token.end() + 200)
        if keywords.names_a_secret(text[start:end]):
            yield token.start() + s, token.start() + e, "credential"


def _digit_tokens(text: str) -> Iterator[re.Match[str]]:
    """The tokens that hold a digit (a value has one), in one pass: from each digit to the token around it.
    (A pattern that starts anywhere and needs a digit later tried every start of a long token again: 10 s
    for "the code is " and 24,000 letters.)"""
    position = 0
    breaks = _ASCII_BREAKS if text.isascii() else _BREAKS
    while digit := _DIGIT.search(text, position):
        start = max(position, max(text.rfind(c, position, digit.start()) for c in breaks) + 1)
        token = _TOKEN.match(text, start)
        if token is None:  # not reached: a digit is no break
            break
        yield token
        position = token.end()


def _sentence_start(text: str, at: int) -> int:
    start = max(0, at - 200)
    for mark in _SENTENCE_END.finditer(text, start, at):
        start = mark.end()
    return start
