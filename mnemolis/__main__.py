from mnemolis.cli.main import main

raise SystemExit(main())
