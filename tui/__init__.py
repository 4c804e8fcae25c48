"""papersift's user interfaces: the command line (:mod:`tui.cli`) and the Textual app."""
