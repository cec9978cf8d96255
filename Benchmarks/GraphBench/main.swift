print("graph-bench")
