"""papersift's data layer: parsing, dedup, corpus, annotations, search, export.

Pure Python: nothing here imports Textual, Rich or the ``tui`` package (a test
enforces it), so the store runs in scripts, tests and benchmarks without a UI.
"""

from .errors import CorruptFileError, InputError, PapersiftError, UnknownPaperError
from .library import Library, SearchResult
from .models import STATUSES, Annotation, Paper

__all__ = ["Library", "SearchResult", "Paper", "Annotation", "STATUSES",
           "PapersiftError", "InputError", "CorruptFileError", "UnknownPaperError"]
