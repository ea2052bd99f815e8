"""foresci.sim package."""
