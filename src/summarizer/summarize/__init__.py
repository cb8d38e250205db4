"""Summarize stage: the model writes each paper's Chinese summary, tags and field, as a draft (and its note).

Public entry points (what the pipeline, the CLI and the review desk call):

* ``plan.start_run`` — a venue's run of a ``task.Task`` (summaries; ``note_task.NoteTask``: notes);
* ``online.answer_online`` — the run's picked papers asked of the model, ``llm.max_concurrency`` at a time;
* ``batch.answer_batch`` — the same papers through the provider's Batch API;
* ``online.regenerate`` — one paper again, with an editor's feedback; ``notes.regenerate_note`` its note (the
  desk takes the steps of their ``Regeneration``, ``SUMMARIES`` or ``NOTES``, to hold the venue's lock only to
  save);
* ``batch_state.batch_rows`` — a venue's submitted batches, for ``status``;
* ``trial.answer_without_saving`` — answers for a sample of papers that touch no record, through the
  answer cache (``summarizer eval --compare``).

``plan`` is what online and batch share (which papers, their prompts, saving answers); ``llm`` the
transport (pacing, retries, re-asks); ``answer`` what the model must answer; ``prompts`` the
templates; ``answer_cache`` the answers kept.  This file imports nothing: ``status`` reads the
batch state without paying for the OpenAI client's import (about 0.4 s).
"""
