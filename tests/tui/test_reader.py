"""The reader (tui/widgets/reader.py, tui/render.py): abstracts as Unicode, LaTeX and Markdown
typeset, hostile text kept off the screen, the reader's keys and its deferral in a big library."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from rich.style import Style
from rich.text import Text

from ..conftest import DATA, assert_reads_as, library_of
from .driving import screen, settle, until


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_startup_list_reader_header(lib, make):
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert screen(app).results.border_title.startswith("35 / 35")
        assert "0 / 35 triaged" in str(screen(app).query_one("#header").render())
        assert screen(app).query_one("#reader").paper_index == 0
        assert app.focused is screen(app).results


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_enter_reader_scroll_and_back(lib, make):
    app = make(lib)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("enter")
        reader = screen(app).query_one("#reader")
        assert app.focused is reader
        await pilot.press("j", "j", "j")
        assert reader.scroll_y > 0
        await pilot.press("r")  # triage keys work from the reader too
        assert app.library.annotation(app.library.corpus.papers[0].id).status == "read"
        await pilot.press("escape")
        assert app.focused is screen(app).results


@pytest.mark.slow
async def test_the_readers_place_counts_the_result_set_as_the_list_does(lib, make):
    """The list said "2 / 35 · +N weaker" and the reader "1 / 2+N": its place is counted in the
    result set, and below the divider among the weaker matches."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash", *"speech benchmark human", "enter")
        await pilot.pause()
        results, reader = screen(app).results, screen(app).query_one("#reader")
        assert results.full == 2 and len(results.indices) > 2, (results.full, len(results.indices))
        assert results.border_title.startswith("2 / 35") and "weaker" in results.border_title
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is reader and str(reader.border_title) == "1 / 2 · speech benchmark human"
        await pilot.press("escape", "G", "enter")
        await pilot.pause()
        weaker = len(results.indices) - 2
        assert str(reader.border_title) == f"weaker match {weaker} / {weaker} · speech benchmark human"


@pytest.mark.slow
async def test_J_on_the_last_paper_and_K_on_the_first_say_so(lib, make):
    """J on the list's last paper did nothing and said nothing (N says there is no unread paper
    below): it says this is the last paper, and K on the first says this is the first."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        reader = screen(app).query_one("#reader")

        def said() -> str:
            return " ".join(str(n.message) for n in app._notifications)
        await pilot.press("G", "enter", "J")
        await pilot.pause()
        assert app.focused is reader and reader.paper_index == int(screen(app).results.indices[-1])
        assert "This is the last paper of the list" in said() and "first" not in said()
        await pilot.press("escape", "g", "enter", "K")
        await pilot.pause()
        assert reader.paper_index == int(screen(app).results.indices[0]) and "This is the first paper of the list" in said()


@pytest.mark.slow
async def test_on_a_narrow_terminal_the_focused_reader_takes_the_whole_width(lib, make):
    """At 80x24 an abstract in half the width is three screens of scrolling: the reader, focused,
    takes the list's room too; triage from there advances to the next paper; esc brings the list back."""
    app = make(lib)
    async with app.run_test(size=(80, 24)) as pilot:
        reader, left = screen(app).query_one("#reader"), screen(app).query_one("#left")
        half = reader.region.width
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is reader and not left.display and reader.region.width >= 78 > half
        await pilot.press("a")  # to-read, and the reader shows the next paper, still full width
        await pilot.pause()
        assert app.library.annotation(lib.corpus.papers[0].id).status == "to-read"
        assert reader.paper_index == 1 and app.focused is reader and reader.region.width >= 78
        assert reader.border_title == "2 / 35"  # where it is in the list, which it hides
        await pilot.press("j", "j", "J")  # scrolled down, then the next paper: read from its top
        await pilot.pause()
        assert reader.paper_index == 2 and reader.scroll_y == 0 and reader.border_title == "3 / 35"
        await pilot.press("K", "K")  # and back, without leaving the reader
        await pilot.pause()
        assert reader.paper_index == 0 and app.focused is reader and reader.border_title == "1 / 35"
        assert app.library.annotation(lib.corpus.papers[1].id).status == "unread"  # J / K only move
        await pilot.press("J", "t", *"later", "enter")  # the tag panel over the reader, the list still hidden
        await pilot.pause()
        assert app.library.annotation(lib.corpus.papers[1].id).tags == ["later"] and not left.display
        await pilot.press("escape")  # back in the reader, where t was pressed
        await pilot.pause()
        assert app.focused is reader and not left.display and reader.paper_index == 1
        await pilot.press("escape", "slash", *"[MASK] token", "enter", "enter")
        await pilot.pause()
        assert "1 / " in reader.border_title and "· [MASK] token" in app.export_screenshot().replace("&#160;", " ")
        await pilot.press("escape", "escape")  # back to the list, and to the whole library
        await pilot.press("home", "down")
        await pilot.pause()
        assert lib.corpus.papers[1].title.split(":")[0] in app.export_screenshot().replace("&#160;", " ")
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is screen(app).results and left.display and reader.region.width == half
        assert not reader.border_title
        results = screen(app).results
        assert results.cursor == 1 and results.scroll_y == 0  # the list as it was, its first paper in view
        await pilot.press("G", "enter", "escape")  # far down: the list scrolls as far as its cursor needs
        await pilot.pause()
        assert results.cursor == 34 and results.scroll_y > 0
        assert results.scroll_y <= 34 < results.scroll_y + results.scrollable_content_region.height


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_read_in_full_the_abstract_has_the_screens_width(lib, make, width):
    """``enter`` reads in full at any width: the reader takes the list's and the tag panel's room,
    its abstract the screen's width (less the reader's border, padding and scrollbar); esc gives
    the list and the panel back."""
    app = make(lib)
    async with app.run_test(size=(width, 30)) as pilot:
        main = screen(app)
        reader, body = main.query_one("#reader"), main.query_one("#reader-body")
        beside = body.region.width
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is reader and reader.region.width == width
        assert body.region.width >= width - 6 > beside
        assert not main.query_one("#left").display and str(reader.border_title).startswith("1 / 35")
        await pilot.press("t")  # the tag panel beside the reader while tagging, the list still hidden
        await pilot.pause()
        tags = main.query_one("#tags")
        assert tags.display and not main.query_one("#left").display
        # (beside, not over it: the reader narrows and wraps its text again, no line cut mid-word)
        assert reader.region.right <= tags.region.x and reader.region.width + tags.region.width == width
        assert body.region.width < width - 6
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.focused is main.results and main.query_one("#left").display
        assert body.region.width == beside


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_latex_in_titles_is_rendered_in_list_and_reader(lib, make, tmp_path):
    (tmp_path / "t.jsonl").write_text(json.dumps({
        "title": r"Breaking the $\mathcal{O}(\sqrt{T})$ Barrier in Online Allocation",
        "abstract": r"We beat the $\mathcal{O}(\sqrt{T})$ regret of first-order methods for online linear programs."}) + "\n")
    lib.paper_changes.import_paths([tmp_path / "t.jsonl"])
    app = make(lib)
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press("G")
        await pilot.pause()
        row = screen(app).results.render_line(screen(app).results.cursor - screen(app).results.scroll_offset.y).text
        from rich.console import Console
        console = Console(width=140, record=True, file=open(os.devnull, "w"))
        console.print(screen(app).query_one("#reader-body").content)
        reader = console.export_text()
        for shown in (row, reader):
            assert "Breaking the 𝒪(√T) Barrier" in shown and "\\mathcal" not in shown



