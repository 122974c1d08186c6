"""The base of the app's modal dialogs: the dialog's box in the middle of the screen, its border
and its background. A dialog sets its box's width and padding, and any look of its own."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class Modal(ModalScreen[ResultT]):
    """A modal dialog whose box (its one ``Vertical`` or ``VerticalScroll`` child) is centred,
    as tall as its contents, with the accent's thick border on the panel's background."""

    DEFAULT_CSS = """
    Modal { align: center middle; }
    Modal > Vertical, Modal > VerticalScroll { height: auto; border: thick $accent; background: $panel; }
    """


__all__ = ["Modal"]
