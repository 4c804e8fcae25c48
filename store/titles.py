"""Derive a display title for an abstract that came without one.

Dumps carry no titles. The most useful short handle for a paper is the name of
the method, model or benchmark it introduces ("We propose **EverAnimate**, an
efficient post-training method ..." -> "EverAnimate: an efficient
post-training method ..."). Without one, the first clause of the first
sentence is trimmed to a few words. A real title always wins over this.
"""

from __future__ import annotations

import re

MAX_TITLE_WORDS = 12

# A name: a token with an inner capital or digit (VIPBench, UniCon3R, HuPER,
# GPT-4V, EverAnimate) or all-caps of 3+ letters; optional hyphenated parts.
_NAME = r"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*\+?(?:\$\^\{?[0-9A-Za-z]\}?\$)?(?:[-][A-Za-z0-9]+)*"
_NAME_RE = re.compile(_NAME)
# Each form starts with "*", "$" or a backslash; the lookahead lets the scan skip other
# characters without trying the four forms at each (3x faster on abstracts, same matches).
_WRAPPED = re.compile(
    r"(?=[*$\\])(?:"
    r"\*\*\s*(" + _NAME + r")\s*\*\*"                      # **Name**
    r"|\$?\\text(?:bf|sc|tt|it)\{\s*(" + _NAME + r")\s*\}\$?"  # $\textbf{Name}$
    r"|\\emph\{\s*(" + _NAME + r")\s*\}"
    r"|(?<![*\w])\*(" + _NAME + r")\*(?!\*))"                # *Name*
)
_VERBS = (r"(?:introduce|introduces|introducing|propose|proposes|proposing|present|presents|presenting|"
          r"develop|develops|design|release|build|construct|curate|call|term|dub|name|coin|provide|offer)")
_INTRO = re.compile(  # the lookahead: first letters of the openers, a cheap pre-check
    r"(?=[WwTtHhIiat])\b(?:[Ww]e|[Tt]his (?:paper|work)|[Hh]ere,? we|[Ii]n this (?:paper|work),? we|and|then)\s+(?:\w+ly\s+)?" + _VERBS +
    r"\b(?P<rest>[^.]{0,200})"
)
_NAMING_WORDS = ("called", "named", "dubbed", "termed", "coined")
_CALLED = re.compile(r"\b(?:" + "|".join(_NAMING_WORDS) + r")\s+(?:as\s+)?[\"'“*$\\{textbf]*\s*(" + _NAME + ")")
_PAREN = re.compile(r"\(\s*(?:\*\*|\\textbf\{|\$\\text\w+\{)?(" + _NAME + r")(?:\}\$|\}|\*\*)?\s*\)")
_COMMON = {
    "LLM", "LLMs", "VLM", "VLMs", "AI", "ML", "RL", "NLP", "GPU", "GPUs", "CPU", "TTS", "SOTA", "MLLM", "MLLMs",
    "LM", "LMs", "DNN", "DNNs", "CNN", "CNNs", "GNN", "GNNs", "RNN", "MLP", "MLPs", "API", "APIs", "OOD", "IID",
    "SGD", "KL", "PDE", "PDEs", "ODE", "ODEs", "MDP", "MDPs", "VAE", "GAN", "GANs", "ViT", "ViTs", "BERT", "GPT",
    "ImageNet", "CIFAR", "MNIST", "RLHF", "LoRA", "PAC", "NP", "TD", "EEG", "CFL", "IL", "BC", "CUAs", "CUA",
    "RTL", "ReLU", "FL", "DP", "QA", "VQA", "CoT", "ICL", "SFT", "DPO", "PPO", "MoE", "GP", "GPs", "HMM", "PCA",
    "SVD", "LSTM", "UAV", "3D", "2D", "1D", "4D", "US", "UK", "EU", "IoT", "LiDAR", "RGB", "MRI", "CT", "TPU",
}


def _is_name(token: str) -> bool:
    """A method-like name, not an everyday word or a common acronym."""
    if not token or token in _COMMON or token.rstrip("s") in _COMMON or len(token) < 2:
        return False
    if token.isdigit():
        return False
    parts = token.split("-")
    if len(parts) > 1 and all(p.islower() or p in _COMMON for p in parts):
        return False
    inner_upper = any(c.isupper() for c in token[1:])
    has_digit = any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    return inner_upper or has_digit


def _clean(text: str) -> str:
    text = re.sub(r"\\text\w*\{([^{}]*)\}|\\emph\{([^{}]*)\}", lambda m: m.group(1) or m.group(2) or "", text)
    text = re.sub(r"[*$_`]|\\[a-zA-Z]+", "", text)
    return re.sub(r"\s+", " ", text).strip(" ,;:.")


def _trim(text: str, max_words: int) -> str:
    parts = text.split()
    if len(parts) <= max_words:
        return " ".join(parts)
    return " ".join(parts[:max_words]) + "…"


def _phrase_after(text: str, end: int) -> str:
    """What the name is: ", a unified framework for X," after the name."""
    m = re.match(r"[*}$]*\s*\)?\s*[,:(—–-]?\s*(?:which is\s+)?((?:an?|the)\s+[^.;:()]{3,160})", text[end:])
    if not m:
        return ""
    phrase = re.split(r",\s*(?:which|that|where|whose|and|consisting|built|designed|to|using|by)\b|;|, ", m.group(1))[0]
    return _clean(phrase)


