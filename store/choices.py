"""Fixed names the command line offers as choices: reading statuses, star ratings, export formats.

Apart from :mod:`store.models` and :mod:`store.export` so the CLI can build its
options without importing them (a one-shot search starts faster).
"""

STATUSES = ("unread", "to-read", "read", "skipped")
STATUS_GLYPH = {"unread": "·", "to-read": "▶", "read": "✓", "skipped": "✗"}  # the app's list and the CLI's tables
MAX_STAR = 3
FORMATS = ("md", "csv", "json", "jsonl", "bibtex", "org", "csl-json", "ris")
