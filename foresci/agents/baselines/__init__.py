"""Non-LLM forecasters: ``trend`` (momentum, acceleration, venue shares, bottleneck recurrence) and
``persistence`` (the past continues). Both answer every family through the common schemas."""
