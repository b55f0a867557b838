#!/usr/bin/env python3
"""networkx cross-check for the pairing solver (run by tests/it/pairing/networkx.rs).

Reads JSON {"graphs": [{"n": N, "edges": [[u, v, cost], ...]}, ...]} on stdin and prints
JSON [objective or null, ...]: the minimum total cost of a perfect matching of each graph
(null when there is none), via max_weight_matching(maxcardinality=True) on negated costs.
Exit code 3 when networkx is not installed, so the Rust test can skip cleanly.
"""
import json
import sys

try:
    import networkx as nx
except ImportError:
    sys.exit(3)


def solve(g):
    graph = nx.Graph()
    graph.add_nodes_from(range(g["n"]))
    for u, v, c in g["edges"]:
        graph.add_edge(u, v, weight=-c)
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(mate) != g["n"]:
        return None
    return sum(graph[u][v]["weight"] for u, v in mate) * -1


def main():
    data = json.load(sys.stdin)
    print(json.dumps([solve(g) for g in data["graphs"]]))


if __name__ == "__main__":
    main()
