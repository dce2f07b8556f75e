"""Drawing the sequence graph: flowcharts as DOT, the legend, Graphviz runs, the overview and the graph as data."""
