"""The footer of every screen: Textual's, composed with its keys at once and recomposed only when
the keys it shows change.

Textual's footer composes empty, then mounts its keys again after every bindings refresh, once
per refresh asked for (a game asks after every move and every focus change asks too): each time
every key is styled again and the screen laid out again. This one shows the same keys, with the
same look, and does that work only when there is something new to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.binding import Binding
    from textual.screen import Screen

#: What the footer shows of one key: the binding, whether it is enabled, its tooltip and its
#: key as displayed.
Shown = tuple["Binding", bool, str, str]


class Footer(TextualFooter):
    """A footer of the keys of its screen (Textual's :class:`~textual.widgets.Footer`)."""

    #: The keys composed last (None before the first composition).
    _composed: tuple[Shown, ...] | None = None
    #: Whether a recomposition is asked for after the next refresh.
    _recompose_asked: bool = False

    def shown_keys(self) -> tuple[Shown, ...]:
        """The keys the footer shows for its screen's bindings as they are now."""
        app = self.app
        active = self.screen.active_bindings
        keys = [
            (binding, enabled, tooltip, app.get_key_display(binding))
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        ]
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE and palette is not None:
            keys.append((palette.binding, palette.enabled, palette.tooltip, app.get_key_display(palette.binding)))
        return tuple(keys)

    def compose(self) -> ComposeResult:
        self._bindings_ready = True  # the screen's bindings are known once it composes its widgets
        self._composed = self.shown_keys()
        for widget in super().compose():
            if self.compact and isinstance(widget, FooterKey):
                # Styled compact from the start, not restyled when its bound ``compact`` is set.
                widget.add_class("-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Recompose after the next refresh when the shown keys have changed (once however many
        bindings refreshes were asked for meanwhile)."""
        self._bindings_ready = True
        if not screen.app.app_focus or self._recompose_asked:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_asked = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._recompose_asked = False
        if self.is_attached and self.shown_keys() != self._composed:
            await self.recompose()
