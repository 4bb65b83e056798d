"""The API-check development set (issue 13): the method is in `benchmarks.devset.api_cases`.

`spec` reads the operations, `plants` holds each class's population and its one mistake,
`request` the request a snippet writes, and `python_shapes`, `web_shapes`, `jvm_shapes` the code.
"""
