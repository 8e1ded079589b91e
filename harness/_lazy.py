"""Package attributes imported on first use (PEP 562), so that importing a package for its
light parts does not import its heavy ones."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, lazy: Mapping[str, tuple[str, ...]], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``lazy`` maps each submodule (relative,
    ``_runner``) to the names it exports; a name is imported from it when first read, then kept
    in ``namespace`` (the package's ``globals()``). ``__dir__`` lists the package's names and its
    ``__all__``."""
    module_of = {name: module for module, names in lazy.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __getattr__, __dir__
