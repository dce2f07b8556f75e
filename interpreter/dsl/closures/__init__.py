"""The rules language compiled to closures: expressions (compiler, lists, operators) and statements."""
