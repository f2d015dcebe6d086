"""Secrets known by their shape, whatever the words around them: private key blocks, provider keys and
tokens, credentials inside a URL or a command line, a secret in a config assignment, and long random
strings."""
from __future__ import annotations

import re
from collections.abc import Iterator

from memory.sensitive.values import credential_shaped, strip_value

# (pattern, kind, group, needles): the group holds the secret (0 = the whole match, -1 = the first of
# its alternatives that matched); a pattern runs only on a text holding one of its needles (a string
# in the text, or "w:" and a word of it), so most texts cost a few substring tests.
_SHAPES: list[tuple[re.Pattern[str], str, int, tuple[str, ...]]] = [
    # PEM and PGP private key blocks, whole (an unterminated block runs to the end of the text).
    (re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
                r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S),
     "private_key", 0, ("PRIVATE KEY",)),
    (re.compile(r"PuTTY-User-Key-File-\d: .*?Private-MAC: \S+", re.S), "private_key", 0, ("PuTTY-User-Key-File",)),
    # Credentials in a URL: postgres://admin:S3cr3t@host keeps the user and the host; the password may
    # hold an @ itself; an empty user is fine (redis://:pass@host).
    (re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:(\S+)@[^\s@/]+", re.I), "credential", 1, ("://",)),
    # Command lines: curl -u user:pass, mysql -pX (attached: "-p" alone asks for it), sshpass -p X,
    # redis-cli -a X, and any --password=X / --token X flag.
    (re.compile(r"\b(?:curl|wget|http|httpie|xh)\b[^\n|;&]*?\s(?:-u|--user)[ =]?['\"]?[^\s:'\"]*:([^\s'\"]+)", re.I),
     "credential", 1, ("w:curl", "w:wget", "w:http", "w:httpie", "w:xh")),
    (re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|mysqlshow)\b[^\n|;&]*?\s-p"
                r"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))"), "credential", -1,
     ("mysql", "mariadb")),
    (re.compile(r"\bsshpass\s+-p\s*(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\S+))"), "credential", -1, ("sshpass",)),
    # Registry logins (docker login -u joe -p X, podman, helm, nerdctl, oc), sqlcmd -P X, mongosh -p X,
    # xfreerdp /p:X, smbclient -U joe%X.
    (re.compile(r"\b(?:docker|podman|buildah|nerdctl|helm|skopeo|oc|crane)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s-p[ =]?"
                r"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"-]\S*))"), "credential", -1, ("w:login",)),
    (re.compile(r"\bsqlcmd\b[^\n|;&]*?\s-P\s*(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\S+))"), "credential", -1, ("sqlcmd",)),
    (re.compile(r"\bmongo(?:sh)?\b[^\n|;&]*?\s-p\s+(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"-]\S*))"),
     "credential", -1, ("mongo",)),
    (re.compile(r"\bxfreerdp\b[^\n|;&]*?\s/p:(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\S+))"), "credential", -1, ("/p:",)),
    (re.compile(r"\bsmbclient\b[^\n|;&]*?\s-U\s*[^\s%]+%(\S+)"), "credential", 1, ("smbclient",)),
    (re.compile(r"\bredis-cli\b[^\n|;&]*?\s-a\s+(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\S+))"),
     "credential", -1, ("redis-cli",)),
    (re.compile(r"(?<!\S)--?(?:password|passwd|pass|http-password|ftp-password|token|secret|api-key|apikey|"
                r"auth-token|access-token|client-secret)(?:=|\s+)(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"-]\S*))", re.I),
     "credential", -1, ("w:password", "w:passwd", "w:pass", "w:token", "w:secret", "w:api", "w:apikey", "w:auth",
                        "w:access", "w:client")),
    # Provider keys and tokens; Google's app passwords are four groups of four letters.
    (re.compile(r"(?i)\bapp[ -](?:specific[ -])?passwords?\W{0,3}((?:[a-z]{4} ){3}[a-z]{4})\b"), "credential", 1,
     ("w:app",)),
    (re.compile(r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}"), "key", 0, ("sk-",)),
    (re.compile(r"\b(?:ghp|gho|ghs|ghu|ghr|github_pat)_[A-Za-z0-9_]{20,}"),
     "token", 0, ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_")),
    (re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), "token", 0, ("glpat-",)),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), "token", 0, ("xox",)),
    (re.compile(r"\bxapp-\d-[A-Za-z0-9\-]{10,}"), "token", 0, ("xapp-",)),
    (re.compile(r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/([A-Za-z0-9]{16,})"),
     "token", 1, ("hooks.slack.com",)),
    (re.compile(r"discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_\-]{30,})"), "token", 1, ("/api/webhooks/",)),
    (re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), "key", 0, ("AKIA", "ASIA", "ABIA", "ACCA")),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), "key", 0, ("AIza",)),
    (re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), "token", 0, ("ya29.",)),
    (re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"), "key", 0, ("_live_", "_test_")),
    (re.compile(r"\bwhsec_[0-9A-Za-z]{20,}\b"), "key", 0, ("whsec_",)),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), "token", 0, ("npm_",)),
    (re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{20,}"), "token", 0, ("pypi-AgE",)),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "token", 0, ("hf_",)),
    (re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"), "key", 0, ("SG.",)),
    (re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), "token", 0, ("shpat_", "shpca_", "shppa_", "shpss_")),
    (re.compile(r"\bdop_v1_[a-f0-9]{64}\b"), "token", 0, ("dop_v1_",)),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"), "token", 0, ("eyJ",)),
    # A raw private key of 256 bits written 0x and 64 hex digits (Ethereum and other wallets export
    # them so; a transaction hash has the same shape and is flagged too).
    (re.compile(r"(?<![\w])0x[0-9a-fA-F]{64}(?![\w])"), "private_key", 0, ("0x",)),
    # Authorization headers; the value has a digit or a base64 sign ("basic understanding" is prose).
    (re.compile(r"(?i)\b(?:bearer|basic)\s+((?=[A-Za-z0-9._~+/\-]*[\d+/=])[A-Za-z0-9._~+/\-]{12,}=*)"),
     "token", 1, ("w:bearer", "w:basic")),
    # Long random strings with upper and lower case and digits (an AWS secret key, a generated
    # password); lower-case hex such as a git commit id is not one, nor a CamelCase identifier.
    (re.compile(r"(?<![\w/+=-])(?!(?:[A-Z][a-z]*)+\d{0,2}(?![\w/+=-]))(?=[A-Za-z0-9+/_\-]*\d)"
                r"(?=[A-Za-z0-9+/_\-]*[a-z])(?=[A-Za-z0-9+/_\-]*[A-Z])[A-Za-z0-9+/_\-]{32,}={0,2}(?![\w/+=-])"),
     "key", 0, ("long:",)),
]
# A secret in a config assignment whose name says so: DB_PASSWORD=x, client_secret: "x", dbPassword=x.
_ASSIGNMENT = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)[\"']?"
                         r"\s*[:=]\s*(?:'([^'\n]*)'|\"([^\"\n]*)\"|([^\s,;'\"]+))")
