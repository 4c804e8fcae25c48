"""The main screen's thresholds and delays (module attributes, so a test can set them)."""

# Papers above which the reader and "more like this" wait for a pause and a helper builds the model.
BIG_LIBRARY = 2000
AUTO_MODEL_MAX = 100_000   # papers; above this the similarity model is built only when asked for (m)
# Papers above which more-like-this lookups run in a helper process (store.discovery.lookups): at
# 300k a lookup takes 20-30 ms there, on the other core, while the app draws the paper it is for.
LOOKUP_HELPER = 100_000
SIMILAR_DELAY = 0.15       # seconds: the least pause "more like this" waits for in a burst of typing
# Keys typed in the search box less than this apart are a burst (more are coming): in a big
# library the reader and its more-like-this lookup wait for a pause then; a key typed after a
# pause brings the reader with the list, and its lookup once that frame is drawn.
TYPING_BURST = 0.25         # seconds: 40 words a minute is a key every ~0.3 s
READER_DELAY = 0.05        # seconds: in a burst, the reader follows the search results once typing pauses
INLINE_SEARCH_SECONDS = 0.015  # searches quicker than this run on the UI thread (see tui.controllers.search)
# A "phrase" in a big library waits this long in its worker before searching, and is dropped if a
# key came meanwhile: a worker cannot be stopped once it runs, and typing '"capacity' at 300k
# papers ran a search per key (each ~0.3 s; 1.5 s after the last key, where one search takes 0.5 s).
PHRASE_SETTLE = 0.12        # seconds: a key every 125 ms is brisk typing
