"""The versions papersift writes into its files and checks when it reads them.

Each format that outlives a release carries its version here or beside the code that reads it
(the index's in store.search.vocab, the model cache's in store.discovery.similar, the annotations'
in store.annotations.journal); these are the corpus file's and the title rules'.
"""

from __future__ import annotations

# The corpus file's header names its format and version (store.corpus writes and checks them;
# store.search.quick reads the header's first bytes without parsing the file).
CORPUS_FORMAT = "papersift-corpus"
CORPUS_VERSION = 2
# The version of store.titles.derive' rules: bump it when they change. A corpus header records the rules its
# derived titles were made with, and the app says once when `papersift retitle` would give better ones.
TITLE_RULES = 16
