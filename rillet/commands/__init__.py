"""Subcommands of the `rillet` command line, one module each."""
