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
out of eligible nodes.

Family tasks (``public/tasks/``, :mod:`foresci.rounds.family_tasks`): the option tasks of
direction_forecasting, strategic_planning, venue_positioning and bottleneck_opportunity, ``family_tasks``
per family and window, round-robin over the domains, their option sets drawn from the builders' own
pre-cutoff candidate pools with the round's seed (a release keeps only sets whose window outcome is
decisive; a round cannot know that at open). They resolve at tick with the family's own target code
(``resolutions/tasks-<window>.jsonl``); a set the builder's gates would drop is ``void`` (reason kept, not
scored). Submissions answer them beside the forecasts (``task_answers.jsonl``); ``task_scores.jsonl`` holds
top-1 and FTA (ranking FTA for planning and venue; the offline slot FTA for direction and bottleneck,
:mod:`foresci.rounds.slot_fta`), shown on their own boards. Bottleneck options are the sub-direction's own
pre-cutoff bottlenecks; the opportunity half of that family's question stays an open answer, resolved at
tick and scored through FTA only (:mod:`foresci.rounds.bottleneck_tasks`).

concept_emergence (:mod:`foresci.rounds.emergence_items`, when it is in the ledger's ``families``):
``family_tasks`` ``ce-`` ranking tasks per window round-robin over the domains (one candidate pair from each
stratum of a pre-cutoff score, since the outcome is unknown at open) and ``emergence_questions`` ``ceq-``
binary questions per window after the package's other questions (domains and strata cycled); both resolve
at tick with the family's window count, and the tasks join the top-1/FTA boards, the questions the Brier
board.
"""
