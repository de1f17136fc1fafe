"""The embedded default home: a demo broker, simulated devices and a demo encyclopedia."""
