"""`mnemolis serve`: the daemon and its front-ends (HTTP, Wyoming, MQTT, Hermes).

`daemon` owns the one long-lived assistant (and the announcer every
generation of it shares); each front-end module turns its protocol into
`Daemon.ask` calls with the requester's `Origin`: `http_api` (on aiohttp,
guarded by `http_server`, with `http_events` for ``GET /events``),
`wyoming_service` (its events read and written by `wyoming_events`),
`mqtt_api` and `hermes` (on `mqtt_client`'s connection). `announcements`
takes what the assistant says first back to the requester's front-end.
`requests` and `wire` read requests strictly (a bounded JSON depth) and write
replies that always encode; `web_guard` keeps web pages out of the HTTP API
(Host, Origin, Content-Type); `sessions` keys each front-end's sessions by
its name; `token_file` is the daemon's own token, which the CLI reads too;
`listeners` opens sockets with errors that say where, under the open-file
limit, and counts connections per client; `log_limit` keeps a flood of one
line out of the journal;
`settings` reads `sources/serve.yaml` and the flags; `command` wires it all
together and handles the signals. `client` is the CLI's side: `mnemolis ask`
and `chat` through a running daemon, on the standard library alone.
"""
