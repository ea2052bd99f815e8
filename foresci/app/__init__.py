"""The application layer: commands and drivers that use every other layer (the demo, the signal check,
the local-model demo, the transcript and schema commands, shared CLI options). Each package's
``cli.py`` and the root ``foresci/cli.py`` (the entry point) belong to this layer too."""
