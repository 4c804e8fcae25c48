"""File machinery every part of the store writes through: atomic, private (0600) writes, reads
that never follow a link, and the library lock. Empty on purpose: importing one module imports
nothing else."""