@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_note_reads_as_the_abstract_does_latex_typeset_and_its_links_numbered_after(lib, make, tmp_path):
    """A note "bound $O(n^2)$" showed its dollars and carets; its link was no link the reader offered."""
    (tmp_path / "t.jsonl").write_text(json.dumps({
        "title": "Sorting Networks", "abstract": "We sort. Code at [repo](https://example.org/repo)."}) + "\n")
    lib.paper_changes.import_paths([tmp_path / "t.jsonl"])
    pid = lib.corpus.papers[-1].id
    lib.marks.set_note(pid, r"The bound is $O(n^2)$, not $\mathcal{O}(n)$: see [the proof](https://example.org/proof).")
    app = make(lib)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("G")
        await settle(pilot)
        from rich.console import Console
        console = Console(width=140, record=True, file=open(os.devnull, "w"))
        console.print(screen(app).query_one("#reader-body").content)
        reader = console.export_text()
        assert "The bound is O(n²), not 𝒪(n): see the proof [2]" in reader, reader
        assert "$" not in reader.split("Note")[1] and "repo [1]" in reader
        assert screen(app).query_one("#reader").links == ["https://example.org/repo", "https://example.org/proof"]


def test_a_note_shows_its_own_braces_backslashes_and_spaces_as_typed():
    """The reader and `show` put a note through the abstract's LaTeX reading, which dropped what
    the person typed: "unbalanced } brace and \\ backslash" read "unbalanced brace and backslash",
    "{braces}" read "braces". Its math and emphasis are still set."""
    from tui.render import render_note

    typed = "unbalanced } brace and \\ backslash, {braces}, a_b  two spaces, 100% & <b>x</b>"
    assert render_note(typed)[0].plain == typed
    text = render_note("see **Table 2**: $\\epsilon$-DP at https://example.org/a_b")[0]
    assert text.plain == "see Table 2: ϵ-DP at https://example.org/a_b"
    assert render_note("bell\x07 \x1b[31mred")[0].plain == "bell red"  # (nothing raw to the terminal)


def test_an_html_entity_reads_as_its_character_everywhere_an_abstract_is_shown():
    """ICML's "this bias is ubiquitous&mdash;80% of our personas" showed the entity in the reader,
    `show` and every export; a lone "&" (R&D, LaTeX's column mark) and an unknown name stay."""
    from store.latex import plain_text
    from tui.render import render_abstract

    source = "ubiquitous&mdash;80% of R&D &notation, a & b, &lambda;&#8209;&#x3bb; &bogus; &#27;[31mred"
    want = "ubiquitous—80% of R&D &notation, a & b, λ\u2011λ &bogus; [31mred"
    assert render_abstract(source)[0].plain == want and plain_text(source) == want


def test_reader_renders_real_world_markup_found_in_icml_and_iclr():
    """Cases from the corpora that the reader showed raw: \\href (which also left the rest of its
    passage unconverted: "({\\bf FreeDyG})"), a paper's own \\eg macro, math inside **bold**."""
    from store.latex import plain_text
    from tui.render import render_abstract

    text, links = render_abstract(
        r"Dynamic \textbf{G}raph ({\bf FreeDyG}) model. Code: \href{https://github.com/T/FreeDyG}{https://github.com/T/FreeDyG}"
        r" and \href{https://x.org/p}{our page}. Four modalities, \eg, 2D images. We introduce **FUSH$^2$**, a"
        r" benchmark. _During acquisition of a set of size $k$, can we_ act?")
    shown = text.plain
    assert "Graph (FreeDyG) model." in shown and "\\" not in shown and "{" not in shown and "$" not in shown
    assert "Code: https://github.com/T/FreeDyG and our page [2]." in shown
    assert links == ["https://github.com/T/FreeDyG", "https://x.org/p"]
    assert "modalities, e.g., 2D images" in shown and "FUSH², a benchmark" in shown and "size k, can we act" in shown
    assert plain_text(r"modalities, \eg, 2D; see \href{https://x.org/p}{our page}") == \
        "modalities, e.g., 2D; see our page <https://x.org/p>"
    # font commands pylatexenc does not know kept their text nowhere (ICML: "the \texttt{[MASK]} token")
    source = r"The \texttt{[MASK]} token, $\texttt{SGD}$, \textsf{Foo} and $\mathtt{x}_1$ \mbox{as is}."
    assert render_abstract(source)[0].plain == plain_text(source) == "The [MASK] token, SGD, Foo and 𝚡₁ as is."
    # TeX swallows the space after a command: kept where it sets off a relation, as the source spaced it
    assert plain_text(r"for $k \geq 0$, $x \in \mathbb{R}^d$, $\epsilon > 0$ and $k\geq 3$; $m\mu \varepsilon$") == \
        "for k ≥ 0, x ∈ ℝ^d, ϵ > 0 and k≥3; mμε"
    # the wide accents lost their accent, a different bound (ICML: "rate optimal $\widetilde O (\sqrt K)$"
    # read "O (√(K))"); a space before a parenthesis in math is TeX's to drop (68 of 4,870 abstracts)
    assert plain_text(r"rate optimal $\widetilde O (\sqrt K)$ in $\widehat{\theta} \log (n)$, $x \in (0, 1)$") == \
        "rate optimal Õ(√K) in θ̂ log(n), x ∈ (0, 1)"


