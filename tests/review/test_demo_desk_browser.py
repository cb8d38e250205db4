"""The editor's loop on the demo, as a newcomer meets it: `make demo`, then the desk its closing line starts.

docs/review.md's pictures of the desk are taken here, from the demo (DESK_SCREENSHOTS=examples/desk; Chinese and emoji
fonts installed: fonts-noto-cjk, fonts-noto-color-emoji); the note view's (note.png) once the demo has notes.

No API key and no network: the desk process gets a dead proxy for anything but 127.0.0.1, the browser may
reach only the desk (MathJax is served locally), and the regenerate is answered by the demo's stand-in.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from browser import MATHJAX_JS, chromium, new_page, save_screenshot
from demo_folder import DEMO_KEY, closing_command, run_demo_in, store_of
from desk_workspace import fake_browser, wait_for_file
from notes_desk import note_to_picture, picture_note_view
from summarizer.apps.cli import main

pytestmark = pytest.mark.slow  # real Chromium and the desk as a subprocess

SLOW = 30_000  # ms: a generous bound on a shared machine, never a timing claim
EDITED = (
    "本文提出 SketchMesh：先用扩散模型把单张手绘草图补全为六个视角的法线图，再拟合出按部件分区、可直接编辑的"
    "三维网格；在 ShapeNet-Sketch 上 Chamfer distance 比最强基线降低 27%，生成一个网格仅需 9 秒。"
)


@contextmanager
def started(argv: list[str], cwd: Path, browser_program: str) -> Iterator[subprocess.Popen[str]]:
    """The closing line's desk, as printed, with $BROWSER recording what it opens; no key, no way out."""
    env = {k: v for k, v in os.environ.items() if k not in (DEMO_KEY, "OPENAI_API_KEY")}
    env.update(
        BROWSER=browser_program,
        SUMMARIZER_MATHJAX=str(MATHJAX_JS),
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        NO_PROXY="127.0.0.1,localhost",
    )
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr: list[str] = []
    reader = threading.Thread(target=lambda: stderr.extend(process.stderr or []), daemon=True)
    reader.start()
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=20)
        reader.join(timeout=10)
        assert not any("Traceback" in line for line in stderr), stderr


def local_only(page: Any, base: str) -> None:
    """The page may reach the desk and nothing else (MathJax is routed to the local copy first)."""
    page.context.route(lambda url: not url.startswith(base) and not url.startswith("file:"), lambda r: r.abort())


def on_paper(page: Any, ref: str) -> None:
    page.wait_for_selector(f"main#paper[data-paper='{ref}']")
    page.wait_for_selector("body[data-ready='1']")


def flash(page: Any) -> str:
    page.wait_for_selector("#message.ok, #message.error", timeout=SLOW)
    return page.text_content("#message") or ""


def test_make_demo_then_the_desk_approve_reject_edit_regenerate_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, out = run_demo_in(tmp_path, monkeypatch, capsys)  # before the browser: Playwright holds an event loop
    program, seen = fake_browser(tmp_path)
    serve = closing_command(out, "review", "serve")
    with chromium() as browser, started(serve, tmp_path, program) as process, new_page(browser) as page:
        opened = wait_for_file(seen, process).strip()
        base = process.stdout.readline().split("review desk: ", 1)[1].split("/?token=")[0]  # type: ignore[union-attr]
        local_only(page, base)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(opened)
        page.wait_for_selector("#queue")
        page.wait_for_selector("body[data-ready='1']")
        assert page.locator("tr[data-paper]").count() == 4
        save_screenshot(page, tmp_path, "queue.png")
        noted = note_to_picture(store_of(folder), ["ICML2026", "ICLR2026"])
        if noted is not None:  # the note view, pictured from the demo's own notes when it has some
            picture_note_view(page, base, noted, tmp_path)

        page.goto(f"{base}/paper/ICML2026/2612.90010")  # an invented number: regenerate with feedback
        on_paper(page, "ICML2026/2612.90010")
        assert page.locator("#summary mark.flagged").all_text_contents() == ["71.3%"]
        save_screenshot(page, tmp_path, "paper.png")
        page.keyboard.press("g")
        page.keyboard.type("只用论文中出现的数字")
        page.keyboard.press("Control+Enter")
        assert "version 2 written" in flash(page)
        assert page.locator("#summary mark.flagged").count() == 0

        page.goto(f"{base}/paper/ICML2026/2612.90009")  # the near-duplicate: reject it with a note
        on_paper(page, "ICML2026/2612.90009")
        page.keyboard.press("r")
        page.keyboard.type("与 ICML2026/2612.90001 是同一工作的 workshop 版本")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("main#paper:not([data-paper='ICML2026/2612.90009'])")
        assert flash(page).startswith("rejected ICML2026/2612.90009")

        page.goto(f"{base}/paper/ICML2026/2612.90001")  # its twin: no longer a duplicate, approve it
        on_paper(page, "ICML2026/2612.90001")
        assert page.locator("li.warning", has_text="nearly identical").count() == 0
        page.keyboard.press("a")
        page.wait_for_selector("main#paper:not([data-paper='ICML2026/2612.90001'])")

        page.goto(f"{base}/paper/ICLR2026/2612.90011")  # too short: write it out by hand
        on_paper(page, "ICLR2026/2612.90011")
        page.keyboard.press("e")
        page.fill("#edit-form textarea[name=summary]", EDITED)
        save_screenshot(page, tmp_path, "edit.png")
        page.keyboard.press("Control+Enter")
        assert flash(page) == "saved ICLR2026/2612.90011 version 2 (human), waiting for review"

    store = store_of(folder)
    outcomes = {
        ref: (
            r.summaries.status,
            r.summaries.current.origin if r.summaries.current else None,
            r.summaries.current.feedback if r.summaries.current else None,
        )
        for ref in ("ICML2026/2612.90001", "ICML2026/2612.90009", "ICML2026/2612.90010", "ICLR2026/2612.90011")
        for r in [store.load(*ref.split("/"))]
    }
    assert outcomes == {
        "ICML2026/2612.90001": ("approved", "llm", None),
        "ICML2026/2612.90009": ("rejected", "llm", None),
        "ICML2026/2612.90010": ("draft", "llm", "只用论文中出现的数字"),
        "ICLR2026/2612.90011": ("draft", "human", None),
    }
    capsys.readouterr()  # the browser is closed: the CLI may run in this process again
    assert main(["--config", str(folder / "config.yaml"), "review", "list", "ICML2026"]) == 0
    icml = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if "│ 2612." in line}
    assert main(["--config", str(folder / "config.yaml"), "review", "list", "ICLR2026"]) == 0
    iclr = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if "│ 2612." in line}
    assert " approved " in icml["2612.90001"] and " rejected " in icml["2612.90009"]
    assert " draft " in icml["2612.90010"] and "numbers not in" not in icml["2612.90010"]
    assert " draft " in iclr["2612.90011"] and " human " in iclr["2612.90011"]
