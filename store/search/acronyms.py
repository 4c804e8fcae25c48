"""Acronyms a library's papers define ("large language models (LLMs)"), learned from their text,
so that a query's acronym also finds the papers that write it out, and its expansion those that
only write the acronym: ``LLM task planning`` and ``large language model task planning`` find the
same papers (store.library.search: the acronym counts the papers holding its expansion's words
next to each other; the expansion's words count the papers holding the acronym).

An acronym counts as defined where a parenthesized word of 2–10 letters follows words whose
initials spell it (a plural "s" may end it; "of", "and", "from" … may stand between, as in
"reinforcement learning from human feedback (RLHF)"). It is kept when at least ``MIN_DEFINED``
definitions in the library name it and at least ``MAJORITY`` of them spell the same words (the
last word's plural counts as it). No list is typed by hand: a library of robotics papers learns
its own (VLA, MPC), and an acronym its papers use for two things is left alone.

The definitions are counted in the corpus lines' bytes (a regular expression over them; no paper
is parsed: ~0.3 s at 30k papers) and kept in ``acronyms.json`` beside the corpus for its
generation: an import counts only its new papers and adds them, and the one-shot search
(store.search.quick) reads the table there too.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Protocol, cast

from store.text import STOP_WORDS

TABLE_VERSION = 2  # 2: the table on a line of its own, first
MIN_DEFINED = 3     # definitions (in any papers) an acronym needs
MAJORITY = 0.6      # of those, the share that must spell the same words
LOOKBACK = 160      # bytes before "(" the words spelling an acronym are looked for in
MAX_TABLE_BYTES = 4 << 20  # a cache file bigger than this is no table of ours
_DEFINED = re.compile(rb"\(([A-Za-z]{2,10})\)")
_WORD = re.compile(r"[a-z0-9]+")
_CLAUSE_END = re.compile(r"[.,;:()\[\]\"'!?]")
# Words an expansion may hold that give the acronym no letter.
BETWEEN = frozenset("of and for the to in with from on a an via by".split())

Table = dict[str, tuple[str, ...]]  # acronym (lower case, singular) -> its expansion's words


class PaperLines(Protocol):
    """What is read of a corpus's papers (store.paper_lines.PaperList): their lines."""

    def __len__(self) -> int: ...
    def record_bytes(self, i: int) -> bytes: ...
    def record_chunks(self) -> Iterator[bytes | memoryview]: ...


def defined(before: str, acronym: str) -> tuple[str, tuple[str, ...]] | None:
    """The acronym as spelled (a plural's "s" dropped) and the words at the end of ``before``
    (lower case) whose initials spell it, or None. A plural acronym ("llms") is tried without
    its "s" first."""
    tail = before[max((m.end() for m in _CLAUSE_END.finditer(before)), default=0):]
    words = _WORD.findall(tail)
    for letters in ((acronym[:-1], acronym) if acronym.endswith("s") and len(acronym) > 2 else (acronym,)):
        k, took = len(letters) - 1, []
        for word in reversed(words):
            if k < 0:
                break
            if word[0] == letters[k]:
                took.append(word)
                k -= 1
            elif took and word in BETWEEN:
                took.append(word)
            else:
                break
        if k < 0 and took[-1] not in BETWEEN:
            return letters, tuple(reversed(took))
    return None


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _key(words: Iterable[str]) -> tuple[str, ...]:
    """An expansion as compared: its last word singular ("models" is "model")."""
    words = tuple(words)
    return (*words[:-1], _singular(words[-1])) if words else words


Counts = Counter[tuple[str, tuple[str, ...]]]  # (acronym as written, the words defining it) -> definitions


def count(chunks: Iterable[bytes | memoryview]) -> Counts:
    """The definitions in ``chunks`` (corpus lines: a definition is never cut between two)."""
    counts: Counts = Counter()
    for chunk in chunks:
        data = bytes(chunk)
        for m in _DEFINED.finditer(data):
            written = m.group(1).decode("ascii")
            before = data[max(0, m.start() - LOOKBACK):m.start()].decode("utf-8", "ignore").casefold()
            found = defined(before, written.casefold())
            if found is not None:  # (as written, its plural's "s" dropped: "MoE", "CoT", "LLM")
                counts[(written[:len(found[0])], found[1])] += 1
    return counts