def test_reader_keeps_money_a_papers_own_macros_and_doubled_escapes():
    """Cases from ICML + ICLR 2024 whose text the reader lost (25 abstracts): escaped dollars taken
    for math ("under \\$50" read "under 50", or ate the text up to the next $), a dump's doubled
    escapes ("90\\\\%" and a set's "\\\\{" broke the line; "\\\\$300,000" took the rest of the
    abstract into math), a paper's own macros dropped with the sentence's subject ("we introduce \\foldflow, a ...")."""
    cases = {
        r"PixArt-$\alpha$ costs \$26,000 (\$320,000 before), about (~675 vs. ~6,250 GPU days), see Fig.~3.":
            "PixArt-α costs $26,000 ($320,000 before), about (~675 vs. ~6,250 GPU days), see Fig. 3.",
        r"saving nearly \\$300,000 and reducing 90\\% CO2. Extensive experiments show that PixArt-$\alpha$ excels.":
            "saving nearly $300,000 and reducing 90% CO2. Extensive experiments show that PixArt-α excels.",
        r"we introduce \foldflow, a model; we derive \fullname (\abv). While \lora/ offers merits, \eattacks{} win.":
            "we introduce foldflow, a model; we derive fullname (abv). While lora offers merits, eattacks win.",
        r"by \rthree{typhoons}, \eg, in context$\unicode{x2013}$unlabeled, $\tfrac12 k \left( x \right) \big|$":
            "by typhoons, e.g., in context–unlabeled, 1/2 k(x) |",
        # unescaped money: a dollar that opens on a digit closes no span after a space (as Pandoc
        # reads it), while math that opens on a digit, or "$ x $" with spaces inside, still reads
        r"it costs between $5 and $10 per run of $n$ steps, $5\times$ less; $\sim$10% of $ C_W $":
            "it costs between $5 and $10 per run of n steps, 5× less; ∼10% of C_W",
        # a set's doubled braces (ICLR, ICML), each once read as a line break
        r"when $\min \\{ A, B \\} \ll H^2$, exactly $\max\\{d_x,d_y,2\\}$ for $k \in \\{2, 4\\}$":
            "when min { A, B } ≪ H², exactly max {dₓ,d_y,2} for k ∈ {2, 4}",
    }
    assert_reads_as(cases)


def test_links_end_where_the_markup_around_them_starts_and_bold_holds_italics():
    """From ICLR 2024: a link followed by Markdown's ** ("Unlearn-Saliency.**WARNING**: ...") or set in
    TeX's braces ("{https://github.com/...-PDE}") took the marks into its address, so `o` opened a
    page that does not exist; a bold sentence holding an italic word showed its ** raw; and the reader
    showed a source's double spaces (299 of ICML's and ICLR's 4,870 abstracts) where plain text had one."""
    from rich.style import Style

    from store.latex import plain_text
    from tui.render import render_abstract

    source = ("Codes are available at https://github.com/OPTML-Group/Unlearn-Saliency.**WARNING**: This paper "
              "contains model outputs. The code is released at {https://github.com/xuangu-fang/Gaussian-PDE}. "
              "**In this position paper, we argue that *open-endedness* is within reach.** We  begin.")
    text, links = render_abstract(source)
    assert links == ["https://github.com/OPTML-Group/Unlearn-Saliency", "https://github.com/xuangu-fang/Gaussian-PDE"]
    shown = ("Codes are available at https://github.com/OPTML-Group/Unlearn-Saliency.WARNING: This paper contains "
             "model outputs. The code is released at https://github.com/xuangu-fang/Gaussian-PDE. In this position "
             "paper, we argue that open-endedness is within reach. We begin.")
    assert text.plain == plain_text(source) == shown
    styles = {text.plain[s.start:s.end]: Style.parse(str(s.style)) if isinstance(s.style, str) else s.style
              for s in text.spans}
    assert styles["WARNING"].bold and styles["open-endedness"].bold and styles["open-endedness"].italic
    assert styles["In this position paper, we argue that "].bold and not styles["In this position paper, we argue that "].italic


def test_a_brace_or_footnote_split_by_math_or_a_link_does_not_show_raw():
    """The reader converts the text between math and links piece by piece, so a brace whose pair
    was in another piece stayed on screen (ICLR: "with {$16$, $50$, $100$} language pairs" read "16,
    50, 100} language pairs"), and a footnote holding math or a link lost its brackets' text order
    ("[Here ]Õ(·) compresses"). Both now read as plain text has them (16 of ICLR's abstracts)."""
    from store.latex import plain_text
    from tui.render import render_abstract

    cases = {
        r"with {$16$, $50$, $100$} language pairs": "with 16, 50, 100 language pairs",
        r"requires $\tilde O(1/\epsilon^4)$\footnote{Here $\widetilde{O}(\cdot)$ compresses logarithmic factors.} iterations":
            "requires Õ(1/ϵ⁴)[Here Õ(·) compresses logarithmic factors.] iterations",
        r"The code is available online \footnote{\url{https://github.com/NVlabs/RED-diff}}.":
            "The code is available online [https://github.com/NVlabs/RED-diff].",
        r"Datasets are available at: \url{https://github.com/XiaoxinHe/TAPE}}.":
            "Datasets are available at: https://github.com/XiaoxinHe/TAPE.",
    }
    for source, shown in cases.items():
        text, links = render_abstract(source)
        assert text.plain == shown
        assert plain_text(source).replace("<", "").replace(">", "") == shown  # plain text marks a link <so>
        assert links == [w.strip("[].") for w in shown.split() if w.strip("[]").startswith("https://")]


