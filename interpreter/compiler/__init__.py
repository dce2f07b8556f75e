"""The compiled engine: a sequence's stretches of steps and their expressions written as Python source and run
(`Game(engine="compiled")`); the closures of dsl/closures are the reference it is compared with."""
