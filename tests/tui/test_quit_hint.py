"""ctrl+c in the app: Textual's "how to quit" notice, said as plain text (the app's notices are
plain: Textual's own markup in it showed as ``[b]ctrl+q[/b]``)."""

from __future__ import annotations

import pytest

from .screentext import screen_lines


@pytest.mark.parametrize("where", ["list", "search box"])
async def test_ctrl_c_says_how_to_quit_in_plain_text(lib, make, where):
    app = make(lib)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await pilot.pause()
        if where == "search box":
            await pilot.press("slash")
        await pilot.press("ctrl+c")
        await pilot.pause(0.3)
        shown = "\n".join(screen_lines(app))
        assert "Press ctrl+q to quit" in shown, shown
        assert "[b]" not in shown and "[/b]" not in shown
        assert app.is_running  # ctrl+c only says how: it does not quit