def test_ampersands_fonts_in_math_and_italics_in_bold_read_alike_everywhere():
    """From ICML and ICLR 2024: plain text dropped a bare & in an abstract holding LaTeX ("Anthropic
    Harmless & Red Team" read "Harmless Red Team"; the reader too, in such a passage) and the space in
    "$\\textit{Flow-to-Better (FTB)}$" (math's rule, for a name only set in italics); the reader showed
    "**_perception_**" with its underscores."""
    from tui.render import render_abstract

    assert_reads_as({
        r"benchmarks Anthropic Harmless & Red Team, PKU #1 \emph{and} accuracy & AUC gains":
            "benchmarks Anthropic Harmless & Red Team, PKU #1 and accuracy & AUC gains",
        r"we introduce our method named $\textit{Flow-to-Better (FTB)}$, which leverages \emph{x}":
            "we introduce our method named Flow-to-Better (FTB), which leverages x",
        "overall quality assessment. **_a)_** To evaluate the low-level **_perception_** ability":
            "overall quality assessment. a) To evaluate the low-level perception ability",
        # a Markdown-escaped star is a star, and opens no italics (NeurIPS 2026's seeds: "O\\*NET" read "ONET")
        r"using standard O\*NET computer-occupation tasks, \emph{six} models and \*not italic\* O*NET tasks":
            "using standard O*NET computer-occupation tasks, six models and *not italic* O*NET tasks",
    })
    text, _ = render_abstract("To evaluate the low-level **_perception_** ability")
    assert [(text.plain[s.start:s.end], str(s.style)) for s in text.spans] == [("perception", "bold italic")]


def test_scripts_unicode_cannot_write_keep_their_grouping():
    """A superscript or subscript Unicode has no characters for lost its braces, and with them
    what it holds: ICML's "$\\tilde O(\\varepsilon^{-2}\\mathfrak Sd^{1-p/2})$" read "Õ(ε⁻²𝔖d^1-p/2)",
    a different bound (88 of ICML + ICLR 2024's abstracts). Such a script is set in parentheses
    when it holds more than one term; a word, a symbol or a group already in parentheses is not."""
    cases = {  # each from ICML or ICLR 2024
        r"an earlier $\tilde O(\varepsilon^{-2}\mathfrak Sd^{1-p/2})$ bound": "an earlier Õ(ε⁻²𝔖d^(1-p/2)) bound",
        r"on pseudo-Euclidean spaces $\mathbb{R}^{p,q}$ and $X \in \mathbb{R}^{n_1 \times k}$":
            "on pseudo-Euclidean spaces ℝ^(p,q) and X ∈ ℝ^(n₁ × k)",
        r"with $\widetilde{O}(K^{\frac{4}{5}}+1/\lambda_{\min})$ regret, $n^{-1/4}$ and $e^{2\pi i}$":
            "with Õ(K^(4/5)+1/λₘᵢₙ) regret, n^(-1/4) and e^(2πi)",
        r"from $[0,1]^{d_x}$, the $(K+1)^{\rm th}$ token, $\nabla_{\mathbf{x}_t} \log p$, $\sum_{i = 1}^{n} x_i$":
            "from [0,1]^(dₓ), the (K+1)^th token, ∇_(𝐱ₜ) log p, ∑ᵢ₌₁ⁿ xᵢ",
        # clear as they are: a word, a symbol, a command with its argument, a parenthesized group
        r"$t_{mix}$, $x^{\top} y$, $N_{\mathcal{F}}(\epsilon)$, $w^{(t)}$, $x^{-1}$": "tₘᵢₓ, x^⊤ y, N_ℱ(ϵ), w^(t), x⁻¹",
    }
    assert_reads_as(cases)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_tex_quotes_and_dashes_are_typeset(lib, make, tmp_path):
    """``quotes'' and -- dashes outside any LaTeX command (2-5 % of ICML/ICLR abstracts) show as
    typography in the reader and in plain-text output, as they would in the paper."""
    from store.latex import plain_text

    abstract = "We introduce ``Shortcut Text Gradient'' --- an effective Weisfeiler--Leman test for prompts."
    (tmp_path / "q.txt").write_text(abstract)
    lib.paper_changes.import_paths([tmp_path / "q.txt"])
    app = make(lib)
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press("G")
        await pilot.pause()
        from rich.console import Console
        console = Console(width=140, record=True, file=open(os.devnull, "w"))
        console.print(screen(app).query_one("#reader-body").content)
        reader = " ".join(console.export_text().split())
    expected = "We introduce “Shortcut Text Gradient” — an effective Weisfeiler–Leman test for prompts."
    assert expected in reader and "``" not in reader
    assert plain_text(abstract) == expected
    # a TeX opening quote closed by a typewriter one (as ICML's "Shortcut Text Gradient" paper has it)
    mixed = 'We introduce ``Shortcut Text Gradient" --- and \\emph{``also" this}; "plain" stays.'
    assert plain_text(mixed) == 'We introduce “Shortcut Text Gradient” — and “also” this; "plain" stays.'


