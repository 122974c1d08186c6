"""The footer of every screen: its keys on one line, drawn by one widget.

It shows what Textual's :class:`~textual.widgets.Footer` shows, with the same look (the same
characters and colours, cell for cell: Textual's footer keys' CSS is its components' CSS here),
and the same mouse: a click on a key presses it, hovering a key highlights it and shows its
tooltip. It has no child widgets: nothing is mounted, styled or laid out for each key, and the
line is drawn again only when the keys it shows change (a game asks for a bindings refresh after
every move, and every focus change asks too).

Descriptions and tooltips are declared in English (marked with ``N_``) and translated as they
are drawn (:func:`kc_tui.i18n._`); the line is laid out again for each language, and
:meth:`Footer.language_changed` draws it again at once after a change of language.

When the keys are wider than the line, those that fit are shown whole, in their order, and the
rest are left out: a key is never cut. The keys a player must always find (:data:`ESSENTIAL`:
quitting, the rules, the keys page, the menu or the way back, the hint, the settings) are kept
first; the others take the room left, in their order.

While a dialog without a footer of its own (a modal screen: a summary, a question) is over its
screen, it shows the dialog's keys: the keys that act now, never those of the screen behind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.geometry import Region
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget

from kc_tui import i18n
from kc_tui.i18n import _

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.css.styles import StylesBase
    from textual.screen import Screen

#: What the footer shows of one key: the binding, whether it is enabled, its tooltip and its
#: key as displayed.
Shown = tuple["Binding", bool, str, str]

#: The cells a key's description may take in any language: 12 (with its key and padding, a key
#: of 16 cells: five fill 80 columns), or its English's cells times :data:`DESCRIPTION_GROWTH`
#: when that is more ("Back to the menu").
DESCRIPTION_CELLS = 12
DESCRIPTION_GROWTH = 1.6


def description_cells(english: str) -> int:
    """The cells the description ``english`` may take in any language."""
    return max(DESCRIPTION_CELLS, math.ceil(DESCRIPTION_GROWTH * cell_len(english)))


#: The actions whose keys the footer keeps when not every key fits: how to quit, to read the
#: rules, to see every key, to go back to the menu (or out of a demo or a replay), to ask for a
#: hint at the table and to open the settings from the menu.
ESSENTIAL: frozenset[str] = frozenset(
    {
        "quit",
        "app.quit",
        "rules",
        "app.rules",
        "help",
        "keys",
        "app.keys",
        "menu",
        "app.menu",
        "leave",
        "hint",
        "app.settings",
    }
)


#: The left edge of the command palette's key (Textual's ``vkey`` border).
PALETTE_EDGE = "▏"


def kept(widths: list[int], essential: list[bool], limit: int, margin: int) -> list[int]:
    """Which keys of ``widths`` cells (each but the last followed by ``margin``) a line of
    ``limit`` cells shows, in their order: the essential ones first, then the others in their
    order, each that still fits (all of them, when all fit)."""
    chosen: list[int] = []
    used = -margin
    for i in sorted(range(len(widths)), key=lambda i: not essential[i]):
        if used + margin + widths[i] <= limit:
            chosen.append(i)
            used += margin + widths[i]
    return sorted(chosen)


def shown_text(text: str) -> str:
    """A binding's description or tooltip as shown: in the current language ("" stays "")."""
    return _(text) if text else text


@dataclass(frozen=True)
class FooterSpot:
    """One key as the footer shows it, and where on screen."""

    key: str
    key_display: str
    description: str
    action: str
    disabled: bool
    tooltip: str
    #: The cells of the key on screen (its padding and edge included, its margin not).
    region: Region
    #: Whether it is the command palette's key (at the right end).
    palette: bool = False


@dataclass(frozen=True)
class _Place:
    """A key placed on the footer's line: its offset in the line and its width."""

    shown: Shown
    x: int
    width: int
    palette: bool


