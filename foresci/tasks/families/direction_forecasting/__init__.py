"""direction_forecasting: from a fixed set of candidate directions, which gains the most momentum in the
window, and its trajectory. ``family`` (public: answer, contract, rendering), ``target`` (hidden target),
``builder`` (tasks from window evidence)."""
