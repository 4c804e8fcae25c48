"""Hand-written detectors of the ways a derived title fails a reader, one function a class.

Each reads the abstract and the derived title only (never the real title, never the rules in
store.ingest), so a rule change cannot make its own detector agree with it:

- **introduced name missed**: the abstract claims a name ("we introduce OpenVLA", "we present
  Foo, a ...", "a method called Foo", "Foo, a ..., is proposed", "we call it Foo") and the title
  does not give it. A share of the papers that introduce one.
- **background opener**: the title is drawn from the abstract's first sentence, that sentence says
  nothing of the paper's own (no we / our / this paper), and a later sentence says "we propose /
  introduce / present ...".
- **glued**: "NAME — the start of a sentence of the abstract".
- **cut**: the title ends on an article, a preposition, a conjunction, or an article and a lone
  adjective ("EquiBot: a robust").
- **unbalanced**: brackets or quotes that do not pair up, TeX quotes left in, or a title that opens
  on "(" or a quote.
- **damaged name**: a name written with math in the abstract (``SE(3)``, ``T$^2$SQNet``) appears in
  the title without its math ("SE-equivariant", "SQNet").

Each returns a short reason (for ``--show``) or "" when the title is fine.
"""

from __future__ import annotations

import re
import unicodedata

# --- names the abstract claims ------------------------------------------------------------------

# A name: a token with an inner capital or a digit (OpenVLA, GPT-4V, T$^2$SQNet, π0.5) or 2+
# capitals; math inside it may be written $^2$ or $\pi_{0.5}$.
_TOKEN = r"(?:\$?\\?[A-Za-z][\w.+-]*(?:\$[\^_]\{?[\w.]+\}?\$[\w+-]*)*|\$\\[a-z]+_\{?[\w.]+\}?\$[\w+-]*)"
_NAMEY = re.compile(r".[A-Z0-9]|^[A-Z]{2}|^\$")
_OWN_VERB = r"(?:introduce|present|propose|release|develop|design|build|construct|curate|create|offer|contribute)s?"
_WE = r"(?:[Ww]e|[Tt]his (?:paper|work|study)|[Hh]ere,? we|[Ii]n this (?:paper|work),? we|[Oo]ur (?:work|paper))"
_MARK = r"[\s*\"“`']*(?:\\textbf\{|\\textsc\{|\\emph\{|\\texttt\{|\{\\bf\s|\{\\sc\s)?"
_CLAIMS = [
    # we introduce OpenVLA, ... / we present **Foo**: ... / we propose Foo (Long Form)
    re.compile(_WE + r"\s+(?:\w+ly\s+)?" + _OWN_VERB + _MARK + r"\s*(?P<name>" + _TOKEN + r")(?=[\s*}\"”'`]*(?:[,:(—–]|\.(?:\s|$)|\s(?:as|to|for|which|that|,)\b))"),
    # we propose a new framework, Foo, ... / we introduce a benchmark called Foo / ..., dubbed Foo
    re.compile(_WE + r"\s+(?:\w+ly\s+)?" + _OWN_VERB + r"\s+(?:a|an|the)\s[^.;:]{0,80}?(?:,|\bcalled|\bnamed|\bdubbed|\btermed|"
               r"\bcoined)\s*(?:as\s+)?" + _MARK + r"\s*(?P<name>" + _TOKEN + r")(?=[\s*}\"”'`]*[,.;:(—–)]|\s)"),
    # Foo, a ..., is proposed / introduced / presented
    re.compile(r"(?:^|[.;]\s+)" + _MARK + r"(?P<name>" + _TOKEN + r")[\s*}\"”']*,\s+(?:a|an|the)\s[^.;]{3,120}?,\s+is\s+"
               r"(?:proposed|introduced|presented|developed)\b"),
    # we propose Tree Cross Attention (TCA) / we propose a novel algorithm, Scheduled Multi-Task Training (SMT)
    re.compile(_WE + r"\s+(?:\w+ly\s+)?" + _OWN_VERB + r"\s+(?:[^.;]{0,60}?,\s*)?(?P<long>(?:[A-Z][\w-]*\s+){1,6})\(\s*"
               r"(?P<name>" + _TOKEN + r")\s*\)"),
    # we call it Foo / which we call Foo / we term this Foo
    re.compile(r"\b(?:we|We)\s+(?:call|term|dub|name|coin)\s+(?:it|this|them|our\s[\w\s-]{1,30}?|the\s[\w\s-]{1,30}?)?\s*(?:as\s+)?"
               + _MARK + r"\s*(?P<name>" + _TOKEN + r")"),
]
_NOT_NAMES = {"LLM", "LLMs", "AI", "RL", "ML", "NLP", "GNN", "GNNs", "CNN", "CNNs", "DNN", "DNNs", "VLM", "VLMs",
              "MLLM", "MLLMs", "PDE", "PDEs", "SGD", "GPU", "GPUs", "API", "ODE", "ODEs", "MDP", "MDPs", "IID",
              "OOD", "KL", "QA", "US", "CoT", "RLHF", "LoRA", "ViT", "ViTs", "GAN", "GANs", "VAE", "VAEs", "SOTA",
              "MLP", "MLPs", "SDE", "SDEs", "LM", "LMs", "NeRF", "NeRFs", "3D", "2D", "4D", "1D"}


