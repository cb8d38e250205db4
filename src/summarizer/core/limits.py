"""Every size bound on text from outside, defined once.

What is stored in a record (fetched, imported or typed) is cut or refused at these lengths,
whichever way it arrives, so an export always imports again.  What is shown in a message is
clipped to the ``SHOWN_*`` lengths: ids, titles and provider texts can be any length.
"""

from __future__ import annotations

# Stored in a record, in characters.
TITLE = 500
AUTHORS = 500  # names a paper; each name is bounded like a title
AUTHOR = 500
ABSTRACT = 20_000
URL = 2_000
SOURCE_ID = 200  # a paper's id at its source, the source's decision label
TAG = 40
TAGS = 5
REVIEW_NOTE = 2_000  # a reviewer's note, an editor's feedback for a regeneration
HUMAN_SUMMARY = 2_000
NOTE = 11_000  # a whole note (header and sections); the reference's longest of 3,484 is 10,905
NOTE_FILE = 200_000  # bytes of a note file read by an import (a note past NOTE is refused anyway)
RAW_OUTPUT = 20_000  # the model's last answer, kept with a paper's failure

# Shown in a message or on the terminal, in characters.
SHOWN_ID = 80  # ids, titles, paths quoted in a one-line message
SHOWN_VALUE = 60  # a rejected value echoed back in a validation message
SHOWN_PROVIDER = 300  # a server's or provider's own words
SHOWN_MESSAGE = 1_000  # a whole message line
SOURCE_MESSAGE = 600  # a source's error line, which may quote a server

# Quoted back to the model in a re-ask (online or after a batch), in characters: its previous answer is cut
# (with a mark saying so) and each problem with it clipped, so a runaway answer cannot make the next prompt
# huge.  A whole valid answer (a summary of at most 600 characters, tags, field) is well under the bound, and
# a whole note's answer (its JSON, at most NOTE characters of text) under REASK_NOTE_ANSWER.
REASK_ANSWER = 4_000
REASK_NOTE_ANSWER = 16_000
REASK_PROBLEM = 300
REASK_PROBLEMS = 20

# The house style of a summary, calibrated to the reference, so drafts read like its pages.  Measured on
# papernotes.org's one-line summaries (the 一句话总结 of its 3,484 notes, zhaoyang97/Paper-Notes at
# 2faf8a0): Chinese characters p5 43, median 73, p95 101; all characters p5 73, median 131, p95 202.
# Its two seed pages agree (61-120 Chinese characters, p10-p90).  The prompt asks for this range
# (prompts/system.md.j2 reads these names), the style warning flags a summary outside it
# (core/rules.py), and `review list` and the review desk show that warning.  The hard bounds that
# reject broken output (rules.MIN_CHARS, rules.MAX_CHARS) are not these and stay as they are.
HOUSE_CJK_LOW = 43  # Chinese characters (Han ideographs, core/cjk.py), p5 of the reference
HOUSE_CJK_MEDIAN = 73
HOUSE_CJK_HIGH = 101  # p95
HOUSE_CHARS_LOW = 73  # every character, English terms, digits and math included: p5
HOUSE_CHARS_MEDIAN = 131
HOUSE_CHARS_HIGH = 202  # p95
# Chinese among letters and Chinese characters: the reference's one-liners go down to about a third
# (0.32 on the seed page, whose summaries keep many English names); below a quarter only its
# untranslated "基于摘要" stubs (0.02).
HOUSE_MIN_CJK_SHARE = 0.25

# A reference file for `summarizer eval` (the import format plus a few keys of its own), in characters.
REFERENCE_KEYWORDS = 30  # a line's keywords
REFERENCE_KEYWORD = 100  # one keyword
REFERENCE_LINES = 200_000  # lines of one reference file (the reference site has 3,484 notes)
