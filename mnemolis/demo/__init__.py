"""The embedded demo home: a local broker, simulated devices, a demo ZIM."""
