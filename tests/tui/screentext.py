"""The app's screen as plain text lines, what a person sees (for tests that read the screen)."""

from __future__ import annotations


def screen_lines(app) -> list[str]:
    """Each line of the app's screen, as text (the compositor's own render: what a terminal shows)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]
