from __future__ import annotations

from summarizer.core.sanitize import clean_line, clean_text, has_unsafe_characters, terminal_safe


def test_clean_line_removes_controls_and_bidi_and_joins_lines() -> None:
    hostile = "A\x1b]0;pwned\x07 title\u202e\tover\ntwo\x00 lines\x9b"
    assert clean_line(hostile) == "A]0;pwned title over two lines"
    assert not has_unsafe_characters(clean_line(hostile))


def test_clean_text_keeps_line_breaks() -> None:
    assert clean_text("one\r\ntwo\x1b[2J\u2066three") == "one\ntwo[2Jthree"


def test_terminal_safe_shows_escapes_instead_of_obeying_them() -> None:
    assert terminal_safe("x\x1b[2Jy\u202ez") == "x\\x1b[2Jy\\u202ez"
    assert terminal_safe("中文 plain") == "中文 plain"
