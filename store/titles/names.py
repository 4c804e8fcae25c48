"""Names for derived titles: which method or benchmark name an abstract introduces, whether it
presents the name as its own (what an acronym stands for: :mod:`store.titles.expansion`).

:mod:`store.titles.derive` builds the title from these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from store.titles.expansion import _MATH, _defined_before
from store.titles.text import INLINE_MATH, clean_phrase

# A name: a token with an inner capital or digit (VIPBench, UniCon3R, HuPER,
# GPT-4V, EverAnimate) or all-caps of 3+ letters; optional hyphenated parts; a power inside
# (T$^2$SQNet, EMC$^2$, AD$^\varepsilon$), a symbol before or after ($\Delta$-IRIS, BanditMIPS-$\alpha$).
_NAME = (r"(?:\$\\?[A-Za-z]{1,10}\$-)?[A-Za-z][A-Za-z0-9]*(?:\.\d+(?![\w-]))?(?:[-+][A-Za-z0-9]+)*\+?"
         r"(?:\$\^\{?\\?[0-9A-Za-z]+\}?\$[A-Za-z0-9]*)?(?:[-][A-Za-z0-9]+)*(?:-\$\\?[A-Za-z]{1,10}\$)?#?")
_NAME_RE = re.compile(_NAME)
# Each form starts with a literal "*", "$" or backslash, so the scan skips other characters in C
# without trying the forms at each (6x faster on abstracts than trying them everywhere). The name
# is in one of groups 1-5: $\textbf{...} and \textbf{...} are two forms for that reason.
_WRAPPED = re.compile(
    r"\*\*\s*(" + _NAME + r"(?:\s+[A-Z][A-Za-z0-9-]*){0,2})\s*\*\*(?![A-Za-z])"  # **Name**, not **D**rops
    r"|\$\\text(?:bf|sc|tt|it)\{\s*(" + _NAME + r")\s*\}(?![A-Za-z])\$?"  # $\textbf{Name}$, not $\textbf{LE}arnable$
    r"|\\text(?:bf|sc|tt|it)\{\s*(" + _NAME + r")\s*\}(?![A-Za-z])\$?"
    r"|\\emph\{\s*(" + _NAME + r")\s*\}"
    r"|\*(?<![*\w]\*)(" + _NAME + r")\*(?!\*)"               # *Name*, not a*Name* nor **Name*
)
_VERBS = (r"(?:introduce|introduces|introducing|propose|proposes|proposing|present|presents|presenting|"
          r"develop|develops|design|release|build|construct|curate|call|term|dub|name|coin|provide|offer)")
INTRO = re.compile(  # the lookahead: first letters of the openers, a cheap pre-check
    r"(?=[WwTtHhIiat])\b(?:[Ww]e|[Tt]his (?:paper|work)|[Hh]ere,? we|[Ii]n this (?:paper|work),? we|and|then)\s+(?:(?:\w+ly|first|also|further|now)\s+)?" + _VERBS +
    r"\b(?P<rest>[^.]{0,200})"
)
NAMING_WORDS = ("called", "named", "dubbed", "termed", "coined")


def has_naming_word(text: str) -> bool:
    """Whether one of NAMING_WORDS is in ``text`` (five substring tests: ~20x cheaper than a regex
    search over it, and spelled out, as a generator's frames cost more than the tests)."""
    return "called" in text or "named" in text or "dubbed" in text or "termed" in text or "coined" in text


_CALLED = re.compile(r"\b(?:" + "|".join(NAMING_WORDS) + r")\s+(?:as\s+)?(?:[\"'“*$]|\\textbf\{)*\s*(" + _NAME + ")")
_PAREN = re.compile(r"\(\s*(?:\*\*|\\textbf\{|\$\\text\w+\{)?(" + _NAME + r")(?:\}\$|\}|\*\*)?\s*\)")
_COMMON = {
    "LLM", "LLMs", "VLM", "VLMs", "AI", "ML", "RL", "NLP", "GPU", "GPUs", "CPU", "TTS", "SOTA", "MLLM", "MLLMs",
    "LM", "LMs", "DNN", "DNNs", "CNN", "CNNs", "GNN", "GNNs", "RNN", "MLP", "MLPs", "API", "APIs", "OOD", "IID",
    "SGD", "KL", "PDE", "PDEs", "ODE", "ODEs", "MDP", "MDPs", "VAE", "GAN", "GANs", "ViT", "ViTs", "BERT", "GPT",
    "ImageNet", "CIFAR", "MNIST", "RLHF", "LoRA", "PAC", "NP", "TD", "EEG", "CFL", "IL", "BC", "CUAs", "CUA",
    "RTL", "ReLU", "FL", "DP", "QA", "VQA", "CoT", "ICL", "SFT", "DPO", "PPO", "MoE", "GP", "GPs", "HMM", "PCA",
    "SVD", "LSTM", "UAV", "3D", "2D", "1D", "4D", "US", "UK", "EU", "IoT", "LiDAR", "RGB", "MRI", "CT", "TPU",
}


# Field terms that abstracts define in passing ("maximum likelihood estimation (MLE)"), not names
# of a contribution: the acronyms found as names in 2+ ICML 2024 abstracts, never in their titles.
# An abstract that claims one in so many words ("we propose a framework, SGDM, ...") still names
# itself by it (store.titles.claims).
FIELD_TERMS = frozenset({
    "ATE", "CATE", "CCA", "CCE", "CD", "CDF", "CMDP", "CP", "DM", "EBM", "ERM", "FLOP", "GCN", "INR", "KG", "LP",
    "MBRL", "MLE", "MOO", "MPC", "MSE", "MTL", "NAS", "NN", "OT", "PEFT", "PTQ", "RAG", "SBM", "SCO", "SDE", "SGDM",
    "SNN", "SSL", "SSM", "T2I", "ToM",
})
_COMMON |= FIELD_TERMS


_QUANTITY = re.compile(r"\d+(?:\.\d+)?[KMBkmbx]")


def is_name(token: str) -> bool:
    """A method-like name, not an everyday word or a common acronym."""
    if not token or token in _COMMON or token.rstrip("s") in _COMMON or len(token) < 2:
        return False
    if token.isdigit() or _QUANTITY.fullmatch(token):
        return False  # "200K", "48B": a count, not a name
    parts = token.split("-")
    if len(parts) > 1 and all(p.islower() or p in _COMMON for p in parts):
        return False
    inner_upper = any(c.isupper() for c in token[1:])
    has_digit = any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    return inner_upper or has_digit


_MATH_TAIL = re.compile(r"\$.*")


def _plain_name_ok(token: str) -> bool:
    """A capitalized plain word is a name only in a naming context ("We propose Larimar, a ...")."""
    base = _MATH_TAIL.sub("", token)
    return len(base) >= 3 and base[0].isupper() and base not in _COMMON and base.lower() not in _STOP


_STOP = {"the", "a", "an", "our", "this", "these", "that", "two", "three", "new", "novel", "first", "we", "it",
         "in", "to", "for", "on", "and", "or", "with", "by", "as", "one", "such", "here", "several", "both"}
_MATH_GROUP = re.compile(r"\\(?:math\w*|operatorname)\{$")
_NEXT_CAPITAL = re.compile(r"\s+[A-Z]")
_LOOKS_NAMEY = re.compile(r"[A-Z0-9]")
_PLAIN_FOLLOW = re.compile(r"\s*(?:\*\*|\}\$?)?\s*[,:(]")
_APPOS_COMMA = re.compile(r",\s+(?:an?|the)\s")
_LAST_TOKEN = re.compile(r"(?<![\w$\\])(" + _NAME + r")$")
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789$\\.-+^{}#"  # every one _NAME has (ASCII)
_CAPS_WORDS = re.compile(r"(?:\s+[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*)+(?![\w-])")  # more upper-case words of a name
_APPOS = re.compile(r"\s*(?:\)|\*\*|\}\$?)?\s*(?:,|:|\(|—|--)\s*(?:which is\s+)?(?:an?|the)\s")


# What an abstract sets inside a word to stress its letters ("**N**eural", "\\textbf{Fre}quency"),
# or to write a star as itself ("O\\*NET": Markdown's escape).
_WORD_MARKUP = "*}$\\"


def split_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a piece of a word that emphasis splits: a letter just across
    markup before it ("eural-Nets" from "**N**eural-Nets", "NET" from "O\\*NET") or after it ("Fre"
    from "\\textbf{Fre}quency", "D" from "**D**eep"). Markup outside a word splits nothing: "**LASER**:"."""
    before = start
    while before > 0 and text[before - 1] in _WORD_MARKUP:
        before -= 1
    after = end
    while after < len(text) and text[after] in _WORD_MARKUP:
        after += 1
    return ((before < start and before > 0 and text[before - 1].isalpha())
            or (after > end and after < len(text) and text[after].isalpha()))


def find_name(abstract: str, intros: list[re.Match[str]] | None = None,
              claimed: Sequence[tuple[str, int, int]] = ()) -> tuple[str, int] | None:
    """The introduced method/benchmark name and the offset just after it, if any.

    Candidates are scored by context: named right after "we propose/introduce",
    set in bold, followed by an apposition (", a framework ..."), or "called X".

    Args:
        intros: the abstract's ``INTRO`` matches, if the caller has them already.
        claimed: the names the abstract claims in so many words (store.titles.claims): the
            first of them outranks every other candidate.
    """
    if intros is None:
        intros = list(INTRO.finditer(abstract))
    cands = _Candidates(abstract)
    cands.wrapped()
    cands.introduced(intros)
    # The regex tries every word boundary; a substring test first is ~20x cheaper on most abstracts.
    naming = has_naming_word(abstract)
    if naming:
        cands.called()
    acronyms = cands.parenthesized(naming)
    cands.before_apposition()
    cands.found += [(9, -start, name, end) for name, start, end in claimed]
    if not cands.found:
        return None
    best = max(cands.found)
    # "an Invisible One-Iteration (IOI) attack": a word inside an acronym's long form is part of that name.
    start = -best[1]
    for paren, acronym, end in acronyms:
        if start < paren <= start + 160 and acronym != best[2]:
            long = _defined_before(acronym, abstract[max(0, paren - 160):paren])
            if long and len(long.split()) >= 2 and paren - len(long) - 3 <= start:
                return acronym, end
    return best[2], best[3]


class _Candidates:
    """The names an abstract may introduce, each scored by where it stands (:func:`find_name`):
    ``found`` holds (score, -position, name, end), the best the largest."""

    def __init__(self, abstract: str) -> None:
        self.abstract = abstract
        self.found: list[tuple[int, int, str, int]] = []

    def add(self, name: str, start: int, end: int, score: int, plain_ok: bool, follow: bool = True) -> None:
        """A candidate at ``abstract[start:end]``, scored ``score`` and 2 more for a name's shape and
        for an apposition after it; a plain word only where ``plain_ok`` (and, with ``follow``, a
        comma, colon or parenthesis follows it)."""
        abstract = self.abstract
        name = name.strip()
        if " " in name and not is_name(name.split()[0]):  # "**Deep Learning**" is emphasis, not a name
            return
        if split_word(abstract, start, end):  # "**N**eural-Nets": the rest of a word, not a name
            return
        if is_name(_MATH.sub("", name) or name):
            score += 2
        elif not (plain_ok and _plain_name_ok(name) and (not follow or _PLAIN_FOLLOW.match(abstract, end, end + 6))):
            return
        if _APPOS.match(abstract, end):
            score += 2
        self.found.append((score, -start, name, end))

    def wrapped(self) -> None:
        """Names set in bold, italics or a LaTeX command near the start."""
        abstract = self.abstract
        head = abstract[:2000]
        for m in (_WRAPPED.finditer(head) if ("*" in head or "\\" in head) else ()):
            g = next(i for i in (1, 2, 3, 4, 5) if m.group(i))
            # "**Essentially**, for knowledge to be ...": a word set off by a comma is a name only when
            # an apposition says what it is ("**Larimar**, a brain-inspired architecture")
            plain_ok = not (abstract.startswith(",", m.end()) and not _APPOS.match(abstract, m.end()))
            self.add(m.group(g), m.start(), m.end(), 3, plain_ok)

    def introduced(self, intros: list[re.Match[str]]) -> None:
        """Name-shaped words after "we propose/introduce" (the first words right after it most)."""
        for m in intros:
            rest_start, rest = m.start("rest"), m.group("rest")
            for i, tok in enumerate(_NAME_RE.finditer(rest)):
                direct = i == 0 or (i <= 2 and rest[: tok.start()].strip().lower() in ("", "a", "an", "the"))
                if rest[tok.start() - 1:tok.start()] == "{" and _MATH_GROUP.search(rest, max(0, tok.start() - 14), tok.start()):
                    continue  # "enforces $\mathrm{SE}(2)$ invariance": mathematics, not a name
                start, word, end = _whole_token(rest, tok, direct)
                if direct or _LOOKS_NAMEY.search(word, 1):  # only name-shaped words can score
                    self.add(word, rest_start + start, rest_start + end, 4 if direct else 1, direct)
                if i > 25:
                    break

    def called(self) -> None:
        """"a framework named Ditto to ...", "called X"."""
        abstract = self.abstract
        for m in _CALLED.finditer(abstract):
            if not is_name(m.group(1)) and _NEXT_CAPITAL.match(abstract, m.end()):
                continue  # "an area called *Active Exploration*": a plain word that starts a term
            self.add(m.group(1), m.start(1), m.end(), 3, True, follow=False)

    def parenthesized(self, naming: bool) -> list[tuple[int, str, int]]:
        """Acronyms in parentheses (outside mathematics), most where a "named" coins them; returns
        each as ("(" position, acronym, end)."""
        abstract = self.abstract
        acronyms: list[tuple[int, str, int]] = []
        maths = [m.span() for m in INLINE_MATH.finditer(abstract)] if "$" in abstract else []
        for m in _PAREN.finditer(abstract):
            if len(m.group(1)) >= 3 and not any(a < m.start() < b for a, b in maths):  # not "$d^{-(r-1)}$"
                called = _CALLED.search(abstract, max(0, m.start() - 80), m.start()) if naming else None
                # "a method named Foo Bar (FB)", not "named KIVI. ... KIVI can enable Llama (Llama-2)"
                coined = called is not None and ". " not in abstract[called.end():m.start()]
                self.add(m.group(1), m.start(1), m.end(), 4 if coined else 0, False)
                acronyms.append((m.start(), m.group(1), m.end()))
        return acronyms

    def before_apposition(self) -> None:
        """"SPABA, an adaptation of ...": find the comma first (cheap), then the word before it."""
        abstract = self.abstract
        for comma in _APPOS_COMMA.finditer(abstract):
            start = max(0, comma.start() - 40)
            window = abstract[start:comma.start()]
            if window.isascii():  # the name is in the run of a name's characters before the comma: searched alone
                start += len(window.rstrip(_NAME_CHARS))
            last = _LAST_TOKEN.search(abstract, start, comma.start())
            if last and _LOOKS_NAMEY.search(last.group(1), 1):
                self.add(last.group(1), last.start(1), last.end(1), 1, False)


def _whole_token(rest: str, tok: re.Match[str], direct: bool) -> tuple[int, str, int]:
    """A name-shaped token after an intro, with the digits it starts with ("3D-VLA") and, right
    after the intro, the upper-case words that follow it ("TIME WEAVER"): (start, word, end)."""
    word, start, end = tok.group(), tok.start(), tok.end()
    if start and rest[start - 1].isdigit():  # "3D-VLA": a name may start with digits
        while start and rest[start - 1].isdigit():
            start -= 1
        word = rest[start:end]
    if direct and word.isupper() and len(word) >= 3:  # "we introduce TIME WEAVER, a ...": both words
        more = _CAPS_WORDS.match(rest, end)
        if more:
            word, end = rest[start:more.end()], more.end()
    return start, word, end


_MARKED = re.compile(r"(?:\*\*|\*|\\textbf\{|\\textsc\{|\\emph\{|\\textit\{|\\texttt\{|\{\\(?:bf|sc|em|it|tt)\s)\s*$")
_NAMING_BEFORE = re.compile(r"\b(?:" + "|".join(NAMING_WORDS) + r"|namely|tagged|call|term|dub|coin)\b[^.;]{0,30}$")
_OUR_BEFORE = re.compile(r"\b[Oo]ur\b[^.;]{0,70}$")
_OURS = re.compile(r"\b(?:[Ww]e|[Oo]ur|[Tt]his (?:paper|work))\b")
_LEAD_WORDS = 6  # "we propose a new benchmark, NAME": the name within the verb's first words


_THEIRS_BEFORE = re.compile(r"\b(?:they|authors|previous(?:ly)?|prior|existing|recent(?:ly)?|[A-Z][a-z]+ et al\.?)\b"
                            r"[^.;]{0,40}\b(?:dubbed|called|named|termed|coined|proposed|introduced)\b[^.;]{0,30}$")


_NEW_WORDS = re.compile(r"\b(?:novel|new|propos|introduc|present|here)", re.I)


def _fields_name(abstract: str, name: str) -> bool:
    """Whether ``name`` is first defined in background: its first use is an acronym in parentheses
    ("... Models (DPMs)") in a sentence that says nothing of the paper's own, or a name others gave."""
    at = abstract.find(name)
    if at < 0:
        return False
    start = max(abstract.rfind(". ", 0, at), -2) + 2
    stop = abstract.find(". ", at)
    sentence = abstract[start:stop if stop >= 0 else len(abstract)]
    if _THEIRS_BEFORE.search(abstract, start, at):
        return True
    # The abstract's first sentence, background (no "we", nothing new), defining the acronym: the field's.
    return (start == 0 and abstract[at - 1:at] == "(" and abstract[at + len(name):at + len(name) + 1] == ")"
            and not _OURS.search(sentence) and not _NEW_WORDS.search(sentence)
            and not _MARKED.search(abstract, max(0, at - 12), at))


def own_name(abstract: str, name: str, end: int, intros: list[re.Match[str]], long: str) -> bool:
    """Whether the abstract presents ``name`` (whose long form is ``long``, or "") as its own
    contribution (see _MARKED and above). A name first defined in a sentence of background
    ("Diffusion Probabilistic Models (DPMs) face a challenge"), or given by others ("which they
    dubbed the DKM"), is the field's, however the paper goes on to use it."""
    if _fields_name(abstract, name):
        return False
    for at in {abstract.find(name), abstract.rfind(name, 0, end)}:
        if at < 0:
            continue
        starts = [at]
        if long:
            lat = abstract.rfind(long.split()[0], max(0, at - 200), at)
            starts += [lat] if lat >= 0 else []
        for start in starts:
            if (_MARKED.search(abstract, max(0, start - 12), start) or _NAMING_BEFORE.search(abstract, max(0, start - 60), start)
                    or _OUR_BEFORE.search(abstract, max(0, start - 80), start)):
                return True
    last = long.split()[-1].lower() if long else ""
    for m in intros:
        words = m.group("rest").split()
        if name in " ".join(words[:_LEAD_WORDS]):
            return True
        lead = " ".join(words[:_LEAD_WORDS + len(long.split())]) if long else ""
        if lead and last in lead.lower() and long.lower() in clean_phrase(lead).lower():  # (a cheap test first)
            return True
    if _APPOS.match(abstract, end):
        sentence_start = max(abstract.rfind(". ", 0, end), -2) + 2
        return bool(_OURS.search(abstract, sentence_start, abstract.find(". ", end) % (len(abstract) + 1)))
    return False
