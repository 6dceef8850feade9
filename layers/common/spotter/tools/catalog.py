"""The catalog of every declared tool: the `Router`s of the modules in `spotter.tools.leaves`."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache

from spotter.tools.router import Router
from spotter.tools.spec import ToolSpec


class ToolCatalog:
    """Tool specs by `router.action`, plus each router's one-line description."""

    def __init__(self, routers: Iterable[Router]) -> None:
        self.routers: list[Router] = []
        self.specs: dict[str, ToolSpec] = {}
        self.router_descriptions: dict[str, str] = {}
        for router in routers:
            if router.name in self.router_descriptions:
                raise ValueError(f"router {router.name} is declared twice")
            self.routers.append(router)
            self.router_descriptions[router.name] = router.description
            self.specs.update({spec.name: spec for spec in router.specs.values()})


@cache
def load_catalog() -> ToolCatalog:
    """Import every router module in `spotter.tools.leaves` (once) and collect their routers."""
    import spotter.tools.leaves as leaves

    modules = [
        importlib.import_module(f"spotter.tools.leaves.{info.name}")
        for info in sorted(pkgutil.iter_modules(leaves.__path__), key=lambda m: m.name)
    ]
    return ToolCatalog(
        value for module in modules for value in vars(module).values() if isinstance(value, Router)
    )
