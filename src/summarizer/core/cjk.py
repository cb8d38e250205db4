"""What "Chinese character" means, in one place: the summary checks, the suspicion checks and the
token estimate all count the same characters.

Han ideographs only: the unified block, its extension A and the compatibility ideographs.  Chinese
punctuation (，。：) and kana are not Chinese characters here: a text of punctuation alone is no
Chinese text.
"""

from __future__ import annotations

import re

CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = re.compile(f"[{CJK_RANGES}]")