def _first_clause(abstract: str) -> str:
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z$\\*])", abstract.strip(), maxsplit=1)[0]
    clause = re.split(r"[,;:]\s|\s[—–]\s|—", first, maxsplit=1)[0]
    if len(clause.split()) < 4:
        clause = first
    return _trim(_clean(clause), MAX_TITLE_WORDS)


def _plain_name_ok(token: str) -> bool:
    """A capitalized plain word is a name only in a naming context ("We propose Larimar, a ...")."""
    base = re.sub(r"\$.*", "", token)
    return len(base) >= 3 and base[0].isupper() and base not in _COMMON and base.lower() not in _STOP


_STOP = {"the", "a", "an", "our", "this", "these", "that", "two", "three", "new", "novel", "first", "we", "it",
         "in", "to", "for", "on", "and", "or", "with", "by", "as", "one", "such", "here", "several", "both"}
_LOOKS_NAMEY = re.compile(r"[A-Z0-9]")
_PLAIN_FOLLOW = re.compile(r"\s*(?:\*\*|\}\$?)?\s*[,:(]")
_APPOS_COMMA = re.compile(r",\s+(?:an?|the)\s")
_LAST_TOKEN = re.compile(r"(?<![\w$\\])(" + _NAME + r")$")
_EXPANSION = re.compile(r"((?:[A-Z][\w-]*\s+){1,6}[\w-]*)\s*\(\s*[*$\\{a-z]*([A-Za-z][\w$^{}+-]*)")
_APPOS = re.compile(r"\s*(?:\)|\*\*|\}\$?)?\s*(?:,|:|\(|—|--)\s*(?:which is\s+)?(?:an?|the)\s")


def find_name(abstract: str) -> tuple[str, int] | None:
    """The introduced method/benchmark name and the offset just after it, if any.

    Candidates are scored by context: named right after "we propose/introduce",
    set in bold, followed by an apposition (", a framework ..."), or "called X".
    """
    cands: list[tuple[int, int, str, int]] = []  # (score, -position, name, end)

    def add(name: str, start: int, end: int, score: int, plain_ok: bool) -> None:
        name = name.strip()
        if _is_name(re.sub(r"\$.*", "", name) or name):
            score += 2
        elif not (plain_ok and _plain_name_ok(name) and _PLAIN_FOLLOW.match(abstract, end, end + 6)):
            return
        if _APPOS.match(abstract, end):
            score += 2
        cands.append((score, -start, name, end))

    head = abstract[:2000]
    for m in (_WRAPPED.finditer(head) if ("*" in head or "\\" in head) else ()):
        g = next(i for i in (1, 2, 3, 4) if m.group(i))
        add(m.group(g), m.start(), m.end(), 3, True)
    for m in _INTRO.finditer(abstract):
        rest_start = m.start("rest")
        for i, tok in enumerate(_NAME_RE.finditer(m.group("rest"))):
            word = tok.group()
            direct = i == 0 or (i <= 2 and m.group("rest")[: tok.start()].strip().lower() in ("", "a", "an", "the"))
            if direct or _LOOKS_NAMEY.search(word, 1):  # only name-shaped words can score
                add(word, rest_start + tok.start(), rest_start + tok.end(), 4 if direct else 1, direct)
            if i > 25:
                break
    # The regex tries every word boundary; a substring test first is ~20x cheaper on most abstracts.
    naming = any(w in abstract for w in _NAMING_WORDS)
    for m in (_CALLED.finditer(abstract) if naming else ()):
        add(m.group(1), m.start(1), m.end(), 3, True)
    for m in _PAREN.finditer(abstract):
        if len(m.group(1)) >= 3:
            coined = naming and _CALLED.search(abstract, max(0, m.start() - 80), m.start()) is not None
            add(m.group(1), m.start(1), m.end(), 4 if coined else 0, False)
    # "SPABA, an adaptation of ...": find the comma first (cheap), then the word before it.
    for comma in _APPOS_COMMA.finditer(abstract):
        start = max(0, comma.start() - 40)
        m = _LAST_TOKEN.search(abstract, start, comma.start())
        if m and _LOOKS_NAMEY.search(m.group(1), 1):
            add(m.group(1), m.start(1), m.end(1), 1, False)
    if not cands:
        return None
    best = max(cands)
    return best[2], best[3]


def derive_title(abstract: str) -> str:
    """A short display title for an abstract that came without one.

    Args:
        abstract: the abstract as read.

    Returns:
        "Name: what it is" when the abstract introduces a named method or
        benchmark, else the trimmed first clause. Never empty.
    """
    found = find_name(abstract)
    if found:
        name, end = found
        phrase = _phrase_after(abstract, end)
        if not phrase:
            # "the Voice Identity Perception benchmark (VIPBench)": the expansion before it.
            before = abstract[max(0, end - 200):end]
            hits = [m for m in _EXPANSION.finditer(before) if m.group(2).startswith(name)]
            phrase = _clean(hits[-1].group(1)) if hits else ""
        if not phrase:
            intro = _INTRO.search(abstract)
            phrase = _clean(re.split(r"[,.;]", intro.group("rest"))[0]).replace(name, "").strip() if intro else ""
        title = f"{name}: {_trim(phrase, MAX_TITLE_WORDS - 1)}" if len(phrase.split()) >= 2 else name
        return title
    return _first_clause(abstract) or _trim(_clean(abstract), MAX_TITLE_WORDS) or "(empty abstract)"
