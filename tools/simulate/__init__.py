"""Many games at once: runs and where they execute, aggregation, metrics, reports and seed-matched comparison."""
