"""How many bits of guessing a fixed secret for `papersift serve` is worth, estimated the way a
guesser would attack it: each character costs the bits of the alphabet it draws on, except that a
stretch repeating earlier text costs one back-reference, and a character that follows from the one
before (the same, the next or previous letter or digit, a neighbour on a keyboard row) costs one
bit. A random `secrets.token_urlsafe(24)` is worth about 190 bits; `abcdefghijklmnopqrstuvwxyzab`,
`qwertyuiopasdfghjkl…` or a pattern repeated to length are worth a few dozen."""

from __future__ import annotations

import math

MIN_TOKEN_BITS = 128
KEYBOARD_ROWS = ("`1234567890-=", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./")
CHECKED = 256  # characters looked at (a longer secret is strong enough on these alone, or not at all)
_NEIGHBOURS = {(row[i], row[i + 1]) for row in KEYBOARD_ROWS for i in range(len(row) - 1)}


def alphabet_size(token: str) -> int:
    """The size of the character classes the secret uses (lower, upper, digits, the rest)."""
    return sum(size for test, size in ((str.islower, 26), (str.isupper, 26), (str.isdigit, 10))
               if any(test(c) for c in token)) + (32 if any(not c.isalnum() for c in token) else 0)


def follows(before: str, c: str) -> bool:
    """True when ``c`` is what a guesser tries first after ``before``."""
    a, b = before.lower(), c.lower()
    return a == b or abs(ord(a) - ord(b)) == 1 or (a, b) in _NEIGHBOURS or (b, a) in _NEIGHBOURS


def estimated_bits(token: str) -> float:
    """The secret's strength in bits (see the module's docstring)."""
    token = token[:CHECKED]
    alphabet = alphabet_size(token)
    if alphabet < 2:
        return 0.0
    per_char, reference = math.log2(alphabet), 2 * math.log2(max(len(token), 2))
    bits, i = 0.0, 0
    while i < len(token):
        # the longest stretch from here that starts earlier too (it may overlap itself, as "ababab")
        repeat = next((n for n in range(len(token) - i, 2, -1) if token[i:i + n] in token[:i + n - 1]), 0)
        if repeat:  # one back-reference
            bits += reference
            i += repeat
        elif i and follows(token[i - 1], token[i]):
            bits += 1.0
            i += 1
        else:
            bits += per_char
            i += 1
    return bits


def token_problem(token: str) -> str | None:
    """Why a fixed secret is too weak for the URL (None: strong enough), with the rule."""
    bits = estimated_bits(token)
    if bits >= MIN_TOKEN_BITS:
        return None
    return (f"a fixed secret needs at least {MIN_TOKEN_BITS} bits: e.g. 32 random letters, digits, '-' and '_' "
            f"(python3 -c 'import secrets; print(secrets.token_urlsafe(24))'), not a word, a sequence or a "
            f"repeated pattern; this one has about {bits:.0f}")
