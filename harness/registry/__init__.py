"""The capability registry a planner chooses capabilities from."""

from harness.registry._registry import Capability, Registry, load_registry, parse_reference

__all__ = ["Capability", "Registry", "load_registry", "parse_reference"]