class Footer(Widget, can_focus=False, can_focus_children=False):
    """The keys of its screen on one line (see the module's docstring)."""

    ALLOW_SELECT = False

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key",
        "footer-key--hover",
        "footer-key--disabled",
        "footer-key--palette",
        "footer-key--key",
        "footer-key--description",
        "footer-key--palette-key",
        "footer-key--palette-description",
    }

    # ``footer-key`` is a key as a whole (Textual's FooterKey), the others are layered on it.
    DEFAULT_CSS = """
    Footer {
        color: $footer-foreground;
        background: $footer-background;
        dock: bottom;
        height: 1;
        width: 1fr;
        text-wrap: nowrap;

        .footer-key {
            background: $footer-item-background;
            margin: 0;
        }
        .footer-key--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .footer-key--disabled {
            text-style: dim;
        }
        .footer-key--palette {
            padding: 0 1 0 0;
            border-left: vkey $foreground 20%;
        }
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
            padding: 0 1;
        }
        .footer-key--description {
            padding: 0 1 0 0;
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer-key--palette-key {
            padding: 0;
        }
        .footer-key--palette-description {
            padding: 0 0 0 1;
        }

        &.-compact {
            .footer-key {
                margin: 0 1 0 0;
            }
            .footer-key--palette {
                padding: 0;
            }
            .footer-key--key {
                padding: 0;
            }
            .footer-key--description {
                padding: 0 0 0 1;
            }
        }
    }
    """

    compact = reactive(False, toggle_class="-compact")
    """Whether the keys are shown compact (less space around them)."""
    show_command_palette = reactive(True)
    """Whether the command palette's key is shown at the right end (when the app has one)."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        show_command_palette: bool = True,
        compact: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(Footer.show_command_palette, show_command_palette)
        self.set_reactive(Footer.compact, compact)
        self.set_class(compact, "-compact", update=False)
        #: The keys shown (None until the first drawing).
        self._shown: tuple[Shown, ...] | None = None
        #: The keys placed on the line, and the width, keys, compactness and language they were
        #: placed for.
        self._places: tuple[int, tuple[Shown, ...], bool, str, list[_Place]] | None = None
        #: The key under the mouse (its action and whether it is the palette's), if any.
        self._hover: tuple[str, bool] | None = None
        #: Whether a check of the keys is asked for after the next refresh.
        self._check_asked = False
        #: The dialog over the footer's screen whose keys it shows (None: its own screen's).
        self._dialog: Screen[object] | None = None

    # ------------------------------------------------------------------ the keys
    def keys_screen(self) -> Screen[object]:
        """The screen whose keys the footer shows: the dialog over its own screen, if any."""
        return self._dialog if self._dialog is not None and self._dialog.is_attached else self.screen

    def shown_keys(self) -> tuple[Shown, ...]:
        """The keys the footer shows for its screen's bindings as they are now (the dialog's over
        it, :meth:`keys_screen`): the first binding of each action that is shown, then the command
        palette's."""
        app = self.app
        active = self.keys_screen().active_bindings
        keys: list[Shown] = []
        actions: set[str] = set()
        for _key, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                keys.append((binding, enabled, tooltip, app.get_key_display(binding)))
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE and palette is not None:
            binding = palette.binding
            tooltip = binding.tooltip or binding.description
            keys.append((binding, palette.enabled, tooltip, app.get_key_display(binding)))
        return tuple(keys)

    def spots(self) -> list[FooterSpot]:
        """The keys the footer shows, in their order on screen, and where they are."""
        origin = self.content_region
        return [
            FooterSpot(
                key=binding.key,
                key_display=display,
                description=shown_text(binding.description),
                action=binding.action,
                disabled=not enabled,
                tooltip=shown_text(tooltip),
                region=Region(origin.x + p.x, origin.y, p.width, 1),
                palette=p.palette,
            )
            for p in self._placed()
            for binding, enabled, tooltip, display in (p.shown,)
        ]

    def _keys_now(self) -> tuple[Shown, ...]:
        if self._shown is None:
            self._shown = self.shown_keys()
        return self._shown

    @staticmethod
    def _has_palette(keys: tuple[Shown, ...]) -> bool:
        """Whether the last of ``keys`` is the command palette's (the one key shown whose binding
        is not: Textual's palette binding is hidden from the other keys)."""
        return bool(keys) and not keys[-1][0].show

    def _key_width(self, shown: Shown, palette: bool) -> int:
        """The cells a key takes (its margin left out)."""
        binding, _enabled, _tooltip, display = shown
        key, description = self._part_styles(palette)
        width = cell_len(display)
        if binding.description:
            width += key.padding.left + key.padding.right
            width += description.padding.left + cell_len(shown_text(binding.description)) + description.padding.right
        if palette:
            outer = self.get_component_styles("footer-key", "footer-key--palette")
            width += outer.padding.left + outer.padding.right + (1 if outer.border_left[0] else 0)
        return width

    def _placed(self) -> list[_Place]:
        """The keys as placed on the line at its width: the palette's at the right end, the others
        from the left, as many as fit whole before it."""
        keys = self._keys_now()
        width = self.size.width
        language = i18n.current()
        if self._places is not None and self._places[:4] == (width, keys, self.compact, language):
            return self._places[4]
        margin = self.get_component_styles("footer-key").margin.right
        places: list[_Place] = []
        limit = width
        plain = keys
        if self._has_palette(keys):
            plain = keys[:-1]
            w = self._key_width(keys[-1], palette=True)
            if w + margin <= width:
                limit = width - w - margin
                places.append(_Place(keys[-1], limit, w, True))
        widths = [self._key_width(shown, palette=False) for shown in plain]
        x = 0
        left: list[_Place] = []
        for i in kept(widths, [shown[0].action in ESSENTIAL for shown in plain], limit, margin):
            left.append(_Place(plain[i], x, widths[i], False))
            x += widths[i] + margin
        places[:0] = left
        self._places = (width, keys, self.compact, language, places)
        return places

    # ------------------------------------------------------------------ drawing
    def _chain(self, *layers: StylesBase) -> tuple[Color, Color, Style]:
        """The background, colour and text style of ``layers`` over this widget, mixed as
        Textual mixes a widget's over its ancestors' (``DOMNode.rich_style``)."""
        background = Color(0, 0, 0, 0)
        color = Color(255, 255, 255, 0)
        style = Style()
        opacity = 1.0
        for styles in [*(node.styles for node in reversed(self.ancestors_with_self)), *layers]:
            has_rule = styles.has_rule
            opacity *= styles.opacity
            if has_rule("background"):
                text_background = background + styles.background.tint(styles.background_tint)
                background += styles.background.tint(styles.background_tint).multiply_alpha(opacity)
            else:
                text_background = background
            if has_rule("color"):
                color = styles.color
            style += styles.text_style
            if has_rule("auto_color") and styles.auto_color:
                color = text_background.get_contrast_text(color.a)
        return background, color, style

    def _rich(self, *layers: StylesBase) -> Style:
        """The Rich style of ``layers`` over this widget."""
        background, color, style = self._chain(*layers)
        return style + Style.from_color(
            (background + color).rich_color if (background.a or color.a) else None,
            background.rich_color if background.a else None,
        )

    def _part_styles(self, palette: bool) -> tuple[StylesBase, StylesBase]:
        """The styles of a key's key and description."""
        if palette:
            return (
                self.get_component_styles("footer-key--key", "footer-key--palette-key"),
                self.get_component_styles("footer-key--description", "footer-key--palette-description"),
            )
        return self.get_component_styles("footer-key--key"), self.get_component_styles("footer-key--description")

    def _key_text(self, place: _Place) -> Text:
        """One key's cells: its edge, key, description and padding."""
        binding, enabled, _tooltip, display = place.shown
        names = ["footer-key"]
        if place.palette:
            names.append("footer-key--palette")
        if not enabled:
            names.append("footer-key--disabled")
        if self._hover == (binding.action, place.palette):
            names.append("footer-key--hover")
        outer = self.get_component_styles(*names)
        base = self._rich(outer)
        key, description = self._part_styles(place.palette)
        key_style = base + self._rich(outer, key)
        text = Text(no_wrap=True, end="")
        if place.palette:
            # Drawn as Textual draws a widget's border and padding: over the widget's background.
            below, own = self._chain()[0], self._chain(outer)[0]
            plain = Style.from_color(bgcolor=(below + own).rich_color)
            edge, edge_color = outer.border_left
            if edge:
                fg = below + edge_color.multiply_alpha(outer.opacity)
                text.append(PALETTE_EDGE, plain + Style.from_color(fg.rich_color))
        if binding.description:
            kp, dp = key.padding, description.padding
            text.append(" " * kp.left + display + " " * kp.right, key_style)
            words = shown_text(binding.description)
            text.append(" " * dp.left + words + " " * dp.right, base + self._rich(outer, description))
        else:
            text.append(display, key_style)
        if place.palette and outer.padding.right:
            text.append(" " * outer.padding.right, plain)
        return text

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base_background, background = self.background_colors
        inner = Style.from_color(bgcolor=(base_background + background).rich_color)
        if y:
            return Strip.blank(width, inner)
        line = Text(no_wrap=True, end="")
        x = 0
        for place in self._placed():
            if place.x > x:
                line.append(" " * (place.x - x), inner)
            line.append_text(self._key_text(place))
            x = place.x + place.width
        if width > x:
            line.append(" " * (width - x), inner)
        return Strip(line.render(self.app.console), width)

    # ------------------------------------------------------------------ the mouse
    def _spot_at(self, x: int) -> _Place | None:
        for place in self._placed():
            if place.x <= x < place.x + place.width:
                return place
        return None

    def _hover_at(self, place: _Place | None) -> None:
        hover = None if place is None else (place.shown[0].action, place.palette)
        if hover != self._hover:
            self._hover = hover
            self.tooltip = (shown_text(place.shown[2]) or None) if place is not None else None
            self.styles.pointer = "default" if place is None else "pointer"
            self.screen.update_pointer_shape()
            self.refresh()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover_at(self._spot_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover_at(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        place = self._spot_at(event.x)
        if place is None:
            return
        binding, enabled, _tooltip, _display = place.shown
        if enabled:
            self.app.simulate_key(binding.key)
        else:
            self.app.bell()

    # ------------------------------------------------------------------ following the keys
    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.app.screen_change_signal.subscribe(self, self.screen_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
        self.app.screen_change_signal.unsubscribe(self)
        self._follow(None)

    def screen_changed(self, _top: Screen[object]) -> None:
        """A screen was pushed or popped: follow the dialog now over the footer's screen (its
        keys are the ones that act), or the screen itself."""
        if not self.is_attached:
            return
        stack = self.app.screen_stack
        own = self.screen
        top = stack[-1] if stack else own
        dialog = top if own in stack and top is not own and isinstance(top, ModalScreen) else None
        if dialog is not self._dialog:
            self._follow(dialog)
            self._shown = None
            self.refresh()

    def _follow(self, dialog: Screen[object] | None) -> None:
        if self._dialog is not None and self._dialog.is_attached:
            self._dialog.bindings_updated_signal.unsubscribe(self)
        self._dialog = dialog
        if dialog is not None:
            dialog.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Check the shown keys after the next refresh (once however many bindings refreshes were
        asked for meanwhile), and draw them again if they changed."""
        if not screen.app.app_focus or self._check_asked:
            return
        if self.is_attached and screen is self.keys_screen():
            self._check_asked = True
            self.call_after_refresh(self._refresh_if_changed)

    def _refresh_if_changed(self) -> None:
        self._check_asked = False
        if self.is_attached and (keys := self.shown_keys()) != self._shown:
            self._shown = keys
            self.refresh()

    def language_changed(self) -> None:
        """The language changed: lay the keys out again in it (their widths change) and draw them."""
        self._places = None
        self.refresh()

    def watch_show_command_palette(self) -> None:
        self._shown = None
        self.refresh()
