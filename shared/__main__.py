"""``python -m shared`` is the ``biblioteca`` command."""

import sys

from shared.cli import main

sys.exit(main())
