"""foresci.kb package."""
