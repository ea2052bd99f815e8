"""Bridges to other evaluation frameworks: a foresci release run by another harness, and that harness's
results brought back as foresci answer rows (:mod:`foresci.bridges.inspect_ai`)."""
