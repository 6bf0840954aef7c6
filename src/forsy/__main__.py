"""`python -m forsy`: the `forsy` command."""

from .cli import main

main()
