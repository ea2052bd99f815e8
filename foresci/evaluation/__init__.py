"""foresci.evaluation package."""
