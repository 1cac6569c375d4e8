"""The key bar at the foot of every screen: the keys that can act now, as many as fit.

Textual's own footer lays its keys out as widgets in a row that overflows: at 80 columns the
last keys run into the command palette's and the line garbles. This bar is one line drawn as
text. It lists the bindings of the focused widget, its screen and the app that are shown
(``show=True``) and can act (an action whose ``check_action`` says ``False`` is left out), in
the order they are bound; where they do not all fit, the least important go first (the order
of ``keep``, then the rest in reverse), and help and quit stay to the last. A click on a key
runs its action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import ClassVar

from msgspec import Struct
from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

__all__ = ["LIST_KEYS", "SCROLL_KEYS", "KeyBar", "every_binding", "rebound"]

_GAP = 2


class _Key(Struct, frozen=True):
    key: str
    description: str
    action: str
    node: DOMNode
    binding_id: str | None
    demoted: bool = False
    """Said in other words for now (``KeyBar.relabel``), and not kept longer than any other key."""
    first: bool = False
    """Kept before every other key for now (``KeyBar.first``)."""

    @property
    def width(self) -> int:
        return cell_len(self.key) + 1 + cell_len(self.description)


class KeyBar(Widget):
    """``KeyBar(keep=("app.help", "app.quit", ...))``: binding ids, most important first, that
    stay longest when the line is short."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--description"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        & > .keybar--key { color: $footer-key-foreground; text-style: bold; }
        & > .keybar--description { color: $footer-description-foreground; }
    }
    """

    def __init__(
        self,
        keep: Sequence[str] = (),
        *,
        hints: Sequence[tuple[str, str]] = (),
        relabel: Callable[[str], str | None] | None = None,
        first: Callable[[], Sequence[str]] | None = None,
        id: str | None = None,
    ) -> None:
        """``hints``: ``(key, what it does)`` pairs shown first, for keys a widget handles
        itself (enter in a list), which no binding of the screen names. ``relabel(action)``: what
        a key does now where that is less than its binding says (``x`` where no row is a
        problem), else ``None``; a key said so is not kept longer than the keys not in ``keep``.
        ``first()``: binding ids the state makes the most needed now (``f`` to stop following),
        kept before every other, whatever ``relabel`` says of them."""
        super().__init__(id=id)
        self.first = first
        self.keep = tuple(keep)
        self.hints = tuple(hints)
        self.relabel = relabel
        self._spans: list[tuple[int, int, _Key]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen:
            self.refresh()

    def entries(self) -> list[_Key]:
        """Every key the bar would show with room enough, in order, one per action."""
        found: list[_Key] = [_Key(key, what, "", self, f"hint.{k}") for k, (key, what) in enumerate(self.hints)]
        seen: set[tuple[int, str]] = set()
        first = tuple(self.first()) if self.first is not None else ()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or not active.enabled:
                continue
            what = (id(active.node), binding.action)
            if what in seen:
                continue
            seen.add(what)
            said = self.relabel(binding.action) if self.relabel is not None else None
            found.append(
                _Key(
                    self.app.get_key_display(binding),
                    binding.description if said is None else said,
                    binding.action,
                    active.node,
                    binding.id,
                    demoted=said is not None and binding.id not in first,
                    first=binding.id in first,
                )
            )
        return found

    def fitted(self, width: int) -> list[_Key]:
        """The keys that fit in ``width`` cells, dropping the least important first."""
        keys = self.entries()

        def rank(k: _Key) -> tuple[int, int]:
            if k.first or (k.binding_id is not None and k.binding_id.startswith("hint.")):
                return (0, -1)
            if k.demoted:  # as a key the bar does not keep
                return (1, -keys.index(k))
            if k.binding_id in self.keep:
                return (0, self.keep.index(k.binding_id))
            return (1, -keys.index(k))

        shown = list(keys)
        for victim in sorted(keys, key=rank, reverse=True):
            if sum(k.width for k in shown) + _GAP * (len(shown) - 1) + 2 <= width:
                break
            shown.remove(victim)
        return shown

    def render(self) -> Text:
        key_style = self.get_component_rich_style("keybar--key", partial=True)
        description_style = self.get_component_rich_style("keybar--description", partial=True)
        text = Text(no_wrap=True, overflow="crop", end="")
        text.append(" ")
        self._spans = []
        for k, key in enumerate(self.fitted(self.size.width)):
            if k:
                text.append(" " * _GAP)
            start = text.cell_len
            text.append(key.key, key_style)
            text.append(" ")
            text.append(key.description, description_style)
            self._spans.append((start, text.cell_len, key))
        return text

    async def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                if key.action:
                    await self.app.run_action(key.action, key.node)
                return


# The same moving keys in every list and dialog: j/k a line, g/G the first and the last
# (:mod:`suture.tui.scrolling` binds them to the panes and lists of the screens a key opens).
SCROLL_KEYS: list[BindingType] = [
    Binding("j", "scroll_down", "Down", show=False, id="scroll.down"),
    Binding("k", "scroll_up", "Up", show=False, id="scroll.up"),
    Binding("g", "scroll_home", "Top", show=False, id="scroll.top"),
    Binding("G", "scroll_end", "Bottom", show=False, id="scroll.bottom"),
]
LIST_KEYS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False, id="list.down"),
    Binding("k", "cursor_up", "Up", show=False, id="list.up"),
    Binding("g", "first", "First", show=False, id="list.first"),
    Binding("G", "last", "Last", show=False, id="list.last"),
]


_WITH_BINDINGS = (
    "suture.tui.app",
    "suture.tui.changes",
    "suture.tui.details",
    "suture.tui.evidence",
    "suture.tui.explain",
    "suture.tui.screens",
    "suture.tui.scrolling",
    "suture.tui.sessions",
    "suture.tui.view",
)
"""The modules whose screens and widgets bind keys (imported by :func:`every_binding`)."""


@cache
def every_binding() -> Mapping[str, Binding]:
    """Every binding of suture's screens and widgets that has an id (what a keymap names: see
    :mod:`suture.settings`), by id, as its class binds it. Worked out once (the classes are
    made as their modules load): the help, the palette and the keymap's checks ask often."""
    import importlib

    from textual.dom import DOMNode as Node

    for name in _WITH_BINDINGS:
        importlib.import_module(name)
    found: dict[str, Binding] = {}
    classes = [Node]
    while classes:
        cls = classes.pop(0)
        classes.extend(cls.__subclasses__())
        if not cls.__module__.startswith("suture."):
            continue
        for binding in vars(cls).get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id:
                found.setdefault(binding.id, binding)
    # The app's own first, then each group of ids together (the order each class binds them in).
    return dict(sorted(found.items(), key=lambda item: (item[0].split(".")[0] != "app", item[0].split(".")[0])))


