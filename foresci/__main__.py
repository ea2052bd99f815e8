"""``python -m foresci``: the same as the ``foresci`` command."""

from foresci.cli import main

main()
