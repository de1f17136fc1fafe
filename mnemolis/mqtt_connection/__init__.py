"""One MQTT connection (TLS, reconnect, no delay), shared by the MQTT source and the daemon."""
