"""Names imported when first used, so that a module's import does not load what only some of
its functions need (the app's first screen does not need the screens a key opens).

``X = deferred("suture.tui.screens", "HelpScreen")`` stands for the class or function until it
is called or one of its attributes is read; then the module is imported (once) and the real
object answers. A type checker sees the real name through an ``if TYPE_CHECKING:`` import beside
it. It does not stand in for a class in ``isinstance`` or a type union: import those directly.

No Textual here: the core may use it too.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["deferred"]


class _Deferred:
    __slots__ = ("_module", "_name")

    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name

    def resolve(self) -> Any:
        """The real object (its module imported on the first call)."""
        return getattr(importlib.import_module(self._module), self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.resolve(), attribute)

    def __repr__(self) -> str:
        return f"<{self._module}.{self._name}, imported when first used>"


def deferred(module: str, name: str) -> Any:
    """``name`` of ``module``, imported when first called or when an attribute of it is read."""
    return _Deferred(module, name)
