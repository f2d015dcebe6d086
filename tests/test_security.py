"""Issue 13, security: secrets never reach a model, stored text cannot forge a prompt section or drive
the terminal, private memories stay on the machine unless asked about."""
from __future__ import annotations

import pytest

from memory.redact import MASK, has_secret, redact

# (text, what must disappear): from the reproductions and the usual key shapes.
SECRETS = [
    ("password for the guest network is hunter2", "hunter2"),
    ("Password hunter2", "hunter2"),
    ("pw: hunter2", "hunter2"),
    ("my password=Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("the pin is 4471", "4471"),
    ("PIN code is 0000", "0000"),
    ("the passcode for the safe is 1987", "1987"),
    ("postgres://admin:S3cr3tPass@db.example.com:5432/app", "S3cr3tPass"),
    ("mysql://root:hunter2@localhost/db", "hunter2"),
    ("my AWS key is AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("key sk-ant-api03-abcdefghijklmnopqrstuv", "sk-ant-api03-abcdefghijklmnopqrstuv"),
    ("openai sk-proj-ABCDEFGHIJKLMNOPQRST1234", "sk-proj-ABCDEFGHIJKLMNOPQRST1234"),
    ("slack xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl"),
    ("google AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("stripe sk_live_51H8abcdefghijklmnop", "sk_live_51H8abcdefghijklmnop"),
    ("Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("api key = abc123def", "abc123def"),
    ("the token: 9f8e7d6c", "9f8e7d6c"),
]
# Near misses: ordinary sentences that mention the words or look a bit like keys.
HARMLESS = [
    "I forgot my password again",
    "the password manager app is great",
    "pin the poster on the wall",
    "reset the PIN tomorrow",
    "ask-me-anything session on friday",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "the meeting id is 123e4567-e89b-12d3-a456-426614174000",
    "the boiler code is 4471",
    "https://example.com/path/to/page",
    "skip the sketchy part",
    "tokens of appreciation",
    "Call the plumber at 5pm",
]


@pytest.mark.parametrize("text, secret", SECRETS)
def test_secrets_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out and MASK in out and has_secret(text)


@pytest.mark.parametrize("text", HARMLESS)
def test_near_misses_are_left_alone(text):
    assert redact(text) == text and not has_secret(text)


def test_the_words_around_a_secret_stay_and_the_placeholder_can_name_its_place():
    assert redact("password for the guest network is hunter2", "[secret in memory #12]") == \
        "password for the guest network is [secret in memory #12]"
    assert redact("postgres://admin:S3cr3tPass@db:5432/x") == "postgres://admin:[REDACTED]@db:5432/x"
