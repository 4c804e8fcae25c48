"""Finding papers by what was typed: the index and its file format, the vocabulary, the query parser, the numpy-free one-shot search, did-you-mean, phrases and keywords.

Empty on purpose: importing one module of it imports nothing else."""
