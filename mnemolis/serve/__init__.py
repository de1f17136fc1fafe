"""`mnemolis serve`: the daemon and its front-ends (HTTP, Wyoming, MQTT, Hermes).

`daemon` owns the one long-lived assistant; each front-end module turns its
protocol into `Daemon.ask` calls; `settings` reads `sources/serve.yaml` and
the flags; `command` wires them together and handles the signals.
"""
