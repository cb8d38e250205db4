"""Turn an existing MkDocs digest (one Markdown note per paper) into `summarizer import` lines.

The old site keeps one note per paper at docs/<VENUE>/<FOLDER>/<paper>.md:

    # <title>
    - arXiv: https://arxiv.org/abs/2505.01234      (optional)
    - Keywords: LLM, 分词                           (optional)
    ## 一句话总结
    <the summary: one paragraph, sometimes wrapped over several lines>

Usage: python convert.py OLD_SITE/docs > notes.jsonl
"""

import json
import re
import sys
from pathlib import Path

FIELDS = {"pretraining": "llm_pretraining", "reasoning": "llm_reasoning"}  # old folder -> field id in config.yaml


def note_to_line(path: Path, venue: str, folder: str) -> dict:
    text = path.read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", text, re.M)
    arxiv = re.search(r"^- arXiv: (\S+)$", text, re.M)
    keywords = re.search(r"^- Keywords: (.*)$", text, re.M)
    summary = re.search(r"^## 一句话总结\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    line = {
        "venue": venue,
        "title": title.group(1).strip() if title else path.stem,
        "summary": summary.group(1).strip() if summary else "",
        "tags": [t.strip() for t in keywords.group(1).split(",") if t.strip()] if keywords else [],
        "field": FIELDS.get(folder, folder),  # an unmapped folder is reported by the import
        "status": "approved",  # the old site published it
    }
    if arxiv:
        line["url"] = arxiv.group(1)
    return line


def main(docs: Path) -> None:
    for path in sorted(docs.glob("*/*/*.md")):
        venue, folder = path.parent.parent.name, path.parent.name
        print(json.dumps(note_to_line(path, venue, folder), ensure_ascii=False))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
