from mnemolis.cli import main

raise SystemExit(main())
