import ObservedGraph

print("bookstore")