def normal(text: str) -> str:
    """Letters and digits of ``text`` as a reader compares them: TeX math and markup dropped,
    super- and subscripts as plain digits (T$^2$SQNet = T²SQNet = T2SQNet), Greek by name."""
    text = text.replace("\\pi", "π").replace("\\alpha", "α").replace("\\beta", "β").replace("\\mu", "μ")
    text = re.sub(r"\\[A-Za-z]+", "", text)
    return re.sub(r"[^\w.]|_", "", unicodedata.normalize("NFKC", text)).strip(".").lower()


def claimed_names(abstract: str) -> list[str]:
    """The names the abstract claims as its own, as written (a paper may introduce two: a
    benchmark and a method)."""
    names = []
    for pattern in _CLAIMS:
        for m in pattern.finditer(abstract[:3000]):
            name = m.group("name").rstrip(".,-")
            if name in _NOT_NAMES or not _NAMEY.search(name) or len(normal(name)) < 2:
                continue
            if pattern is _CLAIMS[0] and m.group().split()[-1].islower():
                continue
            names.append(name)
            if "long" in pattern.groupindex and len(m.group("long").split()) >= 2:
                names.append(m.group("long").strip())  # its long form names it as well
    return names


def name_missed(abstract: str, title: str) -> str | None:
    """None when the abstract claims no name; else "" if the title gives one of its names, the
    first name if not."""
    names = claimed_names(abstract)
    if not names:
        return None
    return "" if any(normal(name) in normal(title) for name in names) else names[0]


# --- background openers ---------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\*(\"])")
_OURS = re.compile(r"\b(?:we|our|us|this (?:paper|work|study|article)|here)\b", re.I)
_CONTRIBUTES = re.compile(r"\b(?:we|this (?:paper|work|study))\s+(?:\w+ly\s+)?(?:propose|introduce|present|develop|design|"
                          r"devise)s?\b", re.I)
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(normal_spaced(text))


def normal_spaced(text: str) -> str:
    return unicodedata.normalize("NFKC", re.sub(r"\\[A-Za-z]+|[$*{}]", " ", text)).lower()


def background_opener(abstract: str, title: str) -> str:
    """The first sentence's words when the title is drawn from it while it is background and a
    later sentence says what the paper contributes; else ""."""
    sentences = _SENTENCE.split(abstract.strip())
    if len(sentences) < 2 or _OURS.search(sentences[0]):
        return ""
    if not any(_CONTRIBUTES.search(s) for s in sentences[1:]):
        return ""
    head = _words(title.split(" — ")[-1] if " — " in title and len(title.split(" — ")[0].split()) == 1 else title)[:5]
    first = _words(sentences[0])
    if len(head) < 3:
        return ""
    joined = " ".join(first)
    return sentences[0][:70] if f" {' '.join(head)} " in f" {joined} " else ""


# --- one phrase -------------------------------------------------------------------------------------

def glued(abstract: str, title: str) -> str:
    """ "NAME — <the start of one of the abstract's sentences>": a name and a sentence, not a title."""
    m = re.match(r"^(\S+) — (.+)$", title)
    if not m:
        return ""
    tail = _words(m.group(2))[:4]
    if len(tail) < 3:
        return ""
    for sentence in _SENTENCE.split(abstract.strip())[:12]:
        if _words(sentence)[:len(tail)] == tail:
            return title
    return ""


_FUNCTION = frozenset("a an the of in on at to for with by from as and or but nor that which whose where when "
                      "than into onto via per its their our this these those such is are".split())
_ARTICLE = frozenset("a an the".split())
_ADJECTIVES = frozenset("robust simple novel new general generic efficient effective scalable unified flexible "
                        "practical principled lightweight universal powerful fast accurate modular versatile "
                        "low-cost open-source large small deep single multi first versatile hierarchical".split())
_ADJ_SUFFIX = re.compile(r"(?:ive|ous|able|ible|ful|less|ic|al)$|-(?:\w+ed|based|free|aware|cost|level|scale|specific|"
                         r"agnostic|efficient|driven|guided|conditioned|informed|friendly|oriented)$")
