"""Fixed names the command line offers as choices: reading statuses, star ratings, export formats.

Apart from :mod:`store.models` and :mod:`store.export` so the CLI can build its
options without importing them (a one-shot search starts faster).
"""

STATUSES = ("unread", "to-read", "read", "skipped")
MAX_STAR = 3
FORMATS = ("md", "csv", "json", "jsonl", "bibtex", "org", "csl-json", "ris")
