"""Fixed names the command line offers as choices: reading statuses, star ratings, Markdown groups
(the export formats are store.formats' table, EXPORTS).

Apart from :mod:`store.models` and :mod:`store.exchange.export` so the CLI can build its
options without importing them (a one-shot search starts faster).
"""

STATUSES = ("unread", "to-read", "read", "skipped")
STATUS_GLYPH = {"unread": "·", "to-read": "▶", "read": "✓", "skipped": "✗"}  # the app's list and the CLI's tables
MAX_STAR = 3
MARKDOWN_GROUPS = ("status", "tag", "venue", "area")  # a Markdown reading list's sections
# How exports mark a title papersift derived (BibTeX papersift_title, RIS U1, CSV/JSON derived_title),
# and how imports recognise one, so a re-imported derived title stays derived (a real one can replace it).
DERIVED = "derived from the abstract"
EXCERPT = "no title: the first words of what the paper says it does"  # (store.titles.kinds)
TITLE_MARKS = (DERIVED, EXCERPT)  # what an export says of a title papersift made: read back as no title
# A CSV cell starting with one of these is a formula to a spreadsheet: the CSV export prefixes it
# with ' (store.formats.delimited.neutralize), and the CSV import takes the ' off again (parse_csv there).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
