"""foresci: research foresight benchmarks with cutoff-aligned knowledge bases."""

__version__ = "0.1.0"
