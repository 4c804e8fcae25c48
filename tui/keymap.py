"""Key bindings from keymap.toml: the shipped defaults and a user's overrides.

``keymap.toml`` is the single source of the keys: every ``Binding`` in the app
is made by :func:`binding`, which looks its keys up there by action id
(``"list.cursor_down"``). A user keymap overrides per action; every problem in
it (invalid TOML, unknown action, unknown key name, one key bound to two
actions where both are active) is reported with the file, line and action, and
only the faulty entries are dropped: the app starts with the defaults for them. A key a
text box would take first (a printable key in the search box, ctrl+w in the note editor)
counts as a problem too: bound there, it would never fire.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.keys import REPLACED_KEYS, Keys, format_key, key_to_character

from store.locations import default_keymap_path

if TYPE_CHECKING:
    from textual.widget import Widget

    _WidgetBase = Widget
else:
    _WidgetBase = object  # a mixin: the text box it is mixed into brings the Widget

# Which contexts are active together (a key may not mean two things in one group).
CLASH_GROUPS = (("app", "main", "list"), ("app", "main", "reader"), ("app", "search"), ("app", "tags"),
                ("note",), ("confirm",), ("help",), ("app", "export"), ("app", "import"), ("dashboard",), ("topics",), ("team",))
TEXT_CONTEXTS = ("search", "tags", "note", "import")  # their keys act while a text box has focus
MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}
_NAMED = {k.value for k in Keys} | {"space", "enter", "escape", "tab", "backspace", "delete", "insert"}


@dataclass
class BindingInfo:
    """What the help screen and palette show for an action."""

    id: str
    description: str
    show: bool


REGISTRY: dict[str, BindingInfo] = {}


def _flatten(data: dict[str, Any]) -> dict[str, object]:
    flat = {}
    for ctx, actions in data.items():
        if isinstance(actions, dict):
            for action, keys in actions.items():
                flat[f"{ctx}.{action}"] = keys
        else:
            flat[ctx] = actions  # a malformed top-level entry: reported by validation
    return flat


def _as_keys(value: object) -> list[str] | None:
    if isinstance(value, str) and value.strip():
        return [k.strip() for k in value.split(",") if k.strip()]
    if isinstance(value, list) and value and all(isinstance(k, str) and k.strip() for k in value):
        return [k.strip() for k in value]
    return None


@lru_cache(maxsize=1)
def default_keymap() -> dict[str, list[str]]:
    """The shipped keymap.toml as action id -> keys."""
    data = tomllib.loads(default_keymap_path().read_text(encoding="utf-8"))
    return {k: _as_keys(v) or [] for k, v in _flatten(data).items()}


def binding(action_id: str, description: str, show: bool = True, priority: bool = False,
            action: str | None = None, group: Binding.Group | None = None,
            label: str | None = None) -> Binding:
    """A Binding whose keys come from keymap.toml (``action_id`` is "context.action").

    Args:
        action: the action to run, when it is not the id's action name (e.g.
            "screen.leave_tags": focus changes run on the screen at once,
            not through a message that would arrive after the next key).
        group: shown in the footer as one entry with the neighbouring bindings of the same
            group ("J K Next/prev").
        label: the footer's shorter word for it ("List"), where ``description`` is what help
            and the command palette say ("Back to list").
    """
    keys = default_keymap().get(action_id)
    if not keys:
        raise KeyError(f"{action_id} is not in keymap.toml")
    REGISTRY[action_id] = BindingInfo(action_id, description, show)
    return Binding(",".join(keys), action or action_id.split(".", 1)[1], label or description, show=show,
                   priority=priority, id=action_id, group=group)


def key_label(app: object, action_id: str) -> str:
    """The first key bound to ``action_id`` in ``app``'s live keymap, as hints show it ("esc",
    "ctrl+s", "/"): text such as "press t" must follow a user's keymap like the footer does."""
    live = app.current_keymap() if hasattr(app, "current_keymap") else {}
    keys = (live.get(action_id) or ",".join(default_keymap().get(action_id, []))).split(",")
    return format_key(keys[0]) if keys[0] else "?"