_NOUNS = frozenset("objective alternative representative incentive derivative initiative variable table signal "
                   "interval retrieval proposal potential manual trial metric logic topic music critic tactic "
                   "arithmetic heuristic mechanic".split())


def cut(title: str) -> str:
    """The word a title ends on when it leads into a phrase that was cut away."""
    words = title.rstrip("… ").replace("—", " ").split()
    if len(words) < 2:
        return ""
    last = words[-1].strip(",;:.\"'”)").lower()
    if last in _FUNCTION:
        return last
    before = words[-2].strip(",;:").lower()
    if before in _ARTICLE and last not in _NOUNS and (last in _ADJECTIVES or _ADJ_SUFFIX.search(last)):
        return f"{before} {last}"
    return ""


_APOSTROPHE = re.compile(r"(?<=\w)’(?=\w)|(?<=s)’(?=\s|$)")  # Parkinson’s, models’: not a closing quote
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"), ("“", "”"), ("‘", "’"))


def unbalanced(title: str) -> str:
    """What does not pair up in ``title`` (or a title that opens on a bracket or quote)."""
    if "``" in title or "''" in title:
        return "TeX quotes"
    if title[:1] in "([{\"“'‘`":
        return f"opens on {title[0]}"
    for left, right in _PAIRS:
        depth = 0
        text = _APOSTROPHE.sub("", title) if right == "’" else title
        for ch in text:
            depth += (ch == left) - (ch == right)
            if depth < 0:
                return f"{right} before {left}"
        if depth:
            return f"unclosed {left}"
    if title.count('"') % 2:
        return 'odd "'
    return ""


# --- names damaged on the way -------------------------------------------------------------------------

_GROUP_NAME = re.compile(r"(?<![\w$])([A-Z][A-Za-z]{0,3})\((\d|n)\)")  # SE(3), SO(3), E(n)
# Names with math in them, and the part a damaged title keeps: T$^2$SQNet (SQNet), $\Delta$-IRIS (IRIS),
# BanditMIPS-$\alpha$ (BanditMIPS), AD$^\varepsilon$ (AD).
_MATH_NAMES = (
    (re.compile(r"(?<![\w$])[A-Za-z]*\$\^\{?\\?\w{1,10}\}?\$([A-Za-z][\w-]*)"), 1),
    (re.compile(r"(?<![\w$])\$\\?[A-Za-z]{1,10}\$-([A-Za-z][\w-]*)"), 1),
    (re.compile(r"(?<![\w$])([A-Za-z][\w]*)-\$\\?[A-Za-z]{1,10}\$"), 1),
    (re.compile(r"(?<![\w$])([A-Z][A-Za-z]+)\$\^\{?\\?\w{1,10}\}?\$(?![A-Za-z])"), 1),
)


def damaged_name(abstract: str, title: str) -> str:
    """A name with math that the title gives without it: SE(3) as "SE-…", T$^2$SQNet as "SQNet"."""
    flat = unicodedata.normalize("NFKC", title)
    for m in _GROUP_NAME.finditer(abstract):
        whole = f"{m.group(1)}({m.group(2)})"
        if whole not in flat and re.search(rf"(?<![\w(]){re.escape(m.group(1))}(?![\w(])", flat):
            return whole
    for pattern, group in _MATH_NAMES:
        for m in pattern.finditer(abstract):
            if normal(m.group()) in normal(title):
                continue
            part = m.group(group)
            bare = rf"(?<![\w²³⁴$-]){re.escape(part)}(?![\w-]|\$)"
            if re.search(bare, abstract.replace(m.group(), " ")):
                continue  # the abstract uses the part alone too ("E$^2$LSH ... LSH-based")
            if _NAMEY.search(part) and re.search(bare, title):
                return m.group()
    return ""


# --- what a reader holding the real titles sees: a title read alone -----------------------------------
# These read the title only, so the same detector gives the real titles' own rate beside the derived ones'.

_OPENER = re.compile(
    r"^(?:in this (?:position )?(?:paper|work|study|article)|this (?:position )?(?:paper|work|study|article)|we|our|"
    r"recent(?:ly)?|recent (?:years|advances|advancements|works?|progress|studies)|inspired by|motivated by|"
    r"despite|while|whereas|although|though|it is|there (?:is|are|has|have)|existing|current(?:ly)?|however|"
    r"to (?:address|tackle|this end|overcome|bridge|fill|mitigate|solve)|building (?:on|upon)|based on|given|"
    r"with the|as (?:a|an|the)?|here|in recent|over the (?:past|last))\b", re.I)
