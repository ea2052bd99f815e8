"""venue_positioning: rank venue families for a contribution over the next venue cycle. ``family``
(public), ``target`` (hidden target), ``builder`` (tasks from the venue cycle's evidence)."""
