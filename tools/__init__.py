"""Programs built on the engine: the command line, flowcharts, sheets, rulebook, simulation reports and diff."""
