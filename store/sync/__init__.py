"""A lab's library kept in sync through a git remote: the `git` program run with bounded waits
(:mod:`.git_remote`) and the sync itself (:mod:`.library_sync`), a use case above the library.
Empty on purpose: importing one module imports nothing else."""
