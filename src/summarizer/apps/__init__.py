"""The applications over the stages: the command line (``cli``), the review desk (``desk``), the demo
(``demo``) and the evaluation (``evaluate``).  They call the stages and the pipeline; no stage imports them.
"""
