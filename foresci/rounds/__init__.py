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
holds the question supply of :func:`foresci.tasks.forecast.supply_questions` (``rounds.questions`` items,
default 320, or the ledger's ``questions``): node growth against its previous window and against its domain
share, venue lead (binary), node, venue and limitation-mention counts (numeric), layer by layer over the
domains' nodes (seeded, interleaved across domains), at most ``rounds.node_cap`` per node; every item
carries its naive answer from pre-cutoff papers only.

Family tasks (``public/tasks/``, :mod:`foresci.rounds.family_tasks`): the option tasks of every family in the
ledger's ``families`` with round hooks (``TaskFamily.round_tasks``), ``family_tasks`` per family and window,
round-robin over the domains, their option sets drawn from the builders' own pre-cutoff candidate pools with
the round's seed (a release keeps only sets whose window outcome is decisive; a round cannot know that at
open). They resolve at tick with the family's own code
(``resolutions/tasks-<window>.jsonl``) to an outcome over their options (ties split; "none of these" for
bottleneck and emergence tasks where no option rose or emerged); a set the builder's gates would keep is
also decisive (the family's hidden target); ``void`` only for an outcome-blind reason, named. Submissions
answer them beside the forecasts (``task_answers.jsonl``; probabilities per option or a ranking / choice,
:mod:`foresci.rounds.option_scores`); ``task_scores.jsonl`` holds the multi-class Brier ``mbrier`` and
top-1 of every task and FTA of decisive ones (ranking FTA for planning and venue; the offline slot FTA for
direction and bottleneck, :mod:`foresci.rounds.slot_fta`); top-1 and FTA are shown on their own boards.
Bottleneck options are the sub-direction's own
pre-cutoff bottlenecks; the opportunity half of that family's question stays an open answer, resolved at
tick and scored through FTA only (that family's ``rounds`` module).

The concept-pair family (its own round items, ``TaskFamily.round_items``, when it is in the ledger's
``families``):
``family_tasks`` ``ce-`` ranking tasks per window round-robin over the domains (one candidate pair from each
stratum of a pre-cutoff score, since the outcome is unknown at open) and ``rounds.emergence_questions``
``ceq-`` binary questions per window after the package's other questions (domains and strata cycled, at
most ``rounds.concept_cap`` per concept); both resolve
at tick with the family's window count, and the tasks join the top-1/FTA boards, the questions the Brier
board.
"""
