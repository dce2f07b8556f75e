"""Documents players read on paper: sequence sheets, the player aid and the book, and the PDF plumbing under them."""