def keys_shown(keys: str) -> str:
    """A keymap entry ("slash", "g,home") as a reader names its keys: "/", "g or home"."""
    return " or ".join(format_key(k.strip()) for k in keys.split(",") if k.strip())


def typed_character(key: str) -> str | None:
    """The character a key types, if any: "r" -> "r", "plus" -> "+", "slash" -> "/", "ctrl+p" -> None.

    Textual's own ``key_to_character`` misses the punctuation keys it renames ("plus" is the
    Unicode "plus_sign"), so its footer offered "+ Star+" while the search box typed the "+".
    """
    if "+" in key and key != "+":
        return None
    return key_to_character(REPLACED_KEYS.get(key, key))


class TypingKeys(_WidgetBase):
    """For a text box: tells Textual that it takes every printable key, the renamed punctuation
    keys too, so the footer and the command bindings leave them to the box."""

    def check_consume_key(self, key: str, character: str | None = None) -> bool:  # (TextArea's has the default)
        return super().check_consume_key(key, character or typed_character(key))


def _taken_by_text_box(ctx: str, key: str) -> bool:
    """True when a key bound in ``ctx`` never reaches its action: a text box has focus there and
    takes it first (a printable key is typed; the note editor keeps its own editing keys, e.g.
    ctrl+w deletes a word). The search box, tag input and import path box bind their keys
    themselves, so only printable keys are lost there."""
    if ctx not in TEXT_CONTEXTS:
        return False
    char = typed_character(key)
    if char is not None and char.isprintable():
        return True
    if ctx == "note":
        from textual.widgets import TextArea  # only for a user's note keys: not at every start
        return key in {k.strip() for b in TextArea.BINDINGS if isinstance(b, Binding)
                       for k in b.key.split(",")}
    return False


def valid_key(key: str) -> bool:
    """A key name Textual understands ("j", "G", "ctrl+p", "pagedown", "question_mark")."""
    *mods, base = key.split("+") if key != "+" else ["+"]
    if any(m not in MODIFIERS for m in mods) or not base:
        return False
    return (len(base) == 1 and base.isprintable() or base in _NAMED
            or key_to_character(REPLACED_KEYS.get(base, base)) is not None)


def _line_of(text: str, ctx: str, action: str) -> int | None:
    """Line number of ``action`` inside table ``[ctx]`` (best effort)."""
    current = None
    for n, line in enumerate(text.splitlines(), start=1):
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m:
            current = m.group(1).strip()
        elif current == ctx and re.match(rf"\s*\"?{re.escape(action)}\"?\s*=", line):
            return n
    return None