def test_tex_single_quotes_are_quotes_and_code_stays_code():
    """TeX's `single quotes' (30 of ICML's and ICLR's 4,870 abstracts) showed their backtick, and the
    reader took two of them for a code span: "named as `tight nodes'), while ... `scattered nodes''"
    showed the words between them reversed. ``code`` (ICML: "the Python library ``DoWhy``") read as
    “DoWhy“ in plain text."""
    from store.latex import plain_text
    from tui.render import render_abstract

    source = ("named as `tight nodes'), while the rest may be noninformative `scattered nodes''. We call a "
              "`wrapper', as a `firewall' in \\emph{x}; the library ``DoWhy`` and `OutEffHop` run.")
    shown = ("named as ‘tight nodes’), while the rest may be noninformative “scattered nodes”. We call a "
             "‘wrapper’, as a ‘firewall’ in x; the library DoWhy and OutEffHop run.")
    text, _ = render_abstract(source)
    assert text.plain == shown
    assert plain_text(source) == shown.replace("OutEffHop", "`OutEffHop`")  # plain text keeps `code` marked
    coded = [text.plain[s.start:s.end] for s in text.spans if "reverse" in str(s.style)]
    assert coded == ["DoWhy", "OutEffHop"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_hostile_abstract_never_reaches_the_screen_raw(lib, make, tmp_path):
    (tmp_path / "evil.txt").write_text("We attack \x1b[31mred\x1b[0m terminals \x1b]52;c;ZXZpbA==\x07 and \x08\x0c\u200b today.")
    lib.paper_changes.import_paths([tmp_path / "evil.txt"])
    app = make(lib)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("G")
        await pilot.pause()
        svg = app.export_screenshot()
        assert "attack" in svg and "\x1b" not in svg and "\x07" not in svg and "\x08" not in svg


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_big_library_paths_defer_the_reader_and_fall_back_to_workers(lib, make, monkeypatch):
    """Above BIG_LIBRARY papers, while keys come in a burst, the reader and "more like this"
    follow the list once typing pauses; a key typed after a pause brings the reader with the list
    (one frame, not two); a slow search moves to a worker: the results must be the same."""
    import tui.limits as main_mod
    from tui.controllers.search import Searching
    monkeypatch.setattr(main_mod, "BIG_LIBRARY", 10)
    _ = lib.discovery.similarity  # the model is ready, as it is a few seconds after start
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        main = screen(app)
        reader = main.query_one("#reader")
        first = reader.paper_index
        assert first is not None  # at start the reader shows the first paper at once
        await pilot.press("slash")
        main.query_one("#search").value = "everanimate"  # typed after a pause: the reader with the list
        assert reader.paper_index == main.results.current_index != first
        main.query_one("#search").value = ""
        await settle(pilot)
        first = reader.paper_index
        monkeypatch.setattr(main_mod, "TYPING_BURST", 30.0)  # (the keys below in a burst, however slow the test)
        main.query_one("#search").value = "everanimate"         # as a keystroke does, in one go
        top = main.results.current_index
        assert app.library.corpus.papers[top].title.startswith("EverAnimate") and len(main.results.indices) == 1
        assert top != first and reader.paper_index == first   # the list at once, the reader not yet
        await pilot.pause(main_mod.READER_DELAY + 0.1)
        await settle(pilot)
        assert reader.paper_index == top                        # the reader caught up
        await until(pilot, lambda: "More like this" in str(reader.query_one("#reader-similar").render()))
        # a search slower than the inline budget goes to a worker, with the same result
        calls = []
        original = Searching.in_worker
        monkeypatch.setattr(Searching, "in_worker", lambda self, text, q: (calls.append(text), original(self, text, q)))
        main.search._seconds = 1.0
        main.query_one("#search").value = "voice identiy"
        await settle(pilot)
        assert calls == ["voice identiy"]
        assert app.library.corpus.papers[main.results.current_index].title.startswith("VIPBench")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_search_slower_than_the_pause_is_the_pause_the_reader_follows_its_results(lib, make, monkeypatch):
    """In a big library the reader waits for typing to pause, counted from the key: a search that
    took longer than READER_DELAY (in a worker; its answer dropped had a key come meanwhile) was
    the pause, and the reader shows its paper with the new list (one frame for both in a real
    terminal), not READER_DELAY later."""
    import time

    import tui.limits as main_mod
    from tui.controllers.similar import Similar
    monkeypatch.setattr(main_mod, "BIG_LIBRARY", 10)
    monkeypatch.setattr(main_mod, "READER_DELAY", 0.8)
    monkeypatch.setattr(Similar, "prepare", lambda self: None)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        main = screen(app)
        reader = main.query_one("#reader")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.pause()
        original = app.library.search.find

        def slow_search(*args, **kwargs):
            time.sleep(0.9)
            return original(*args, **kwargs)
        monkeypatch.setattr(app.library.search, "find", slow_search)
        main.search._seconds = 1.0  # (slow: the next search runs in a worker)
        first = reader.paper_index
        with_list: list[tuple[int | None, int | None]] = []  # (the list's paper, the reader's) as each list is shown
        original_show = main.show_results

        def show_results(*args, **kwargs):
            original_show(*args, **kwargs)
            with_list.append((main.results.current_index, reader.paper_index))
        monkeypatch.setattr(main, "show_results", show_results)
        for key in "everanimate":
            await pilot.press(key)
        started = time.perf_counter()
        while main.search.query_text != "everanimate" or len(main.results.indices) != 1:
            await pilot.pause(0.02)
        assert time.perf_counter() - started < 5
        top = main.results.current_index
        assert top != first
        assert with_list[-1] == (top, top)  # in the same handling as the list: the same frame
        await pilot.pause(0.25)
        assert reader.paper_index == top


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_typing_lays_nothing_out_and_leaves_the_reader_for_the_pause(lib, make, monkeypatch):
    """A keystroke in a burst repaints the list and the search box only: no layout pass of the
    screen (which re-measured the reader's abstract on every key) and, in a big library,
    no reader render until typing pauses. The scrollbar still follows the result count."""
    from textual.widget import Widget

    import tui.limits as main_mod
    from tui.controllers.similar import Similar
    from tui.widgets.reader import Reader
    monkeypatch.setattr(main_mod, "BIG_LIBRARY", 10)
    monkeypatch.setattr(main_mod, "READER_DELAY", 1.0)  # longer than any gap between keys here, however slow
    monkeypatch.setattr(main_mod, "TYPING_BURST", 30.0)  # (the keys a burst, however slow the test)
    # The more-like-this model, ready at a moment of its own, would show the reader again.
    monkeypatch.setattr(Similar, "prepare", lambda self: None)
    app = make(lib)
    async with app.run_test(size=(100, 24)) as pilot:
        main = screen(app)
        await settle(pilot)
        results = main.results
        viewport = results.scrollable_content_region.height
        assert len(results.indices) == 35 > viewport and results.show_vertical_scrollbar
        await pilot.press("slash")  # focus moves: the footer lays itself out for the box's keys
        await pilot.press("m")  # the first key, after a pause: the reader comes with the list
        await settle(pilot)
        layouts, shows = [], []
        original_refresh, original_show = Widget.refresh, Reader.show

        def refresh(self, *regions, layout=False, **kwargs):
            if layout:
                layouts.append(type(self).__name__)
            return original_refresh(self, *regions, layout=layout, **kwargs)
        monkeypatch.setattr(Widget, "refresh", refresh)
        monkeypatch.setattr(Reader, "show", lambda self, i: (shows.append(i), original_show(self, i))[1])
        for key in "odel":  # "mo" ... "model": many results, all overflowing the list
            await pilot.press(key)
            await pilot.pause()
            assert len(results.indices) > viewport
            assert results.vertical_scrollbar.window_virtual_size == len(results.indices)
            assert results.max_scroll_y == len(results.indices) - viewport
        assert layouts == [] and shows == []
        await pilot.pause(main_mod.READER_DELAY + 0.1)
        await settle(pilot)
        assert shows == [results.current_index]  # the reader caught up once, with the top paper
        # Narrowed below the list's height, the scrollbar goes (that one lays out).
        main.query_one("#search").value = "everanimate"
        await settle(pilot)
        assert len(results.indices) == 1 and not results.show_vertical_scrollbar and "ResultsList" in layouts
        # ...and comes back with the full list; the last paper is reachable.
        main.query_one("#search").value = ""
        await settle(pilot)
        main.set_focus(results)
        await pilot.press("G")
        await pilot.pause()
        assert results.show_vertical_scrollbar and results.cursor == 34
        assert results.scroll_offset.y == results.max_scroll_y == 35 - viewport


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_keywords_shown_in_the_reader_and_filtered_by_kw(lib, make, tmp_path):
    """An ICLR paper's keywords and area under its byline; typing kw:"..." in the search box lists
    the papers holding one (the seeds have none); kw: finds the area too."""
    from rich.console import Console
    (tmp_path / "iclr.jsonl").write_text((DATA / "iclr_slice.jsonl").read_text().splitlines()[0] + "\n")
    lib.paper_changes.import_paths([tmp_path / "iclr.jsonl"])
    app = make(lib)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *'kw:"in-context learn"', "enter")
        await settle(pilot)
        assert screen(app).results.border_title.startswith("1 / 36")
        await pilot.press("slash", "ctrl+u", *'kw:"none of the"', "enter")
        await settle(pilot)
        assert screen(app).results.border_title.startswith("1 / 36")
        console = Console(width=140, record=True, file=open(os.devnull, "w"))
        console.print(screen(app).query_one("#reader-body").content)
        shown = console.export_text()
        reader = " ".join(shown.split())
    assert "Understanding In-Context Learning from Repetitions" in reader
    assert ("keywords In-context learning · Large language models · Repetition "
            "area general machine learning (i.e., none of the above)") in reader
    # the area on a line of its own: wrapped after the keywords, it ran on from the last one
    assert any(line.startswith("area general machine learning") for line in shown.splitlines())


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_reader_highlights_the_words_the_search_matched(lib, make):
    """Title, abstract and note show the matched words as the list does; a typo's word too."""

    def highlighted(app) -> set[str]:
        body = screen(app).query_one("#reader-body")
        words = set()
        for part in body.content.renderables:
            if isinstance(part, Text):
                for span in part.spans:
                    style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
                    if style.underline and style.bold and not style.link:
                        words.add(part.plain[span.start:span.end].casefold())
        return words

    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("e", *"a voice memo", "ctrl+s")  # a note on the first paper, VIPBench
        await settle(pilot)
        await pilot.press("g", "slash", *"voice identiy", "enter")
        await settle(pilot)
        assert app.library.corpus.papers[screen(app).results.current_index].title.startswith("VIPBench")
        assert {"voice", "identity"} <= highlighted(app)
        body = screen(app).query_one("#reader-body").content.renderables
        note = body[body.index(next(p for p in body if isinstance(p, Text) and p.plain == "Note")) + 1]
        assert [note.plain[s.start:s.end] for s in note.spans] == ["voice"]
        await pilot.press("escape")                       # no search: nothing highlighted
        await settle(pilot)
        assert highlighted(app) == set()