_SECRET_WORDS = frozenset("pass password passwd pwd passphrase secret secrets token credential credentials".split())
_KEY_OWNERS = frozenset("api access private auth signing master encryption secret client".split())


_LONG_RUN = re.compile(r"[A-Za-z0-9+/_\-]{32}")
ASSIGNMENT_WORDS = ("password", "passwd", "pwd", "pass", "passphrase", "secret", "secrets", "token", "key",
                    "credential", "credentials")


# Which shapes each needle opens, found in one scan: the literal needles by one regular expression
# (a lookahead, so needles that overlap are all seen), the words by a set intersection.
_BY_LITERAL: dict[str, list[int]] = {}
_BY_WORD: dict[str, list[int]] = {}
_LONG: list[int] = []
for _index, (*_, _needles) in enumerate(_SHAPES):
    for _needle in _needles:
        if _needle == "long:":
            _LONG.append(_index)
        elif _needle.startswith("w:"):
            _BY_WORD.setdefault(_needle[2:], []).append(_index)
        else:
            _BY_LITERAL.setdefault(_needle, []).append(_index)
_LITERALS = re.compile("(?=(" + "|".join(map(re.escape, sorted(_BY_LITERAL, key=len, reverse=True))) + "))")
_WORD_NEEDLES = frozenset(_BY_WORD)
LITERAL_NEEDLES = tuple(_BY_LITERAL)  # windows.py reads a long text around them


def _shapes_present(text: str, words: frozenset[str]) -> list[int]:
    found: set[int] = set()
    for literal in {m.group(1) for m in _LITERALS.finditer(text)}:
        found.update(_BY_LITERAL[literal])
    for word in words & _WORD_NEEDLES:
        found.update(_BY_WORD[word])
    if len(text) >= 32 and _LONG_RUN.search(text):
        found.update(_LONG)
    return sorted(found)


def anchor_words() -> frozenset[str]:
    """The words the shapes hang on (windows.py)."""
    return _WORD_NEEDLES | _LOGIN_WORDS


# "joe:Colon!Cred45 for the ftp": a user name, a colon, a credential-shaped secret, in a line about a
# login (a user:secret pair alone is too like "Note:Call1st!" to be taken without one).
_USER_SECRET = re.compile(r"(?<![\w/@:.-])[a-z][a-z0-9._-]{1,31}:([^\s:/@]{6,64})(?![^\s.,;)])", re.I)
_LOGIN_WORDS = frozenset("""
ftp sftp ftps ssh scp rsync telnet rdp vnc smb nas server host login logins logon account accounts user username
admin root vpn router database db mysql postgres postgresql redis mongo mongodb ldap proxy wifi credentials creds
cred auth basic htaccess htpasswd
""".split())


def find(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    if ":" in text and words & _LOGIN_WORDS:
        for match in _USER_SECRET.finditer(text):
            start, end = strip_value(match.group(1))
            if credential_shaped(match.group(1)[start:end]):
                yield match.start(1) + start, match.start(1) + end, "credential"
    for index in _shapes_present(text, words):
        pattern, kind, group, _ = _SHAPES[index]
        for match in pattern.finditer(text):
            if group >= 0:
                yield match.start(group), match.end(group), kind
            else:  # the first alternative that matched (quoted or bare)
                g = next(i for i in range(1, (pattern.groups or 0) + 1) if match.group(i) is not None)
                yield match.start(g), match.end(g), kind
    if ("=" in text or ":" in text) and any(w.endswith(ASSIGNMENT_WORDS) for w in words):
        for match in _ASSIGNMENT.finditer(text):
            if not _names_a_secret(match.group(1)):
                continue
            g = next(i for i in (2, 3, 4) if match.group(i) is not None)
            if match.end(g) > match.start(g):
                yield match.start(g), match.end(g), "credential"


def _names_a_secret(name: str) -> bool:
    """DB_PASSWORD, client_secret, awsSecretAccessKey, OPENAI_API_KEY, db.pass; not passport_no, keyboard."""
    parts = [p.lower() for p in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]
    if any(p in _SECRET_WORDS or p.endswith(("password", "passwd", "secret", "token")) for p in parts):
        return True
    return any(p in ("key", "apikey") and (p == "apikey" or (i and parts[i - 1] in _KEY_OWNERS))
               for i, p in enumerate(parts))
