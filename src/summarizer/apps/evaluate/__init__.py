"""Evaluate stage: how good the summaries are, in numbers a person can compare.

Public entry points (what the CLI calls):

* ``run.evaluate_venue`` — a venue's summaries scored against a reference file (``eval VENUE --against``);
* ``compare.compare_configs`` — two configurations on the same seeded sample, through the answer cache
  (``eval VENUE --compare A B``).

``reference`` reads and matches the reference, ``metrics`` holds the measures (pure functions),
``scoring`` applies them to one set of summaries, ``results`` is what was found, ``pages``,
``compare_pages``, ``charts`` and ``html`` write the reports.  The stage reads records and writes
only its reports (and, for a comparison, the answer cache through ``summarize.trial``): it never
changes a record, approves or publishes.  This file imports nothing.
"""
