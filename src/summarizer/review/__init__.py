"""Review stage: nothing machine-written is published until a person approves it.

``actions`` (list, approve, reject, edit, the stale-page check), ``editor`` (an edit in
``$EDITOR``), ``importing`` / ``exporting`` (JSONL), and ``desk`` (the review desk in a browser).
Regenerating a summary is the summarize stage's (``summarizer.summarize.regenerate``).
"""
