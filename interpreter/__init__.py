"""rulecraft: a rules-as-data engine for tabletop games (the engine; installed as `rulecraft`)."""

__version__ = "0.1.0"
