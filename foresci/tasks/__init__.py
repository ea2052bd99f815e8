"""foresci.tasks package."""
