"""``python -m foresci``: the same as the ``foresci`` command."""

import sys

from foresci.cli import main

sys.exit(main())
