"""How many bits of guessing a fixed secret for `papersift serve` is worth, estimated the way a
guesser would attack it: the cheapest way to spell the secret out of

- the patterns zxcvbn finds (dictionary words and common passwords, l33t, names, dates, keyboard
  walks; each of 3 or more characters, costing log2 of the guesses zxcvbn gives it),
- a stretch repeating earlier text (one back-reference),
- a character that follows from the one or two before (the same, the next or previous, a constant
  step, a keyboard neighbour), or a separator used before: one bit,
- any other character (the bits of the alphabet the secret draws on).

zxcvbn's own total counts an unmatched character as one of ten, which would call a random token of
43 characters weak; its matches are what it does best. A secret that is base64 of text is measured
as that text too (base32 and hex alike). A random `secrets.token_urlsafe(32)` is worth about 210 bits (never under 150 in
thousands of draws); a sentence, a repeated word, an alphabet or a keyboard row a few dozen."""

from __future__ import annotations

import math

MIN_TOKEN_BITS = 128
KEYBOARD_ROWS = ("`1234567890-=", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./")
CHECKED = 256  # characters looked at (a longer secret is strong enough on these alone, or not at all)
ZXCVBN_MAX = 72  # characters zxcvbn matches patterns in at once (its own limit)
_NEIGHBOURS = {(row[i], row[i + 1]) for row in KEYBOARD_ROWS for i in range(len(row) - 1)}


def alphabet_size(token: str) -> int:
    """The size of the character classes the secret uses (lower, upper, digits, the rest)."""
    return sum(size for test, size in ((str.islower, 26), (str.isupper, 26), (str.isdigit, 10))
               if any(test(c) for c in token)) + (32 if any(not c.isalnum() for c in token) else 0)


def follows(before: str, c: str) -> bool:
    """True when ``c`` is what a guesser tries first after ``before``."""
    a, b = before.lower(), c.lower()
    return a == b or abs(ord(a) - ord(b)) == 1 or (a, b) in _NEIGHBOURS or (b, a) in _NEIGHBOURS


def _char_bits(token: str, i: int, per_char: float) -> float:
    if not token[i].isalnum() and token[i] in token[:i]:
        return 1.0  # the separator used before ("the_quick_brown")
    before = token[max(0, i - 2):i]
    if before and follows(before[-1], token[i]):
        return 1.0
    if len(before) == 2 and (follows(before[0], token[i]) or
                             ord(token[i]) - ord(before[1]) == ord(before[1]) - ord(before[0])):
        return 1.0  # a step of two, or two sequences interleaved ("aZbYcX", "acegik")
    return per_char


def _pattern_bits(token: str) -> dict[int, list[tuple[int, float]]]:
    """zxcvbn's matches of 3+ characters: start -> [(end, bits)]."""
    from zxcvbn import matching, scoring
    found: dict[int, list[tuple[int, float]]] = {}
    # zxcvbn looks at 72 characters at a time: windows that overlap by half cover a longer secret,
    # and every word shorter than 36 characters lies whole in one of them.
    for start in range(0, max(len(token) - ZXCVBN_MAX // 2, 1), ZXCVBN_MAX // 2):
        window = token[start:start + ZXCVBN_MAX]
        for match in matching.omnimatch(window):
            if match["j"] - match["i"] >= 2:
                guesses = float(scoring.estimate_guesses(match, window))
                found.setdefault(start + match["i"], []).append((start + match["j"] + 1, math.log2(max(guesses, 2.0))))
    return found


def _spelled_bits(token: str) -> float:
    alphabet = alphabet_size(token)
    if alphabet < 2:
        return 0.0
    per_char, reference = math.log2(alphabet), 2 * math.log2(max(len(token), 2))
    patterns = _pattern_bits(token)
    best = [0.0] + [math.inf] * len(token)  # best[i]: the cheapest spelling of token[:i]
    for i in range(len(token)):
        here = best[i]
        best[i + 1] = min(best[i + 1], here + _char_bits(token, i, per_char))
        for end, bits in patterns.get(i, ()):
            best[end] = min(best[end], here + bits)
        # the longest stretch from here that starts earlier too (it may overlap itself, as "ababab")
        repeat = next((n for n in range(len(token) - i, 2, -1) if token[i:i + n] in token[:i + n - 1]), 0)
        if repeat:
            best[i + repeat] = min(best[i + repeat], here + reference)
    return best[-1]


def estimated_bits(token: str) -> float:
    """The secret's strength in bits (see the module's docstring)."""
    token = token[:CHECKED]
    bits = _spelled_bits(token)
    decoded = _base64_text(token)
    return min(bits, _spelled_bits(decoded)) if decoded else bits


def _base64_text(token: str) -> str | None:
    """The text a base64, base32 or hex secret encodes, when it is printable text (None otherwise)."""
    import base64
    import binascii
    decoders = (
        lambda t: base64.b64decode(t + "=" * (-len(t) % 4), altchars=b"-_" if "-" in t or "_" in t else None,
                                   validate=True),
        lambda t: base64.b32decode(t.upper() + "=" * (-len(t) % 8)),
        bytes.fromhex,
    )
    for decode in decoders:
        try:
            raw = decode(token)
        except (binascii.Error, ValueError):
            continue
        if len(raw) >= 8 and all(32 <= b <= 126 for b in raw):
            return raw.decode("ascii")  # (random bytes, as a random token's, are not text: not measured again)
    return None


def token_problem(token: str) -> str | None:
    """Why a fixed secret is too weak for the URL (None: strong enough), with the rule."""
    bits = estimated_bits(token)
    if bits >= MIN_TOKEN_BITS:
        return None
    return (f"a fixed secret needs at least {MIN_TOKEN_BITS} bits: e.g. 43 random letters, digits, '-' and '_' "
            f"(python3 -c 'import secrets; print(secrets.token_urlsafe(32))'), not a word, a sequence or a "
            f"repeated pattern; this one has about {bits:.0f}")
