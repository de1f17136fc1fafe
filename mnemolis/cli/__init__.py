"""The `mnemolis` command line: one module a group of commands (the daemon is in `serve`)."""
