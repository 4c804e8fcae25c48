"""LaTeX to plain Unicode (pure Python, for the store's exports and the TUI).

``$\\mathcal{O}(\\sqrt{T\\log T})$`` -> ``𝒪(√(T log T))``, ``4{,}672`` ->
``4,672``, ``x^{n+1}`` -> ``xⁿ⁺¹``. Built on pylatexenc, a real LaTeX
tokenizer, with small fixes for how abstracts use it (a bare ``%`` is a
percent sign, operators keep their spaces).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from store.escapes import repair_escapes
from store.safe_text import display_safe

_OPERATORS = re.compile(r"\\(log|ln|exp|sin|cos|tan|min|max|sup|inf|lim|det|Pr|arg)\b\s*")
_SUP = str.maketrans("0123456789+-=()nikT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏᵀ")
_SUB = str.maketrans("0123456789+-=()aeijknmtx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₙₘₜₓ")
_SCRIPT = re.compile(r"([\^_])(?:\{((?:[^{}]|\{[^{}]*\}){1,40})\}|([0-9A-Za-z]))")  # one level of braces inside
# A script Unicode cannot write that holds more than one term is set in parentheses: pylatexenc
# drops the braces, and "$\mathbb{R}^{p,q}$" read "ℝ^p,q", "$d^{1-p/2}$" "d^1-p/2" (1 - p/2 is the
# exponent, not 1). A word ("t_{mix}"), a symbol ("x^{\top}", "N_{\mathcal{F}}") or a group already
# in parentheses ("w^{(t)}") is clear as it is.
_COMPOUND = re.compile(r"[-+=/,<>|:;!^_]|\S\s+\S")  # a script of its own too: "ℝ^(dₓ)", not "ℝ^dₓ"
_TERM = re.compile(r"\\[A-Za-z]+(?:\s*\{[^{}]*\})*\s*")  # a command with its arguments: one term
_FONT_SWITCH = re.compile(r"\\(?:rm|it|bf|sf|tt|cal)(?![A-Za-z])\s*")  # "^{\rm th}" is one word
# Inline or display math; an escaped dollar is money, not a delimiter ("costs \$5 and \$10 with
# $\alpha$" reads "costs $5 and $10 with α"). Nor is an unescaped one that opens on a digit and
# whose would-be closing dollar follows a space: "between $5 and $10" is money (as Pandoc reads
# it); a span that opens on a digit ends on one or on markup ("$5\times$", "$43\%$"), and
# "$ C_W $" opens on a space, so no span of ICML's or ICLR's 4,870 abstracts is read otherwise.
# The reader's segmenter uses the same pattern.
_BODY = r"(?:[^$\n\\]|\\[^\n]){1,400}?"
MATH_SPAN = (r"(?<!\\)\$\$[^$]+\$\$"
             r"|(?<!\\)\$(?!\d)" + _BODY + r"\$"
             r"|(?<!\\)\$(?=\d)" + _BODY + r"(?<!\s)\$")
# ("\\{" too: every one in ICML's and ICLR's abstracts is a set's brace, "$\max\\{d_x,d_y\\}$", which TeX
# reads as a line break and a group)
_DOUBLED_ESCAPE = re.compile(r"\\\\(?=[$%&#_{}])")  # "\\$300" in a dump that escaped the escape: "\$300"


def undouble_escapes(text: str) -> str:
    r"""``\\$300`` (a dump that escaped TeX's escape once more) as ``\$300``, so it reads $300;
    ``\\{`` as ``\{``."""
    return _DOUBLED_ESCAPE.sub(r"\\", text) if "\\\\" in text else text


# TeX's typographic ligatures, which abstracts use outside any command: ``quoted'' and dashes
# (Weisfeiler--Leman, ``Shortcut Text Gradient'' --- an ...). pylatexenc converts them only in
# text that goes through it, i.e. text with a command or a brace.
_LIGATURES = re.compile(r"``|''|---|--")
_LIGATURE = {"``": "“", "''": "”", "---": "—", "--": "–"}
# ``quoted" (TeX's opening quote, a typewriter closing one: in ~1 % of abstracts) is a pair too
_MIXED_QUOTES = re.compile(r'``([^`"\'\n]{1,300}?)"')
# TeX's single quotes, `like this' (30 of ICML's and ICLR's 4,870 abstracts): ‘like this’; one
# closed by two ('' or ") is a double quote. The reader took a pair of them for a code span.
_SINGLE_QUOTES = re.compile(r"(?<![`\w])`([^`'\"\n]{1,200}?)(''|'|\")(?![\w'])")
# Markdown's or reStructuredText's ``code`` (ICML: "the Python library ``DoWhy``") is not a pair of TeX quotes
_DOUBLE_TICKS = re.compile(r"``([^`'\"\n]+)``")
# Bold may hold italics ("**In this position paper, we argue that ... *open-endedness* in AI ...**").
# A Markdown-escaped star ("O\\*NET") opens neither, and reads as a star (see latex_to_text).
BOLD = r"(?<!\\)\*\*((?:[^*\n]|(?<![\w*\\])\*[^*\n ][^*\n]*?\*(?![\w*]))+?)\*\*"
ITALIC = r"(?<![\w*\\])\*([^*\n ][^*\n]*?)\*(?![\w*])"
UNDERSCORE_ITALIC = r"(?<!\w)_([^_\n ][^_\n]*?)_(?!\w)"
MD_LINK = r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)"
# Math that only sets text in a font ("$\textit{Flow-to-Better (FTB)}$", "$\textbf{X}$"): text, not math
# (math drops the space before a parenthesis).
WRAPPED_MATH = re.compile(r"^\$\s*\\(textbf|mathbf|boldsymbol|textit|emph|mathit|texttt|textsc)\{([^{}]*)\}\s*\$$")


def _quotes(text: str) -> str:
    """TeX's `single quotes' typeset (see _SINGLE_QUOTES), ``code`` kept from being read as quotes,
    and ``quoted" made a pair that the ligatures (or pylatexenc) typeset (see _MIXED_QUOTES)."""
    if "``" in text:
        text = _DOUBLE_TICKS.sub(r"\1", text)
    text = _SINGLE_QUOTES.sub(lambda m: f"‘{m.group(1)}’" if m.group(2) == "'" else f"“{m.group(1)}”", text)
    return _MIXED_QUOTES.sub(r"``\1''", text)


# Font commands pylatexenc does not know, so it dropped them with their text ("the
# \texttt{[MASK]} token" read "the  token"): 36 of ICML + ICLR 2024's abstracts use them.
_KEEP_ARGUMENT = ("texttt", "textsf", "textup", "textmd", "mbox")
# mathtools' definitions, which pylatexenc does not know ("x \coloneqq y" read "x coloneqq y").
_MORE_SYMBOLS = {"coloneqq": "≔", "coloneq": "≔", "eqqcolon": "≕", "eqcolon": "≕", "Coloneqq": "⩴"}


@lru_cache(maxsize=1)
def _converter() -> Any:  # a pylatexenc LatexNodes2Text (pylatexenc ships no types)
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
    # pylatexenc logs what it makes of broken markup ("macro '\frac' failed its substitution!" for
    # unbalanced braces); with no handler Python printed that on the terminal, over the CLI's
    # output or an import's. The text is shown as best it can be: its warnings are not the user's.
    quiet = logging.getLogger("pylatexenc")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    context = get_default_latex_context_db()
    # pylatexenc drops the accent of the wide forms ("$\widetilde O(\sqrt K)$" read "O(√K)", a
    # different bound): they take the narrow form's, Õ. \overline is \bar's x̅.
    wide = [MacroTextSpec(name, simplify_repl=context.get_macro_spec(narrow).simplify_repl)
            for name, narrow in (("widetilde", "tilde"), ("widehat", "hat"), ("overline", "bar"))]
    symbols = [MacroTextSpec(name, simplify_repl=char) for name, char in _MORE_SYMBOLS.items()]
    context.add_context_category("papersift", prepend=True,
                                 macros=[MacroTextSpec(name, simplify_repl="%(1)s") for name in _KEEP_ARGUMENT]
                                 + wide + symbols)
    return LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=False)


def _scripts(src: str) -> str:
    """In math source: x^2 -> x², \\beta_i -> \\beta{}ᵢ, x^{n+1} -> xⁿ⁺¹ when Unicode has every character."""
    def repl(m: re.Match[str]) -> str:
        body = m.group(2) if m.group(2) is not None else m.group(3)
        out = "".join(body.split()).translate(_SUP if m.group(1) == "^" else _SUB)  # TeX drops math's spaces
        if not any(c.isascii() for c in out):
            return "{}" + out
        if m.group(2) is None:
            return m.group(0)
        inner = _scripts(body.strip())  # its own scripts too: "ℝ^(n₁ × k)"
        return m.group(1) + ("{(" + inner + ")}" if _compound(body) else "{" + inner + "}")
    return _SCRIPT.sub(repl, src)


def _compound(body: str) -> bool:
    """Whether a script's source holds more than one term (see _COMPOUND): an operator, a comma, a
    script or a space between terms, a fraction, or a command beside something else ("2\\pi", "\\theta_t");
    not when it is wrapped in parentheses already."""
    body = _FONT_SWITCH.sub("", body).strip()
    if body.startswith("(") and body.endswith(")") and body.count("(") == 1:
        return False
    rest = _TERM.sub("\x00", body)
    return bool(_COMPOUND.search(rest)) or "\\frac" in body or ("\x00" in rest and len(rest.strip()) > 1)


# Abbreviation macros papers define for themselves (pylatexenc drops unknown macros: "\\eg, 2D" read ", 2D")
_TEXT_MACROS = re.compile(r"\\(eg|ie|etal|cf|wrt|etc|vs)\b\.?")
_TEXT_MACRO = {"eg": "e.g.", "ie": "i.e.", "etal": "et al.", "cf": "cf.", "wrt": "w.r.t.", "etc": "etc.", "vs": "vs."}
_HREF = re.compile(r"\\href\{([^{}\s]+)\}(?:\{([^{}]*)\})?")  # \\href{url}{text} -> "text <url>"


def _convert(src: str) -> str:
    """pylatexenc's conversion; where it fails (odd markup), sentence by sentence, so one bad
    spot is shown as written without leaving the whole passage raw. A macro it cannot fill
    (``\\frac`` with its braces unbalanced) comes back as its template, "%s/%s": a failure too."""
    def convert(part: str) -> str:
        out: str = _converter().latex_to_text(part)
        if "%s" in out and "%s" not in part or "%(" in out and "%(" not in part:
            raise ValueError("a macro's template left unfilled")
        return out

    try:
        return convert(src)
    except Exception:  # never let odd markup break a display or an export
        pass
    parts = re.split(r"(?<=[.;:?!])(\s+)", src)
    out = []
    for part in parts:
        try:
            out.append(convert(part) if part.strip() else part)
        except Exception:
            out.append(part)
    return "".join(out)


# Symbols that take no argument. TeX (and pylatexenc) swallow the space after a command, so
# "$k \geq 0$" read "k ≥0" and "$\epsilon > 0$" "ϵ> 0". The space is kept (an empty group
# after the command) where it sets off a relation: after a relation written with a space before
# it ("k ≥ 0", while "k\geq 3" stays "k≥3"), and before one ("ϵ > 0"). Elsewhere it only
# separated two commands ("$m\mu \varepsilon$" is "mμε").
_RELATIONS = ("coloneqq|coloneq|eqqcolon|geq|ge|leq|le|neq|ne|in|notin|ni|to|gets|leftarrow|rightarrow|Leftarrow|Rightarrow|"
              "leftrightarrow|Leftrightarrow|mapsto|times|div|pm|mp|sim|simeq|approx|equiv|cong|propto|"
              "subset|subseteq|supset|supseteq|ll|gg|prec|succ|preceq|succeq|mid|perp|parallel|cdot")
_SYMBOLS = (_RELATIONS + "|cup|cap|wedge|vee|oplus|otimes|circ|cdots|ldots|dots|infty|forall|exists|partial|"
            "nabla|alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|"
            "nu|xi|pi|varpi|rho|varrho|sigma|varsigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|"
            "Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega")
_SYMBOL_THEN_SPACE = re.compile(r"\\(" + _SYMBOLS + r")(?![A-Za-z])(?=[ \t])")
_IS_RELATION = re.compile(r"(?:" + _RELATIONS + r")$")
_RELATION_NEXT = re.compile(r"[ \t]+(?:[=<>]|\\(?:" + _RELATIONS + r")(?![A-Za-z]))")


def _keep_space(src: str) -> str:
    def repl(m: re.Match[str]) -> str:
        spaced_relation = _IS_RELATION.match(m.group(1)) and m.start() > 0 and src[m.start() - 1] in " \t"
        return m.group() + "{}" if spaced_relation or _RELATION_NEXT.match(src, m.end()) else m.group()
    return _SYMBOL_THEN_SPACE.sub(repl, src)


# A macro a paper defined for itself ("we introduce \foldflow, a series of ...", "\method outperforms",
# "\lora/ offers"): pylatexenc drops what it does not know, and the sentence lost its subject
# (21 of ICML + ICLR 2024's abstracts). It is shown by its name. TeX's own spacing, sizing and font
# switches, which pylatexenc does not know either, still go; so does a macro given a text argument
# (\rthree{typhoons}: a style, the argument shown).
_MACRO_USE = re.compile(r"(?<!\\)\\([A-Za-z]+)(?![A-Za-z])(\{\}|/(?=[\s,.;:)]))?(?!\{)")
_TEX_LAYOUT = frozenset(
    "left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr it bf em sf sc rm tt sl up md "
    "normalfont boldsymbol bm operatorname textnormal hbox vbox cal small tiny scriptsize footnotesize normalsize "
    "large Large LARGE huge Huge displaystyle textstyle scriptstyle scriptscriptstyle mathord mathop mathbin mathrel "
    "mathopen mathclose mathpunct smash phantom hphantom vphantom noindent par newline linebreak xspace limits "
    "nolimits nonumber notag centering raggedright relax protect displaylines eft".split())
_ALIASES = re.compile(r"(?<!\\)\\(tfrac|dfrac|Im|Re)(?![A-Za-z])")
_ALIAS = {"tfrac": r"\frac", "dfrac": r"\frac", "Im": "ℑ", "Re": "ℜ"}
_UNICODE = re.compile(r"\\unicode\{\s*(?:x|0x|U\+)?([0-9A-Fa-f]{2,6})\s*\}")  # MathJax's \unicode{x2013}


@lru_cache(maxsize=512)
def _known_macro(name: str) -> bool:
    from pylatexenc.latexwalker import get_default_latex_context_db
    return (name in _TEX_LAYOUT or _converter().latex_context.get_macro_spec(name) is not None
            or get_default_latex_context_db().get_macro_spec(name) is not None)


def _own_macros(src: str) -> str:
    """A paper's own macros by name (see _MACRO_USE); TeX's aliases as what they alias."""
    if "\\unicode" in src:
        src = _UNICODE.sub(lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) < 0x110000 else m.group(), src)
    src = _ALIASES.sub(lambda m: _ALIAS[m.group(1)], src)
    return _MACRO_USE.sub(lambda m: m.group() if _known_macro(m.group(1)) else m.group(1), src)


# A tilde is TeX's tie (a space that does not break) only between words ("models~(LLMs)",
# "vs.~understanding") or before a figure's, table's ... number ("Fig.~3"); elsewhere it is the
# abstract's own: "about" ("(~675 vs. ~6,250 GPU days)", "is~75%"), a range ("3.3x~15x",
# "14.2% ~ 43.5%") or part of a link ("stanford.edu/~yzzhang").
_REFERENCE = re.compile(r"\b(?:Figs?|Figures?|Tables?|Tab|Sections?|Secs?|Eqs?|Equations?|Appendix|App|Theorems?|"
                        r"Thm|Lemmas?|Algorithms?|Alg|Chapters?|Def|Definitions?|Corollary|Cor|Propositions?|Prop|"
                        r"Ref|Steps?|Lines?)\.?$")


def _tildes(src: str) -> str:
    """Each tilde that is not a tie (see _REFERENCE) kept as a tilde."""
    def repl(m: re.Match[str]) -> str:
        i = m.start()
        before, after = src[i - 1:i], src[i + 1:i + 2]
        tie = ((before.isalpha() or before in ".,;:)") and (after.isalpha() or after in "([\\")
               or after.isdigit() and _REFERENCE.search(src[max(0, i - 12):i]))
        return "~" if tie else r"\textasciitilde{}"
    return re.sub("~", repl, src)


_SPACE_BEFORE_PAREN = re.compile(r"(?<=[^\W_]|[\u0300-\u036f]) \(")  # after a letter, digit or accent


# A fraction or root as it reads in one line: "\frac{1}{\kappa}d\sqrt{T}" is (1/κ)d√T, not 1/κd√(T).
_FRAC = re.compile(r"\\[dt]?frac\s*\{((?:[^{}]|\{[^{}]*\})*)\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_SQRT = re.compile(r"\\sqrt\s*(?:\{((?:[^{}]|\{[^{}]*\})*)\}|(\\[A-Za-z]+|[A-Za-z0-9]))")  # TeX: one token
_ONE_TERM = re.compile(r"\s*(?:[A-Za-z0-9.]+|\\[A-Za-z]+(?:\{[^{}]*\})?)(?:[\^_](?:\{[^{}]*\}|[A-Za-z0-9]))*\s*")
_FACTOR_NEXT = re.compile(r"\s*(?:[A-Za-z0-9(]|\\(?!(?:" + _RELATIONS + r"|right|big\w*|quad|qquad|,|;)(?![A-Za-z]))[A-Za-z]+)")


def _grouped(body: str) -> str:
    return body if _ONE_TERM.fullmatch(body) else "(" + body + ")"


def _fraction(m: re.Match[str]) -> str:
    """One innermost ``\\frac{a}{b}`` as a/b, grouped (see :func:`_fractions`)."""
    inner = _grouped(m.group(1)) + "/" + _grouped(m.group(2))
    before = m.string[m.start() - 1:m.start()]
    beside = bool(_FACTOR_NEXT.match(m.string, m.end())) or before.isalnum() or before == ")"
    return "(" + inner + ")" if beside else inner


def _fractions(src: str) -> str:
    """Fractions as a/b and roots as √x in math source, grouped where a line needs it: a compound
    numerator, denominator or radicand in parentheses, and a fraction beside another factor too."""
    for _ in range(4 if "frac" in src else 0):  # nested fractions, innermost first
        new = _FRAC.sub(_fraction, src)
        if new == src:
            break
        src = new
    if "sqrt" in src:
        src = _SQRT.sub(lambda m: "√" + (_grouped(m.group(1)) if m.group(1) is not None else m.group(2)), src)
    return src


def latex_to_text(src: str, math: bool = False) -> str:
    """LaTeX (a ``$...$`` body when ``math``, else text with commands) to plain Unicode."""
    src = _OPERATORS.sub(r" \1 ", src)
    if math:
        src = _keep_space(_scripts(_fractions(src)))
    else:
        src = re.sub(r"(?<!\\)([%$&#])", r"\\\1", src)  # a bare % is a percent sign here, not a comment; a $
        # left over is not math either (spans were converted before); & and # are what they say ("Harmless & Red Team")
        if "\\*" in src:  # Markdown's escaped star (NeurIPS 2026: "standard O\\*NET tasks"), not TeX's \\*
            src = src.replace("\\*", "*")
        if "~" in src:  # "(~675 vs. ~6,250 GPU days)": about, not TeX's tie (see _tildes)
            src = _tildes(src)
        if "`" in src:
            src = _quotes(src)
        if "\\" in src:
            src = _TEXT_MACROS.sub(lambda m: _TEXT_MACRO[m.group(1)], src)
            src = _HREF.sub(lambda m: f"{m.group(2)} <{m.group(1)}>" if m.group(2) else f"<{m.group(1)}>", src)
    if "\\" in src:
        src = _own_macros(src)
    out = _convert(src)
    out = re.sub(r"[ \t]+", " ", out)
    if math:  # spaces inside math are TeX's to drop: "$\widetilde O (\sqrt K)$" is Õ(√K), not "Õ (√K)"
        out = _SPACE_BEFORE_PAREN.sub("(", out.replace("( ", "(").replace(" )", ")")).strip(" ")
    return out


def text_to_unicode(text: str) -> str:
    """A passage of text (its math converted already) as Unicode: through the LaTeX converter when it
    holds a command, a brace (its pair may be in another passage: the reader converts the text
    between math and links piece by piece) or a tilde (a tie, or "about"); else only its typography."""
    if "\\" in text or "{" in text or "}" in text or "~" in text:
        return latex_to_text(text)
    return ligatures(text)


def ligatures(text: str) -> str:
    """``x'' (or ``x") -> “x”, `x' -> ‘x’, --- -> —, -- -> – (a cheap no-op on text without them)."""
    if "`" in text or "''" in text or "--" in text:
        if "`" in text:
            text = _quotes(text)
        return _LIGATURES.sub(lambda m: _LIGATURE[m.group()], text)
    return text


# Math and Markdown in one pass from the left, as the reader's segmenter reads them: with math
# first, "$y^*(x)$ ... $y^*$-aware" had lost its stars to an "*italic*" between two math spans.
_INLINE = re.compile(f"({MATH_SPAN})|{BOLD}|__([^_\\n]+?)__|{ITALIC}|{UNDERSCORE_ITALIC}|{MD_LINK}")


def _inline(m: re.Match[str], held: list[str]) -> str:
    """Math as Unicode (held aside: see plain_text), a Markdown emphasis without its marks (a bold
    one may hold italics or math), a Markdown link as "text <url>" (as \\href reads)."""
    if m.group(1):
        wrapped = WRAPPED_MATH.match(m.group(1))
        held.append(latex_to_text(wrapped.group(2)) if wrapped else latex_to_text(m.group(1).strip("$"), math=True))
        return f"\ue000{len(held) - 1}\ue001"
    if m.group(6):
        return f"<{m.group(7)}>" if m.group(6) == m.group(7) else f"{m.group(6)} <{m.group(7)}>"
    return _INLINE.sub(lambda inner: _inline(inner, held), next(g for g in m.groups()[1:5] if g is not None))


_HELD = re.compile("\ue000(\\d+)\ue001")


def plain_text(text: str) -> str:
    """Markup-free Unicode: math converted, LaTeX commands and Markdown emphasis dropped, control
    characters too (a Markdown export or a title is read as the reader shows it). The math is held
    aside while the text around it is converted: that pass took a set's braces for TeX's
    ("$\\{G_t\\}$" read "Gₜ", not "{Gₜ}")."""
    held: list[str] = []
    text = _INLINE.sub(lambda m: _inline(m, held), undouble_escapes(display_safe(repair_escapes(text))))
    text = text_to_unicode(text)
    if held:
        text = _HELD.sub(lambda m: held[int(m.group(1))] if int(m.group(1)) < len(held) else m.group(), text)
    return " ".join(text.split()) if "\n" not in text else text
