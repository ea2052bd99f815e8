"""foresci.agents package."""
