"""Tests of the sentence encoders (foresci.embedders)."""
