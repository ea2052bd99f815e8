"""foresci.taxonomy package."""
