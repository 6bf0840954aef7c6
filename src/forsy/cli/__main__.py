from forsy.cli import main

main()
