"""bottleneck_opportunity: the root bottleneck of a sub-direction, the one-hop opportunity it unlocks and
the mechanism. ``family`` (public), ``target`` (hidden target), ``builder`` (tasks from window evidence)."""
