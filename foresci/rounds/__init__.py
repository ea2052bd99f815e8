"""A living benchmark: rounds frozen as the literature arrives, answered by any method, self-resolving.

A *ledger* folder holds one folder per round (``rounds/<round_id>/``):

- ``public/<window>/``: the frozen forecast package of each window (``forecast.jsonl`` + the taxonomy
  snapshots), written by :func:`foresci.tasks.forecast.make_package` from papers announced on or before
  the round's cutoff only; ``round.json`` records the hash of every public file, the opening day (the KB's
  last announcement day), the deadline rule and the windows.
- ``closed.json``: the first KB day after the cutoff (the deadline: submissions are refused from then on).
- ``submissions/<method>/vNNNN/``: each submission version (``forecasts.jsonl`` + ``submission.json`` with
  its sha256 and time stamp); a resubmission is a new version, never an overwrite.
- ``resolutions/<window>.jsonl``: the hidden outcomes, computed only once the KB covers the window's end.
- ``scores.jsonl``: per-item scores of every submission version against the resolutions.

Stratified rule (what a round freezes): for each window in the ledger's ``windows`` (3m, 6m) the package
holds ``questions`` items cycling over the four task families (direction_forecasting -> binary,
strategic_planning -> numeric, bottleneck_opportunity -> numeric, venue_positioning -> binary), each
family's next item taken round-robin over the KB's domains (shuffled nodes, seeded), until a family runs
out of eligible nodes. The families' *public tasks* (the ranked-option tasks of ``tasks build``) are not
frozen in rounds: every family builder selects its tasks and options from the window's own papers (the
hidden targets decide which nodes become tasks), so they cannot be frozen before the window closes without
redesigning the builders; each family enters rounds through its forecast question kind instead.
"""
