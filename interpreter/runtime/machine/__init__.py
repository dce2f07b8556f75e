"""What runs a compiled game: its programs of instructions, the loop that runs them, generated code for hot stretches."""
