"""Titles for papers that came without one: the derivation (:mod:`.derive`), its phrase rules
(``claims``, ``contribution``, ``ends``, ``expansion``, ``glosses``, ``names``, ``phrases``,
``text``), the library-wide pass (:mod:`.library`) and how a derived title is recognised
(:mod:`.kinds`). Below the file formats (a BibTeX export writes a whole derived title) and above
the text helpers. Empty on purpose: importing one module imports nothing else."""
