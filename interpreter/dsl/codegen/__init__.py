"""Hot expressions turned into Python source: the generator, when to generate (hotcode) and the check of every source (safesource)."""
