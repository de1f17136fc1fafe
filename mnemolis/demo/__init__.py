"""The embedded default home: a local broker, simulated devices and a demo encyclopedia."""
