"""Which words say what a paper is about: the words a recommendation's "because" may name.

An abstract's function words are stop words (:data:`store.search.vocab.STOP_WORDS`), but every
abstract also writes the words of writing about research: that a method is *higher*, *negligible*
or *robust*, that a *methodology* *achieves* *results*. In a library of thousands their idf is
low; in a small one (the 35-paper sample, a workshop) a word that two papers happen to share has
the idf of a subject. So they are listed here, once, by hand: comparatives and evaluations,
reporting verbs, and the nouns of method and study (a reader of "because: negligible, higher,
methodology" learns nothing of the paper).
"""

from __future__ import annotations

import re

from store.text import STOP_WORDS

GENERIC_WORDS = frozenset("""
higher lower better worse best worst larger smaller faster slower greater fewer stronger weaker
simpler easier harder longer shorter wider broader deeper richer cheaper
negligible marginal minimal substantial significant significantly substantially considerable
considerably notable notably remarkable remarkably effective effectively efficient efficiently
efficiency robust robustly accurate accurately competitive superior inferior comparable consistent
consistently strong weak good poor high low large small fast slow short key main major minor
general generic specific particular various several numerous multiple single diverse wide broad
overall whole entire typical common standard conventional traditional prior previous recent
current modern popular practical theoretical empirical empirically extensive extensively
comprehensive thorough rigorous novel existing additional further important importantly crucial
critical essential fundamental central primary core basic easy hard difficult challenging
challenge challenges complicated complex limited limitation limitations issue issues problem
problems question questions aim aims goal goals purpose objective objectives
methodology methodologies technique techniques strategy strategies framework frameworks paradigm
procedure scheme mechanism mechanisms design designs study studies analysis analyses analyze
analyzes analyzed analyse investigate investigates investigated investigation examine examines
explore explores exploring evaluate evaluates evaluated evaluation evaluations experiment
experiments experimental demonstrate demonstrates demonstrated shows shown reveal reveals finds
finding findings observe observes observed observation result outcome outcomes effect effects
impact impacts improve improves improved improvement improvements improving enhance enhances
enhanced enhancement achieve achieves achieved achieving outperform outperforms outperforming
surpass surpasses exceed exceeds yield yields provide provides provided offer offers enable
enables enabling allow allows allowing introduce introduces introduced present presents presented
develop develops developed proposes address addresses addressed tackle tackles consider considers
considered combine combines combined combining apply applies applied application applications
leverage leverages leveraging utilize utilizes exploit exploits require requires required
requirement requirements remain remains lead leads leading make makes making take takes step steps
stage stages process processes set sets setting settings term terms way ways case cases aspect
aspects factor factors level levels degree range number amount variety type types kind form forms
part parts order cost costs time times performance accuracy quality scale scales stateoftheart
largescale realworld longterm wellknown research researchers field fields area areas domain
domains community works article literature scenario scenarios context contexts example examples
instance instances evidence insight insights understanding knowledge information idea ideas
concept concepts notion property properties ability capability capabilities potential
opportunity opportunities need needs gap gaps fact focus focuses direction directions trend
trends practice practices often rarely typically usually generally commonly increasingly largely
mostly highly widely fully partly simply directly finally furthermore moreover additionally
specifically particularly especially respectively overall despite across perform performs performed
performing final relative relatively compared compare compares comparing forced isolated unified
systematic systematically long alone continue continues second third find
recently contribute contributes contributed contribution contributions development developments
powerful utilized received acknowledged deal deals due even given overcome overcomes designed
appealing strength strengths weakness weaknesses available publicly released code
pertains pertain emerged emerge emerges depends depend driven guided informed aware compelling
simultaneously training
https http www github com org html io
project projects website websites page pages site url future
end ends fit fits task tasks
""".split())


def is_content_word(term: str) -> bool:
    """Whether ``term`` (an indexed term: folded, a compound joined) names a subject: three
    letters or more, not a stop word, not a word of writing about research."""
    return len(term) >= 3 and term not in STOP_WORDS and term not in GENERIC_WORDS


# A web address, with a scheme or www. or a host's common ending before a path: its pieces
# ("github.com/microsoft/SmartPlay": microsoft, smartplay) name no subject of the paper.
_ADDRESS = re.compile(r"(?:https?://|www\.)\S+|\b[\w.-]+\.(?:com|org|io|net|edu|ai)/\S*", re.IGNORECASE)


def outside_addresses(text: str) -> set[str] | None:
    """The terms a text holds outside its web addresses (indexed terms: folded, a compound joined),
    or None for a text with no address (every term of it is outside one)."""
    if not _ADDRESS.search(text):
        return None
    from store.text import index_tokens
    return set(index_tokens(_ADDRESS.sub(" ", text)))


_WRITTEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")


def as_written(terms: list[str], text: str) -> list[str]:
    """The terms as the paper writes them: the index joins a hyphenated word ("sample-efficient"
    is the term ``sampleefficient``), which no reader recognizes; a term the text holds with
    hyphens is given so (the first such spelling, in lower case), the others as they are."""
    spelled: dict[str, str] = {}
    for word in _WRITTEN.findall(text):
        spelled.setdefault(word.replace("-", "").lower(), word.lower())
    return [spelled.get(t, t) for t in terms]
