"""`python -m forsy`: the `forsy` command."""

from ._launch import main

main()
