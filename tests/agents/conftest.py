"""Fixtures for the agents tests: the scripted OpenAI server and settings pointing at it."""

from tests.support.fixtures import llm_settings, scripted_llm  # noqa: F401
