"""The command-line interface (typer); the only package that prints or exits."""
