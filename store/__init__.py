"""papersift's data layer: parsing, dedup, corpus, annotations, search, export.

Pure Python: nothing here imports Textual, Rich or the ``tui`` package (a test
enforces it), so the store runs in scripts, tests and benchmarks without a UI.

The names below are imported on first use (PEP 562), not with the package:
``import store.search.quick`` must not pull in numpy and the Library, so a one-shot
``papersift search`` starts fast.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the type checker reads: the real classes, so a call into them is checked
    from store.choices import STATUSES as STATUSES
    from store.errors import CorruptFileError as CorruptFileError
    from store.errors import InputError as InputError
    from store.errors import PapersiftError as PapersiftError
    from store.errors import UnknownPaperError as UnknownPaperError
    from store.library import Library as Library
    from store.models import Paper as Paper
    from store.records import Annotation as Annotation
    from store.search.result import SearchResult as SearchResult

_EXPORTS = {"Library": "library", "SearchResult": "library", "Paper": "models", "Annotation": "records",
            "STATUSES": "models", "PapersiftError": "errors", "InputError": "errors",
            "CorruptFileError": "errors", "UnknownPaperError": "errors"}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:  # one of _EXPORTS, imported on first use
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'store' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
