"""The inspect_ai bridge (``pip install 'foresci[inspect]'``): a foresci release as an inspect ``Task``,
and an inspect eval log imported back into a foresci run folder.

- :func:`foresci.bridges.inspect_ai.task.release_task`: samples are the release's public tasks (brief,
  family contract and answer schema; the hidden targets never enter a sample), the four KB tools are
  inspect tools bound to each sample's cutoff (:mod:`.tools`), and the scorer returns foresci's offline
  metrics for each answer (:mod:`.scorer`), so ``inspect eval`` with any inspect model or agent runs the
  benchmark and its log opens in ``inspect view``.
- :func:`foresci.bridges.inspect_ai.log_import.import_log`: the answers of an inspect log become rows
  of ``answers.jsonl`` under one method, label and version, for ``foresci eval`` and ``foresci report``.

The public side (:mod:`.dataset`, :mod:`.tools`, :mod:`.answers`) never imports hidden targets or the
scoring; only :mod:`.scorer` does (checked by ``tests/foundation/test_layering.py``). Nothing here is
imported by ``import foresci``: inspect_ai is an optional dependency.
"""
