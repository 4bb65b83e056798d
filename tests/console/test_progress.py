"""Progress off a terminal: whole lines now and then, never a bar's carriage-return redraws."""

from __future__ import annotations

import io

from atlas_core.console import PlainProgress, progress_bar


def test_off_a_terminal_progress_is_a_line_each_tenth_and_one_at_the_end() -> None:
    out = io.StringIO()
    with progress_bar(200, "embedding [onnx-cpu]", " chunks", stream=out) as bar:
        assert isinstance(bar, PlainProgress)  # a StringIO is no terminal
        for _ in range(100):
            bar.update(2)
    text = out.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[:2] == [
        "embedding [onnx-cpu]: 20/200 chunks (10%)",
        "embedding [onnx-cpu]: 40/200 chunks (20%)",
    ]
    assert len(lines) == 10  # 10% .. 90%, then the closing line
    assert lines[-1].startswith("embedding [onnx-cpu]: 200/200 chunks (100%), done in ")


def test_a_big_step_prints_one_line_and_postfix_facts_follow_the_count() -> None:
    out = io.StringIO()
    bar = progress_bar(10, "crawl", "page", stream=out)
    bar.update(5)
    bar.set_postfix(errors=1, refresh=False)
    bar.update(4)
    bar.close()
    bar.close()  # closing twice prints once
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["crawl: 5/10 page (50%)", "crawl: 9/10 page (90%), errors=1"]
    assert len(lines) == 3 and lines[2].startswith("crawl: 9/10 page (90%), errors=1, done in ")


def test_disabled_progress_prints_nothing() -> None:
    out = io.StringIO()
    with progress_bar(10, "crawl", "page", enabled=False, stream=out) as bar:
        bar.update(10)
    assert out.getvalue() == ""