_GENERIC_HEAD = re.compile(r"^(?:an?|the)\s+(?:(?:novel|new|simple|general|generic|unified|effective|efficient|"
                           r"principled|flexible|powerful|innovative|practical|straightforward|first|theoretical|"
                           r"yet|and|,)\s*)*(?:\w+\s+)?(?:framework|method|approach|algorithm|model|technique|"
                           r"strategy|paradigm|architecture|scheme|pipeline|system|module|solution|perspective|"
                           r"tool|mechanism)s?$", re.I)


def generic_opener(title: str) -> str:
    """The title opens as a sentence does ("In this paper", "Recent advances", "We"), or is a
    generic phrase alone, with no name before it ("A novel training framework")."""
    m = _OPENER.match(title)
    if m:
        return m.group()
    # (after a name, "FineSSL: a novel SSL approach", the name says which paper: weak, not generic)
    return "generic" if ": " not in title[:60] and _GENERIC_HEAD.match(title) else ""


# A finite verb in the title's main clause: the title is a sentence ("Layer normalization (LN) is a
# ubiquitous technique"). A relative clause ("that can capture"), a purpose ("to use") or a name's
# gloss after "and" are not its main clause.
_FINITE = re.compile(r"(?<![\w-])(?:is|are|was|were|has|have|had|remains?|can|could|may|might|should|must|will|would|shows?|"
                     r"showed|requires?|suffers?|relies|rely|lacks?|struggles?|achieves?|enables?|allows?|"
                     r"provides?|leads?|becomes?|demonstrates?|offers?|poses?|faces?|plays?|exhibits?|yields?|"
                     r"depends|emerged|attracted|gained|witnessed|received)(?![\w-])", re.I)
_NOT_MAIN = re.compile(r"\b(?:that|which|who|whose|where|when|to|and|while|whether|how|what|why|if)\b", re.I)


def sentence(title: str) -> str:
    """The finite verb of a title that is a sentence (a question is a title, not a sentence)."""
    if title.rstrip().endswith("?"):
        return ""
    gloss = title.split(": ", 1)[-1]
    main = _NOT_MAIN.split(gloss, maxsplit=1)[0]
    m = _FINITE.search(main)
    return m.group() if m else ""


_PARTICIPLES = frozenset("trained based designed used called named termed dubbed built tailored aimed developed "
                         "applied intended dedicated suited optimized optimised given leveraging using including "
                         "such".split())


def dangling(title: str) -> str:
    """The word a title ends on that needs what follows: an article, a preposition, a conjunction,
    a participle ("trained"), a lone adjective ("a novel"); see also :func:`cut`."""
    words = title.rstrip("… ").split()
    if not words:
        return ""
    last = words[-1].strip(",;:.\"'”)").lower()
    if last in _PARTICIPLES or last in _FUNCTION or (last in _ADJECTIVES and len(words) > 1):
        return last
    return cut(title)


def ellipsis(title: str) -> str:
    return "…" if "…" in title or title.rstrip().endswith("...") else ""


LONG_WORDS = 16


def long_title(title: str) -> str:
    n = len(title.split())
    return f"{n} words" if n > LONG_WORDS else ""


def name_kept(abstract: str, title: str, real: str) -> bool | None:
    """Whether the name the abstract introduces is in the title, for a paper whose real title holds
    it (None for the others: the name is not what its authors title it by)."""
    names = [n for n in claimed_names(abstract) if normal(n) in normal(real)]
    if not names:
        return None
    return any(normal(n) in normal(title) for n in names)


READER_CLASSES = {"opener": generic_opener, "sentence": sentence, "dangling": dangling, "ellipsis": ellipsis,
                  "long": long_title}


CLASSES = ("missed", "background", "glued", "cut", "unbalanced", "damaged")


def classify(abstract: str, title: str) -> dict[str, str | None]:
    """Each class's reason for this title ("" when the title is fine; "missed" is None when the
    abstract claims no name)."""
    return {"missed": name_missed(abstract, title), "background": background_opener(abstract, title),
            "glued": glued(abstract, title), "cut": cut(title), "unbalanced": unbalanced(title),
            "damaged": damaged_name(abstract, title)}


def main() -> None:
    import argparse
    ap = argparse.ArgumentParser(description="Say which failure classes one derived title falls in.")
    ap.add_argument("abstract", help="the abstract, as imported")
    ap.add_argument("title", help="the title derived from it")
    args = ap.parse_args()
    for name, reason in classify(args.abstract, args.title).items():
        print(f"{name}: {'(no claimed name)' if reason is None else reason or 'ok'}")


if __name__ == "__main__":
    main()
