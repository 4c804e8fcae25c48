"""Reading papers in: the file formats, size limits, deduplication, the import itself and the titles derived for papers that came without one.

Empty on purpose: importing one module of it imports nothing else."""
