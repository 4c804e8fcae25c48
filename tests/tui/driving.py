"""Driving the app in the tests of tests/tui/: the main screen, the paper under the cursor,
waiting for the app to settle or for a condition, and typing a search."""

from __future__ import annotations

from ..conftest import wait_workers


def screen(app):
    return app.main_screen


def cur(app):
    """(paper id, annotation) under the cursor."""
    idx = screen(app).results.current_index
    pid = app.library.corpus.papers[idx].id
    return pid, app.library.annotation(pid)


async def settle(pilot):
    await pilot.pause()
    await wait_workers(pilot.app)
    await pilot.pause()


async def until(pilot, check, seconds: float = 10.0) -> None:
    """Wait (in 50 ms steps) until ``check()`` holds: for what a worker or a timer brings, whose
    time a busy machine stretches (a fixed pause failed there)."""
    for _ in range(int(seconds / 0.05)):
        await pilot.pause(0.05)
        if check():
            return
    raise AssertionError(f"not within {seconds:g} s")


async def type_search(app, pilot, text: str):
    """Type ``text`` into the search box at once, wait for the search, and give the results list."""
    await pilot.press("slash", *text)
    await wait_workers(app, pilot)
    await settle(pilot)
    return screen(app).results