def _clashes(keymap: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """(key, action a, action b) pairs bound together in one active group."""
    found = []
    for group in CLASH_GROUPS:
        seen: dict[str, str] = {}
        for action_id, keys in keymap.items():
            if action_id.split(".")[0] not in group:
                continue
            for key in keys:
                other = seen.get(key)
                if other and other != action_id:
                    found.append((key, other, action_id))
                seen[key] = action_id
    return list(dict.fromkeys(found))


MAX_KEYMAP_BYTES = 64 * 1024  # ours is ~2.5 KB; a bigger file is a mistake (or a trap)
MAX_KEY_NAME = 32  # "ctrl+shift+pagedown" is 19
MAX_KEYS_PER_ACTION = 8


def load_keymap(user_path: Path | None) -> tuple[dict[str, str], list[str]]:
    """Merge a user keymap over the defaults.

    Returns:
        (keymap for ``App.set_keymap``: id -> "k1,k2", list of problems to show).
    """
    merged = {k: list(v) for k, v in default_keymap().items()}
    if user_path is None or not user_path.exists():
        return _joined(merged), []
    read = _read_user_keymap(user_path)
    if isinstance(read, str):
        return _joined(merged), [read]
    text, data = read
    problems: list[str] = []
    overrides: dict[str, list[str]] = {}
    for action_id, value in _flatten(data).items():
        ctx, _, action = action_id.partition(".")
        line = _line_of(text, ctx, action)
        loc = f"{user_path}" + (f", line {line}" if line else "")
        keys, problem = _checked_keys(action_id, value, merged)
        if problem:
            problems.append(f"{loc}: {problem}")
        elif keys is not None:
            overrides[action_id] = keys
    trial = {**merged, **overrides}
    for key, a, b in _clashes(trial):
        culprit = b if b in overrides else a if a in overrides else None
        if culprit is None:
            continue
        ctx, _, action = culprit.partition(".")
        line = _line_of(text, ctx, action)
        other = a if culprit == b else b
        problems.append(f"{user_path}" + (f", line {line}" if line else "") +
                        f": key {key!r} is bound to both {other} and {culprit}; keeping the default for {culprit}")
        overrides.pop(culprit, None)
    merged.update(overrides)
    _toggles_follow(merged, overrides)
    return _joined(merged), problems


# A screen's own key closes it too: (the key that opens it, the close action that also takes it).
TOGGLES = (("app.help", "help.close"), ("app.dashboard", "dashboard.close"), ("app.team", "team.close"),
           ("main.topics", "topics.close"))


def _toggles_follow(merged: dict[str, list[str]], overrides: dict[str, list[str]]) -> None:
    """Where the user rebound the key that opens a screen (``team = "W"``) and not that screen's
    close, the close takes the new key in place of the old one (``w`` no longer closes the team
    screen that ``W`` opened, and ``W`` does)."""
    defaults = default_keymap()
    for opener, closer in TOGGLES:
        if opener in overrides and closer not in overrides:
            old = set(defaults[opener])
            ctx = closer.partition(".")[0] + "."
            taken = {k for a, keys in merged.items() if a.startswith(ctx) and a != closer for k in keys}
            kept = [k for k in merged[closer] if k not in old]
            merged[closer] = kept + [k for k in merged[opener] if k not in kept and k not in taken]


def _joined(keymap: dict[str, list[str]]) -> dict[str, str]:
    return {k: ",".join(v) for k, v in keymap.items()}


def _read_user_keymap(user_path: Path) -> tuple[str, dict[str, object]] | str:
    """The user's keymap file, as text and as TOML, or the problem that keeps the default keys."""
    try:
        size = user_path.stat().st_size
        if size > MAX_KEYMAP_BYTES:
            return (f"{user_path}: {size:,} bytes; a keymap is at most {MAX_KEYMAP_BYTES // 1024} KB "
                    "(using the default keys)")
        text = user_path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        return f"{user_path}: cannot read ({exc}); using the default keys"
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        where = f", line {m.group(1)}" if m else ""
        return f"{user_path}{where}: invalid TOML ({exc}); using the default keys"


def _checked_keys(action_id: str, value: object, merged: dict[str, list[str]]) -> tuple[list[str] | None, str]:
    """A user's keys for an action, or what is wrong with them (said after the file and line)."""
    if action_id not in merged:
        return None, f"unknown action {action_id!r} (see the help screen for action ids)"
    keys = _as_keys(value)
    if keys is None:
        return None, f"{action_id} must be a key or a list of keys"
    if len(keys) > MAX_KEYS_PER_ACTION:
        return None, (f"{action_id}: {len(keys):,} keys; an action takes at most {MAX_KEYS_PER_ACTION} "
                      f"(keeping the default for {action_id})")
    long = [k for k in keys if len(k) > MAX_KEY_NAME]
    if long:
        return None, (f"{action_id}: a key name of {len(long[0]):,} characters "
                      f"({long[0][:20]!r}…); key names are at most {MAX_KEY_NAME} (keeping the default)")
    bad = [k for k in keys if not valid_key(k)]
    if bad:
        return None, f"{action_id}: unknown key name {bad[0]!r}"
    ctx = action_id.partition(".")[0]
    lost = [k for k in keys if _taken_by_text_box(ctx, k)]
    if lost:
        return None, (f"{action_id}: key {lost[0]!r} would never reach it (the text box there "
                      f"takes it: typing or its own editing keys); keeping the default for {action_id}")
    return keys, ""
