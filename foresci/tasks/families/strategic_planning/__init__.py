"""strategic_planning: rank research options for a team planning the window. ``family`` (public),
``target`` (hidden target), ``builder`` (tasks from window evidence)."""
