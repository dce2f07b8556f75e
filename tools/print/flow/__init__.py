"""The aid's order of play: which lines a long sequence keeps."""
