"""Keeping what the user writes: the annotation store (TinyDB over a journaled, crash-safe storage), the journal, atomic writes, the library lock, backups, note drafts and the undo history's note edits.

Empty on purpose: importing one module of it imports nothing else."""
