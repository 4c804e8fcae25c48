"""Helpers of the surface tests: the keys of keymap.toml, a driven app session, and the checks
every action must pass (the app still runs, nothing was logged, no error notice appeared)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from store import Library
from tui.app import make_app

from .conftest import DATA, ROOT, wait_workers

SLICE = DATA / "surface_slice.jsonl"  # 1,000 ICML 2024 and 1,000 ICLR 2024 papers (the shared corpora)


def keymap() -> dict[str, dict[str, list[str]]]:
    """keymap.toml: context -> action -> its keys."""
    with open(ROOT / "keymap.toml", "rb") as fh:
        raw = tomllib.load(fh)
    return {ctx: {a: (k if isinstance(k, list) else [k]) for a, k in actions.items()} for ctx, actions in raw.items()}


def every_key() -> list[tuple[str, str]]:
    """Every (action id, key) pair of keymap.toml."""
    return [(f"{ctx}.{a}", k) for ctx, actions in keymap().items() for a, keys in actions.items() for k in keys]


def every_action() -> list[str]:
    return [f"{ctx}.{a}" for ctx, actions in keymap().items() for a in actions]


def library_copy(template: Path, dest: Path) -> Library:
    shutil.copytree(template, dest)
    return Library(dest)


class Drive:
    """One app session on a library, driven through Pilot as a person drives it."""

    def __init__(self, app, pilot, tmp_path: Path) -> None:
        self.app, self.pilot, self.tmp = app, pilot, tmp_path
        self.lib: Library = app.library
        self.seen: set[str] = set()
        self.key_fired = ""  # the action id being driven
        self.opened: list[str] = []  # what the browser was asked to open

    @property
    def main(self):
        return self.app.main_screen

    async def settle(self) -> None:
        await self.pilot.pause()
        await wait_workers(self.app, self.pilot)
        await self.pilot.pause()

    async def press(self, *keys: str) -> None:
        for key in keys:
            await self.pilot.press(key)
            await self.settle()

    async def type(self, text: str) -> None:
        await self.pilot.press(*text)
        await self.settle()

    def key(self, action_id: str) -> str:
        """The first key the live keymap gives the action."""
        return self.app.current_keymap()[action_id].split(",")[0]

    def main_registry_description(self, action_id: str) -> str:
        """What the command palette lists the action as."""
        from tui.keymap import REGISTRY
        return REGISTRY[action_id].description

    async def act(self, action_id: str) -> None:
        await self.press(self.key(action_id))

    def current(self) -> tuple[str, str, int, list[str], str]:
        """The highlighted paper's id and its status, star, tags and note."""
        pid = self.main.current_paper_id()
        assert pid is not None, "no paper is highlighted"
        a = self.lib.annotation(pid)
        return pid, a.status, a.star, list(a.tags), a.note

    def cursor(self) -> int:
        return self.main.results.cursor

    def notices(self) -> list[tuple[str, str]]:
        return [(n.severity, str(n.message)) for n in self.app._notifications]

    def new_notices(self) -> list[str]:
        """The notices shown since the last call (expired ones leave the list: kept by identity)."""
        fresh = [n for n in self.app._notifications if n.identity not in self.seen]
        self.seen |= {n.identity for n in fresh}
        return [str(n.message) for n in fresh]

    def check_healthy(self, what: str) -> None:
        """The app runs, no error notice appeared and nothing went to the library's log."""
        assert self.app.is_running, f"{what}: the app stopped"
        assert self.app._exception is None, f"{what}: {self.app._exception!r}"
        errors = [m for severity, m in self.notices() if severity == "error"]
        assert not errors, f"{what}: error notice {errors}"
        log = self.lib.folder / "papersift.log"
        assert not log.exists(), f"{what}: logged {log.read_text()[-2000:]}"

    async def back_to_list(self) -> None:
        """Close dialogs and leave the reader, search box or tag panel: focus on the list."""
        for _ in range(4):
            if self.app.screen is self.main and self.app.focused is self.main.results:
                return
            await self.press("escape")
        assert self.app.focused is self.main.results, f"focus stays on {self.app.focused!r}"


def app_for(lib: Library, tmp_path: Path):
    return make_app(lib, keymap_path=tmp_path / "no-keymap.toml", settings_path=tmp_path / "settings.json")


async def reopens(lib_folder: Path, tmp_path: Path) -> None:
    """The app starts again on what the last session saved, shows its list and says no error."""
    app = app_for(Library(lib_folder), tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        drive = Drive(app, pilot, tmp_path)
        await drive.settle()
        await drive.pilot.pause(0.05)
        await drive.settle()
        assert len(app.main_screen.results.indices) or not len(app.library), "no list after a restart"
        drive.check_healthy("restart on the saved state")
        await pilot.press(drive.key("app.quit"))
    assert app.return_code == 0, f"restart: exit status {app.return_code}"