def table_of(counts: Counts) -> Table:
    """The acronyms the definitions establish (see the module's docstring), each with its
    expansion as most often written."""
    by_key: defaultdict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
    spellings: defaultdict[tuple[str, tuple[str, ...]], Counter[tuple[str, ...]]] = defaultdict(Counter)
    for (written, words), n in counts.items():
        acronym = written.casefold()
        by_key[acronym][_key(words)] += n
        spellings[(acronym, _key(words))][words] += n
    table: Table = {}
    for acronym, expansions in by_key.items():
        (best, n), total = expansions.most_common(1)[0], sum(expansions.values())
        if n >= MIN_DEFINED and n >= MAJORITY * total and acronym not in STOP_WORDS and acronym not in BETWEEN:
            table[acronym] = min(spellings[(acronym, best)].items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return table


def written_of(counts: Counts) -> dict[str, str]:
    """Each acronym as its definitions most often write it ("moe": "MoE")."""
    forms: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for (written, _), n in counts.items():
        forms[written.casefold()][written] += n
    return {a: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for a, c in forms.items()}


def others_of(counts: Counts, table: Table) -> dict[str, list[tuple[str, ...]]]:
    """Per acronym of ``table``, the other meanings some papers define it as: expansions sharing
    no word with the table's ("fm": foundation models, where most papers' FM is flow matching). One
    that shares a word is a way of saying the same ("offline policy evaluation" for OPE, off-policy
    evaluation)."""
    others: dict[str, list[tuple[str, ...]]] = {}
    for (written, words), _ in sorted(counts.items()):
        acronym = written.casefold()
        if acronym in table and not _shared(words, table[acronym]) and words not in others.get(acronym, ()):
            others.setdefault(acronym, []).append(words)
    return others


def _shared(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether two expansions share a word (but the little ones between: "of", "and" …)."""
    def words(expansion: tuple[str, ...]) -> set[str]:
        return {_singular(w) for w in expansion if w not in BETWEEN}
    return bool(words(one) & words(other))


class Learned(NamedTuple):
    """What a library's definitions establish: the acronyms (``table_of``), each as the papers
    write it (``written_of``), and the other meanings a few papers give them (``others_of``)."""

    table: Table
    written: dict[str, str]
    others: dict[str, list[tuple[str, ...]]]


def learned(counts: Counts) -> Learned:
    table = table_of(counts)
    return Learned(table, written_of(counts), others_of(counts, table))


def learn(chunks: Iterable[bytes | memoryview]) -> Table:
    """The acronyms the text in ``chunks`` defines."""
    return table_of(count(chunks))


def acronym_of(word: str, table: Table, used: Callable[[str], bool] | None = None) -> str | None:
    """The acronym a query word is ("llm"; "llms" where ``used`` says the papers write that
    plural: "cots" is more likely a typo than CoTs), or None."""
    if word in table:
        return word
    if word.endswith("s") and word[:-1] in table and (used is None or used(word)):
        return word[:-1]
    return None


def spelled_runs(words: list[str], table: Table) -> list[tuple[int, int, str]]:
    """Where the query's words spell out an acronym the papers define ("large language models"):
    (first word, end, acronym) per run, the longest first where two would overlap."""
    if not table:
        return []
    spelled = {_key(expansion): acronym for acronym, expansion in table.items()}
    longest = max(len(e) for e in spelled)
    runs = []
    i = 0
    while i < len(words):
        for end in range(min(len(words), i + longest), i, -1):  # (one hyphenated word may spell one out)
            acronym = spelled.get(_key(p for w in words[i:end] for p in w.split("-")))
            if acronym is not None:
                runs.append((i, end, acronym))
                i = end
                break
        else:
            i += 1
    return runs


def involves(words: list[str], table: Table) -> bool:
    """Whether a query's words hold an acronym the papers define or spell one out."""
    return any(acronym_of(w, table) is not None for w in words) or bool(spelled_runs(words, table))


def shown(word: str, acronym: str, written: dict[str, str]) -> str:
    """An acronym as the papers write it, in the form typed: "LLM", "LLMs", "MoE"."""
    return written.get(acronym, acronym.upper()) + word[len(acronym):]


def kept_after_import(path: Path, lines: PaperLines, generation: str, before: str, first_new: int,
                      revised: bool) -> None:
    """After an import saved the corpus (now ``generation``, ``first_new`` papers before it, of
    ``before``): the definitions kept for ``before`` with the new papers' added, or, where none
    were kept for it (or papers were revised in place), counted again in every paper."""
    kept = None if revised else read_counts(path, before)
    if kept is not None and kept[1] == first_new:
        counts = kept[0] + count(lines.record_bytes(i) for i in range(first_new, len(lines)))
    else:
        counts = count(lines.record_chunks())
    write_counts(path, generation, counts, len(lines))


def _head(line: bytes, generation: str) -> dict[str, object] | None:
    """The kept file's first line, if it is this corpus generation's."""
    data = json.loads(line)
    if not isinstance(data, dict) or data.get("version") != TABLE_VERSION or data.get("generation") != generation:
        return None
    papers = data.get("papers")
    return data if isinstance(papers, int) and not isinstance(papers, bool) and papers >= 0 else None


def read_counts(path: Path, generation: str) -> tuple[Counts, int] | None:
    """The definitions kept for this corpus generation and how many papers they were counted in,
    or None (missing, stale, damaged, forged, a link)."""
    from store.files.nofollow import open_no_link

    if not generation:
        return None
    try:
        with open_no_link(path) as fh:
            raw = fh.read(MAX_TABLE_BYTES + 1)
        if len(raw) > MAX_TABLE_BYTES:
            return None
        first, _, second = raw.partition(b"\n")
        head = _head(first, generation)
        rows = json.loads(second).get("counts")
        if head is None or not isinstance(rows, list):
            return None
        counts: Counts = Counter()
        for acronym, words, n in rows:
            if not (isinstance(acronym, str) and isinstance(words, list) and words and all(isinstance(w, str) for w in words)
                    and isinstance(n, int) and not isinstance(n, bool) and n > 0):
                return None
            counts[(acronym, tuple(words))] += n
        return counts, cast(int, head["papers"])
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return None


def read_table(path: Path, generation: str) -> Table | None:
    """The table kept for this corpus generation, or None (see :func:`read_counts`): the file's
    first line alone (the one-shot search's question: at 30k papers, building it from the
    counts took ~30 ms)."""
    from store.files.nofollow import open_no_link

    if not generation:
        return None
    try:
        with open_no_link(path) as fh:
            first = fh.readline(MAX_TABLE_BYTES + 1)
        head = _head(first, generation) if first.endswith(b"\n") else None
        table = head.get("table") if head is not None else None
        if not isinstance(table, dict) or not all(
                isinstance(words, list) and words and all(isinstance(w, str) for w in words) for words in table.values()):
            return None
        return {str(acronym): tuple(words) for acronym, words in table.items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return None


def write_counts(path: Path, generation: str, counts: Counts, papers: int) -> None:
    """Keep the definitions for the next session, the next import (which counts only its new
    papers' and adds them) and the one-shot search (best effort: a cache): a first line with
    the table they establish, a second with the counts."""
    from store.files.atomic import atomic_write_text
    from store.errors import PapersiftError

    rows = sorted([a, list(w), n] for (a, w), n in counts.items())
    table = {a: list(w) for a, w in sorted(table_of(counts).items())}
    head = {"version": TABLE_VERSION, "generation": generation, "papers": papers, "table": table}
    try:
        atomic_write_text(path, json.dumps(head, separators=(",", ":")) + "\n"
                          + json.dumps({"counts": rows}, separators=(",", ":")) + "\n")
    except (OSError, PapersiftError):
        pass
