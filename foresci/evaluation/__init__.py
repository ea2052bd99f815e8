"""foresci.evaluation: score answers against hidden targets (ForeSci App. C) and report the results.

Metrics are objects: ``metrics/`` holds the ``Metric`` base class, the registry and the ``ScoringContext``
(``metrics/base.py``, ``metrics/context.py``), one module per shipped metric, and the scoring revision
derived from their definitions (``metrics/revision.py``). Every list of metrics below derives from it; a
third-party metric is one module registered through ``FORESCI_EXTENSIONS``.

Computations, one job each:
  ranking.py    ranking-aware FTA (eq. 8-11)
  fta.py        reference-guided FTA (eq. 6-7), target slots, sentence splitting
  fact.py       judged Fact (claim F1) and ``fact_offline``
  trace.py      judged Trace (0.50/0.25/0.25), citation checks, ``trace_offline``
  pers.py       judged reviewer persuasiveness (unavailable offline)
  judges.py     judge prompts (evaluation/judges.yaml), rubrics (evaluation/rubrics.yaml), schemas
  forecast.py   CRPS in log space, coverage, x3/x10, Brier, reliability bins
  stats.py      bootstrap CIs, paired bootstrap p-values, low-score selection, delta_norm
  diagnostics.py low-score rates, correlations, Fact-FTA conflicts, foresight lift
  scoring.py    one answer row over the registry (judge phase, score phase); session.py the contexts
  runner.py     ``evaluate_run``; summary.py ``summary.json``
  report.py     ``write_report`` (HTML + Markdown); plots.py figures

Entry points: ``evaluate_run(run_dir, release_dir, settings, offline)``,
``write_report(run_dirs, out_dir, settings, taxonomy_dirs=())``,
``leaderboard_tables(summary, family, width)``.
This package imports nothing heavy at import time (the CLI imports it for ``--help``).
"""