async def test_an_acronyms_words_are_highlighted_where_they_stand_together(tmp_path, make):
    """`RLHF` also finds the papers that write it out: its words are lit where they stand together
    ("reinforcement learning from human feedback"), never each "learning" of the abstract."""
    lib = library_of(tmp_path, [
        "Reward models for reinforcement learning from human feedback (RLHF) overfit to annotators.",
        "We align chat models by reinforcement learning from human feedback (RLHF) with fewer labels.",
        "Reinforcement learning from human feedback (RLHF) is cheaper with synthetic preferences.",
        "An active learning loop picks prompts, and reinforcement learning from human feedback tunes the policy.",
    ])
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash", *"RLHF", "enter")
        await settle(pilot)
        main = screen(app)
        paper = next(i for i in main.results.indices if "active" in lib.corpus.papers[int(i)].abstract)
        main.results.move_to_paper(int(paper))
        await settle(pilot)
        body = main.query_one("#reader-body").content.renderables
        abstract = next(p for p in body if isinstance(p, Text) and p.plain.endswith("tunes the policy."))
        lit = [abstract.plain[s.start:s.end] for s in abstract.spans if "learning" in abstract.plain[s.start:s.end]]
        assert lit == ["reinforcement learning from human feedback"], (abstract.spans, main.reader.matched)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_notices_quote_searches_and_tags_as_typed_not_as_markup(lib, make, tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps(
        {"places": {str(lib.folder.resolve()): {"query": "[MASK] [b]token", "paper": None, "history": []}}}))
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert screen(app).query_one("#search").value == "[MASK] [b]token"
        from textual.content import Content
        shown = [Content.from_markup(n.message).plain if n.markup else n.message
                 for n in app._notifications if "left off" in n.message]  # as the toast shows it
        assert shown and "back where you left off: [MASK] [b]token" in shown[0]
        await pilot.press("escape", "t", *"[draft]", "enter", "escape", "z")
        await settle(pilot)
        undone = [Content.from_markup(n.message).plain if n.markup else n.message
                  for n in app._notifications if n.message.startswith("undone")]
        assert len(undone) == 1 and undone[0].startswith("undone: tag +[draft] · ")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_while_typing_more_like_this_waits_twice_as_long_as_a_lookup_takes(lib, make, monkeypatch):
    """In a big library, while keys come in a burst in the search box, the panel's lookup waits for
    a pause of at least twice the last lookup's time (every key changes the paper, and a lookup
    takes CPU the next key's search wants); a key typed after a pause, or moving in the list (see
    the next test), starts one at once."""
    import tui.limits as limits

    monkeypatch.setattr(limits, "BIG_LIBRARY", 10)
    _ = lib.discovery.similarity  # the model is ready
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        main = screen(app)
        await settle(pilot)
        waits: list[float] = []
        original = main.set_timer
        monkeypatch.setattr(main, "set_timer", lambda delay, *a, **k: (waits.append(delay), original(delay, *a, **k))[1])
        real_show = main.similar.show
        shown: list[int] = []
        monkeypatch.setattr(main.similar, "show", shown.append)  # (no lookup runs meanwhile)
        main.similar._lookup_seconds = 0.5  # as a lookup at 300k papers took before its rows were summed
        main.similar._found.clear()  # (the next paper was looked up ahead at start)
        await pilot.press("down")  # in the list: at once, no timer
        await pilot.pause()
        assert set(shown) == {main.results.current_index} and 1.0 not in waits and limits.SIMILAR_DELAY not in waits
        shown.clear()
        await pilot.press("slash")
        await pilot.press("g")  # the first key typed, after a pause: at once
        await pilot.pause(limits.READER_DELAY + 0.1)
        await settle(pilot)
        assert main.results.current_index in shown and 1.0 not in waits  # (the stand-in sets no _running)
        shown.clear()
        burst = limits.TYPING_BURST
        monkeypatch.setattr(limits, "TYPING_BURST", 30.0)  # (each key close enough to the last, however slow the test)
        await pilot.press("r", "a", "p", "h")
        await pilot.pause(limits.READER_DELAY + 0.1)
        await settle(pilot)
        assert 1.0 in waits and limits.SIMILAR_DELAY not in waits and not shown
        monkeypatch.setattr(limits, "TYPING_BURST", burst)
        await pilot.pause(burst + 0.05)  # (a pause: the next key is not in the burst)
        waits.clear()
        await pilot.press("s")
        await pilot.pause(limits.READER_DELAY + 0.1)
        await settle(pilot)
        assert main.results.current_index in shown and 1.0 not in waits
        # Not in a burst, the lookup starts once the frame showing the paper is drawn (run beside
        # the frame's drawing, each took twice as long); a key typed before then starts none.
        paper = main.results.current_index
        main.similar._found.clear()
        shown.clear()
        main.similar.soon(paper)
        assert shown == []
        await pilot.pause()
        assert shown == [paper]
        shown.clear()
        main.similar.soon(paper)
        main.similar.hold()
        await pilot.pause()
        await settle(pilot)
        assert shown == []
        # the lookup, when it runs, says how long it took
        main.similar._lookup_seconds = 0.0
        real_show(main.results.current_index)
        await settle(pilot)
        assert 0 < main.similar._lookup_seconds < 0.5


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_moving_in_the_list_runs_one_lookup_at_a_time_for_where_the_cursor_is(lib, make, monkeypatch):
    """In a big library a key in the list starts the panel's lookup at once; keys pressed while it
    runs start none, and when it ends the paper the cursor is on then is looked up (not each paper
    passed). Once the cursor rests the next paper is looked up ahead: a key then fills the panel
    at once; going back shows a kept answer without a lookup. A key typed in the search box stops
    a running lookup."""
    import threading

    import tui.limits as limits
    from store.discovery.similar import LookupStopped

    monkeypatch.setattr(limits, "BIG_LIBRARY", 10)
    sim = lib.discovery.similarity  # the model is ready
    gate = threading.Event()
    looked_up: list[int] = []
    original = sim.similar

    outcomes: list[str] = []

    def slow_similar(doc: int, limit: int = 10, stop=None):
        looked_up.append(doc)
        gate.wait(5)
        try:
            found = original(doc, limit, stop)
        except LookupStopped:
            outcomes.append("stopped")
            raise
        outcomes.append("found")
        return found
    monkeypatch.setattr(sim, "similar", slow_similar)
    app = make(lib)

    def panel() -> str:
        return str(reader.query_one("#reader-similar").render())

    async with app.run_test(size=(160, 45)) as pilot:
        main = screen(app)
        reader = main.query_one("#reader")
        gate.set()
        await settle(pilot)
        await until(pilot, lambda: main.similar._running is None and "More like this" in panel())
        monkeypatch.setattr(limits, "SIMILAR_DELAY", 5.0)  # (no pause is waited for in the list)
        main.similar._found.clear()
        looked_up.clear()
        gate.clear()
        main.set_focus(main.results)
        await pilot.press("down")
        await pilot.pause(0.05)
        first = main.results.current_index
        assert looked_up == [first]  # at once, no pause waited for
        await pilot.press("down", "down", "down")
        await pilot.pause(0.05)
        assert looked_up == [first]  # one at a time
        gate.set()
        rest = main.results.current_index
        papers = [int(i) for i in main.results.indices[:8]]
        await until(pilot, lambda: main.similar._running is None and len(looked_up) == 3)
        # the paper passed over was not looked up; the next one was, ahead of the cursor
        assert looked_up == [first, rest, papers[papers.index(rest) + 1]]
        assert reader.paper_index == rest and "More like this" in panel()
        ahead = looked_up[-1]
        await pilot.press("down")
        await pilot.pause()
        assert reader.paper_index == ahead and "More like this" in panel()  # filled at once
        await until(pilot, lambda: main.similar._running is None and len(looked_up) == 4)
        assert looked_up[-1] == papers[papers.index(rest) + 2]
        n = len(looked_up)
        await pilot.press("up")  # back: the kept answer at once, and the paper above looked up ahead
        await pilot.pause()
        assert reader.paper_index == rest and "More like this" in panel()
        await until(pilot, lambda: main.similar._running is None and len(looked_up) == n + 1)
        assert looked_up[-1] == papers[papers.index(rest) - 1]
        # a key typed while a lookup runs stops it: nothing is shown for the paper left (the key's
        # first paper is looked up instead: a key after a pause)
        gate.clear()
        main.similar._found.clear()
        await pilot.press("down")
        await pilot.pause(0.05)
        running = main.similar._running
        assert running is not None and looked_up[-1] == running
        outcomes.clear()
        await pilot.press("slash", "g")
        await pilot.pause(0.05)
        assert main.similar._running != running
        gate.set()
        await until(pilot, lambda: len(outcomes) == 2)
        assert sorted(outcomes) == ["found", "stopped"] and looked_up[-1] == main.results.current_index != running


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_moving_between_papers_lays_out_the_abstract_only(lib, make, monkeypatch):
    """A layout pass redraws the whole screen (~25 ms at 160 columns in a real terminal): moving to
    the next paper lays the screen out once, for the reader's new abstract, and not for the
    more-like-this panel (blanked and filled at the height it had), the tag panel (unchanged on an
    untagged paper), the reader's width (its scrollbar always shown) or the abstract's new height
    (tui.compat.QuietlySizedStatic). Each panel still shows what it should."""
    from textual.screen import Screen
    from textual.widget import Widget
    _ = lib.discovery.similarity  # the model is ready: the panel fills for each paper
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        main = screen(app)
        reader = main.query_one("#reader")
        main.set_focus(main.results)
        await settle(pilot)
        await pilot.press("down")  # (the panel filled once: its height known)
        await settle(pilot)
        layouts: list[str] = []
        original_refresh = Widget.refresh

        def refresh(self, *regions, layout=False, **kwargs):
            if layout:
                layouts.append(self.id or type(self).__name__)
            return original_refresh(self, *regions, layout=layout, **kwargs)
        monkeypatch.setattr(Widget, "refresh", refresh)
        passes = [0]
        original_layout = Screen._refresh_layout

        def refresh_layout(self, *args, **kwargs):
            passes[0] += 1
            return original_layout(self, *args, **kwargs)
        monkeypatch.setattr(Screen, "_refresh_layout", refresh_layout)
        widths = set()
        for key in ["down"] * 6 + ["up"] * 3:
            passes[0] = 0
            await pilot.press(key)
            await settle(pilot)
            assert passes[0] == 1, (key, passes[0])
            similar = str(reader.query_one("#reader-similar").render())
            assert reader.paper_index == main.results.current_index and "More like this" in similar
            body = reader.query_one("#reader-body")
            shown = "".join(seg.text for y in range(2) for seg in body.render_line(y))
            assert lib.corpus.papers[reader.paper_index].title.split()[0] in shown
            widths.add(reader.query_one("#reader-body").size.width)
        assert "reader-similar" not in layouts and "paper-tags" not in layouts, layouts
        assert len(widths) == 1  # (the abstracts' heights differ: some overflow the reader, some not)
        assert "reader-body" in layouts
        # A tag on the paper shows in its panel (a change of the panel: laid out then).
        await pilot.press("t")
        await pilot.pause()
        for ch in "tagged-here":
            await pilot.press(ch)
        await pilot.press("enter")
        await settle(pilot)
        assert "#tagged-here" in str(main.query_one("#paper-tags").render())


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_huge_librarys_panel_is_looked_up_by_a_helper_process(tmp_path, make, monkeypatch):
    """Above LOOKUP_HELPER papers the model, once loaded, is served by a helper process: the panel
    lists the same papers as the library's own lookup, the app never copies the latent vectors,
    and the helper ends with the app."""
    import tui.limits as limits
    from store import Library
    built = Library(tmp_path / "lib")
    built.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    built.discovery.prepare_similarity_cache()
    monkeypatch.setattr(limits, "BIG_LIBRARY", 10)
    monkeypatch.setattr(limits, "LOOKUP_HELPER", 10)
    lib = Library(tmp_path / "lib")
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        main = screen(app)
        reader = main.query_one("#reader")
        for _ in range(200):
            await pilot.pause(0.05)
            if lib.discovery.helper_pid is not None and "More like this" in str(reader.query_one("#reader-similar").render()):
                break
        pid = lib.discovery.helper_pid
        assert pid is not None
        main.set_focus(main.results)
        await pilot.press("down", "down")
        shown = main.results.current_index
        for _ in range(100):
            await pilot.pause(0.05)
            if reader.paper_index == shown and main.similar._running is None and main.similar._key(shown) in main.similar._found:
                break
        panel = str(reader.query_one("#reader-similar").render())
        assert lib.discovery.similarity._latent is None
    want = [lib.corpus.papers[i].title for i, _ in lib.discovery.similarity.similar(shown, 5)]
    assert all(title[:40] in panel for title in want), (want, panel)
    assert lib.discovery.helper_pid is None
    with pytest.raises(FileNotFoundError):
        for _ in range(100):
            open(f"/proc/{pid}/status").close()
            await asyncio.sleep(0.05)