def keys_now(keymap: Mapping[str, str]) -> dict[str, list[str]]:
    """The keys of each binding of :func:`every_binding` once ``keymap`` is applied, as Textual
    applies it: a binding the keymap names has the keymap's keys; any other binding of the same
    place (its id's first part: the app, the panes, a list, a dialog) loses the keys the keymap
    gave to one of them, and may be left with none."""
    from textual.app import App

    given = App._normalize_keymap(dict(keymap))
    now: dict[str, list[str]] = {}
    for name, binding in every_binding().items():
        if name in given:
            now[name] = given[name].split(",")
            continue
        place = name.split(".")[0]
        taken = {k for other, keys in given.items() if other.split(".")[0] == place for k in keys.split(",")}
        now[name] = [k for k in binding.key.split(",") if k not in taken]
    return now


def shadowed(keymap: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    """The keys app bindings have (:func:`keys_now`) that a binding of a widget or dialog has
    too, where ``keymap`` gave either of them the key: where that one acts (its widget has
    focus, its dialog is open), Textual gives the key to it, not to the app's (a priority binding
    of the app's keeps it). By the app binding's id: ``(key, the binding that takes it there)``.
    (Suture's own keys never clash so: only a keymap makes them.)"""
    if not keymap:
        return {}
    from textual.app import App

    given = App._normalize_keymap(dict(keymap))
    bindings = every_binding()
    now = keys_now(keymap)
    others = [(other, keys) for other, keys in now.items() if other.split(".")[0] != "app"]
    found: dict[str, list[tuple[str, str]]] = {}
    for name, keys in now.items():
        if name.split(".")[0] != "app" or bindings[name].priority:
            continue
        for key in keys:
            for other, theirs in others:
                if key in theirs and (name in given or other in given):
                    found.setdefault(name, []).append((key, other))
    return found


def rebound(bindings: Iterable[BindingType], keymap: Mapping[str, str]) -> list[BindingType]:
    """``bindings`` with the keys they have once ``keymap`` is applied (:func:`keys_now`)."""
    if not keymap:
        return list(bindings)
    now = keys_now(keymap)
    return [
        b.with_key(",".join(now[b.id]), key_display=None)
        if isinstance(b, Binding) and b.id in now and now[b.id] != b.key.split(",")
        else b
        for b in bindings
    ]
