"""``python -m tui`` runs the papersift CLI."""

import sys

from .cli import main

sys.exit(main())
