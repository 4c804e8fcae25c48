"""Taking annotations elsewhere and back: exports in eight formats, records, the annotation files read back, and field-by-field merges.

Empty on purpose: importing one module of it imports nothing else."""
