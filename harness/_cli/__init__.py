"""The command-line interface: one module per command, glued together in ``main``."""
