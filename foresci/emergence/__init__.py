"""Concept emergence: which unconnected concept pairs at a cutoff begin to co-occur in the window after it.

Science4Cast-style link prediction over a concept co-occurrence network built from papers up to the cutoff
(vocabulary, network and features read nothing after it), with network baselines, a learned baseline
trained on an earlier cutoff, and AUC / precision@k scoring.
"""
