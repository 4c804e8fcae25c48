"""Messages shared between widgets and screens (attributes down, messages up)."""

from __future__ import annotations

from textual.message import Message


class AnnotationsChanged(Message):
    """Annotations changed (this process or another): repaint what shows them."""
